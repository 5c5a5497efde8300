//! The perception audit of a read, when [`ToolOptions::audit`](super::ToolOptions) asks
//! for it: the anchored controls the read gathered, against Chromium's accessibility tree
//! for the same elements. Extra evidence, taken after the read's own single round trip.

use super::Tools;
use crate::audit::{self, PerceptionAudit};
use crate::browser::Tab;
use crate::collector;
use crate::screen::RawControl;

impl<T: Tab> Tools<T> {
    /// Audits the controls of the read named `token` (the page's latest).
    pub(super) async fn audit(&self, ids: &[u64], controls: &[RawControl]) -> PerceptionAudit {
        let elements = collector::elements(ids);
        match self
            .tab
            .accessibility(&elements, self.options.script_timeout)
            .await
        {
            Ok(views) => audit::compare(controls, &views),
            Err(e) => PerceptionAudit::unavailable(e.to_string()),
        }
    }
}

impl<T: Tab> Tools<T> {
    /// The perception audit of the last read, when reads are audited.
    pub fn last_audit(&self) -> Option<PerceptionAudit> {
        self.last_audit.lock().ok().and_then(|a| a.clone())
    }
}
