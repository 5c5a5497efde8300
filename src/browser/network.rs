//! Network conditions a tab's pages see (CDP's `Network.emulateNetworkConditions`): offline,
//! and a throttle (latency and bandwidth), from `--network` for every tab and changed by a
//! journey for its own tabs (`set_offline`, `set_network`).

use std::time::Duration;

use chromiumoxide::Page;

use super::BrowserError;
use super::commands::Commands;

/// A throttle: latency added to each request, and the bandwidth each way.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Throttle {
    /// Added to every request, in milliseconds.
    pub latency_ms: f64,
    /// Download bandwidth in kilobits per second; unlimited when `None`.
    pub download_kbps: Option<f64>,
    /// Upload bandwidth in kilobits per second; unlimited when `None`.
    pub upload_kbps: Option<f64>,
}

/// What a tab's network is: offline or not, throttled or not.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NetworkConditions {
    /// Every request fails (`net::ERR_INTERNET_DISCONNECTED`) and `navigator.onLine` is false.
    pub offline: bool,
    /// The throttle, if any.
    pub throttle: Option<Throttle>,
}

/// The presets of `--network`, DevTools' own figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NetworkPreset {
    /// No network at all.
    Offline,
    /// 2000 ms latency, 400 kbit/s each way.
    #[value(name = "slow-3g")]
    Slow3g,
    /// 563 ms latency, 1440 kbit/s down, 675 kbit/s up.
    #[value(name = "fast-3g")]
    Fast3g,
}

impl NetworkPreset {
    /// The conditions it stands for.
    pub fn conditions(self) -> NetworkConditions {
        let throttle = |latency_ms, down, up| {
            Some(Throttle {
                latency_ms,
                download_kbps: Some(down),
                upload_kbps: Some(up),
            })
        };
        match self {
            NetworkPreset::Offline => NetworkConditions {
                offline: true,
                throttle: None,
            },
            NetworkPreset::Slow3g => NetworkConditions {
                offline: false,
                throttle: throttle(2000.0, 400.0, 400.0),
            },
            NetworkPreset::Fast3g => NetworkConditions {
                offline: false,
                throttle: throttle(563.0, 1440.0, 675.0),
            },
        }
    }
}

/// Makes `page`'s network `conditions`.
pub(super) async fn emulate(
    page: &Page,
    conditions: NetworkConditions,
    timeout: Duration,
) -> Result<(), BrowserError> {
    // The command of every Chromium: its successor (`emulateNetworkConditionsByRule`)
    // refuses the parameters chromiumoxide's protocol types write for it on Chromium 156.
    #[expect(
        deprecated,
        reason = "the successor's parameters do not fit the browsers waymark drives"
    )]
    let params = {
        use chromiumoxide::cdp::browser_protocol::network::EmulateNetworkConditionsParams;
        let bytes = |kbps: Option<f64>| kbps.map_or(-1.0, |k| k * 1000.0 / 8.0);
        let throttle = conditions.throttle.unwrap_or_default();
        EmulateNetworkConditionsParams {
            offline: conditions.offline,
            latency: throttle.latency_ms,
            download_throughput: bytes(throttle.download_kbps),
            upload_throughput: bytes(throttle.upload_kbps),
            connection_type: None,
            packet_loss: None,
            packet_queue_length: None,
            packet_reordering: None,
        }
    };
    page.command(timeout, "emulating network conditions", params)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_presets_are_devtools_figures() {
        assert!(NetworkPreset::Offline.conditions().offline);
        let slow = NetworkPreset::Slow3g.conditions().throttle.unwrap();
        assert_eq!(slow.latency_ms, 2000.0);
        assert_eq!(slow.download_kbps, Some(400.0));
        let fast = NetworkPreset::Fast3g.conditions().throttle.unwrap();
        assert_eq!(
            (fast.download_kbps, fast.upload_kbps),
            (Some(1440.0), Some(675.0))
        );
    }
}
