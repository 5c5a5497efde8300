//! The round-trip result every tool returns.

use serde::Serialize;

use crate::protocol::ToolError;
use crate::screen::{Changes, InferredState};

/// What a tool call did: ok or why not, where the page was and is, what is on it now.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoundTrip {
    /// `navigate`, `read_screen`, `invoke`, `press` or `fill`.
    pub tool: &'static str,
    /// The action happened and the page answered.
    pub ok: bool,
    /// The target, as the journey named it (`claims.open[1042]`).
    pub anchor: Option<String>,
    /// The target's label on screen.
    pub label: Option<String>,
    /// Route before the call.
    pub route_before: String,
    /// Route after the call.
    pub route: String,
    /// The screen now (inferred layer only); `None` when a gate refused the call (nothing
    /// was read: a refused call never touches the page) or the browser is gone.
    pub screen: Option<InferredState>,
    /// What changed on a screen that did not navigate.
    pub changes: Option<Changes>,
    /// Why the call failed.
    pub error: Option<ToolError>,
    /// Wall time of the whole call, in milliseconds.
    pub elapsed_ms: f64,
    /// Of that, how long the call waited in the page for its target (an action) or its
    /// condition (`wait_for`), in milliseconds; 0 when it was there at once.
    pub waited_ms: f64,
    /// The file an action downloaded (the last, when it started several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download: Option<super::files::DownloadReport>,
    /// The tab the call ended in (0, the journey's first, is not written).
    #[serde(skip_serializing_if = "is_first")]
    pub tab: usize,
    /// A tab the page opened during the call (the first, when it opened several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opened: Option<super::TabOpened>,
    /// The tab the page closed during the call: the round trip is then its opener's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed: Option<usize>,
    /// The journey's tabs, for `tabs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tabs: Option<Vec<super::TabInfo>>,
}

fn is_first(tab: &usize) -> bool {
    *tab == 0
}
