//! What Chromium's error page stands for: the address a navigation failed to load, and
//! the network error it failed with, for a round trip that says where a click tried to go.

use chromiumoxide::cdp::browser_protocol::page::GetNavigationHistoryParams;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;

use super::chromium::bounded;
use super::{BrowserError, ChromiumTab};

impl ChromiumTab {
    /// On Chromium's error page: the address that failed (the history entry keeps it) and
    /// the network error the page shows (`ERR_CONNECTION_REFUSED`), as far as known.
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
        .filter(|c| c.starts_with("ERR_") && c.len() < 64);
        Ok((url, code))
    }
}
