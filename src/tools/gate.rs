//! The gates every tool call passes before it touches the page, in docs/design.md's fixed order:
//! tab control, then the allowed set (and the surface's capabilities), then the guardrail
//! and consent.
//!
//! The judging is pure: [`pass`] decides each gate from a [`GateContext`]. Only consent may
//! need a person: then the passage ends with [`Passage::ask`] set, and the caller asks
//! (see `call.rs`) and records the consent verdict itself. The guardrail is judged before
//! consent so that nobody is asked about an action the file forbids anyway.

use std::fmt;

use serde::{Serialize, Serializer};

use super::verbs::Verb;
use super::{Attribution, ErrorCode, ToolError};
use crate::control::{Blocked, ConsentPolicy, Guardrail, GuardrailVerdict};
use crate::protocol::quoted;
pub use crate::protocol::{ActionClass, UnknownClass};

/// One action: verb, target and class. `fill`'s text is not part of it: it may be a secret.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    /// What is done.
    pub verb: Verb,
    /// What it is done to: an anchor reference, or the route of a navigation. Whole here,
    /// for the gates; written (in a trace) cut, with its length.
    #[serde(serialize_with = "cut_target")]
    pub target: Option<String>,
    /// Its class, which the allowed set is checked against.
    pub class: ActionClass,
}

/// An action's target as a trace writes it: cut, with its length (see
/// [`crate::protocol::cut`]).
fn cut_target<S: Serializer>(target: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match target {
        Some(t) => s.serialize_some(&crate::protocol::cut(t)),
        None => s.serialize_none(),
    }
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
            Some(t) => format!("`{}` of `{}`", self.verb.tool(), quoted(t)),
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
    /// The allowed set, and what the surface can do at all.
    Allowed,
    /// The guardrail file: deny, or make consent ask.
    Guardrail,
    /// Consent: the person says yes, no, or cannot be asked.
    Consent,
}

impl Gate {
    /// Every gate, in docs/design.md's order.
    pub const ORDER: [Gate; 4] = [Gate::Control, Gate::Allowed, Gate::Guardrail, Gate::Consent];
}

/// What one gate decided.
enum Decision {
    /// Through, with a note for the trace.
    Pass(Option<String>),
    /// Refused.
    Refuse(ToolError),
    /// A person must be asked: why.
    Ask(String),
}

fn refuse(code: ErrorCode, message: String) -> Decision {
    Decision::Refuse(ToolError::new(code, message).attributed(Attribution::Gate))
}

impl Gate {
    fn check(self, action: &Action, cx: &GateContext<'_>, ask: &mut Option<String>) -> Decision {
        let acting = matches!(action.class, ActionClass::Act | ActionClass::Type);
        match self {
            Gate::Control => match &cx.control {
                None => Decision::Pass(Some("no control hub".to_string())),
                Some(Ok(_)) => Decision::Pass(None),
                Some(Err(Blocked::PausedByUser(state))) => refuse(
                    ErrorCode::PausedByUser,
                    format!(
                        "{} waits: the person has the tab ({}); calls resume when control is returned",
                        action.named(),
                        serde_json::to_value(state)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_string))
                            .unwrap_or_default()
                    ),
                ),
                Some(Err(Blocked::NotOwner(owner))) => refuse(
                    ErrorCode::NotOwner,
                    format!(
                        "{} refused: the tab belongs to run `{owner}`",
                        action.named()
                    ),
                ),
                Some(Err(Blocked::Unknown)) => refuse(
                    ErrorCode::NotOwner,
                    format!(
                        "{} refused: the tab is not one of this run's",
                        action.named()
                    ),
                ),
            },
            Gate::Allowed if cx.read_only && (acting || action.class == ActionClass::Pause) => {
                refuse(
                    ErrorCode::ReadOnlySurface,
                    format!("{} is not available on a read-only surface", action.named()),
                )
            }
            Gate::Allowed if cx.allowed.permits(action.class) => Decision::Pass(None),
            Gate::Allowed => refuse(
                ErrorCode::NotAllowed,
                format!(
                    "{} (class {}) is outside the allowed set {}",
                    action.named(),
                    action.class,
                    cx.allowed
                ),
            ),
            Gate::Guardrail => match cx.guardrail {
                None => Decision::Pass(None),
                Some(rail) => {
                    let anchor = action.target.as_deref().filter(|_| acting);
                    match rail.judge(anchor, action.class, cx.route) {
                        GuardrailVerdict::Pass => Decision::Pass(None),
                        GuardrailVerdict::Deny(rule) => refuse(
                            ErrorCode::ConsentDenied,
                            format!(
                                "the guardrail `{}` denies {} on {} (rule {rule})",
                                rail.path.display(),
                                action.named(),
                                quoted(cx.route)
                            ),
                        ),
                        GuardrailVerdict::Ask(rule) => {
                            *ask = Some(format!(
                                "the guardrail `{}` asks (rule {rule})",
                                rail.path.display()
                            ));
                            Decision::Pass(ask.clone())
                        }
                    }
                }
            },
            Gate::Consent if !acting => Decision::Pass(None),
            Gate::Consent => match cx.consent {
                ConsentPolicy::Deny => refuse(
                    ErrorCode::ConsentDenied,
                    format!("{} refused: the consent policy is `deny`", action.named()),
                ),
                ConsentPolicy::Ask => Decision::Ask(
                    ask.take()
                        .unwrap_or_else(|| "the consent policy is `ask`".into()),
                ),
                ConsentPolicy::Allow => match ask.take() {
                    Some(why) => Decision::Ask(why),
                    None if cx.untrusted_read && action.class == ActionClass::Type => {
                        Decision::Ask("typing after untrusted page text was read".to_string())
                    }
                    None => Decision::Pass(Some("the consent policy is `allow`".to_string())),
                },
            },
        }
    }
}

/// What the gates judge an action against.
#[derive(Debug, Clone)]
pub struct GateContext<'a> {
    /// The classes permitted at this step.
    pub allowed: AllowedSet,
    /// The hub's word on the tab (`None` without a hub: nobody can take it).
    pub control: Option<Result<u64, Blocked>>,
    /// The surface cannot act.
    pub read_only: bool,
    /// The guardrail, if the run has one.
    pub guardrail: Option<&'a Guardrail>,
    /// The route the action starts from.
    pub route: &'a str,
    /// The consent policy.
    pub consent: ConsentPolicy,
    /// Untrusted page text has been read and typing must ask (agent-driven journeys).
    pub untrusted_read: bool,
}

impl GateContext<'_> {
    /// Only an allowed set: no hub, no guardrail, consent `allow`.
    pub fn new(allowed: AllowedSet) -> GateContext<'static> {
        GateContext {
            allowed,
            control: None,
            read_only: false,
            guardrail: None,
            route: "",
            consent: ConsentPolicy::Allow,
            untrusted_read: false,
        }
    }
}

/// One gate's verdict on one action, as the trace records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateVerdict {
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
    pub verdicts: Vec<GateVerdict>,
    /// Why the action was refused, when it was.
    pub refusal: Option<ToolError>,
    /// The gates passed so far, but a person must be asked (why): the consent verdict is
    /// the caller's to add.
    pub ask: Option<String>,
}

impl Passage {
    /// The gate that refused, if one did.
    pub fn refused_by(&self) -> Option<Gate> {
        self.refusal
            .as_ref()
            .and_then(|_| self.verdicts.last().map(|v| v.gate))
    }

    /// Records the consent verdict of a question asked.
    pub fn answered(&mut self, verdict: Result<String, ToolError>) {
        self.ask = None;
        match verdict {
            Ok(detail) => self.verdicts.push(GateVerdict {
                gate: Gate::Consent,
                passed: true,
                detail: Some(detail),
            }),
            Err(refusal) => {
                self.verdicts.push(GateVerdict {
                    gate: Gate::Consent,
                    passed: false,
                    detail: Some(refusal.message.clone()),
                });
                self.refusal = Some(refusal);
            }
        }
    }

    /// A gate checked again refused (the person took the tab while consent was asked).
    pub fn refused_late(&mut self, gate: Gate, refusal: ToolError) {
        self.verdicts.push(GateVerdict {
            gate,
            passed: false,
            detail: Some(refusal.message.clone()),
        });
        self.refusal = Some(refusal);
    }
}

/// Runs `action` through the gates in order; the first refusal stops it, and a consent
/// that must ask stops it with [`Passage::ask`] set.
pub fn pass(action: &Action, cx: &GateContext<'_>) -> Passage {
    let mut verdicts = Vec::with_capacity(Gate::ORDER.len());
    let mut ask = None;
    for gate in Gate::ORDER {
        match gate.check(action, cx, &mut ask) {
            Decision::Pass(detail) => verdicts.push(GateVerdict {
                gate,
                passed: true,
                detail,
            }),
            Decision::Refuse(refusal) => {
                verdicts.push(GateVerdict {
                    gate,
                    passed: false,
                    detail: Some(refusal.message.clone()),
                });
                return Passage {
                    verdicts,
                    refusal: Some(refusal),
                    ask: None,
                };
            }
            Decision::Ask(why) => {
                return Passage {
                    verdicts,
                    refusal: None,
                    ask: Some(why),
                };
            }
        }
    }
    Passage {
        verdicts,
        refusal: None,
        ask: None,
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
        let cx = GateContext::new(AllowedSet::default());
        let passage = pass(&Action::new(Verb::Read, None), &cx);
        let order: Vec<Gate> = passage.verdicts.iter().map(|v| v.gate).collect();
        assert_eq!(order, Gate::ORDER);
        assert!(passage.verdicts.iter().all(|v| v.passed));
        assert_eq!(passage.refusal, None);
        assert_eq!(passage.refused_by(), None);
    }

    #[test]
    fn a_class_outside_the_set_stops_at_the_allowed_gate() {
        let cx = GateContext::new(AllowedSet::parse(["read"]).unwrap());
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

    /// A trace wrote a 2 MB route whole in its step line; it writes it cut, with its
    /// length. The gates still see it whole.
    #[test]
    fn an_action_writes_a_long_target_cut_with_its_length() {
        let route = format!("/{}", "a".repeat(2 << 20));
        let action = Action::new(Verb::Navigate, Some(route.clone()));
        let written = serde_json::to_value(&action).unwrap();
        let target = written["target"].as_str().unwrap();
        assert!(target.ends_with("… (2097153 characters)"), "{target}");
        assert_eq!(action.target.as_deref(), Some(route.as_str()));
        assert!(action.named().len() < 300, "{}", action.named());
    }
}
