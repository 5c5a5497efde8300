//! `set_offline` and `set_network`: the network the journey's tabs see (see
//! `browser::NetworkConditions`). The journey's setting holds for every tab it has and
//! opens; what it did not set stays as the run started its tabs (`--network`).

use super::verbs::SetNetworkArgs;
use super::{RoundTrip, Tools, Verb};
use crate::browser::{Tab, Throttle};
use crate::protocol::{ErrorCode, ToolError};

impl<T: Tab> Tools<T> {
    /// Takes the network away from the journey's tabs (`true`), or gives it back.
    pub async fn set_offline(&self, offline: bool) -> RoundTrip {
        let work = async {
            if let Ok(mut network) = self.shared.network.lock() {
                network.0 = Some(offline);
            }
            self.apply_network(Some(offline), None)
                .await
                .map_err(|e| (None, e))?;
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        let target = offline.to_string();
        self.call(Verb::SetOffline, Some(&target), None, work).await
    }

    /// Throttles the network of the journey's tabs as `args` says (none, with no field).
    pub async fn set_network(&self, args: &SetNetworkArgs) -> RoundTrip {
        let work = async {
            let throttle = throttle(args).map_err(|e| (None, e))?;
            if let Ok(mut network) = self.shared.network.lock() {
                network.1 = Some(throttle);
            }
            self.apply_network(None, Some(throttle))
                .await
                .map_err(|e| (None, e))?;
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        self.call(Verb::SetNetwork, None, None, work).await
    }

    async fn apply_network(
        &self,
        offline: Option<bool>,
        throttle: Option<Option<Throttle>>,
    ) -> Result<(), ToolError> {
        for open in self.tabs.all() {
            if open.tab.is_closed() {
                continue;
            }
            open.tab
                .emulate_network(offline, throttle)
                .await
                .map_err(super::browser_error)?;
        }
        Ok(())
    }

    /// Gives a tab that joined the journey the network the journey set, if it set one.
    pub(super) async fn network_joined(&self, tab: &T) {
        let set = self.shared.network.lock().map(|n| *n).unwrap_or_default();
        if set != (None, None) {
            let _ = tab.emulate_network(set.0, set.1).await;
        }
    }
}

/// The throttle `args` ask for: `None` when they give no field.
fn throttle(args: &SetNetworkArgs) -> Result<Option<Throttle>, ToolError> {
    let given = [args.latency_ms, args.download_kbps, args.upload_kbps];
    if given.iter().flatten().any(|v| !v.is_finite() || *v < 0.0) {
        return Err(ToolError::new(
            ErrorCode::InvalidArgument,
            "`set_network`: latency and bandwidth are numbers of 0 or more",
        ));
    }
    if given.iter().all(Option::is_none) {
        return Ok(None);
    }
    Ok(Some(Throttle {
        latency_ms: args.latency_ms.unwrap_or(0.0),
        download_kbps: args.download_kbps,
        upload_kbps: args.upload_kbps,
    }))
}
