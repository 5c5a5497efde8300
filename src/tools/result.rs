//! The round-trip result every tool returns, and the change between two reads.

use std::collections::HashMap;

use serde::Serialize;

use super::error::ToolError;
use crate::screen::{Control, InferredState};

/// What a tool call did: ok or why not, where the page was and is, what is on it now.
#[derive(Debug, Clone, Serialize)]
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
    /// The screen now (inferred layer only).
    pub screen: Option<InferredState>,
    /// What changed on a screen that did not navigate.
    pub changes: Option<Changes>,
    /// Why the call failed.
    pub error: Option<ToolError>,
    /// Wall time of the whole call, in milliseconds.
    pub elapsed_ms: f64,
}

/// Controls added, removed and changed between two reads of the same route, by reference
/// (`anchor` or `anchor[key]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Changes {
    /// Now on screen, not before.
    pub added: Vec<String>,
    /// Before on screen, not now.
    pub removed: Vec<String>,
    /// On screen both times with a different label, value, state or region.
    pub changed: Vec<String>,
}

impl Changes {
    /// The change from `before` to `after`.
    pub fn between(before: &InferredState, after: &InferredState) -> Changes {
        let old: HashMap<String, &Control> =
            before.controls.iter().map(|c| (c.reference(), c)).collect();
        let mut seen = std::collections::HashSet::with_capacity(after.controls.len());
        let mut changes = Changes::default();
        for c in &after.controls {
            let r = c.reference();
            match old.get(&r) {
                None => changes.added.push(r.clone()),
                Some(prev) if *prev != c => changes.changed.push(r.clone()),
                Some(_) => {}
            }
            seen.insert(r);
        }
        for c in &before.controls {
            let r = c.reference();
            if !seen.contains(&r) {
                changes.removed.push(r);
            }
        }
        changes
    }
}
