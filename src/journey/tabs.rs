//! The journey API's tabs: `tabs()` lists the journey's tabs (`#{tab, route, title,
//! current, opener}`), `switch_tab(n)` moves the tools to one and returns its screen's
//! round trip. A tab the page opened is announced in the round trip of the action that
//! opened it (`opened: #{tab, url}`). Both are reads, gated and traced like `read_screen`.

use std::sync::Arc;

use rhai::{Dynamic, Engine, EvalAltResult};

use super::deadline::Blocker;
use super::engine::{fail_map, round_trip};
use crate::browser::Tab;
use crate::protocol::ErrorCode;
use crate::tools::Tools;

/// Registers `tabs` and `switch_tab` (reads: offered on every surface).
pub(super) fn register_tabs<T: Tab>(
    engine: &mut Engine,
    tools: &Arc<Tools<T>>,
    blocker: &Blocker<T>,
) {
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("tabs", move || -> Result<Dynamic, Box<EvalAltResult>> {
        let rt = h.on("tabs", t.list_tabs());
        let tabs = rt.tabs.clone().unwrap_or_default();
        let _ = round_trip(rt)?;
        rhai::serde::to_dynamic(tabs)
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn(
        "switch_tab",
        move |n: i64| -> Result<Dynamic, Box<EvalAltResult>> {
            let n = usize::try_from(n).map_err(|_| {
                fail_map(
                    ErrorCode::InvalidArgument,
                    &format!(
                        "`switch_tab` takes a tab's number (0 or more, as `tabs()` lists them), not {n}"
                    ),
                )
            })?;
            round_trip(h.on("switch_tab", t.switch_tab(n)))
        },
    );
}
