//! The perception audit: the collector's reading of each anchored control against
//! Chromium's accessibility tree for the same element — an independent second view of the
//! same screen.
//!
//! Where the two disagree on a control's name, role, disabled state or presence, that is a
//! **perception fault**, attributed to `capture` (the reading, not the journey, is in
//! doubt). Controls the page hides from accessibility (`aria-hidden` on the app root,
//! `inert`, everything behind a modal dialog) cannot be checked at all: they are listed as
//! **suppressed**, apart from the faults and never counted as clean.
//!
//! Pure logic over hand-made inputs: the browser module fetches the [`AxView`]s, the tools
//! attach the result to the raw layer, and [`PerceptionAudit::confidence`] is what
//! inference makes of it.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::{RawControl, Role};
use crate::protocol::{Attribution, cut, quoted};

/// How Chromium's accessibility tree exposes one element: the second reading the audit
/// compares the collector's with (the browser module reads it, `browser::accessibility`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AxView {
    /// Computed accessible name (empty when none).
    pub name: String,
    /// Role as Chromium names it: ARIA names (`button`, `textbox`) and a few internal ones
    /// (`DisclosureTriangle`, `DateTime`, `image`…).
    pub role: String,
    /// The node reports the `disabled` state.
    pub disabled: bool,
    /// The node is editable (a text field or content-editable region).
    pub editable: bool,
    /// The node is left out of the accessibility tree.
    pub ignored: bool,
    /// Why it is left out, in Chromium's words (`ariaHiddenSubtree`, `notRendered`…).
    pub ignored_reasons: Vec<String>,
}

/// What the audit of one read found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PerceptionAudit {
    /// Controls compared with their accessibility node (suppressed ones are not).
    pub checked: usize,
    /// Disagreements, in document order.
    pub faults: Vec<PerceptionFault>,
    /// Controls the page hides from accessibility, by scope.
    pub suppressed: Vec<Suppressed>,
    /// Why the accessibility view could not be read at all (then nothing was checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// The property two readings disagree on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Property {
    /// The accessible name (the control's label).
    Name,
    /// The role.
    Role,
    /// Disabled or not.
    Disabled,
    /// Perceivable at all.
    Presence,
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Property::Name => "name",
            Property::Role => "role",
            Property::Disabled => "disabled",
            Property::Presence => "presence",
        })
    }
}

/// One disagreement between the collector and the accessibility tree on one control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerceptionFault {
    /// Anchor of the control.
    pub anchor: String,
    /// Its row key, for repeated controls.
    pub key: Option<String>,
    /// What they disagree on.
    pub property: Property,
    /// The collector's value.
    pub collector: String,
    /// The accessibility tree's value.
    pub accessibility: String,
    /// Always `capture`: the reading is in doubt, not the journey.
    #[serde(skip_deserializing, default = "capture")]
    pub attribution: Attribution,
}

fn capture() -> Attribution {
    Attribution::Capture
}

impl PerceptionFault {
    /// `anchor` or `anchor[key]`.
    pub fn reference(&self) -> String {
        crate::anchor::reference(&self.anchor, self.key.as_deref())
    }
}

impl fmt::Display for PerceptionFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` {}: collector {:?}, accessibility {:?}",
            quoted(&self.reference()),
            self.property,
            cut(&self.collector),
            cut(&self.accessibility)
        )
    }
}

/// Controls hidden from accessibility, so their reading could not be checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suppressed {
    /// `page`, `region <name>`, or the anchors concerned.
    pub scope: String,
    /// Why, in words.
    pub reason: String,
    /// How many controls.
    pub controls: usize,
}

impl fmt::Display for Suppressed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "accessibility_suppressed: {} ({} control(s)): {}",
            quoted(&self.scope),
            self.controls,
            self.reason
        )
    }
}

/// Confidence a read keeps at most when the audit found a fault.
pub const FAULT_CONFIDENCE: f64 = 0.6;
/// … when controls were hidden from accessibility.
pub const SUPPRESSED_CONFIDENCE: f64 = 0.7;
/// … when the accessibility view could not be read.
pub const UNAVAILABLE_CONFIDENCE: f64 = 0.9;

impl PerceptionAudit {
    /// An audit that could not run.
    pub fn unavailable(why: impl Into<String>) -> PerceptionAudit {
        PerceptionAudit {
            unavailable: Some(why.into()),
            ..PerceptionAudit::default()
        }
    }

    /// Every control checked agreed, none was hidden from accessibility.
    pub fn is_clean(&self) -> bool {
        self.faults.is_empty() && self.suppressed.is_empty() && self.unavailable.is_none()
    }

    /// What the audit does to a read's confidence: a ceiling and a reason for each finding.
    pub fn confidence(&self) -> Vec<(f64, String)> {
        let mut notes = Vec::new();
        if let Some(first) = self.faults.first() {
            notes.push((
                FAULT_CONFIDENCE,
                format!(
                    "perception audit: {} fault(s) attributed to capture (first: {first})",
                    self.faults.len()
                ),
            ));
        }
        for s in &self.suppressed {
            notes.push((SUPPRESSED_CONFIDENCE, s.to_string()));
        }
        if let Some(why) = &self.unavailable {
            notes.push((
                UNAVAILABLE_CONFIDENCE,
                format!("perception audit unavailable: {why}"),
            ));
        }
        notes
    }
}

/// Ignored reasons that mean the page hides the control from accessibility on purpose.
fn suppression(reason: &str) -> Option<&'static str> {
    Some(match reason {
        "ariaHiddenElement" => "aria-hidden=\"true\" on the control",
        "ariaHiddenSubtree" => "aria-hidden=\"true\" on an ancestor",
        "inertElement" | "inertSubtree" => "inert",
        "activeModalDialog" => "behind an open modal dialog",
        _ => return None,
    })
}

/// Whitespace collapsed and trimmed, and icon-font glyphs (Unicode's Private Use Areas)
/// left out, as the collector reports names (Chromium keeps some edge spaces, e.g. of an
/// `aria-label`, and may keep a glyph).
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| !is_private_use(*c))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A Private Use Area character: what icon fonts draw their glyphs with.
fn is_private_use(c: char) -> bool {
    matches!(c, '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{ffffd}' | '\u{100000}'..='\u{10fffd}')
}

/// The collector names roles by ARIA; Chromium uses internal names where ARIA has none.
fn same_role(collector: &str, ax: &AxView) -> bool {
    collector == ax.role
        || match (collector, ax.role.as_str()) {
            ("img", "image") => true,
            // Date and time inputs: no ARIA role; the collector reads them as text fields.
            ("textbox", "Date" | "DateTime" | "InputTime") => true,
            // `<summary>`.
            ("button", "DisclosureTriangle") => true,
            // Parts of a table Chromium takes for layout rather than data.
            ("cell", "LayoutTableCell") | ("row", "LayoutTableRow") | ("table", "LayoutTable") => {
                true
            }
            // An output with no role of its own (see the collector's `shownRole`).
            (
                "text",
                "generic" | "none" | "StaticText" | "paragraph" | "LabelText" | "time" | "strong"
                | "emphasis" | "code",
            ) => true,
            // A content-editable region: Chromium says generic-and-editable.
            ("textbox", "generic") => ax.editable,
            _ => false,
        }
}

fn reference(c: &RawControl) -> String {
    c.reference()
}

/// Compares each control with its accessibility view (`views[i]` belongs to
/// `controls[i]`; `None`: the element has no node).
pub fn compare(controls: &[RawControl], views: &[Option<AxView>]) -> PerceptionAudit {
    if controls.len() != views.len() {
        return PerceptionAudit::unavailable(format!(
            "{} accessibility nodes for {} controls",
            views.len(),
            controls.len()
        ));
    }
    let mut audit = PerceptionAudit::default();
    // (region, reason) → references, in document order of first appearance.
    let mut hidden: Vec<((String, &'static str), Vec<String>)> = Vec::new();
    let mut shown_by_region: BTreeMap<&str, usize> = BTreeMap::new();
    for (c, view) in controls.iter().zip(views) {
        if c.visible {
            *shown_by_region.entry(c.region.as_str()).or_default() += 1;
        }
        let fault =
            |property: Property, collector: String, accessibility: String| PerceptionFault {
                anchor: c.anchor.to_string(),
                key: c.key.as_ref().map(|k| k.to_string()),
                property,
                collector,
                accessibility,
                attribution: Attribution::Capture,
            };
        let Some(ax) = view else {
            audit.checked += 1;
            audit.faults.push(fault(
                Property::Presence,
                on_screen(c),
                "no accessibility node".into(),
            ));
            continue;
        };
        if ax.ignored {
            let suppressed = ax.ignored_reasons.iter().find_map(|r| suppression(r));
            match suppressed {
                Some(reason) if c.visible => {
                    let key = (c.region.to_string(), reason);
                    match hidden.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, refs)) => refs.push(reference(c)),
                        None => hidden.push((key, vec![reference(c)])),
                    }
                }
                // Hidden to both readings, or a plain element with nothing to expose.
                // No control to assistive technology: Chromium may leave such a node out of
                // its tree without anything being missed.
                _ if !c.visible || Role::of(&c.role).is_plain() => audit.checked += 1,
                _ => {
                    audit.checked += 1;
                    let why = if ax.ignored_reasons.is_empty() {
                        "ignored".to_string()
                    } else {
                        format!("ignored ({})", ax.ignored_reasons.join(", "))
                    };
                    audit
                        .faults
                        .push(fault(Property::Presence, on_screen(c), why));
                }
            }
            continue;
        }
        // Exposed. A control the collector reads as hidden may still be exposed (visually
        // hidden on purpose, an option of a closed list): that is no disagreement on
        // presence, but what it is named and how it behaves must still agree.
        audit.checked += 1;
        let (name, ax_name) = (norm(&c.label), norm(&ax.name));
        if name != ax_name {
            audit.faults.push(fault(Property::Name, name, ax_name));
        }
        if !same_role(&c.role, ax) {
            audit
                .faults
                .push(fault(Property::Role, c.role.to_string(), ax.role.clone()));
        }
        if c.disabled != ax.disabled {
            let word = |d: bool| if d { "disabled" } else { "enabled" }.to_string();
            audit.faults.push(fault(
                Property::Disabled,
                word(c.disabled),
                word(ax.disabled),
            ));
        }
    }
    let shown: usize = shown_by_region.values().sum();
    let total_hidden: usize = hidden.iter().map(|(_, refs)| refs.len()).sum();
    let one_reason = hidden
        .iter()
        .all(|((_, r), _)| Some(*r) == hidden.first().map(|h| h.0.1));
    if total_hidden > 0 && total_hidden == shown && one_reason {
        audit.suppressed.push(Suppressed {
            scope: "page".into(),
            reason: hidden[0].0.1.to_string(),
            controls: total_hidden,
        });
        return audit;
    }
    for ((region, reason), refs) in hidden {
        let scope = if shown_by_region.get(region.as_str()) == Some(&refs.len()) {
            format!("region {region}")
        } else {
            listing(&refs)
        };
        audit.suppressed.push(Suppressed {
            scope,
            reason: reason.to_string(),
            controls: refs.len(),
        });
    }
    audit
}

fn on_screen(c: &RawControl) -> String {
    format!(
        "{} {}",
        if c.visible { "visible" } else { "hidden" },
        c.role
    )
}

fn listing(refs: &[String]) -> String {
    let mut s = refs
        .iter()
        .take(5)
        .map(|r| format!("`{r}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if refs.len() > 5 {
        s.push_str(&format!(" and {} more", refs.len() - 5));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::Facts;

    fn control(anchor: &str, label: &str, role: &str, region: &str) -> RawControl {
        RawControl {
            facts: Facts::named(anchor, label, role, region),
            secret: false,
            focused: false,
            bbox: [0, 0, 10, 10],
            view: None,
        }
    }

    fn ax(name: &str, role: &str) -> Option<AxView> {
        Some(AxView {
            name: name.into(),
            role: role.into(),
            ..AxView::default()
        })
    }

    fn ignored(reasons: &[&str]) -> Option<AxView> {
        Some(AxView {
            role: "none".into(),
            ignored: true,
            ignored_reasons: reasons.iter().map(|r| r.to_string()).collect(),
            ..AxView::default()
        })
    }

    #[test]
    fn agreeing_readings_are_clean() {
        let controls = [
            control("a.save", "Save  draft", "button", "r"),
            control("a.date", "Due", "textbox", "r"),
            control("a.logo", "Logo", "img", "r"),
        ];
        let views = [
            ax(" Save draft ", "button"),
            ax("Due", "Date"),
            ax("Logo", "image"),
        ];
        let audit = compare(&controls, &views);
        assert!(audit.is_clean(), "{audit:?}");
        assert_eq!(audit.checked, 3);
        assert!(audit.confidence().is_empty());
    }

    #[test]
    fn an_icon_font_glyph_is_compared_left_out() {
        // The collector names the button "Login"; Chromium may keep the glyph before it.
        let c = control("auth.login", "Login", "button", "r");
        let audit = compare(&[c], &[ax("\u{e001} Login", "button")]);
        assert!(audit.is_clean(), "{:?}", audit.faults);
    }

    #[test]
    fn a_different_name_is_a_fault_with_both_values() {
        let mut c = control("m.action", "Save", "button", "r");
        c.key = Some("7".into());
        let audit = compare(&[c], &[ax("Delete", "button")]);
        assert_eq!(audit.faults.len(), 1);
        let f = &audit.faults[0];
        assert_eq!(f.property, Property::Name);
        assert_eq!(
            (f.collector.as_str(), f.accessibility.as_str()),
            ("Save", "Delete")
        );
        assert_eq!(f.attribution, Attribution::Capture);
        assert_eq!(f.reference(), "m.action[7]");
        let json = serde_json::to_value(f).unwrap();
        assert_eq!(json["property"], "name");
        assert_eq!(json["attribution"], "capture");
        let notes = audit.confidence();
        assert_eq!(notes.len(), 1);
        assert!(notes[0].0 <= FAULT_CONFIDENCE);
        assert!(
            notes[0].1.contains("\"Save\"") && notes[0].1.contains("\"Delete\""),
            "{}",
            notes[0].1
        );
    }

    #[test]
    fn role_and_disabled_disagreements_are_faults() {
        let mut c = control("a.b", "Go", "foo", "r");
        c.disabled = true;
        let audit = compare(&[c], &[ax("Go", "button")]);
        let props: Vec<Property> = audit.faults.iter().map(|f| f.property).collect();
        assert_eq!(props, [Property::Role, Property::Disabled]);
        assert_eq!(audit.faults[1].collector, "disabled");
        assert_eq!(audit.faults[1].accessibility, "enabled");
    }

    #[test]
    fn an_editable_generic_node_is_a_textbox() {
        let c = control("a.note", "Note", "textbox", "r");
        let plain = compare(std::slice::from_ref(&c), &[ax("Note", "generic")]);
        assert_eq!(plain.faults.len(), 1);
        let editable = Some(AxView {
            editable: true,
            ..ax("Note", "generic").unwrap()
        });
        assert!(compare(&[c], &[editable]).is_clean());
    }

    #[test]
    fn an_aria_hidden_app_root_suppresses_the_page() {
        let controls = [
            control("s.name", "Name", "textbox", "page"),
            control("s.save", "Save", "button", "page"),
        ];
        let views = [
            ignored(&["ariaHiddenSubtree"]),
            ignored(&["ariaHiddenSubtree"]),
        ];
        let audit = compare(&controls, &views);
        assert!(audit.faults.is_empty());
        assert!(!audit.is_clean(), "suppressed is never clean");
        assert_eq!(audit.checked, 0);
        assert_eq!(audit.suppressed.len(), 1);
        assert_eq!(audit.suppressed[0].scope, "page");
        assert_eq!(audit.suppressed[0].controls, 2);
        let notes = audit.confidence();
        assert!(
            notes[0].1.starts_with("accessibility_suppressed: page"),
            "{}",
            notes[0].1
        );
    }

    #[test]
    fn suppression_is_scoped_to_a_region_or_to_anchors() {
        let controls = [
            control("a.one", "One", "button", "side"),
            control("a.two", "Two", "button", "side"),
            control("b.one", "Three", "button", "main"),
            control("b.two", "Four", "button", "main"),
        ];
        let views = [
            ignored(&["inertSubtree"]),
            ignored(&["inertSubtree"]),
            ignored(&["ariaHiddenElement"]),
            ax("Four", "button"),
        ];
        let audit = compare(&controls, &views);
        let scopes: Vec<&str> = audit.suppressed.iter().map(|s| s.scope.as_str()).collect();
        assert_eq!(scopes, ["region side", "`b.one`"]);
        assert_eq!(audit.checked, 1);
    }

    #[test]
    fn presence_agrees_on_hidden_and_plain_elements() {
        let mut hidden = control("a.hidden", "Hidden", "button", "r");
        hidden.visible = false;
        let plain = control("a.span", "", "generic", "r");
        let shown = control("a.shown", "Shown", "button", "r");
        let audit = compare(
            &[hidden, plain, shown],
            &[
                ignored(&["notRendered"]),
                ignored(&["uninteresting"]),
                ignored(&["uninteresting"]),
            ],
        );
        assert_eq!(audit.checked, 3);
        assert_eq!(audit.faults.len(), 1);
        assert_eq!(audit.faults[0].anchor, "a.shown");
        assert_eq!(audit.faults[0].property, Property::Presence);
        assert_eq!(audit.faults[0].collector, "visible button");
        assert_eq!(audit.faults[0].accessibility, "ignored (uninteresting)");
    }

    #[test]
    fn a_missing_node_and_a_short_answer_are_reported() {
        let c = control("a.gone", "Gone", "button", "r");
        let audit = compare(std::slice::from_ref(&c), &[None]);
        assert_eq!(audit.faults[0].accessibility, "no accessibility node");
        let short = compare(&[c], &[]);
        assert!(short.unavailable.is_some() && !short.is_clean());
        assert!(
            short.confidence()[0]
                .1
                .starts_with("perception audit unavailable")
        );
    }

    #[test]
    fn an_audit_round_trips_through_json() {
        let audit = compare(
            &[control("m.action", "Save", "button", "r")],
            &[ax("Delete", "button")],
        );
        let json = serde_json::to_string(&audit).unwrap();
        let back: PerceptionAudit = serde_json::from_str(&json).unwrap();
        assert_eq!(back, audit);
    }
}
