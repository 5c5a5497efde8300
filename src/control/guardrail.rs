//! The guardrail: a second gate from a file, beside consent. Rules deny an action, or make
//! it ask even where the consent policy would allow it silently, by anchor pattern, action
//! class and route pattern (all the fields a rule gives must match).
//!
//! ```yaml
//! deny:
//!   - anchor: "*.delete"          # any anchor ending in .delete
//!   - class: type
//!     route: "/admin/*"           # no typing on admin screens
//! ask:
//!   - anchor: order.submit
//! ```

use std::path::{Path, PathBuf};

use globset::{Glob, GlobMatcher};
use serde::{Deserialize, Deserializer};

use crate::protocol::ActionClass;

/// A guardrail file, parsed.
#[derive(Debug, Clone)]
pub struct Guardrail {
    /// Where it came from, for messages and traces.
    pub path: PathBuf,
    deny: Vec<Rule>,
    ask: Vec<Rule>,
}

/// One rule: every field it gives must match.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Anchor pattern (`*` any characters, `?` one): `*.delete`, `order.submit`.
    #[serde(default, deserialize_with = "pattern")]
    anchor: Option<Pattern>,
    /// Action class: `act`, `type`, `navigate`, `read`.
    #[serde(default, deserialize_with = "class")]
    class: Option<ActionClass>,
    /// Route pattern: `/admin/*`.
    #[serde(default, deserialize_with = "pattern")]
    route: Option<Pattern>,
}

#[derive(Debug, Clone)]
struct Pattern {
    text: String,
    matcher: GlobMatcher,
}

fn pattern<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Pattern>, D::Error> {
    let text = String::deserialize(d)?;
    let glob = Glob::new(&text)
        .map_err(|e| serde::de::Error::custom(format!("`{text}` is not a pattern: {e}")))?;
    Ok(Some(Pattern {
        matcher: glob.compile_matcher(),
        text,
    }))
}

fn class<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ActionClass>, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map(Some).map_err(serde::de::Error::custom)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    deny: Vec<Rule>,
    #[serde(default)]
    ask: Vec<Rule>,
}

/// A guardrail file that cannot be used: which file, where, and why.
#[derive(Debug, thiserror::Error)]
pub enum GuardrailError {
    /// It cannot be read.
    #[error("cannot read the guardrail `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a guardrail.
    #[error("{path}{at}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// `:line:column`, when known.
        at: String,
        /// What is wrong.
        message: String,
    },
}

/// What the guardrail says about one action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardrailVerdict {
    /// No rule matched.
    Pass,
    /// A `deny` rule matched: the rule, in words.
    Deny(String),
    /// An `ask` rule matched: the rule, in words.
    Ask(String),
}

impl Rule {
    fn matches(&self, anchor: Option<&str>, class: ActionClass, route: &str) -> bool {
        let anchor_ok = match (&self.anchor, anchor) {
            (None, _) => true,
            (Some(p), Some(a)) => p.matcher.is_match(a),
            (Some(_), None) => false,
        };
        anchor_ok
            && self.class.is_none_or(|c| c == class)
            && self
                .route
                .as_ref()
                .is_none_or(|p| p.matcher.is_match(route))
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.anchor {
            parts.push(format!("anchor: {}", a.text));
        }
        if let Some(c) = self.class {
            parts.push(format!("class: {c}"));
        }
        if let Some(r) = &self.route {
            parts.push(format!("route: {}", r.text));
        }
        format!("{{{}}}", parts.join(", "))
    }
}

impl Guardrail {
    /// Reads and checks a guardrail file.
    pub fn load(path: &Path) -> Result<Guardrail, GuardrailError> {
        let text = std::fs::read_to_string(path).map_err(|source| GuardrailError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Guardrail::parse(&text, path)
    }

    /// Parses guardrail YAML; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Guardrail, GuardrailError> {
        let invalid = |at: String, message: String| GuardrailError::Invalid {
            path: path.to_path_buf(),
            at,
            message,
        };
        let file: File = if text.trim().is_empty() {
            File {
                deny: Vec::new(),
                ask: Vec::new(),
            }
        } else {
            yaml_serde::from_str(text).map_err(|e| {
                let message = e.to_string();
                match e.location() {
                    // The place leads the message (`g.yaml:2:1: …`): yaml_serde's own
                    // ` at line 2 column 1` would say it a second time.
                    Some(l) => {
                        let position = format!(" at line {} column {}", l.line(), l.column());
                        let message = message.replacen(&position, "", 1);
                        invalid(format!(":{}:{}", l.line(), l.column()), message)
                    }
                    None => invalid(String::new(), message),
                }
            })?
        };
        for (list, rules) in [("deny", &file.deny), ("ask", &file.ask)] {
            if let Some(i) = rules
                .iter()
                .position(|r| r.anchor.is_none() && r.class.is_none() && r.route.is_none())
            {
                return Err(invalid(
                    String::new(),
                    format!(
                        "rule {} of `{list}` names nothing: give `anchor`, `class` or `route`",
                        i + 1
                    ),
                ));
            }
        }
        Ok(Guardrail {
            path: path.to_path_buf(),
            deny: file.deny,
            ask: file.ask,
        })
    }

    /// What the guardrail says about `class` on `anchor` (when the target is one) at
    /// `route`. A deny rule wins over an ask rule.
    pub fn judge(&self, anchor: Option<&str>, class: ActionClass, route: &str) -> GuardrailVerdict {
        if let Some(rule) = self.deny.iter().find(|r| r.matches(anchor, class, route)) {
            return GuardrailVerdict::Deny(rule.describe());
        }
        if let Some(rule) = self.ask.iter().find(|r| r.matches(anchor, class, route)) {
            return GuardrailVerdict::Ask(rule.describe());
        }
        GuardrailVerdict::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rail(text: &str) -> Guardrail {
        Guardrail::parse(text, Path::new("guard.yaml")).expect("a guardrail")
    }

    #[test]
    fn deny_beats_ask_and_every_field_must_match() {
        let g = rail(
            "deny:\n  - anchor: \"*.delete\"\n  - class: type\n    route: \"/admin/*\"\nask:\n  - anchor: order.submit\n  - anchor: \"*\"\n    class: act\n    route: /danger\n",
        );
        assert_eq!(
            g.judge(Some("claim.delete"), ActionClass::Act, "/claims"),
            GuardrailVerdict::Deny("{anchor: *.delete}".into())
        );
        assert_eq!(
            g.judge(Some("user.name"), ActionClass::Type, "/admin/users"),
            GuardrailVerdict::Deny("{class: type, route: /admin/*}".into())
        );
        assert_eq!(
            g.judge(Some("user.name"), ActionClass::Type, "/users"),
            GuardrailVerdict::Pass
        );
        assert_eq!(
            g.judge(Some("order.submit"), ActionClass::Act, "/orders/1"),
            GuardrailVerdict::Ask("{anchor: order.submit}".into())
        );
        assert_eq!(
            g.judge(None, ActionClass::Act, "/danger"),
            GuardrailVerdict::Pass
        );
        assert!(matches!(
            g.judge(Some("x.y"), ActionClass::Act, "/danger"),
            GuardrailVerdict::Ask(_)
        ));
    }

    #[test]
    fn a_bad_file_names_the_file_the_line_and_the_fault() {
        let e = Guardrail::parse(
            "deny:\n  - anchor: a\n    colour: red\n",
            Path::new("g.yaml"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("g.yaml:3:"), "{e}");
        assert!(e.contains("colour"), "{e}");
        let e = Guardrail::parse("ask:\n  - class: click\n", Path::new("g.yaml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`click` is not an action class"), "{e}");
        assert!(e.starts_with("g.yaml:2:"), "{e}");
        let e = Guardrail::parse("deny:\n  - {}\n", Path::new("g.yaml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("rule 1 of `deny` names nothing"), "{e}");
    }

    #[test]
    fn a_yaml_fault_names_its_place_once() {
        for text in ["deny: [\n", "deny:\n  - anchor: a\n    colour: red\n"] {
            let e = Guardrail::parse(text, Path::new("g.yaml"))
                .unwrap_err()
                .to_string();
            assert!(!e.contains(" at line "), "{e}");
        }
    }
}
