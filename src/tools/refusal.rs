//! Turning what the in-page check found (missing, several, hidden, disabled, covered, not
//! editable) into an error code and a message that names the control in the words on screen.

use super::act::Act;
use super::{ErrorCode, ToolError, Tools, capture_error};
use crate::anchor::AnchorRef;
use crate::browser::Tab;
use crate::collector::Prepared;

impl<T: Tab> Tools<T> {
    pub(super) fn check(
        &self,
        act: &Act<'_>,
        anchor: &AnchorRef,
        p: &Prepared,
    ) -> Result<(), ToolError> {
        let named = match &p.label {
            Some(l) if !l.is_empty() => format!("`{anchor}` (\"{l}\")"),
            _ => format!("`{anchor}`"),
        };
        let route = self.current_route();
        let err = |code, message: String| Err(ToolError::new(code, message));
        match p.status.as_str() {
            "ok" => Ok(()),
            "not_found" => {
                if anchor.key.is_some() && p.unkeyed > 0 {
                    return err(
                        ErrorCode::NotOnScreen,
                        format!(
                            "no `{}` with key `{}` on {route} ({} with other keys)",
                            anchor.id,
                            anchor.key.as_deref().unwrap_or_default(),
                            p.unkeyed
                        ),
                    );
                }
                match self.registry.anchor(anchor.id.as_str()) {
                    Some(spec) => err(
                        ErrorCode::NotOnScreen,
                        format!(
                            "`{anchor}` is not on {route} (the registry expects it on: {})",
                            spec.screens.join(", ")
                        ),
                    ),
                    None => err(
                        ErrorCode::UnknownAnchor,
                        format!("`{anchor}` is not in the registry and not on {route}"),
                    ),
                }
            }
            "ambiguous" => {
                let keys: Vec<String> = p
                    .keys
                    .iter()
                    .map(|k| k.clone().unwrap_or_else(|| "(no key)".into()))
                    .collect();
                err(
                    ErrorCode::AmbiguousAnchor,
                    format!(
                        "`{anchor}` matches {} controls on {route}; name one with a key (keys: {})",
                        p.count,
                        keys.join(", ")
                    ),
                )
            }
            "hidden" => err(
                ErrorCode::NotOnScreen,
                format!("{named} is in the page on {route} but not visible"),
            ),
            "disabled" => err(
                ErrorCode::Disabled,
                format!("{named} is disabled on {route}"),
            ),
            "obscured" => err(
                ErrorCode::Obscured,
                format!(
                    "{named} is covered by {} at its centre",
                    p.cover.as_deref().unwrap_or("another element")
                ),
            ),
            "not_editable" => err(
                ErrorCode::NotEditable,
                format!(
                    "{named} does not take text: it is {}",
                    p.why.as_deref().unwrap_or("not a field")
                ),
            ),
            "no_option" => {
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
            other => Err(capture_error(format!(
                "the collector answered an unknown status `{other}`"
            ))),
        }
    }
}
