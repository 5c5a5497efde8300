//! What `waymark bench` measures the tools against: a trivial in-page round trip, the
//! least the page itself charges for a read, and a change behind the tools' back.

use std::time::Instant;

use super::{ToolError, Tools, browser_error, capture_error, ms_since};
use crate::browser::Tab;

impl<T: Tab> Tools<T> {
    /// One trivial in-page round trip, in milliseconds: the floor an action is measured
    /// against.
    pub async fn ping(&self) -> Result<f64, ToolError> {
        let start = Instant::now();
        self.here()
            .tab
            .evaluate("'pong'", self.options.script_timeout)
            .await
            .map_err(browser_error)?;
        Ok(ms_since(start))
    }

    /// What the page itself charges for the least a read must do, in milliseconds of its own
    /// clock: find the anchored controls (`querySelectorAll('[data-anchor]')`) and take the
    /// box of each, up to the collection cap, in the top document (shadow roots and frames,
    /// which a read also walks, are left out). Any collector that reports where controls are
    /// pays this, so a whole read's in-page time divided by it moves with the collector's
    /// own code, not with the machine or the page. Read-only: it lays the page out if a
    /// change left it dirty, which the next read would have done. `None` on a page with no
    /// `data-anchor` (its anchors found by matchers): a floor of finding nothing would make
    /// every ratio over it thousands.
    pub async fn page_floor(&self) -> Result<Option<f64>, ToolError> {
        let script = format!(
            "(function () {{ var t0 = performance.now(), els = document.querySelectorAll('[data-anchor]'); \
             var n = Math.min(els.length, {max}); \
             for (var i = 0; i < n; i++) els[i].getBoundingClientRect(); \
             return n ? String(performance.now() - t0) : 'none'; }})()",
            max = self.options.max_controls
        );
        let ms = self
            .here()
            .tab
            .evaluate(&script, self.options.script_timeout)
            .await
            .map_err(browser_error)?;
        if ms == "none" {
            return Ok(None);
        }
        ms.parse::<f64>()
            .map(Some)
            .map_err(|e| capture_error(format!("the page floor came back as `{ms}`: {e}")))
    }

    /// Changes the page's `<body>` behind the tools' back, as little as an action can: one
    /// attribute (`data-waymark-touch`) set, and a comment at its end put in place of the
    /// last one this added (a change to its children, as most of an app's changes are, that
    /// moves nothing on screen). `waymark bench` times a read after it.
    pub async fn touch(&self) -> Result<(), ToolError> {
        let script = "(function () { var b = document.body, now = String(performance.now()); \
                      b.setAttribute('data-waymark-touch', now); \
                      var last = b.lastChild; \
                      if (last && last.nodeType === 8 && last.data.indexOf('waymark-touch') === 0) \
                      last.remove(); \
                      b.appendChild(document.createComment('waymark-touch ' + now)); \
                      return 'ok'; })()";
        self.here()
            .tab
            .evaluate(script, self.options.script_timeout)
            .await
            .map_err(browser_error)?;
        Ok(())
    }
}
