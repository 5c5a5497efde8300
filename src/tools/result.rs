//! The round-trip result every tool returns, and the change between two reads.

use std::collections::{HashMap, HashSet};

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
    /// The screen now (inferred layer only); `None` when a gate refused the call (nothing
    /// was read: a refused call never touches the page) or the browser is gone.
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
        Changes::matching(
            &before.controls,
            &after.controls,
            Control::reference,
            |a, b| a == b,
        )
    }

    /// The change between two lists of controls, matched by reference (`anchor[key]`) and
    /// occurrence, so two controls sharing an anchor (an ambiguous page) are compared
    /// pairwise instead of overwriting each other; `same` says whether a matched pair is
    /// unchanged.
    pub(crate) fn matching<C>(
        before: &[C],
        after: &[C],
        reference: impl Fn(&C) -> String,
        same: impl Fn(&C, &C) -> bool,
    ) -> Changes {
        let keyed = |controls: &'_ [C]| -> Vec<((String, usize), usize)> {
            let mut seen: HashMap<String, usize> = HashMap::new();
            (0..controls.len())
                .map(|i| {
                    let r = reference(&controls[i]);
                    let n = seen.entry(r.clone()).or_default();
                    *n += 1;
                    ((r, *n), i)
                })
                .collect()
        };
        let old = keyed(before);
        let new = keyed(after);
        let old_by_key: HashMap<&(String, usize), usize> =
            old.iter().map(|(k, i)| (k, *i)).collect();
        let new_keys: HashSet<&(String, usize)> = new.iter().map(|(k, _)| k).collect();
        let mut changes = Changes::default();
        for (k, i) in &new {
            match old_by_key.get(k) {
                None => changes.added.push(k.0.clone()),
                Some(j) if !same(&before[*j], &after[*i]) => changes.changed.push(k.0.clone()),
                Some(_) => {}
            }
        }
        for (k, _) in &old {
            if !new_keys.contains(k) {
                changes.removed.push(k.0.clone());
            }
        }
        changes
    }
}
