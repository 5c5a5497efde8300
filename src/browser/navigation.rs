//! What Chromium's error page stands for: the address a navigation failed to load, and
//! the network error it failed with, for a round trip that says where a click tried to go.

use chromiumoxide::cdp::browser_protocol::page::GetNavigationHistoryParams;

use super::chromium::bounded;
use super::{BrowserError, ChromiumTab};

impl ChromiumTab {
    /// On Chromium's error page: the address that failed (the history entry keeps it) and
    /// the network error (`ERR_CONNECTION_REFUSED`) the tab's watcher heard the network
    /// report for it (see `setup.rs`), as far as known. Not read off the page: the full
    /// Chromium's shows the same name, the headless shell's shows nothing.
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
        let code = self
            .load_error
            .lock()
            .ok()
            .and_then(|e| e.clone())
            .map(|e| e.trim_start_matches("net::").to_string())
            .filter(|c| c.starts_with("ERR_") && c.len() < 64);
        Ok((url, code))
    }
}
