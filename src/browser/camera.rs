//! Screenshots of a tab, for the person watching on the control page (never shown to a
//! journey), and the base64 CDP encodes them (and other binary results) in.

use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams,
};

use super::BrowserError;
use super::chromium::bounded;

/// Decodes standard base64 (CDP's encoding of binary results); `None` when it is not.
/// Lenient as CDP's readers are: padding is optional and unused trailing bits are ignored.
pub(super) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    LENIENT.decode(text).ok()
}

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
        let reply = bounded(self.timeout, "a screenshot", self.page.execute(params)).await?;
        let data: &str = reply.result.data.as_ref();
        base64_decode(data)
            .ok_or_else(|| BrowserError::Protocol("the screenshot is not base64".into()))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_decodes_padded_and_unpadded_and_refuses_other_text() {
        assert_eq!(
            super::base64_decode("iVBORw0KGgo=").unwrap(),
            b"\x89PNG\r\n\x1a\n"
        );
        assert_eq!(super::base64_decode("YQ==").unwrap(), b"a");
        assert_eq!(super::base64_decode("YWI").unwrap(), b"ab");
        assert_eq!(super::base64_decode("").unwrap(), b"");
        assert!(super::base64_decode("a$b=").is_none());
        assert!(super::base64_decode("YWJjZ").is_none());
    }
}
