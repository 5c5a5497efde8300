//! Turning what the in-page check found (missing, several, gone, hidden, disabled, covered,
//! not editable) into an error code and a message that names the control in the words on
//! screen.

use super::act::Act;
use super::target::TargetRef;
use super::{ErrorCode, ToolError, Tools, capture_error};
use crate::anchor::AnchorRef;
use crate::browser::Tab;
use crate::collector::Prepared;
use crate::protocol::quoted;

impl<T: Tab> Tools<T> {
    pub(super) fn check(
        &self,
        act: &Act<'_>,
        target: &TargetRef,
        p: &Prepared,
    ) -> Result<(), ToolError> {
        let shown = target.to_string();
        let named = match &p.label {
            Some(l) if !l.is_empty() => format!("`{}` (\"{}\")", quoted(&shown), quoted(l)),
            _ => format!("`{}`", quoted(&shown)),
        };
        let route = quoted(&self.current_route()).to_string();
        let err = |code, message: String| Err(ToolError::new(code, message));
        match (p.status.as_str(), target) {
            ("ok", _) => Ok(()),
            ("not_found", TargetRef::Anchor(anchor)) => Err(self.missing(anchor, p, &route)),
            ("not_found", TargetRef::Nth(anchor, n)) if p.count > 0 => err(
                ErrorCode::NotOnScreen,
                format!(
                    "`{}` has no control at nth {n} on {route}: there {} {} (nth counts from 0)",
                    quoted(&anchor.to_string()),
                    if p.count == 1 { "is" } else { "are" },
                    p.count
                ),
            ),
            ("not_found", TargetRef::Nth(anchor, _)) => Err(self.missing(anchor, p, &route)),
            (_, TargetRef::Focused) if p.status == "not_found" => err(
                ErrorCode::NotOnScreen,
                format!("nothing on {route} has the focus"),
            ),
            ("not_found" | "stale", TargetRef::Node(n)) => err(
                ErrorCode::StaleRead,
                format!(
                    "node {n} is not on {route} any more: it came from a read taken before the page changed; read the screen again"
                ),
            ),
            ("stale", TargetRef::Point { .. }) => err(
                ErrorCode::StaleRead,
                format!(
                    "{target} came from a read of another page: {route} has loaded since; read the screen again"
                ),
            ),
            ("not_found", TargetRef::Point { .. }) => err(
                ErrorCode::NotOnScreen,
                format!("nothing on {route} lies at {target}"),
            ),
            ("ambiguous", _) => err(
                ErrorCode::AmbiguousAnchor,
                self.ambiguous(target, p, &route),
            ),
            ("hidden", _) => err(
                ErrorCode::NotOnScreen,
                format!("{named} is in the page on {route} but not visible"),
            ),
            ("disabled", _) => err(
                ErrorCode::Disabled,
                format!("{named} is disabled on {route}"),
            ),
            ("obscured", _) => err(
                ErrorCode::Obscured,
                format!(
                    "{named} is present but covered by {} at its centre",
                    quoted(p.cover.as_deref().unwrap_or("another element"))
                ),
            ),
            ("not_stable", _) => err(
                ErrorCode::NotStable,
                format!(
                    "{named} is still moving: its box was {} in one animation frame and {} in the next",
                    shown_box(p.boxes.map(|b| b[0])),
                    shown_box(p.boxes.map(|b| b[1]))
                ),
            ),
            ("not_editable", _) => err(
                ErrorCode::NotEditable,
                format!(
                    "{named} does not take text: it is {}",
                    quoted(p.why.as_deref().unwrap_or("not a field"))
                ),
            ),
            ("no_option", _) => {
                let text = match act {
                    Act::Fill(t) => *t,
                    _ => "",
                };
                err(
                    ErrorCode::NotEditable,
                    format!(
                        "{named} has no option `{}` (options: {})",
                        quoted(text),
                        listed(p.options.iter().map(String::as_str))
                    ),
                )
            }
            (other, _) => Err(capture_error(format!(
                "the collector answered an unexpected status `{}` for {target}",
                quoted(other)
            ))),
        }
    }

    /// Several elements for one target: the first five told apart (role, name, region, a
    /// short path), and a narrower matcher or a key to name one.
    fn ambiguous(&self, target: &TargetRef, p: &Prepared, route: &str) -> String {
        let shown = target.to_string();
        let mut message = format!(
            "`{}` matches {} controls on {route}",
            quoted(&shown),
            p.count
        );
        if p.candidates.is_empty() {
            let keys = p.keys.iter().map(|k| k.as_deref().unwrap_or("(no key)"));
            message.push_str(&format!("; name one with a key (keys: {})", listed(keys)));
            return message;
        }
        message.push(':');
        for (i, c) in p.candidates.iter().enumerate() {
            message.push_str(&format!(
                "\n  {}. {} \"{}\" in region {} ({}{})",
                i + 1,
                quoted(&c.role),
                quoted(&c.name),
                quoted(&c.region),
                quoted(&c.path),
                c.key
                    .as_deref()
                    .map(|k| format!(", key \"{}\"", quoted(k)))
                    .unwrap_or_default()
            ));
        }
        if p.count > p.candidates.len() {
            message.push_str(&format!("\n  … and {} more", p.count - p.candidates.len()));
        }
        let spec = match target {
            TargetRef::Anchor(a) | TargetRef::Nth(a, _) => self.registry.anchor(a.id.as_str()),
            _ => None,
        };
        if let Some(hint) = spec.and_then(|s| narrower(s, &p.candidates)) {
            message.push_str(&format!("\n{hint}"));
        }
        message
    }

    /// An anchor the page does not have: elsewhere (the registry says where), with another
    /// key, or unknown altogether.
    fn missing(&self, anchor: &AnchorRef, p: &Prepared, route: &str) -> ToolError {
        let shown = anchor.to_string();
        if anchor.key.is_some() && p.unkeyed > 0 {
            let keys: Vec<String> = p
                .keys
                .iter()
                .flatten()
                .map(|k| format!("\"{}\"", quoted(k)))
                .collect();
            let listed = if keys.is_empty() {
                String::new()
            } else {
                format!(": {}", listed(keys.iter().map(String::as_str)))
            };
            return ToolError::new(
                ErrorCode::NotOnScreen,
                format!(
                    "no `{}` with key `{}` on {route} ({} with other keys{listed})",
                    quoted(anchor.id.as_str()),
                    quoted(anchor.key.as_deref().unwrap_or_default()),
                    p.unkeyed
                ),
            );
        }
        match self.registry.anchor(anchor.id.as_str()) {
            Some(spec) => {
                let matcher = match (&spec.matcher, &p.why) {
                    (Some(m), Some(why)) => format!(": nothing matches {m} ({why})"),
                    (Some(m), None) => format!(": nothing matches {m}"),
                    (None, _) => String::new(),
                };
                ToolError::new(
                    ErrorCode::NotOnScreen,
                    format!(
                        "`{}` is not on {route}{matcher} (the registry expects it on: {})",
                        quoted(&shown),
                        spec.screens.join(", ")
                    ),
                )
            }
            None => ToolError::new(
                ErrorCode::UnknownAnchor,
                format!(
                    "`{}` is not in the registry and not on {route}",
                    quoted(&shown)
                ),
            ),
        }
    }
}

/// A box as `(left, top) width × height`, in CSS pixels.
fn shown_box(b: Option<[f64; 4]>) -> String {
    match b {
        Some([x, y, w, h]) => format!("({x}, {y}) {w} × {h}"),
        None => "another".to_string(),
    }
}

/// A matcher that would tell `candidates` apart, or a key, as a line to show.
fn narrower(
    spec: &crate::registry::AnchorSpec,
    candidates: &[crate::collector::Candidate],
) -> Option<String> {
    use crate::registry::MatchKind;
    let first = candidates.first()?;
    let differ =
        |f: fn(&crate::collector::Candidate) -> &str| candidates.iter().any(|c| f(c) != f(first));
    let within = spec
        .matcher
        .as_ref()
        .and_then(|m| m.within.as_ref())
        .map(|w| format!(", within: {w}"))
        .unwrap_or_default();
    let quote = |s: &str| serde_json::Value::from(crate::protocol::cut(s)).to_string();
    match &spec.matcher {
        Some(m) if !matches!(m.kind, MatchKind::Role { name: Some(_), .. }) && differ(|c| &c.name) => Some(format!(
            "narrow it by name, e.g. match: {{role: {}, name: {}{within}}}",
            quoted(&first.role),
            quote(&first.name)
        )),
        Some(_) if differ(|c| &c.region) => Some(format!(
            "narrow it with `within:` an anchor around one region (these are in {})",
            listed(candidates.iter().map(|c| c.region.as_str()))
        )),
        Some(_) if !spec.keyed => Some(
            "if it repeats by design, make it keyed (`key: text`, or `key: {attribute: data-id}`) and name one with a key".to_string(),
        ),
        None => Some("give each element its own `data-anchor`, or a `data-anchor-key` to name one with".to_string()),
        _ => None,
    }
}

/// Page words listed in a message, each cut: at most [`LISTED`] of them, and how many more.
fn listed<'a>(mut words: impl Iterator<Item = &'a str>) -> String {
    let shown: Vec<String> = words
        .by_ref()
        .take(LISTED)
        .map(|w| quoted(w).to_string())
        .collect();
    let more = words.count();
    let mut text = shown.join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// How many of a page's words (options, keys, regions) a message lists.
const LISTED: usize = 20;
