//! Every CDP request waymark sends, under the bound of the step it serves: a timeout names
//! what the step was doing and the CDP method, whoever's bound passed (ours, or
//! chromiumoxide's own), and chromiumoxide's errors become ours.

use std::future::Future;
use std::time::Duration;

use chromiumoxide::error::CdpError;
use chromiumoxide::types::{Command, CommandResponse};
use chromiumoxide::{Browser, Page};

use super::BrowserError;

/// chromiumoxide's own bound on a request, set past every bound of waymark's so that it
/// never decides: each request carries the bound of the step it serves (see [`within`]),
/// and chromiumoxide's is one for all (a wait for a page's condition may be given minutes)
/// and coarse (it cuts a request between one and two of it after it was sent). It only
/// lets go of answers nobody waits for any more.
pub(super) const BACKSTOP: Duration = Duration::from_secs(600);

/// The CDP method of trusted mouse input, named by a click that timed out.
pub(super) const MOUSE: &str = "Input.dispatchMouseEvent";

/// Runs `fut` under `limit`, mapping its errors into ours; a timeout names `what`.
pub(super) async fn bounded<T>(
    limit: Duration,
    what: &str,
    fut: impl Future<Output = Result<T, CdpError>>,
) -> Result<T, BrowserError> {
    within(limit, what, None, fut).await
}

/// [`bounded`] for the CDP command `method`, which a timeout names beside `what`. A bound
/// of chromiumoxide's own that passed first (a request it stopped waiting for) is the same
/// timeout: the browser did not answer in time, which does not make it gone.
pub(super) async fn within<T>(
    limit: Duration,
    what: &str,
    method: Option<&str>,
    fut: impl Future<Output = Result<T, CdpError>>,
) -> Result<T, BrowserError> {
    let start = std::time::Instant::now();
    let late = |after: Duration| {
        let what = match method {
            Some(method) => format!("{what} (`{method}`)"),
            None => what.to_string(),
        };
        // Said where a run's logs can count them (the soak test does: none may come).
        let ms = after.as_millis();
        tracing::warn!(target: "waymark::cdp", "request timed out: {what} after {ms} ms");
        BrowserError::Timeout { what, after }
    };
    match tokio::time::timeout(limit, fut).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(CdpError::Timeout)) => Err(late(start.elapsed())),
        Ok(Err(e)) => Err(map_cdp(e)),
        Err(_) => Err(late(limit)),
    }
}

/// Sends a CDP command under a bound, which a timeout names with the command's method.
pub(super) trait Commands {
    /// Sends `cmd` and waits for its answer, at most `limit`; a timeout names `what`.
    fn command<C: Command + Send>(
        &self,
        limit: Duration,
        what: &str,
        cmd: C,
    ) -> impl Future<Output = Result<CommandResponse<C::Response>, BrowserError>> + Send
    where
        C::Response: Send;
}

impl Commands for Page {
    async fn command<C: Command + Send>(
        &self,
        limit: Duration,
        what: &str,
        cmd: C,
    ) -> Result<CommandResponse<C::Response>, BrowserError>
    where
        C::Response: Send,
    {
        let method = cmd.identifier();
        within(limit, what, Some(&method), self.execute(cmd)).await
    }
}

impl Commands for Browser {
    async fn command<C: Command + Send>(
        &self,
        limit: Duration,
        what: &str,
        cmd: C,
    ) -> Result<CommandResponse<C::Response>, BrowserError>
    where
        C::Response: Send,
    {
        let method = cmd.identifier();
        within(limit, what, Some(&method), self.execute(cmd)).await
    }
}

fn map_cdp(e: CdpError) -> BrowserError {
    let text = e.to_string();
    if is_context_lost(&text) {
        return BrowserError::ContextLost;
    }
    match e {
        CdpError::Ws(_) | CdpError::ChannelSendError(_) | CdpError::NoResponse => {
            BrowserError::Crashed("the browser went away (killed or crashed)".into())
        }
        _ => BrowserError::Protocol(text),
    }
}

pub(super) fn is_context_lost(text: &str) -> bool {
    text.contains("Execution context was destroyed")
        || text.contains("Inspected target navigated or closed")
        || text.contains("Cannot find context with specified id")
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
        let e = rt
            .block_on(within(
                Duration::from_secs(5),
                "an in-page script",
                Some("Runtime.evaluate"),
                given_up,
            ))
            .expect_err("timed out");
        assert!(matches!(e, BrowserError::Timeout { .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("an in-page script (`Runtime.evaluate`) did not finish"),
            "{e}"
        );
        let never = std::future::pending::<Result<(), CdpError>>();
        let e = rt
            .block_on(within(
                Duration::from_millis(10),
                "clicking",
                Some(MOUSE),
                never,
            ))
            .expect_err("timed out");
        assert_eq!(
            e.to_string(),
            "clicking (`Input.dispatchMouseEvent`) did not finish within 10 ms"
        );
    }
}
