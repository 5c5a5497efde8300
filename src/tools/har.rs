//! `--har`: the journey's traffic recorded as a HAR file (`record`), or a HAR answering
//! its requests (`replay`), in every tab it has and opens (see `browser::har`). The file
//! is written when the journey's tab closes, each secret variable's value redacted in it
//! as the trace redacts it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::Tools;
use crate::browser::Tab;
use crate::browser::har::{Har, HarRecorder, HarReplay};

/// How long the end of a journey waits for the response bodies still being read.
const BODIES_BOUND: Duration = Duration::from_secs(5);

impl<T: Tab> Tools<T> {
    /// Records the traffic of the journey's tabs in `recorder`, from the first tab's
    /// first navigation on (call before it).
    pub async fn record_har(&self, recorder: Arc<HarRecorder>) -> Result<(), super::ToolError> {
        for open in self.tabs.all() {
            open.tab
                .record_har(&recorder)
                .await
                .map_err(super::browser_error)?;
        }
        if let Ok(mut slot) = self.shared.har.lock() {
            *slot = Some(recorder);
        }
        Ok(())
    }

    /// Answers the requests of the journey's tabs that none of its own routes matches
    /// from `replay` (call before the first navigation).
    pub async fn replay_har(&self, replay: Arc<HarReplay>) -> Result<(), super::ToolError> {
        self.shared.routes.fall_back_to(replay);
        self.apply_routes().await
    }

    /// Makes a tab that joined the journey record its traffic too, when the journey
    /// records.
    pub(super) async fn har_joined(&self, tab: &T) {
        let recorder = self.shared.har.lock().ok().and_then(|r| r.clone());
        if let Some(recorder) = recorder {
            let _ = tab.record_har(&recorder).await;
        }
    }
}

/// The journey's HAR from `recorder`, once the bodies still being read are in (or
/// [`BODIES_BOUND`] passed).
pub async fn finish_har(recorder: &HarRecorder) -> Har {
    recorder.finish(BODIES_BOUND).await
}

/// Writes `har` to `path` (its folder made), each of `secrets` written as `[redacted]`
/// wherever it appears.
pub fn write_har(path: &Path, har: &Har, secrets: &[String]) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(har).map_err(std::io::Error::other)?;
    // A secret as it appears inside a JSON string (escaped), longest first.
    let inside: Vec<String> = secrets
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| serde_json::to_string(s).ok())
        .map(|s| s[1..s.len() - 1].to_string())
        // And as it appears in a URL.
        .chain(
            secrets
                .iter()
                .filter(|s| !s.is_empty())
                .map(|s| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()),
        )
        .collect();
    let json = super::trace::redact(&json, &inside);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, json)
}
