//! Why a tool call failed: a stable code, a message naming the control in the words on
//! screen, and who is to blame.

use serde::Serialize;

/// The stable error codes of docs/design.md (strings in every output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// Not in the registry and not on screen.
    UnknownAnchor,
    /// A known anchor that is not on the current screen (or not visible).
    NotOnScreen,
    /// More than one control carries the anchor (and key).
    AmbiguousAnchor,
    /// The control is disabled.
    Disabled,
    /// Another element lies over the control's centre, or received the press aimed at it.
    Obscured,
    /// The control kept moving: its box was not the same in two animation frames in a row
    /// (Playwright's stability), or it moved away under the press.
    NotStable,
    /// `fill` on something that does not take text (or an option it does not have).
    NotEditable,
    /// The target came from a read taken before the page changed.
    StaleRead,
    /// The person has the tab.
    PausedByUser,
    /// The tab belongs to another run.
    NotOwner,
    /// The person said no.
    ConsentDenied,
    /// Nobody could be asked.
    ConsentUnavailable,
    /// The action class is outside the allowed set.
    NotAllowed,
    /// A URL off the app's origin, or a `javascript:`/`data:`/`file:` URL.
    OffOrigin,
    /// The page did not load or settle in time.
    Timeout,
    /// The navigation failed (network error, or the server answered 4xx/5xx).
    NavigationFailed,
    /// The browser or the tab's renderer is gone.
    BrowserCrashed,
    /// The page stopped responding: its renderer is held by a script that does not return.
    PageUnresponsive,
    /// A handoff was not finished in time.
    HandoffTimedOut,
    /// The surface cannot act.
    ReadOnlySurface,
    /// An argument is malformed (an unknown key name, a bad option). Added beside docs/design.md's
    /// list: such calls are the journey's mistake, and no other code says so.
    InvalidArgument,
    /// The in-page collector itself failed: a perception fault, not the journey's.
    CaptureFailed,
    /// A journey's `request` got no answer: the network failed (a status is an answer).
    RequestFailed,
    /// The page threw an error it did not catch, or left a promise rejection unhandled,
    /// and the run fails on that (`--fail-on-page-error`).
    PageError,
}

impl ErrorCode {
    /// Every code, in the order of docs/design.md's list.
    pub const ALL: [ErrorCode; 24] = [
        ErrorCode::UnknownAnchor,
        ErrorCode::NotOnScreen,
        ErrorCode::AmbiguousAnchor,
        ErrorCode::Disabled,
        ErrorCode::Obscured,
        ErrorCode::NotStable,
        ErrorCode::NotEditable,
        ErrorCode::StaleRead,
        ErrorCode::PausedByUser,
        ErrorCode::NotOwner,
        ErrorCode::ConsentDenied,
        ErrorCode::ConsentUnavailable,
        ErrorCode::NotAllowed,
        ErrorCode::OffOrigin,
        ErrorCode::Timeout,
        ErrorCode::NavigationFailed,
        ErrorCode::BrowserCrashed,
        ErrorCode::PageUnresponsive,
        ErrorCode::HandoffTimedOut,
        ErrorCode::ReadOnlySurface,
        ErrorCode::InvalidArgument,
        ErrorCode::CaptureFailed,
        ErrorCode::RequestFailed,
        ErrorCode::PageError,
    ];

    /// The code spelled `code` in output, if it is one.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }

    /// The code as it appears in output (`not_on_screen`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownAnchor => "unknown_anchor",
            ErrorCode::NotOnScreen => "not_on_screen",
            ErrorCode::AmbiguousAnchor => "ambiguous_anchor",
            ErrorCode::Disabled => "disabled",
            ErrorCode::Obscured => "obscured",
            ErrorCode::NotStable => "not_stable",
            ErrorCode::NotEditable => "not_editable",
            ErrorCode::StaleRead => "stale_read",
            ErrorCode::PausedByUser => "paused_by_user",
            ErrorCode::NotOwner => "not_owner",
            ErrorCode::ConsentDenied => "consent_denied",
            ErrorCode::ConsentUnavailable => "consent_unavailable",
            ErrorCode::NotAllowed => "not_allowed",
            ErrorCode::OffOrigin => "off_origin",
            ErrorCode::Timeout => "timeout",
            ErrorCode::NavigationFailed => "navigation_failed",
            ErrorCode::BrowserCrashed => "browser_crashed",
            ErrorCode::PageUnresponsive => "page_unresponsive",
            ErrorCode::HandoffTimedOut => "handoff_timed_out",
            ErrorCode::ReadOnlySurface => "read_only_surface",
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::CaptureFailed => "capture_failed",
            ErrorCode::RequestFailed => "request_failed",
            ErrorCode::PageError => "page_error",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a failure is attributed to, so the fix goes to the right place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Attribution {
    /// The script's or the agent's logic.
    Journey,
    /// The page misbehaved.
    App,
    /// The perception (the collector) was wrong or failed.
    Capture,
    /// The browser crashed, timed out or could not start.
    Environment,
    /// A gate refused.
    Gate,
}

/// A failed tool call.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    /// Stable code.
    pub code: ErrorCode,
    /// What happened, naming the control in the words on screen.
    pub message: String,
    /// Who is to blame.
    pub attribution: Attribution,
}

impl ToolError {
    /// An error with the attribution its code usually carries. Its message is cut to
    /// [`MESSAGE_CHARS`](super::MESSAGE_CHARS) (each string it quotes is cut on its own).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        let attribution = match code {
            ErrorCode::Timeout
            | ErrorCode::NavigationFailed
            | ErrorCode::PageUnresponsive
            | ErrorCode::RequestFailed
            | ErrorCode::PageError => Attribution::App,
            ErrorCode::BrowserCrashed => Attribution::Environment,
            ErrorCode::CaptureFailed => Attribution::Capture,
            ErrorCode::PausedByUser
            | ErrorCode::NotOwner
            | ErrorCode::ConsentDenied
            | ErrorCode::ConsentUnavailable
            | ErrorCode::NotAllowed
            | ErrorCode::ReadOnlySurface => Attribution::Gate,
            _ => Attribution::Journey,
        };
        let message = message.into();
        let message = match super::cut_to(&message, super::MESSAGE_CHARS) {
            std::borrow::Cow::Borrowed(_) => message,
            std::borrow::Cow::Owned(cut) => cut,
        };
        ToolError {
            code,
            message,
            attribution,
        }
    }

    /// The same error attributed to someone else.
    pub fn attributed(mut self, attribution: Attribution) -> ToolError {
        self.attribution = attribution;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_from_its_serialized_spelling() {
        for code in ErrorCode::ALL {
            let spelled = serde_json::to_value(code).unwrap();
            assert_eq!(spelled, code.as_str());
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::parse("expectation_failed"), None);
    }

    /// A message that quotes many strings, or what the browser said as it said it, is
    /// bounded as a whole, saying how long it was.
    #[test]
    fn a_message_is_cut_to_a_message_length() {
        let e = ToolError::new(ErrorCode::CaptureFailed, "x".repeat(1 << 20));
        assert!(
            e.message.ends_with("… (1048576 characters)"),
            "{}",
            &e.message[..100]
        );
        assert!(e.message.chars().count() <= crate::protocol::MESSAGE_CHARS);
        let short = ToolError::new(ErrorCode::Disabled, "`claim.approve` is disabled");
        assert_eq!(short.message, "`claim.approve` is disabled");
    }
}
