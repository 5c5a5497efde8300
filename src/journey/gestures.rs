//! The journey API's gestures: `hover(anchor[, key])`, `drag(from, to)` and
//! `upload(anchor, path)` (a file of the journey's `fixtures/` folder), each returning the
//! round trip like `invoke`.

use std::sync::Arc;

use rhai::{Dynamic, Engine};

use super::deadline::Blocker;
use super::engine::round_trip;
use crate::browser::Tab;
use crate::tools::Tools;

/// Registers `hover` (a read: offered on every surface) and, unless `read_only`, `drag`
/// and `upload`.
pub(super) fn register_gestures<T: Tab + 'static>(
    engine: &mut Engine,
    tools: &Arc<Tools<T>>,
    blocker: &Blocker<T>,
    read_only: bool,
) {
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("hover", move |anchor: &str| {
        round_trip(h.on("hover", t.hover(anchor, None)))
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("hover", move |anchor: &str, key: Dynamic| {
        let key = key.to_string();
        round_trip(h.on("hover", t.hover(anchor, Some(&key))))
    });
    if read_only {
        return;
    }
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("drag", move |from: &str, to: &str| {
        round_trip(h.on("drag", t.drag(from, to)))
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("upload", move |anchor: &str, path: &str| {
        round_trip(h.on("upload", t.upload(anchor, path)))
    });
}
