//! A read whose records go to the runner in parts while the page still makes them (see
//! `sendPart` in `src/collector/js/07-collect.js`): each part pushed through the tab's
//! function for pushes (`src/browser/pushes.rs`) is on its way through the browser while
//! the page makes the next, where a single answer crossed only once the page was done. On
//! the 10,000-control dense page the answer's 600 KB took 10-14 ms after the page's last
//! record (issue 53; the figures are in the README's bench section).

use std::time::{Duration, Instant};

use super::{Tools, capture_error};
use crate::browser::Tab;
use crate::collector;
use crate::protocol::ToolError;

/// Records per part. A part is one message through the browser, ~60 KB at 1,024 of the
/// dense page's records: a read of fewer goes as one answer, as before.
pub(super) const PART_RECORDS: usize = 1024;

/// How long all the parts of a read may take to come after its answer: the page sent them
/// before it, on the same connection, so they are queued already, or nearly.
const PARTS_BOUND: Duration = Duration::from_secs(2);

impl<T: Tab> Tools<T> {
    /// `answer` to a read (asked with `args`) with the parts of its records that went
    /// ahead of it put back: the answer as the page would have sent it whole. A part that
    /// does not come (the page's scripts took the function it is sent with) costs the read
    /// one more trip: the whole answer, asked again without parts.
    pub(super) async fn with_parts(
        &self,
        answer: String,
        args: &serde_json::Value,
    ) -> Result<String, ToolError> {
        let (count, prefix) = match collector::parts_ahead(&answer) {
            None => return Ok(answer),
            Some(Err(e)) => return Err(capture_error(e)),
            Some(Ok(ahead)) => ahead,
        };
        let tab = &self.here().tab;
        // One bound for all of them, not one each: a page that sends its parts slowly
        // holds the read up no longer than one that sends none.
        let deadline = Instant::now() + PARTS_BOUND.min(self.options.script_timeout);
        let mut parts = Vec::with_capacity(count);
        for _ in 0..count {
            let left = deadline.saturating_duration_since(Instant::now());
            match tab.pushed_part(&prefix, left).await {
                Some(part) => parts.push(part),
                None => {
                    let mut whole = args.clone();
                    whole["chunk"] = 0.into();
                    return self.collect("read", &whole).await;
                }
            }
        }
        Ok(collector::with_parts(&answer, &parts))
    }
}
