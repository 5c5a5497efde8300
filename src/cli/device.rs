//! The device flags (`--device`, `--viewport`, `--device-scale`, `--mobile`), one group for
//! every command that opens a tab: a preset first, then each flag given over it.

use clap::Args;

use crate::browser::{ColorScheme, Device, LaunchOptions, NetworkPreset};

/// What the tab is emulated as.
#[derive(Debug, Clone, Args)]
pub(crate) struct DeviceFlags {
    /// A named device: `Pixel 7`, `iPhone 14`, `iPad Mini`, `Desktop 1280` (its viewport,
    /// pixel density, and touch with a mobile viewport for phones and tablets); the flags
    /// below change what it sets.
    #[arg(long, global = true, env = "WAYMARK_DEVICE", value_name = "NAME",
          value_parser = device, help_heading = "Device")]
    device: Option<Device>,
    /// The viewport in CSS pixels, e.g. `390x844` [default: 1280x800].
    #[arg(long, global = true, env = "WAYMARK_VIEWPORT", value_name = "WxH",
          value_parser = viewport, help_heading = "Device")]
    viewport: Option<(u32, u32)>,
    /// Device pixels per CSS pixel, e.g. `3` [default: 1].
    #[arg(long, global = true, env = "WAYMARK_DEVICE_SCALE", value_name = "N",
          value_parser = scale, help_heading = "Device")]
    device_scale: Option<f64>,
    /// A mobile viewport with touch (phones and tablets).
    #[arg(long, global = true, env = "WAYMARK_MOBILE", help_heading = "Device")]
    mobile: bool,
    /// The colour scheme pages see (CSS `prefers-color-scheme`) [default: light].
    #[arg(
        long,
        global = true,
        env = "WAYMARK_COLOR_SCHEME",
        value_enum,
        value_name = "SCHEME",
        help_heading = "Device"
    )]
    color_scheme: Option<ColorScheme>,
    /// The network every tab starts with: `offline`, `slow-3g` (2000 ms latency, 400 kbit/s)
    /// or `fast-3g` (563 ms, 1440 kbit/s down, 675 up) [default: as it is].
    #[arg(
        long,
        global = true,
        env = "WAYMARK_NETWORK",
        value_enum,
        value_name = "PRESET",
        help_heading = "Device"
    )]
    network: Option<NetworkPreset>,
}

impl DeviceFlags {
    /// Sets the launch's viewport, density and mobile flag.
    pub(crate) fn apply(&self, launch: &mut LaunchOptions) {
        if let Some(d) = &self.device {
            launch.viewport = (d.width, d.height);
            launch.device_scale = d.scale;
            launch.mobile = d.mobile;
            launch.device = Some(d.name.to_string());
        }
        if let Some(size) = self.viewport {
            launch.viewport = size;
        }
        if let Some(scale) = self.device_scale {
            launch.device_scale = scale;
        }
        launch.mobile |= self.mobile;
        if let Some(scheme) = self.color_scheme {
            launch.color_scheme = scheme;
        }
        if let Some(preset) = self.network {
            launch.network = preset.conditions();
        }
    }
}

fn device(text: &str) -> Result<Device, String> {
    Device::preset(text).ok_or_else(|| {
        format!(
            "no device `{text}`; the devices are {} (or give `--viewport`, `--device-scale`, `--mobile`)",
            Device::names()
        )
    })
}

fn viewport(text: &str) -> Result<(u32, u32), String> {
    let bad =
        || format!("`{text}` is not a viewport: give width x height in CSS pixels, e.g. `390x844`");
    let (w, h) = text.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if !(100..=10_000).contains(&w) || !(100..=10_000).contains(&h) {
        return Err(format!(
            "`{text}`: width and height go from 100 to 10000 pixels"
        ));
    }
    Ok((w, h))
}

fn scale(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && (0.25..=10.0).contains(&s) => Ok(s),
        _ => Err(format!(
            "`{text}` is not a device scale: a number from 0.25 to 10"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_then_the_flags_over_it() {
        let mut launch = LaunchOptions::default();
        DeviceFlags {
            device: Some(device("Pixel 7").unwrap()),
            viewport: Some(viewport("400x800").unwrap()),
            device_scale: None,
            mobile: false,
            color_scheme: Some(ColorScheme::Dark),
            network: Some(NetworkPreset::Slow3g),
        }
        .apply(&mut launch);
        assert_eq!(launch.network, NetworkPreset::Slow3g.conditions());
        assert_eq!(launch.color_scheme, ColorScheme::Dark);
        assert_eq!(launch.viewport, (400, 800));
        assert_eq!(launch.device_scale, 2.625);
        assert!(launch.mobile);
        assert!(viewport("12x").is_err());
        assert!(viewport("50x50").is_err());
        assert!(scale("0").is_err());
        assert!(device("Nokia").unwrap_err().contains("`Pixel 7`"));
    }
}
