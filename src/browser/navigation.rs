//! What Chromium's error page stands for: the address a navigation failed to load, and
//! the network error it failed with, for a round trip that says where a click tried to go.

use chromiumoxide::cdp::browser_protocol::page::GetNavigationHistoryParams;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;

use super::chromium::bounded;
use super::{BrowserError, ChromiumTab};

impl ChromiumTab {
    /// On Chromium's error page: the address that failed (the history entry keeps it) and
    /// the network error (`ERR_CONNECTION_REFUSED`), as far as known: the one the page
    /// shows, else the one the network reported (the headless shell's page shows none).
    pub(super) async fn failed_load(
        &self,
    ) -> Result<(Option<String>, Option<String>), BrowserError> {
        let history = bounded(
            self.timeout,
            "reading the tab's history",
            self.page.execute(GetNavigationHistoryParams::default()),
        )
        .await?;
        let url = usize::try_from(history.result.current_index)
            .ok()
            .and_then(|i| history.result.entries.get(i))
            .map(|e| e.url.clone())
            .filter(|u| !u.starts_with("chrome-error:"));
        let mut probe =
            EvaluateParams::new("(document.querySelector('.error-code') || {}).textContent || ''");
        probe.return_by_value = Some(true);
        let code = bounded(
            self.timeout,
            "reading the error page",
            self.page.execute(probe),
        )
        .await
        .ok()
        .and_then(|r| r.result.result.value)
        .and_then(|v| v.as_str().map(|s| s.trim().to_string()))
        .filter(|c| is_net_error(c))
        .or_else(|| {
            let reported = self.load_error.lock().ok()?.clone()?;
            Some(reported.trim_start_matches("net::").to_string())
        })
        .filter(|c| is_net_error(c));
        Ok((url, code))
    }
}

/// Whether `code` looks like a network error's name (`ERR_CONNECTION_REFUSED`).
fn is_net_error(code: &str) -> bool {
    code.starts_with("ERR_") && code.len() < 64
}
