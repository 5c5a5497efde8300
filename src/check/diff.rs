//! Two builds compared anchor by anchor, screen by screen: what a redesign removed, added,
//! relabelled, gave another role or moved to another region, with the journeys that use each.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{BuildCheck, Presence, ScreenCheck};

/// What changed between two builds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Diff {
    /// Every change, screen by screen in registry order.
    pub changes: Vec<Change>,
}

/// One change of one anchor on one screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// What kind of change.
    pub kind: ChangeKind,
    /// The screen.
    pub screen: String,
    /// The anchor.
    pub anchor: String,
    /// What it was, where that says something (a label, a role, a region).
    pub was: Option<String>,
    /// What it is now.
    pub now: Option<String>,
    /// The journeys that name the anchor, as `file:line`.
    pub used_by: Vec<String>,
}

/// The kinds of change, in the order a reviewer reads them: what breaks journeys first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The screen could be read on the first build and not on the second.
    ScreenLost,
    /// A declared anchor found on the first build is missing on the second.
    Removed,
    /// A declared anchor is on more than one control on the second build.
    Ambiguous,
    /// Its words on screen changed.
    Relabelled,
    /// Its role changed.
    RoleChanged,
    /// It moved to another region.
    Moved,
    /// On the second build and not the first: a declared anchor now found, or a control
    /// no declared anchor covers.
    Added,
}

impl ChangeKind {
    /// The word a report shows.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::ScreenLost => "screen lost",
            ChangeKind::Removed => "removed",
            ChangeKind::Ambiguous => "ambiguous",
            ChangeKind::Relabelled => "relabelled",
            ChangeKind::RoleChanged => "role changed",
            ChangeKind::Moved => "moved",
            ChangeKind::Added => "added",
        }
    }

    /// Whether a journey that uses the anchor breaks.
    pub fn breaks(self) -> bool {
        matches!(
            self,
            ChangeKind::ScreenLost | ChangeKind::Removed | ChangeKind::Ambiguous
        )
    }
}

/// `base` against `other`, with `usage` (anchor → `file:line`s of the journeys naming it).
pub fn compare(
    base: &BuildCheck,
    other: &BuildCheck,
    usage: &BTreeMap<String, Vec<String>>,
) -> Diff {
    let mut changes = Vec::new();
    let used = |anchor: &str| usage.get(anchor).cloned().unwrap_or_default();
    for was in &base.screens {
        let Some(now) = other.screens.iter().find(|s| s.screen == was.screen) else {
            continue;
        };
        let change = |kind, anchor: &str, from: Option<&str>, to: Option<&str>| Change {
            kind,
            screen: was.screen.clone(),
            anchor: anchor.to_string(),
            was: from.map(str::to_string),
            now: to.map(str::to_string),
            used_by: used(anchor),
        };
        if was.skipped.is_none() && now.skipped.is_some() {
            for a in &was.anchors {
                changes.push(change(
                    ChangeKind::ScreenLost,
                    &a.anchor,
                    None,
                    now.skipped.as_deref(),
                ));
            }
            continue;
        }
        for a in &was.anchors {
            let Some(b) = now.anchors.iter().find(|b| b.anchor == a.anchor) else {
                continue;
            };
            match (a.state, b.state) {
                (Presence::Found, Presence::Missing) => {
                    changes.push(change(ChangeKind::Removed, &a.anchor, None, None));
                }
                (_, Presence::Ambiguous) if a.state != Presence::Ambiguous => {
                    let count = b.count.to_string();
                    changes.push(change(ChangeKind::Ambiguous, &a.anchor, None, Some(&count)));
                }
                (Presence::Missing, Presence::Found) => {
                    let label = b.seen.as_ref().map(|s| s.label.as_str());
                    changes.push(change(ChangeKind::Added, &a.anchor, None, label));
                }
                (Presence::Found, Presence::Found) => {
                    let (Some(x), Some(y)) = (&a.seen, &b.seen) else {
                        continue;
                    };
                    for (kind, from, to) in [
                        (ChangeKind::Relabelled, &x.label, &y.label),
                        (ChangeKind::RoleChanged, &x.role, &y.role),
                        (ChangeKind::Moved, &x.region, &y.region),
                    ] {
                        if from != to {
                            changes.push(change(kind, &a.anchor, Some(from), Some(to)));
                        }
                    }
                }
                _ => {}
            }
        }
        for seen in undeclared_added(was, now) {
            changes.push(change(
                ChangeKind::Added,
                &seen.anchor,
                None,
                Some(&seen.label),
            ));
        }
    }
    Diff { changes }
}

/// The undeclared controls of `now` that `was` did not have.
fn undeclared_added<'a>(
    was: &'a ScreenCheck,
    now: &'a ScreenCheck,
) -> impl Iterator<Item = &'a super::Seen> + 'a {
    now.undeclared
        .iter()
        .filter(|s| !was.undeclared.iter().any(|w| w.anchor == s.anchor))
}

impl Diff {
    /// The changes of one kind.
    pub fn of(&self, kind: ChangeKind) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.kind == kind)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AnchorCheck, Seen};
    use super::*;

    fn seen(anchor: &str, label: &str, region: &str) -> Seen {
        Seen {
            anchor: anchor.into(),
            label: label.into(),
            role: "button".into(),
            region: region.into(),
            disabled: false,
        }
    }

    fn found(anchor: &str, label: &str, region: &str) -> AnchorCheck {
        AnchorCheck {
            anchor: anchor.into(),
            state: Presence::Found,
            count: 1,
            seen: Some(seen(anchor, label, region)),
        }
    }

    fn build(anchors: Vec<AnchorCheck>, undeclared: Vec<Seen>) -> BuildCheck {
        BuildCheck {
            base: "http://a/".into(),
            screens: vec![ScreenCheck {
                screen: "claim".into(),
                route: Some("/claims/1".into()),
                skipped: None,
                landed_on: None,
                anchors,
                undeclared,
                shared: Vec::new(),
            }],
        }
    }

    #[test]
    fn a_redesign_reports_each_kind_of_change_with_the_journeys_that_use_it() {
        let base = build(
            vec![
                found("claim.approve", "Approve", "actions"),
                found("claim.reject", "Reject", "actions"),
                found("claim.note", "Note", "form"),
                found("claim.same", "Same", "actions"),
            ],
            vec![],
        );
        let mut missing = found("claim.reject", "", "");
        missing.state = Presence::Missing;
        missing.count = 0;
        missing.seen = None;
        let other = build(
            vec![
                found("claim.approve", "Approve claim", "actions"),
                missing,
                found("claim.note", "Note", "sidebar"),
                found("claim.same", "Same", "actions"),
            ],
            vec![seen("claim.print", "Print", "actions")],
        );
        let usage = BTreeMap::from([(
            "claim.reject".to_string(),
            vec!["journeys/reject.rhai:3".to_string()],
        )]);
        let diff = compare(&base, &other, &usage);
        let kinds: Vec<(ChangeKind, &str)> = diff
            .changes
            .iter()
            .map(|c| (c.kind, c.anchor.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (ChangeKind::Relabelled, "claim.approve"),
                (ChangeKind::Removed, "claim.reject"),
                (ChangeKind::Moved, "claim.note"),
                (ChangeKind::Added, "claim.print"),
            ]
        );
        let removed = diff.of(ChangeKind::Removed).next().unwrap();
        assert_eq!(removed.used_by, ["journeys/reject.rhai:3"]);
        let relabelled = diff.of(ChangeKind::Relabelled).next().unwrap();
        assert_eq!(
            (relabelled.was.as_deref(), relabelled.now.as_deref()),
            (Some("Approve"), Some("Approve claim"))
        );
        assert!(ChangeKind::Removed.breaks() && !ChangeKind::Relabelled.breaks());
    }

    #[test]
    fn the_same_build_twice_differs_in_nothing() {
        let base = build(vec![found("claim.approve", "Approve", "actions")], vec![]);
        assert!(compare(&base, &base, &BTreeMap::new()).changes.is_empty());
    }
}
