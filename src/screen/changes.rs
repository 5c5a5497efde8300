//! The change between two reads of the same route: the controls added, removed and
//! changed, by reference. A round trip carries it when the page did not navigate.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::InferredState;

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
        // Two states showing the very same records (a read that found nothing new).
        if before.controls.same_list(&after.controls) {
            return Changes::default();
        }
        Changes::matching(
            &before.controls,
            &after.controls,
            |c| (c.anchor.as_str(), c.key.as_deref()),
            |a, b| a == b,
        )
    }

    /// The change between two lists of controls, matched by reference (`anchor[key]`,
    /// given by `id` as its two parts) and occurrence, so two controls sharing an anchor
    /// (an ambiguous page) are compared pairwise instead of overwriting each other; `same`
    /// says whether a matched pair is unchanged.
    ///
    /// Most reads after an action list the same controls in the same order: that case is
    /// one pass comparing neighbours, with no map and no string built but for what changed.
    pub(crate) fn matching<'a, C>(
        before: &'a [C],
        after: &'a [C],
        id: impl for<'c> Fn(&'c C) -> (&'c str, Option<&'c str>),
        same: impl Fn(&C, &C) -> bool,
    ) -> Changes {
        let mut changes = Changes::default();
        if before.len() == after.len() && before.iter().zip(after).all(|(a, b)| id(a) == id(b)) {
            // Same references in the same order: the n-th occurrence of each matches itself.
            for (a, b) in before.iter().zip(after) {
                if !same(a, b) {
                    changes.changed.push(reference(id(b)));
                }
            }
            return changes;
        }
        let keyed = |controls: &'a [C]| -> Vec<Key<'a>> {
            let mut seen: HashMap<(&str, Option<&str>), usize> = HashMap::new();
            controls
                .iter()
                .map(|c| {
                    let r = id(c);
                    let n = seen.entry(r).or_default();
                    *n += 1;
                    (r, *n)
                })
                .collect()
        };
        let old = keyed(before);
        let new = keyed(after);
        let old_by_key: HashMap<&Key, usize> =
            old.iter().enumerate().map(|(i, k)| (k, i)).collect();
        let new_keys: HashSet<&Key> = new.iter().collect();
        for (i, k) in new.iter().enumerate() {
            match old_by_key.get(k) {
                None => changes.added.push(reference(k.0)),
                Some(j) if !same(&before[*j], &after[i]) => changes.changed.push(reference(k.0)),
                Some(_) => {}
            }
        }
        for k in &old {
            if !new_keys.contains(k) {
                changes.removed.push(reference(k.0));
            }
        }
        changes
    }
}

/// `anchor` or `anchor[key]`.
fn reference((anchor, key): (&str, Option<&str>)) -> String {
    crate::anchor::reference(anchor, key)
}

/// A control matched across two reads: its reference, as parts, and its occurrence.
type Key<'c> = ((&'c str, Option<&'c str>), usize);
