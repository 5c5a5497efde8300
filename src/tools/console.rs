//! What each call's round trip says the journey's pages logged and threw: the console's
//! errors and warnings, and the uncaught errors and unhandled rejections, of every tab of
//! the journey since the call before (see `browser::console`). With
//! `--fail-on-page-error`, a call whose round trip lists a page error fails with
//! `page_error`, attributed to the app: the call during which the page threw, or the one
//! after, when the error came as the call ended or between calls.

use super::gate::Action;
use super::{RoundTrip, Tools};
use crate::browser::Tab;
use crate::protocol::{ErrorCode, ToolError, quoted};

impl<T: Tab> Tools<T> {
    /// Puts what the journey's tabs logged and threw since the last call in `rt`, and fails
    /// it with `page_error` when the run fails on page errors and one came.
    pub(super) async fn take_console(&self, action: &Action, rt: &mut RoundTrip) {
        // What the page said before the call's last answer is already on its way to the
        // watchers: give them their turn.
        tokio::task::yield_now().await;
        let mut log = crate::browser::PageLog::default();
        for open in self.tabs.all() {
            log.extend(open.tab.take_console());
        }
        rt.console = log.console;
        rt.console_dropped = log.console_dropped;
        rt.page_errors = log.page_errors;
        rt.page_errors_dropped = log.page_errors_dropped;
        let Some(first) = rt.page_errors.first() else {
            return;
        };
        if !self.options.fail_on_page_error || !rt.ok {
            return;
        }
        let more = rt.page_errors.len() - 1 + usize::try_from(rt.page_errors_dropped).unwrap_or(0);
        let at = match first.source.as_str() {
            "" => String::new(),
            source => format!(" at `{}`", quoted(source)),
        };
        let more = match more {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        let target = action
            .target
            .as_deref()
            .map(|t| format!(" `{}`", quoted(t)))
            .unwrap_or_default();
        rt.ok = false;
        rt.error = Some(ToolError::new(
            ErrorCode::PageError,
            format!(
                "the page threw an error it did not catch by the end of `{}`{target}: `{}`{at}{more} (--fail-on-page-error)",
                action.verb.tool(),
                quoted(&first.message),
            ),
        ));
    }
}
