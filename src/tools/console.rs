//! What each call's round trip says the journey's pages logged and threw: the console's
//! errors and warnings, and the uncaught errors and unhandled rejections, of every tab of
//! the journey since the call before (see `browser::console`). With
//! `--fail-on-page-error`, a call whose round trip lists a page error fails with
//! `page_error`, attributed to the app: the call during which the page threw, or the one
//! after, when the error came as the call ended or between calls; one thrown after the
//! journey's last call fails the journey as it ends (see `run::run_one`).

use super::gate::Action;
use super::{RoundTrip, Tools};
use crate::browser::{PageError, PageLog, Tab};
use crate::protocol::{ErrorCode, ToolError, quoted};

/// How long a call waits for the browser connection to come round before it takes what the
/// tabs said (see `page_log`).
const CATCH_UP: std::time::Duration = std::time::Duration::from_millis(100);

impl<T: Tab> Tools<T> {
    /// Puts what the journey's tabs logged and threw since the last call in `rt`, and fails
    /// it with `page_error` when the run fails on page errors and one came.
    pub(super) async fn take_console(&self, action: &Action, rt: &mut RoundTrip) {
        let log = self.page_log().await;
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
        let target = action
            .target
            .as_deref()
            .map(|t| format!(" `{}`", quoted(t)))
            .unwrap_or_default();
        let when = format!("by the end of `{}`{target}", action.verb.tool());
        rt.ok = false;
        rt.error = Some(page_error(
            &when,
            first,
            rt.page_errors.len(),
            rt.page_errors_dropped,
        ));
    }

    /// With `--fail-on-page-error`, the `page_error` for what the journey's tabs threw after
    /// its last call (which no call will list), as the journey ends; `None` without the
    /// flag or such an error. What came after is not waited for.
    pub async fn late_page_error(&self) -> Option<ToolError> {
        if !self.options.fail_on_page_error {
            return None;
        }
        let log = self.page_log().await;
        let first = log.page_errors.first()?;
        Some(page_error(
            "after the journey's last call",
            first,
            log.page_errors.len(),
            log.page_errors_dropped,
        ))
    }

    /// What the journey's tabs logged and threw since it was last taken: what Chromium
    /// said before the call's last answer, whether or not the tabs' watcher tasks had
    /// their turn (each tab's book reads its streams itself as it is taken: `ConsoleBook`
    /// in `src/browser/console.rs`).
    ///
    /// chromiumoxide hands an answer over as soon as it reads it, but the events it read
    /// with it only on its handler's next turn, microseconds later; a runner thread
    /// pre-empted there left them for the next call. A round trip to the browser on the
    /// same connection (the journey's tabs share it) comes back after that turn. Measured
    /// through the tools, a click whose two promise rejections Chromium reports and a
    /// quiet call after it, 800 pairs beside three busy loops: without it, 11 clicks had
    /// both with the next call and 1 had them split; with it, none.
    async fn page_log(&self) -> PageLog {
        // Bounded short: a browser that does not answer fails the call on its own.
        let _ = self.here().tab.browser_answers(CATCH_UP).await;
        let mut log = PageLog::default();
        for open in self.tabs.all() {
            log.extend(open.tab.take_console());
        }
        log
    }
}

/// `page_error` for `first` of `kept` errors (and `dropped` more) thrown `when`.
fn page_error(when: &str, first: &PageError, kept: usize, dropped: u64) -> ToolError {
    let more = kept - 1 + usize::try_from(dropped).unwrap_or(0);
    let at = match first.source.as_str() {
        "" => String::new(),
        source => format!(" at `{}`", quoted(source)),
    };
    let more = match more {
        0 => String::new(),
        n => format!(" (and {n} more)"),
    };
    ToolError::new(
        ErrorCode::PageError,
        format!(
            "the page threw an error it did not catch {when}: `{}`{at}{more} (--fail-on-page-error)",
            quoted(&first.message),
        ),
    )
}
