//! A snapshot that does not match, said by control: the controls added, the controls
//! removed, and for each control on both screens the fields that changed, old and new.
//! A whole screen is 60 lines of YAML; what a reader needs is the three that changed.
//!
//! Both sides are snapshot contents (YAML, as `render` writes them). Controls are matched
//! by reference (`anchor[key]`) and, for several sharing one, by occurrence. The lines read
//! `+ ref role "label" (region)`, `- ref …`, `~ ref field: old → new`, and `~ field: old →
//! new` for the screen's own fields; the HTML report colours them by their first sign.

use std::collections::BTreeMap;
use std::fmt;

use yaml_serde::{Mapping, Value};

/// The fields of a screen compared, in the order they are reported.
const SCREEN_FIELDS: [&str; 6] = ["route", "title", "screen", "dialog", "focus", "truncation"];
/// The fields of a control compared (besides its reference).
const CONTROL_FIELDS: [&str; 8] = [
    "label", "role", "region", "value", "checked", "disabled", "editable", "visible",
];

/// What changed between an accepted snapshot and the screen now.
#[derive(Debug, Default, PartialEq)]
pub struct ScreenDiff {
    /// The screen's own fields that changed: field, old, new.
    pub screen: Vec<(String, String, String)>,
    /// Controls now on screen, not in the snapshot: reference and a description.
    pub added: Vec<(String, String)>,
    /// Controls in the snapshot, not on screen now.
    pub removed: Vec<(String, String)>,
    /// Controls on both with fields that differ: reference, field, old, new.
    pub changed: Vec<(String, String, String, String)>,
}

impl ScreenDiff {
    /// The difference from `old` to `new` (snapshot contents); `None` when either is not
    /// a snapshot's YAML.
    pub fn between(old: &str, new: &str) -> Option<ScreenDiff> {
        let old: Mapping = yaml_serde::from_str(old).ok()?;
        let new: Mapping = yaml_serde::from_str(new).ok()?;
        let mut diff = ScreenDiff::default();
        for field in SCREEN_FIELDS {
            let (a, b) = (shown(old.get(field)), shown(new.get(field)));
            if a != b {
                diff.screen.push((field.to_string(), a, b));
            }
        }
        let before = controls(&old);
        let mut after = controls(&new);
        // In the accepted screen's order, as a reader scans it.
        for reference in controls_in_order(&old) {
            let Some(a) = before.get(&reference) else {
                continue;
            };
            match after.remove(&reference) {
                Some(b) => {
                    for field in CONTROL_FIELDS {
                        let (x, y) = (field_of(a, field), field_of(&b, field));
                        if x != y {
                            diff.changed
                                .push((reference.clone(), field.to_string(), x, y));
                        }
                    }
                }
                None => diff.removed.push((reference.clone(), describe(a))),
            }
        }
        for reference in controls_in_order(&new) {
            if let Some(c) = after.remove(&reference) {
                diff.added.push((reference, describe(&c)));
            }
        }
        Some(diff)
    }

    /// Nothing differs field by field (the texts may still differ, in their layout).
    pub fn is_empty(&self) -> bool {
        self.screen.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
    }
}

impl fmt::Display for ScreenDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |n: usize, what: &str| match n {
            1 => format!("1 {what}"),
            n => format!("{n} {what}s"),
        };
        let mut changed_controls: Vec<&str> =
            self.changed.iter().map(|(r, ..)| r.as_str()).collect();
        changed_controls.dedup();
        writeln!(
            f,
            "{} added, {} removed, {} changed",
            count(self.added.len(), "control"),
            count(self.removed.len(), "control"),
            count(
                changed_controls.len() + usize::from(!self.screen.is_empty()),
                "part"
            ),
        )?;
        for (field, old, new) in &self.screen {
            writeln!(f, "~ {field}: {old} → {new}")?;
        }
        for (reference, what) in &self.removed {
            writeln!(f, "- {reference} {what}")?;
        }
        for (reference, what) in &self.added {
            writeln!(f, "+ {reference} {what}")?;
        }
        for (reference, field, old, new) in &self.changed {
            writeln!(f, "~ {reference} {field}: {old} → {new}")?;
        }
        Ok(())
    }
}

/// The controls of a snapshot by reference; the second `a` is `a#2`.
fn controls(content: &Mapping) -> BTreeMap<String, Mapping> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for c in list(content) {
        out.insert(reference(c, &mut seen), c.clone());
    }
    out
}

fn controls_in_order(content: &Mapping) -> Vec<String> {
    let mut seen = BTreeMap::new();
    list(content).map(|c| reference(c, &mut seen)).collect()
}

fn list(content: &Mapping) -> impl Iterator<Item = &Mapping> {
    content
        .get("controls")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .filter_map(Value::as_mapping)
}

fn reference(c: &Mapping, seen: &mut BTreeMap<String, usize>) -> String {
    let anchor = c.get("anchor").and_then(Value::as_str).unwrap_or("?");
    let base = crate::anchor::reference(anchor, c.get("key").and_then(Value::as_str));
    let n = seen.entry(base.clone()).or_insert(0);
    *n += 1;
    match *n {
        1 => base,
        n => format!("{base}#{n}"),
    }
}

/// A control's field as a reader sees it; a field a snapshot leaves out has its default.
fn field_of(c: &Mapping, field: &str) -> String {
    match (field, c.get(field)) {
        ("visible", None) => "true".into(),
        ("disabled" | "editable", None) => "false".into(),
        (_, value) => shown(value),
    }
}

/// `role "label" (region)`, how a removed or added control is named.
fn describe(c: &Mapping) -> String {
    format!(
        "{} {} ({})",
        c.get("role").and_then(Value::as_str).unwrap_or("?"),
        shown(c.get("label")),
        c.get("region").and_then(Value::as_str).unwrap_or("?"),
    )
}

/// A value in one line: a string quoted, nothing as `none`, anything else as YAML flows.
fn shown(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "none".into(),
        Some(Value::String(s)) => format!("{:?}", crate::protocol::cut(s)),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => serde_json::to_string(other).unwrap_or_else(|_| "?".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::ScreenDiff;

    const OLD: &str = "route: /claims\ntitle: Claims\nscreen: claims-list\ndialog: null\nfocus: null\n\
        region: null\ncontrols:\n- anchor: claims.open\n  key: '1042'\n  label: Open 1042\n  role: button\n  region: list\n\
        - anchor: nav.orders\n  label: Orders\n  role: link\n  region: nav\n\
        - anchor: claims.filter\n  label: Filter\n  role: textbox\n  editable: true\n  value: ''\n  region: list\n\
        truncation: null\n";

    #[test]
    fn a_diff_names_each_control_added_removed_and_changed_field() {
        let new = OLD
            .replace("label: Open 1042", "label: Open claim 1042")
            .replace(
                "- anchor: nav.orders\n  label: Orders\n  role: link\n  region: nav\n",
                "- anchor: nav.help\n  label: Help\n  role: link\n  region: nav\n",
            )
            .replace("value: ''", "value: urgent")
            .replace("title: Claims", "title: Claims (3)");
        let diff = ScreenDiff::between(OLD, &new).unwrap();
        assert_eq!(
            diff.to_string(),
            "1 control added, 1 control removed, 3 parts changed\n\
             ~ title: \"Claims\" → \"Claims (3)\"\n\
             - nav.orders link \"Orders\" (nav)\n\
             + nav.help link \"Help\" (nav)\n\
             ~ claims.open[1042] label: \"Open 1042\" → \"Open claim 1042\"\n\
             ~ claims.filter value: \"\" → \"urgent\"\n"
        );
    }

    #[test]
    fn the_same_screen_has_no_diff_and_a_default_field_equals_its_absence() {
        assert!(ScreenDiff::between(OLD, OLD).unwrap().is_empty());
        let new = OLD.replace("  role: link\n", "  role: link\n  visible: true\n");
        assert!(ScreenDiff::between(OLD, &new).unwrap().is_empty());
        assert!(ScreenDiff::between(OLD, "- not a map").is_none());
    }

    #[test]
    fn controls_sharing_an_anchor_are_matched_by_occurrence() {
        let two = "controls:\n- anchor: row\n  label: a\n  role: row\n  region: main\n\
                   - anchor: row\n  label: b\n  role: row\n  region: main\n";
        let one = "controls:\n- anchor: row\n  label: a\n  role: row\n  region: main\n";
        let diff = ScreenDiff::between(one, two).unwrap();
        assert_eq!(
            diff.added,
            [("row#2".to_string(), "row \"b\" (main)".to_string())]
        );
    }
}
