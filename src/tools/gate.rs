//! The gates every tool call passes before it touches the page, in DESIGN.md's fixed order:
//! tab control, then the allowed set, then consent and the guardrail.
//!
//! Only the allowed set is enforced today; tab control and consent are named slots that
//! pass, so the trace already shows where they sit. Adding one is a change to
//! [`Gate::check`] (and the [`GateContext`] it reads), nowhere else.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

use super::{ErrorCode, ToolError};

/// What kind of move an action is; the allowed set is a set of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionClass {
    /// Reading the screen.
    Read,
    /// Opening a route.
    Navigate,
    /// Pressing a control or a key on it (`invoke`, `press`).
    Act,
    /// Typing into a field (`fill`).
    Type,
    /// Waiting, or handing the tab to a person.
    Pause,
    /// Finishing the journey.
    End,
}

impl ActionClass {
    /// Every class, in the order they are listed.
    pub const ALL: [ActionClass; 6] = [
        ActionClass::Read,
        ActionClass::Navigate,
        ActionClass::Act,
        ActionClass::Type,
        ActionClass::Pause,
        ActionClass::End,
    ];

    /// The class as written in scripts and traces (`act`).
    pub fn as_str(self) -> &'static str {
        match self {
            ActionClass::Read => "read",
            ActionClass::Navigate => "navigate",
            ActionClass::Act => "act",
            ActionClass::Type => "type",
            ActionClass::Pause => "pause",
            ActionClass::End => "end",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for ActionClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an action class.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an action class (classes: read, navigate, act, type, pause, end)")]
pub struct UnknownClass(pub String);

impl FromStr for ActionClass {
    type Err = UnknownClass;

    fn from_str(s: &str) -> Result<ActionClass, UnknownClass> {
        ActionClass::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownClass(s.to_string()))
    }
}

/// The verbs of DESIGN.md; each has one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `navigate(route)`.
    Navigate,
    /// `read_screen()`.
    Read,
    /// `invoke(anchor)`.
    Invoke,
    /// `press(anchor, key_name)`.
    Press,
    /// `fill(anchor, text)`.
    Fill,
}

impl Verb {
    /// The verb as written in traces (`read`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Navigate => "navigate",
            Verb::Read => "read",
            Verb::Invoke => "invoke",
            Verb::Press => "press",
            Verb::Fill => "fill",
        }
    }

    /// The tool that performs it, as named in round trips (`read_screen`).
    pub fn tool(self) -> &'static str {
        match self {
            Verb::Read => "read_screen",
            other => other.as_str(),
        }
    }

    /// Its action class.
    pub fn class(self) -> ActionClass {
        match self {
            Verb::Navigate => ActionClass::Navigate,
            Verb::Read => ActionClass::Read,
            Verb::Invoke | Verb::Press => ActionClass::Act,
            Verb::Fill => ActionClass::Type,
        }
    }
}

impl Serialize for Verb {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One action: verb, target and class. `fill`'s text is not part of it: it may be a secret.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    /// What is done.
    pub verb: Verb,
    /// What it is done to: an anchor reference, or the route of a navigation.
    pub target: Option<String>,
    /// Its class, which the allowed set is checked against.
    pub class: ActionClass,
}

impl Action {
    /// The action `verb` on `target`.
    pub fn new(verb: Verb, target: Option<String>) -> Action {
        Action {
            verb,
            target,
            class: verb.class(),
        }
    }

    /// The call as a journey wrote it, for messages: `` `invoke` of `claim.approve` ``.
    fn named(&self) -> String {
        match &self.target {
            Some(t) => format!("`{}` of `{t}`", self.verb.tool()),
            None => format!("`{}`", self.verb.tool()),
        }
    }
}

/// The action classes permitted at this step. The default permits every class.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AllowedSet(u8);

impl Default for AllowedSet {
    fn default() -> Self {
        AllowedSet::from_classes(ActionClass::ALL)
    }
}

impl AllowedSet {
    /// Exactly these classes.
    pub fn from_classes(classes: impl IntoIterator<Item = ActionClass>) -> AllowedSet {
        AllowedSet(classes.into_iter().fold(0, |bits, c| bits | c.bit()))
    }

    /// Parses class names; the first unknown one is the error.
    pub fn parse<S: AsRef<str>>(
        names: impl IntoIterator<Item = S>,
    ) -> Result<AllowedSet, UnknownClass> {
        let classes = names
            .into_iter()
            .map(|n| n.as_ref().parse())
            .collect::<Result<Vec<ActionClass>, _>>()?;
        Ok(AllowedSet::from_classes(classes))
    }

    /// Whether `class` is permitted.
    pub fn permits(self, class: ActionClass) -> bool {
        self.0 & class.bit() != 0
    }

    /// The permitted classes, in [`ActionClass::ALL`] order.
    pub fn classes(self) -> impl Iterator<Item = ActionClass> {
        ActionClass::ALL
            .into_iter()
            .filter(move |c| self.permits(*c))
    }
}

impl fmt::Display for AllowedSet {
    /// `[read, navigate]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.classes().map(ActionClass::as_str).collect();
        write!(f, "[{}]", names.join(", "))
    }
}

impl fmt::Debug for AllowedSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AllowedSet{self}")
    }
}

impl Serialize for AllowedSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.classes())
    }
}

/// The gates, in the order they are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// Tab control: the person has the tab, or another run owns it.
    Control,
    /// The allowed set.
    Allowed,
    /// Consent and the guardrail.
    Consent,
}

impl Gate {
    /// Every gate, in DESIGN.md's order.
    pub const ORDER: [Gate; 3] = [Gate::Control, Gate::Allowed, Gate::Consent];

    /// Passes (with a note for the trace, when there is one) or refuses.
    fn check(self, action: &Action, cx: &GateContext) -> Result<Option<String>, ToolError> {
        match self {
            Gate::Control | Gate::Consent => Ok(Some("not enforced yet".to_string())),
            Gate::Allowed if cx.allowed.permits(action.class) => Ok(None),
            Gate::Allowed => Err(ToolError::new(
                ErrorCode::NotAllowed,
                format!(
                    "{} (class {}) is outside the allowed set {}",
                    action.named(),
                    action.class,
                    cx.allowed
                ),
            )),
        }
    }
}

/// What the gates judge an action against.
#[derive(Debug, Clone, Copy)]
pub struct GateContext {
    /// The classes permitted at this step.
    pub allowed: AllowedSet,
}

/// One gate's verdict on one action, as the trace records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Which gate.
    pub gate: Gate,
    /// It let the action through.
    pub passed: bool,
    /// Why it refused, or a note on how it passed.
    pub detail: Option<String>,
}

/// Every gate's verdict, in order, up to the first that refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// The verdicts; gates after a refusal are not asked.
    pub verdicts: Vec<Verdict>,
    /// Why the action was refused, when it was.
    pub refusal: Option<ToolError>,
}

impl Passage {
    /// The gate that refused, if one did.
    pub fn refused_by(&self) -> Option<Gate> {
        self.refusal
            .as_ref()
            .and_then(|_| self.verdicts.last().map(|v| v.gate))
    }
}

/// Runs `action` through the gates in order; the first refusal stops it.
pub fn pass(action: &Action, cx: &GateContext) -> Passage {
    let mut verdicts = Vec::with_capacity(Gate::ORDER.len());
    for gate in Gate::ORDER {
        match gate.check(action, cx) {
            Ok(detail) => verdicts.push(Verdict {
                gate,
                passed: true,
                detail,
            }),
            Err(refusal) => {
                verdicts.push(Verdict {
                    gate,
                    passed: false,
                    detail: Some(refusal.message.clone()),
                });
                return Passage {
                    verdicts,
                    refusal: Some(refusal),
                };
            }
        }
    }
    Passage {
        verdicts,
        refusal: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Attribution;

    #[test]
    fn classes_parse_and_print_the_same() {
        for class in ActionClass::ALL {
            assert_eq!(class.as_str().parse::<ActionClass>(), Ok(class));
            assert_eq!(
                serde_json::to_value(class).unwrap(),
                serde_json::json!(class.as_str())
            );
        }
    }

    #[test]
    fn an_unknown_class_is_named_with_the_valid_ones() {
        let err = AllowedSet::parse(["read", "click"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`click` is not an action class (classes: read, navigate, act, type, pause, end)"
        );
        assert!(
            "Read".parse::<ActionClass>().is_err(),
            "classes are lowercase"
        );
    }

    #[test]
    fn every_tool_has_its_design_class() {
        let classes: Vec<(&str, ActionClass)> = [
            Verb::Read,
            Verb::Navigate,
            Verb::Invoke,
            Verb::Press,
            Verb::Fill,
        ]
        .into_iter()
        .map(|v| (v.tool(), v.class()))
        .collect();
        assert_eq!(
            classes,
            [
                ("read_screen", ActionClass::Read),
                ("navigate", ActionClass::Navigate),
                ("invoke", ActionClass::Act),
                ("press", ActionClass::Act),
                ("fill", ActionClass::Type),
            ]
        );
    }

    #[test]
    fn the_default_set_permits_everything() {
        let all = AllowedSet::default();
        assert!(ActionClass::ALL.into_iter().all(|c| all.permits(c)));
        assert_eq!(all.to_string(), "[read, navigate, act, type, pause, end]");
        let none = AllowedSet::from_classes([]);
        assert_eq!(none.to_string(), "[]");
    }

    #[test]
    fn gates_run_in_design_order_and_all_pass_when_allowed() {
        let cx = GateContext {
            allowed: AllowedSet::default(),
        };
        let passage = pass(&Action::new(Verb::Read, None), &cx);
        let order: Vec<Gate> = passage.verdicts.iter().map(|v| v.gate).collect();
        assert_eq!(order, [Gate::Control, Gate::Allowed, Gate::Consent]);
        assert!(passage.verdicts.iter().all(|v| v.passed));
        assert_eq!(passage.refusal, None);
        assert_eq!(passage.refused_by(), None);
    }

    #[test]
    fn a_class_outside_the_set_stops_at_the_allowed_gate() {
        let cx = GateContext {
            allowed: AllowedSet::parse(["read"]).unwrap(),
        };
        let action = Action::new(Verb::Invoke, Some("claim.approve".into()));
        let passage = pass(&action, &cx);
        assert_eq!(
            passage.verdicts.len(),
            2,
            "consent is not asked after a refusal"
        );
        assert_eq!(passage.refused_by(), Some(Gate::Allowed));
        let refusal = passage.refusal.unwrap();
        assert_eq!(refusal.code, ErrorCode::NotAllowed);
        assert_eq!(refusal.attribution, Attribution::Gate);
        assert_eq!(
            refusal.message,
            "`invoke` of `claim.approve` (class act) is outside the allowed set [read]"
        );
        assert_eq!(
            serde_json::to_value(&passage.verdicts[1]).unwrap(),
            serde_json::json!({"gate": "allowed", "passed": false, "detail": refusal.message})
        );
    }

    #[test]
    fn an_action_serializes_as_verb_target_class() {
        let action = Action::new(Verb::Fill, Some("claim.note".into()));
        assert_eq!(
            serde_json::to_value(&action).unwrap(),
            serde_json::json!({"verb": "fill", "target": "claim.note", "class": "type"})
        );
        assert_eq!(
            serde_json::to_value(AllowedSet::parse(["navigate", "read"]).unwrap()).unwrap(),
            serde_json::json!(["read", "navigate"])
        );
    }
}
