//! The perception audit of a read, when [`ToolOptions::audit`](super::ToolOptions) asks
//! for it: the anchored controls the read gathered, against Chromium's accessibility tree
//! for the same elements. Extra evidence, taken after the read's own single round trip.

use std::time::Duration;

use super::Tools;
use crate::browser::Tab;
use crate::collector;
use crate::screen::RawControl;
use crate::screen::audit::{self, PerceptionAudit};

impl<T: Tab> Tools<T> {
    /// Audits `controls`, the elements the page knows by `ids`. Chromium answers for one
    /// element after the other (about a millisecond each on a dense page, after building
    /// its tree once), so the bound grows with the batch.
    pub(super) async fn audit(&self, ids: &[u64], controls: &[RawControl]) -> PerceptionAudit {
        let elements = collector::elements(ids);
        let per_control = Duration::from_millis(3);
        let count = u32::try_from(controls.len()).unwrap_or(u32::MAX);
        let bound = self.options.script_timeout + per_control * count;
        match self.here().tab.accessibility(&elements, bound).await {
            Ok(views) => audit::compare(controls, &views),
            Err(e) => PerceptionAudit::unavailable(e.to_string()),
        }
    }
}

impl<T: Tab> Tools<T> {
    /// The perception audit of the last read, when reads are audited.
    pub fn last_audit(&self) -> Option<PerceptionAudit> {
        self.here()
            .memory
            .last_audit
            .lock()
            .ok()
            .and_then(|a| a.clone())
    }
}
