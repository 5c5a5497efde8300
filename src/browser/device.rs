//! Devices a tab can be: the viewport, its pixel density and whether it is a phone or a
//! tablet (a mobile viewport, with touch), and the named presets `--device` picks from.
//!
//! chromiumoxide emulates the viewport's size, density and mobile flag when it sets a tab
//! up, but turns touch on for every tab; here touch follows the device (see
//! [`emulate_touch`]).

use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::emulation::{
    MediaFeature, SetEmulatedMediaParams, SetTouchEmulationEnabledParams,
};

use super::commands::Commands;
use super::{BrowserError, ChromiumTab};

/// What a tab is emulated as.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Device {
    /// The preset's name (`Pixel 7`), or `custom`.
    pub name: &'static str,
    /// Viewport width in CSS pixels.
    pub width: u32,
    /// Viewport height in CSS pixels.
    pub height: u32,
    /// Device pixels per CSS pixel.
    pub scale: f64,
    /// A mobile viewport (`<meta name=viewport>` honoured, scrollbars overlaid) with touch.
    pub mobile: bool,
}

/// The named devices `--device` knows, as their makers' specifications give them.
pub const DEVICES: &[Device] = &[
    Device {
        name: "Pixel 7",
        width: 412,
        height: 915,
        scale: 2.625,
        mobile: true,
    },
    Device {
        name: "iPhone 14",
        width: 390,
        height: 844,
        scale: 3.0,
        mobile: true,
    },
    Device {
        name: "iPad Mini",
        width: 768,
        height: 1024,
        scale: 2.0,
        mobile: true,
    },
    Device {
        name: "Desktop 1280",
        width: 1280,
        height: 800,
        scale: 1.0,
        mobile: false,
    },
];

impl Device {
    /// The preset called `name` (case and spaces ignored: `pixel7` is `Pixel 7`).
    pub fn preset(name: &str) -> Option<Device> {
        let squash = |s: &str| {
            s.chars()
                .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
                .flat_map(char::to_lowercase)
                .collect::<String>()
        };
        let wanted = squash(name);
        DEVICES.iter().copied().find(|d| squash(d.name) == wanted)
    }

    /// The presets' names, for messages.
    pub fn names() -> String {
        DEVICES
            .iter()
            .map(|d| format!("`{}`", d.name))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Turns touch emulation on for a mobile device (five touch points, as phones report) and
/// off otherwise: waymark drives a mouse and a keyboard on a desktop, and an app that saw a
/// touch screen there (`navigator.maxTouchPoints`, `ontouchstart`, `(any-pointer: coarse)`)
/// could lay itself out and listen for one.
pub(super) async fn emulate_touch(
    page: &Page,
    mobile: bool,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let mut params = SetTouchEmulationEnabledParams::new(mobile);
    params.max_touch_points = mobile.then_some(5);
    page.command(timeout, "setting touch emulation", params)
        .await?;
    Ok(())
}

/// The colour scheme a tab's pages see (CSS `prefers-color-scheme`), as Playwright's
/// `colorScheme`: `light` unless asked for `dark`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorScheme {
    /// `prefers-color-scheme: light`.
    #[default]
    Light,
    /// `prefers-color-scheme: dark`.
    Dark,
}

impl ColorScheme {
    fn word(self) -> &'static str {
        match self {
            ColorScheme::Light => "light",
            ColorScheme::Dark => "dark",
        }
    }
}

/// Makes the tab's pages see `scheme` as the person's preferred colour scheme.
pub(super) async fn emulate_color_scheme(
    page: &Page,
    scheme: ColorScheme,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let params = SetEmulatedMediaParams::builder()
        .feature(MediaFeature::new("prefers-color-scheme", scheme.word()))
        .build();
    page.command(timeout, "emulating the colour scheme", params)
        .await?;
    Ok(())
}

impl ChromiumTab {
    /// Makes this tab's pages see `scheme` as the preferred colour scheme from now on (a
    /// tab starts with `--color-scheme`'s): a check of a page in light and dark.
    pub async fn emulate_color_scheme(&self, scheme: ColorScheme) -> Result<(), BrowserError> {
        emulate_color_scheme(&self.page, scheme, self.timeout).await
    }
}

#[cfg(test)]
mod tests {
    use super::Device;

    #[test]
    fn presets_are_found_by_name_whatever_the_case_and_spacing() {
        assert_eq!(Device::preset("Pixel 7").unwrap().width, 412);
        assert_eq!(Device::preset("pixel7").unwrap().name, "Pixel 7");
        assert_eq!(Device::preset("ipad-mini").unwrap().height, 1024);
        assert!(!Device::preset("desktop 1280").unwrap().mobile);
        assert!(Device::preset("Nokia 3310").is_none());
        assert!(Device::names().contains("`iPhone 14`"));
    }
}
