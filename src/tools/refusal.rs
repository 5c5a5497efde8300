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
        let route = self.current_route();
        let err = |code, message: String| Err(ToolError::new(code, message));
        match (p.status.as_str(), target) {
            ("ok", _) => Ok(()),
            ("not_found", TargetRef::Anchor(anchor)) => Err(self.missing(anchor, p, &route)),
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
            ("ambiguous", _) => {
                let keys: Vec<String> = p
                    .keys
                    .iter()
                    .map(|k| k.clone().unwrap_or_else(|| "(no key)".into()))
                    .collect();
                err(
                    ErrorCode::AmbiguousAnchor,
                    format!(
                        "`{}` matches {} controls on {route}; name one with a key (keys: {})",
                        quoted(&shown),
                        p.count,
                        keys.join(", ")
                    ),
                )
            }
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
                    "{named} is covered by {} at its centre",
                    p.cover.as_deref().unwrap_or("another element")
                ),
            ),
            ("not_editable", _) => err(
                ErrorCode::NotEditable,
                format!(
                    "{named} does not take text: it is {}",
                    p.why.as_deref().unwrap_or("not a field")
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
                        "{named} has no option `{text}` (options: {})",
                        p.options.join(", ")
                    ),
                )
            }
            (other, _) => Err(capture_error(format!(
                "the collector answered an unexpected status `{other}` for {target}"
            ))),
        }
    }

    /// An anchor the page does not have: elsewhere (the registry says where), with another
    /// key, or unknown altogether.
    fn missing(&self, anchor: &AnchorRef, p: &Prepared, route: &str) -> ToolError {
        let shown = anchor.to_string();
        if anchor.key.is_some() && p.unkeyed > 0 {
            return ToolError::new(
                ErrorCode::NotOnScreen,
                format!(
                    "no `{}` with key `{}` on {route} ({} with other keys)",
                    quoted(anchor.id.as_str()),
                    quoted(anchor.key.as_deref().unwrap_or_default()),
                    p.unkeyed
                ),
            );
        }
        match self.registry.anchor(anchor.id.as_str()) {
            Some(spec) => ToolError::new(
                ErrorCode::NotOnScreen,
                format!(
                    "`{}` is not on {route} (the registry expects it on: {})",
                    quoted(&shown),
                    spec.screens.join(", ")
                ),
            ),
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
