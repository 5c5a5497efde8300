//! The bridge to the in-page collector (`collector.js`): builds the one expression each
//! operation evaluates and types what comes back.
//!
//! Every operation is a single `Runtime.evaluate` answered by a single JSON string: one
//! round trip, one parse.

use serde::Deserialize;
use serde_json::json;

use std::collections::{BTreeMap, HashMap};

use crate::screen::{Chrome, Evidence, RawControl, RawObservation};
use crate::tools::Changes;

const SOURCE: &str = include_str!("collector.js");

/// The expression that runs operation `op` with `args` in the page, and leaves the
/// collector installed in the document for [`installed`] to call.
pub(crate) fn expression(op: &str, args: &serde_json::Value) -> String {
    // `op` is one of our own constants; args is serialized JSON, hence a valid JS literal.
    format!("(window.__waymarkRun = ({SOURCE}))({}, {args})", json!(op))
}

/// What [`installed`] answers in a document the collector was never sent to.
pub(crate) const MISSING: &str = "waymark:missing";

/// The expression that runs operation `op` with the collector an earlier [`expression`]
/// installed in this document, or answers [`MISSING`]: a few bytes to send and compile
/// instead of the whole collector on every call.
pub(crate) fn installed(op: &str, args: &serde_json::Value) -> String {
    format!(
        "(window.__waymarkRun ? window.__waymarkRun({}, {args}) : {})",
        json!(op),
        json!(MISSING)
    )
}

/// An expression giving the elements the page knows by `ids` (the element ids of a read),
/// in that order; `null` for an element the page no longer has. The page's last full read
/// keeps its elements by id; any other (a region read, a cut one) is found among the
/// anchored elements of every root the collector watches.
pub(crate) fn elements(ids: &[u64]) -> String {
    format!(
        "(function (ids) {{ var W = window.__waymark; \
         if (!W) throw new Error('the page has not been read'); \
         var known = W.cache ? W.cache.elOf : new Map(), found = null; \
         return ids.map(function (id) {{ \
           var el = known.get(id); if (el) return el; \
           if (!found) {{ found = new Map(); (W.roots || []).forEach(function (r) {{ \
             var els = r.root.querySelectorAll('[data-anchor]'); \
             for (var i = 0; i < els.length; i++) {{ var n = W.ids.get(els[i]); if (n) found.set(n, els[i]); }} }}); }} \
           return found.get(id) || null; }}); }})({})",
        json!(ids)
    )
}

/// What `prepare` found for the target of an action.
#[derive(Debug, Deserialize)]
pub(crate) struct Prepared {
    /// `ok`, `not_found`, `ambiguous`, `hidden`, `disabled`, `obscured`, `not_editable`, `no_option`.
    pub status: String,
    pub count: usize,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub x: Option<f64>,
    #[serde(default)]
    pub y: Option<f64>,
    /// What lies over the target's centre (obscured).
    #[serde(default)]
    pub cover: Option<String>,
    /// Keys of the first matches (ambiguous).
    #[serde(default)]
    pub keys: Vec<Option<String>>,
    /// With a key that matched nothing: how many controls carry the anchor with other keys.
    #[serde(default)]
    pub unkeyed: usize,
    /// Why a field is not editable.
    #[serde(default)]
    pub why: Option<String>,
    /// How fill goes on: `line`, `multiline`, `contenteditable` (text to insert), `set`,
    /// `select` (already set in the page).
    #[serde(default)]
    pub kind: Option<String>,
    /// The option a select was set to (fill on a select).
    #[serde(default)]
    pub chosen: Option<String>,
    /// A select's options (no_option).
    #[serde(default)]
    pub options: Vec<String>,
}

/// One read as the collector sends it: `full` (every record, with element ids) or `delta`
/// against the read named `base` (only the records that changed, and the new order when
/// it changed). One flat struct rather than a tagged enum: serde buffers flattened and
/// internally tagged content, which a 50,000-control read cannot afford.
#[derive(Debug, Deserialize)]
pub(crate) struct CollectorRead {
    kind: String,
    /// Names this read, for the next one's `since`.
    pub token: String,
    #[serde(default)]
    base: Option<String>,
    url: String,
    title: String,
    status: Option<u16>,
    dialog: Option<String>,
    /// Element id of the focused control.
    focus: Option<u64>,
    total: usize,
    dropped_by_region: BTreeMap<String, usize>,
    dropped_by_role: BTreeMap<String, usize>,
    viewport: [f64; 2],
    #[serde(default)]
    scroll: [f64; 2],
    collector_ms: f64,
    #[serde(default)]
    evidence: Option<Evidence>,
    /// A region read that found nothing: the regions the screen has, counted.
    #[serde(default)]
    pub regions: Option<BTreeMap<String, usize>>,
    #[serde(default)]
    ids: Option<Vec<u64>>,
    #[serde(default)]
    controls: Option<Vec<RawControl>>,
    #[serde(default)]
    order: Option<Vec<u64>>,
    #[serde(default)]
    changed: Option<Vec<(u64, RawControl)>>,
}

/// The last read the runner holds: what a delta applies to.
#[derive(Debug)]
pub(crate) struct HeldRead {
    pub token: String,
    pub ids: Vec<u64>,
    pub raw: RawObservation,
}

impl CollectorRead {
    /// The full observation this read describes, given the read held before it, with the
    /// element ids in order and — when it is the same document — what changed since. A
    /// delta says what changed itself: nothing else is compared.
    pub fn apply(
        self,
        held: Option<HeldRead>,
    ) -> Result<(Vec<u64>, RawObservation, Option<Changes>), String> {
        let (ids, mut controls, changes) = match self.kind.as_str() {
            "full" => {
                let controls = self.controls.ok_or("a full read without controls")?;
                let changes = held
                    .filter(|h| h.raw.url == self.url)
                    .map(|h| compare(&h.raw.controls, &controls));
                (
                    self.ids.ok_or("a full read without ids")?,
                    controls,
                    changes,
                )
            }
            "delta" => {
                let held = held
                    .filter(|h| Some(&h.token) == self.base.as_ref())
                    .ok_or("a delta against a read the runner does not hold")?;
                let changed = self.changed.unwrap_or_default();
                match self.order {
                    // Same controls in the same order: replace the changed records in place.
                    None => {
                        let (ids, mut controls) = (held.ids, held.raw.controls);
                        let mut changes = Changes::default();
                        if !changed.is_empty() {
                            let at: HashMap<u64, usize> =
                                ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
                            for (id, control) in changed {
                                let i = *at
                                    .get(&id)
                                    .ok_or("a delta changes a control the runner never saw")?;
                                let old = std::mem::replace(&mut controls[i], control);
                                if !same(&old, &controls[i]) {
                                    changes.changed.push(reference(&controls[i]));
                                }
                            }
                        }
                        (ids, controls, Some(changes))
                    }
                    Some(order) => {
                        let mut by_id: HashMap<u64, RawControl> =
                            held.ids.into_iter().zip(held.raw.controls).collect();
                        let mut changes = Changes::default();
                        for (id, control) in changed {
                            match by_id.insert(id, control) {
                                None => changes.added.push(reference(&by_id[&id])),
                                Some(old) if !same(&old, &by_id[&id]) => {
                                    changes.changed.push(reference(&by_id[&id]));
                                }
                                Some(_) => {}
                            }
                        }
                        let controls = order
                            .iter()
                            .map(|id| by_id.remove(id))
                            .collect::<Option<Vec<_>>>()
                            .ok_or("a delta names a control the runner never saw")?;
                        let mut gone: Vec<&RawControl> = by_id.values().collect();
                        gone.sort_by_key(|c| (c.bbox[1], c.bbox[0]));
                        changes.removed = gone.into_iter().map(reference).collect();
                        (order, controls, Some(changes))
                    }
                }
            }
            other => return Err(format!("unknown read kind `{other}`")),
        };
        if ids.len() != controls.len() {
            return Err(format!("{} ids for {} controls", ids.len(), controls.len()));
        }
        for (control, id) in controls.iter_mut().zip(&ids) {
            control.focused = self.focus == Some(*id);
        }
        let raw = RawObservation {
            url: self.url,
            title: self.title,
            status: self.status,
            dialog: self.dialog,
            controls,
            total: self.total,
            dropped_by_region: self.dropped_by_region,
            dropped_by_role: self.dropped_by_role,
            viewport: self.viewport,
            scroll: self.scroll,
            collector_ms: self.collector_ms,
            evidence: self.evidence,
            chrome: Chrome::default(),
            audit: None,
        };
        Ok((ids, raw, changes))
    }
}

/// `anchor` or `anchor[key]`.
fn reference(c: &RawControl) -> String {
    c.reference()
}

/// The same control as a reader sees it: box and focus aside.
fn same(a: &RawControl, b: &RawControl) -> bool {
    a.anchor == b.anchor
        && a.key == b.key
        && a.label == b.label
        && a.role == b.role
        && a.disabled == b.disabled
        && a.editable == b.editable
        && a.value == b.value
        && a.checked == b.checked
        && a.region == b.region
        && a.visible == b.visible
}

/// What changed between two full reads of the same document.
fn compare(before: &[RawControl], after: &[RawControl]) -> Changes {
    Changes::matching(
        before,
        after,
        |c| (c.anchor.as_str(), c.key.as_deref()),
        same,
    )
}

/// What `settle` saw: `quiet`, `navigating` or `busy`, and the read taken in the same trip.
#[derive(Debug, Deserialize)]
pub(crate) struct Settled {
    pub state: String,
    pub read: Option<CollectorRead>,
}

/// What `finish_fill` saw.
#[derive(Debug, Deserialize)]
pub(crate) struct FillFinished {
    /// `ok`, or `lost` when the field went away.
    pub status: String,
    #[serde(default)]
    pub actual: Option<String>,
    pub state: String,
    pub read: Option<CollectorRead>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expression_calls_the_collector_with_json_arguments() {
        let e = expression("read", &json!({"max": 5}));
        assert!(e.starts_with('(') && e.contains("(function (op, args)"));
        assert!(e.ends_with(r#")("read", {"max":5})"#));
        let short = installed("read", &json!({"max": 5}));
        assert!(
            !short.contains("function") && short.contains(MISSING),
            "{short}"
        );
    }

    fn head(kind: &str, token: &str) -> String {
        format!(
            r#""kind":"{kind}","token":"{token}","url":"http://x/","title":"t","status":200,"dialog":null,"focus":2,"total":2,"dropped_by_region":{{}},"dropped_by_role":{{}},"viewport":[1,1],"collector_ms":1"#
        )
    }

    const A: &str =
        r#"{"anchor":"a.one","label":"One","role":"button","region":"r","bbox":[0,0,1,1]}"#;
    const B: &str = r#"{"anchor":"a.two","label":"Two","role":"textbox","editable":true,"value":"","region":"r","bbox":[0,0,1,1]}"#;

    #[test]
    fn a_delta_applies_to_the_read_it_names() {
        let full: CollectorRead = serde_json::from_str(&format!(
            r#"{{{},"ids":[1,2],"controls":[{A},{B}]}}"#,
            head("full", "d:1")
        ))
        .unwrap();
        let (ids, raw, _) = full.apply(None).unwrap();
        assert!(raw.controls[1].focused && !raw.controls[0].focused);
        assert!(
            raw.controls[0].visible,
            "visible unless the collector says otherwise"
        );
        let held = HeldRead {
            token: "d:1".into(),
            ids,
            raw,
        };
        let changed = B.replace(r#""value":"""#, r#""value":"typed""#);
        let delta: CollectorRead = serde_json::from_str(&format!(
            r#"{{{},"base":"d:1","order":null,"changed":[[2,{changed}]]}}"#,
            head("delta", "d:2")
        ))
        .unwrap();
        let (_, raw, changes) = delta.apply(Some(held)).unwrap();
        assert_eq!(raw.controls[0].label, "One");
        assert_eq!(raw.controls[1].value.as_deref(), Some("typed"));
        let changes = changes.expect("a delta says what changed");
        assert_eq!(changes.changed, ["a.two"]);
        assert!(changes.added.is_empty() && changes.removed.is_empty());
    }

    #[test]
    fn a_delta_against_another_read_is_refused() {
        let delta: CollectorRead = serde_json::from_str(&format!(
            r#"{{{},"base":"d:7","order":null,"changed":[]}}"#,
            head("delta", "d:8")
        ))
        .unwrap();
        assert!(delta.apply(None).is_err());
    }
}
