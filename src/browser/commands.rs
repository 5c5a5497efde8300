//! Every CDP request waymark sends, under the bound of the step it serves: a timeout names
//! what the step was doing and the CDP method, whoever's bound passed (ours, or
//! chromiumoxide's own), and chromiumoxide's errors become ours.

use std::borrow::Cow;
use std::future::Future;
use std::time::Duration;

use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::error::CdpError;
use chromiumoxide::types::{Command, CommandResponse};
use chromiumoxide::{Browser, Page};
use futures::FutureExt;

use super::BrowserError;

/// chromiumoxide's own bound on a request, set past every bound of waymark's so that it
/// never decides: each request carries the bound of the step it serves (see [`within`]),
/// and chromiumoxide's is one for all (a wait for a page's condition may be given minutes)
/// and coarse (it cuts a request between one and two of it after it was sent). It only
/// lets go of answers nobody waits for any more.
pub(super) const BACKSTOP: Duration = Duration::from_secs(600);

/// The CDP method of trusted mouse input, named by a click that timed out.
pub(super) const MOUSE: Cow<'static, str> = Cow::Borrowed("Input.dispatchMouseEvent");

/// Runs `fut` under `limit`, mapping its errors into ours; a timeout names `what`.
pub(super) fn bounded<'a, T: 'a>(
    limit: Duration,
    what: &'a str,
    fut: impl Future<Output = Result<T, CdpError>> + 'a,
) -> impl Future<Output = Result<T, BrowserError>> + 'a {
    within(limit, what, None, fut)
}

/// [`bounded`] for the CDP command `method`, which a timeout names beside `what`. A bound
/// of chromiumoxide's own that passed first (a request it stopped waiting for) is the same
/// timeout: the browser did not answer in time, which does not make it gone.
///
/// A combinator, not an `async fn`: every read and action goes through it, and an
/// `async fn` would hold `fut` twice (its argument, and the timeout awaiting it) in the
/// state of every future that sends a command.
pub(super) fn within<'a, T: 'a>(
    limit: Duration,
    what: &'a str,
    method: Option<Cow<'static, str>>,
    fut: impl Future<Output = Result<T, CdpError>> + 'a,
) -> impl Future<Output = Result<T, BrowserError>> + 'a {
    let start = std::time::Instant::now();
    tokio::time::timeout(limit, fut).map(move |answer| {
        let late = |after: Duration| {
            let what = match &method {
                Some(method) => format!("{what} (`{method}`)"),
                None => what.to_string(),
            };
            // Said where a run's logs can count them (the soak test does: none may come).
            let ms = after.as_millis();
            tracing::warn!(target: "waymark::cdp", "request timed out: {what} after {ms} ms");
            BrowserError::Timeout { what, after }
        };
        match answer {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(CdpError::Timeout)) => Err(late(start.elapsed())),
            Ok(Err(e)) => Err(map_cdp(e)),
            Err(_) => Err(late(limit)),
        }
    })
}

/// Sends a CDP command under a bound, which a timeout names with the command's method.
pub(super) trait Commands {
    /// Sends `cmd` and waits for its answer, at most `limit`; a timeout names `what`.
    fn command<'a, C>(
        &'a self,
        limit: Duration,
        what: &'a str,
        cmd: C,
    ) -> impl Future<Output = Result<CommandResponse<C::Response>, BrowserError>> + Send + 'a
    where
        C: Command + Send + 'a,
        C::Response: Send;
}

/// The one implementation, for each of chromiumoxide's handles that sends commands (a tab's
/// `Page` and the `Browser`, which share no trait of theirs for it).
macro_rules! commands_through_execute {
    ($($handle:ty),+) => {$(
        impl Commands for $handle {
            fn command<'a, C>(
                &'a self,
                limit: Duration,
                what: &'a str,
                cmd: C,
            ) -> impl Future<Output = Result<CommandResponse<C::Response>, BrowserError>> + Send + 'a
            where
                C: Command + Send + 'a,
                C::Response: Send,
            {
                let method = cmd.identifier();
                within(limit, what, Some(method), self.execute(cmd))
            }
        }
    )+};
}

commands_through_execute!(Page, Browser);

fn map_cdp(e: CdpError) -> BrowserError {
    let text = e.to_string();
    if is_context_lost(&text) {
        return BrowserError::ContextLost;
    }
    match e {
        CdpError::Ws(_) | CdpError::ChannelSendError(_) | CdpError::NoResponse => {
            BrowserError::browser_gone()
        }
        _ => BrowserError::Protocol(text),
    }
}

pub(super) fn is_context_lost(text: &str) -> bool {
    text.contains("Execution context was destroyed")
        || text.contains("Inspected target navigated or closed")
        || text.contains("Cannot find context with specified id")
}

/// Runs `params` (an evaluation returning by value) and answers the string it produced: the
/// page's exception as a script error (or as the context lost, when the document went away
/// under it), bounded by `timeout`.
pub(super) async fn evaluate_in(
    page: &Page,
    params: EvaluateParams,
    timeout: Duration,
) -> Result<String, BrowserError> {
    let reply = page.command(timeout, "an in-page script", params).await?;
    if let Some(ex) = &reply.result.exception_details {
        let detail = ex
            .exception
            .as_ref()
            .and_then(|o| o.description.clone())
            .unwrap_or_else(|| ex.text.clone());
        if is_context_lost(&detail) {
            return Err(BrowserError::ContextLost);
        }
        return Err(BrowserError::Script(detail));
    }
    // Moved out, not cloned: a dense read is megabytes.
    match reply.result.result.value {
        Some(serde_json::Value::String(s)) => Ok(s),
        other => Err(BrowserError::Script(format!(
            "expected a string from the collector, got {other:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 54): a request chromiumoxide stopped waiting for came back as
    /// "browser protocol error: Request timed out." and was reported as `browser_crashed`.
    #[test]
    fn a_request_chromiumoxide_gave_up_on_is_a_timeout_naming_its_method() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        let given_up = async { Err::<(), _>(CdpError::Timeout) };
        let method = Some(Cow::Borrowed("Runtime.evaluate"));
        let e = rt
            .block_on(async {
                within(
                    Duration::from_secs(5),
                    "an in-page script",
                    method,
                    given_up,
                )
                .await
            })
            .expect_err("timed out");
        assert!(matches!(e, BrowserError::Timeout { .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("an in-page script (`Runtime.evaluate`) did not finish"),
            "{e}"
        );
        let never = std::future::pending::<Result<(), CdpError>>();
        let e = rt
            .block_on(async {
                within(Duration::from_millis(10), "clicking", Some(MOUSE), never).await
            })
            .expect_err("timed out");
        assert_eq!(
            e.to_string(),
            "clicking (`Input.dispatchMouseEvent`) did not finish within 10 ms"
        );
    }
}
