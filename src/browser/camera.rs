//! Screenshots of a tab: for the person watching on the control page, and for the reports
//! (`--screenshots`); never shown to a journey.

use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams,
};

use super::BrowserError;
use super::commands::Commands;
use super::convert::base64_decode;

/// Takes screenshots of one [`ChromiumTab`]; see [`ChromiumTab::camera`].
#[derive(Clone)]
pub struct TabCamera {
    pub(super) page: Page,
    pub(super) timeout: Duration,
}

impl TabCamera {
    /// A PNG of the tab's viewport, bounded by the tab's command timeout.
    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        let params = CaptureScreenshotParams {
            format: Some(CaptureScreenshotFormat::Png),
            ..CaptureScreenshotParams::default()
        };
        let reply = self
            .page
            .command(self.timeout, "a screenshot", params)
            .await?;
        let data: &str = reply.result.data.as_ref();
        base64_decode(data)
            .ok_or_else(|| BrowserError::Protocol("the screenshot is not base64".into()))
    }
}
