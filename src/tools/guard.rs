//! What a page can do to a call that no bound inside the call catches: open JavaScript
//! dialogs in a loop, or hold its renderer in a script that never returns. Each dialog is answered at once (see `browser::dialogs`), so the page
//! never looks stuck — it opens the next one — yet no script of ours gets a turn, and every
//! wait inside the call runs to its own bound, one after the other. The call's work is raced
//! against a watch on the tab's count of answered dialogs instead: a call during which the
//! page keeps opening them ends within the load timeout, saying so and how many were
//! answered.
//!
//! A page whose script never returns answers nothing at all: the call times out on its
//! first command, and so would every read after it. A call that timed out asks the page a
//! trivial question with a short bound; a page that cannot answer it is `page_unresponsive`,
//! the tab is marked blocked (a failed call reads nothing more), and every later call on it
//! fails at once with the same code while it stays so. A call that timed out on a page that
//! does answer says which call it was, and how its request was late.
//!
//! And the browser itself: a call that failed as if it had crashed asks it
//! (`Browser.getVersion`); one that answers did not crash, whatever its error said. A call
//! still running after a few seconds asks it too, every few seconds: a browser process
//! stopped or stuck answers nothing — the call's own requests neither — and the call ends
//! with `browser_crashed` rather than at its own bound, which for a load may be minutes.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::gate::Action;
use super::verbs::Verb;
use super::{Attribution, ErrorCode, Outcome, RoundTrip, ToolError, Tools};
use crate::browser::Tab;
use crate::protocol::quoted;

/// Dialogs answered within one call past which the page is looping on them, whatever the
/// time: no page asks a person a hundred questions in one action.
pub(super) const DIALOG_LOOP: u64 = 100;

/// How often the count is looked at.
const TICK: Duration = Duration::from_millis(50);

/// How long a browser has to answer `Browser.getVersion` before a failed call says it
/// crashed (as a run asks of a browser after a failed journey).
const BROWSER_PROBE: Duration = Duration::from_secs(2);

/// How long a call runs before the browser is asked whether it still answers, and how
/// long between two askings while it does.
const BROWSER_WATCH: Duration = Duration::from_secs(3);

/// Askings in a row a browser left unanswered, that make it stopped: one alone may be a
/// machine's pause.
const BROWSER_MISSES: u32 = 2;

/// How long a page has to answer a trivial script before it counts as unresponsive.
const PROBE: Duration = Duration::from_secs(1);

impl<T: Tab> Tools<T> {
    /// Runs `work` (an action that passed the gates) unless the page keeps opening dialogs
    /// meanwhile: [`DIALOG_LOOP`] of them, or more than one by the load timeout, end the call
    /// with a `timeout` (attributed to the app). A call whose command or script timed out
    /// (not a load, whose timeouts are the app's), or any call on a tab
    /// marked blocked, asks the page a trivial script first: one it cannot answer is
    /// `page_unresponsive`. A handoff is not watched: it waits on a person, not the page.
    pub(super) async fn guarded(
        &self,
        action: &Action,
        work: impl Future<Output = Outcome>,
    ) -> Outcome {
        if action.verb == Verb::Handoff {
            return work.await;
        }
        if self.here().memory.blocked.load(Ordering::Relaxed) {
            if !self.page_responds().await {
                return Err((None, unresponsive(action, "still does not respond")));
            }
            self.here().memory.blocked.store(false, Ordering::Relaxed);
        }
        let before = self.here().tab.dialogs_answered();
        let start = Instant::now();
        let limit = self.options.load_timeout;
        let looping = async {
            loop {
                tokio::time::sleep(TICK).await;
                let answered = self.here().tab.dialogs_answered().saturating_sub(before);
                if answered >= DIALOG_LOOP || (answered > 1 && start.elapsed() + TICK >= limit) {
                    return answered;
                }
            }
        };
        // A browser process stopped or stuck answers nothing, and the call would wait for
        // its own bound (a load's may be minutes): past a few seconds it asks the browser.
        let unanswered = Box::pin(async {
            tokio::time::sleep(BROWSER_WATCH).await;
            let mut missed = 0;
            while missed < BROWSER_MISSES {
                if self.here().tab.browser_answers(BROWSER_PROBE).await {
                    missed = 0;
                    tokio::time::sleep(BROWSER_WATCH).await;
                } else {
                    missed += 1;
                }
            }
        });
        tokio::select! {
            outcome = work => match outcome {
                // A command or a script of ours that timed out (the environment's timeouts),
                // not a load: while a navigation is pending Chromium holds scripts anyway.
                Err((label, e)) if e.code == ErrorCode::Timeout
                    && e.attribution == Attribution::Environment =>
                {
                    if !self.here().tab.is_closed() && !self.page_responds().await {
                        self.here().memory.blocked.store(true, Ordering::Relaxed);
                        return Err((label, unresponsive(action, "stopped responding")));
                    }
                    // The page answers: the call's request was late, said with the call.
                    let message = format!("{}: {}", during(action), e.message);
                    Err((label, ToolError { message, ..e }))
                }
                Err((label, e)) if e.code == ErrorCode::BrowserCrashed => {
                    Err((label, Box::pin(self.confirmed(e)).await))
                }
                other => other,
            },
            answered = looping => {
                // The page is still busy with dialogs: a failed call reads nothing more.
                self.here().memory.blocked.store(true, Ordering::Relaxed);
                Err((None, dialog_loop(action, answered, start.elapsed())))
            }
            () = unanswered => Err((None, stopped_answering(action))),
        }
    }
}

impl<T: Tab> Tools<T> {
    /// `error`, unless it says the browser crashed while the browser is there: a
    /// `browser_crashed` stands only when the browser process is gone or does not answer
    /// `Browser.getVersion`, or the tab's renderer crashed (or its page closed it, which the
    /// tabs make their own case of). A browser that answers refused a command of waymark's:
    /// the fault is waymark's (`capture_failed`), not the environment's.
    pub(super) async fn confirmed(&self, error: ToolError) -> ToolError {
        let tab = &self.here().tab;
        if error.code != ErrorCode::BrowserCrashed
            || tab.renderer_crashed()
            || tab.is_closed()
            || !tab.browser_answers(BROWSER_PROBE).await
        {
            return error;
        }
        ToolError::new(
            ErrorCode::CaptureFailed,
            format!(
                "the browser answers, but refused a command of waymark's: {}",
                error.message
            ),
        )
    }

    /// Whether the page answers a trivial script within a second (a page held by a script
    /// that never returns, or by dialogs in a loop, does not).
    pub async fn page_responds(&self) -> bool {
        self.here().tab.evaluate("'ok'", PROBE).await.is_ok()
    }

    /// The round trip of the call `tool` a journey's deadline of `deadline` cut short: the
    /// page is asked whether it still responds, and the tab is marked blocked when not.
    pub async fn past_deadline(&self, tool: &'static str, deadline: Duration) -> RoundTrip {
        let error = if self.page_responds().await {
            ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "the journey ran past its deadline of {} s during `{tool}`",
                    deadline.as_secs_f64()
                ),
            )
            .attributed(Attribution::Journey)
        } else {
            self.here().memory.blocked.store(true, Ordering::Relaxed);
            ToolError::new(
                ErrorCode::PageUnresponsive,
                format!(
                    "the page stopped responding during `{tool}`: a script of the page held its renderer until the journey's deadline of {} s",
                    deadline.as_secs_f64()
                ),
            )
        };
        let route = self.current_route();
        RoundTrip {
            tool,
            ok: false,
            anchor: None,
            label: None,
            route_before: route.clone(),
            route,
            screen: None,
            changes: None,
            error: Some(error),
            elapsed_ms: 0.0,
            ..RoundTrip::default()
        }
        .shown()
    }
}

/// The error of a call on a page that `what` (stopped responding, still does not respond).
fn unresponsive(action: &Action, what: &str) -> ToolError {
    ToolError::new(
        ErrorCode::PageUnresponsive,
        format!(
            "the page {what} during {}: a script of the page holds its renderer (it did not answer within {} ms)",
            during(action),
            PROBE.as_millis()
        ),
    )
}

/// The error of a call during which the browser stopped answering.
fn stopped_answering(action: &Action) -> ToolError {
    ToolError::new(
        ErrorCode::BrowserCrashed,
        format!(
            "the browser stopped answering during {}: it did not answer `Browser.getVersion` {BROWSER_MISSES} times in a row, within {} ms each",
            during(action),
            BROWSER_PROBE.as_millis()
        ),
    )
}

/// The call `action` in words: `invoke` `claims.open[1042]`.
fn during(action: &Action) -> String {
    match &action.target {
        Some(target) => format!("`{}` `{}`", action.verb.as_str(), quoted(target)),
        None => format!("`{}`", action.verb.as_str()),
    }
}

/// The error of a call the page kept answering with dialogs.
fn dialog_loop(action: &Action, answered: u64, after: Duration) -> ToolError {
    let during = during(action);
    ToolError::new(
        ErrorCode::Timeout,
        format!(
            "the page kept opening JavaScript dialogs during {during}: {answered} answered in {} ms and more kept coming, so waymark stopped waiting for it",
            after.as_millis()
        ),
    )
    .attributed(Attribution::App)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dialog_loop_names_the_call_and_the_count() {
        let action = Action::new(Verb::Invoke, Some("dialogs.start".into()));
        let e = dialog_loop(&action, 100, Duration::from_millis(412));
        assert_eq!(e.code, ErrorCode::Timeout);
        assert_eq!(e.attribution, Attribution::App);
        assert!(
            e.message
                .contains("`invoke` `dialogs.start`: 100 answered in 412 ms"),
            "{}",
            e.message
        );
    }
}
