//! Screen reads in two layers, kept apart by types.
//!
//! A [`RawObservation`] is evidence: what the in-page collector literally read off the page,
//! boxes and visibility included. An [`InferredState`] is what everything downstream reads
//! (scripts, round-trip results, printed output): app, route, screen, dialog, focus,
//! confidence, the anchored controls and the truncation report. It can only be built by
//! [`infer`]: its fields are public to read, and a private field keeps it from being built
//! anywhere else.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::registry::Registry;

/// One control as the collector found it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RawControl {
    /// `data-anchor`.
    pub anchor: String,
    /// `data-anchor-key`, for repeated controls.
    pub key: Option<String>,
    /// Accessible name, as Chromium computes it for the common cases.
    pub label: String,
    /// ARIA role, explicit or implicit.
    pub role: String,
    /// Disabled (natively, by a disabled fieldset, or `aria-disabled`).
    #[serde(default)]
    pub disabled: bool,
    /// Accepts `fill`.
    #[serde(default)]
    pub editable: bool,
    /// Current value (secrets redacted); `None` for controls without one.
    pub value: Option<String>,
    /// Checked state of checkboxes, radios and `aria-checked`.
    pub checked: Option<bool>,
    /// `data-anchor-region` of the nearest container (or a landmark, or `page`).
    pub region: String,
    /// Rendered and not hidden by CSS.
    #[serde(default = "yes")]
    pub visible: bool,
    /// Has keyboard focus (or contains it).
    #[serde(default)]
    pub focused: bool,
    /// Box in top-document CSS pixels (scroll-independent): x, y, width, height.
    pub bbox: [i64; 4],
}

fn yes() -> bool {
    true
}

/// Everything one read gathered, as evidence.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RawObservation {
    /// The document's URL.
    pub url: String,
    /// `document.title`.
    pub title: String,
    /// HTTP status of the document, when the browser reports it.
    pub status: Option<u16>,
    /// Label of an open modal dialog.
    pub dialog: Option<String>,
    /// The controls gathered (at most the collection cap).
    pub controls: Vec<RawControl>,
    /// How many anchored controls the page has.
    pub total: usize,
    /// Controls beyond the collection cap, by region.
    pub dropped_by_region: BTreeMap<String, usize>,
    /// Controls beyond the collection cap, by role.
    pub dropped_by_role: BTreeMap<String, usize>,
    /// Viewport width and height.
    pub viewport: [f64; 2],
    /// Time the collector spent in the page, in milliseconds.
    pub collector_ms: f64,
    /// JavaScript dialogs the browser answered since the previous read (`kind: message`).
    #[serde(default)]
    pub js_dialogs: Vec<String>,
}

/// One anchored control, as downstream code sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Control {
    /// Anchor id.
    pub anchor: String,
    /// Row key of a repeated control.
    pub key: Option<String>,
    /// The words on screen that name it.
    pub label: String,
    /// ARIA role.
    pub role: String,
    /// Cannot be acted on.
    pub disabled: bool,
    /// Accepts `fill`.
    pub editable: bool,
    /// Current value (secrets redacted).
    pub value: Option<String>,
    /// Checked state, for checkable controls.
    pub checked: Option<bool>,
    /// The region it sits in.
    pub region: String,
    /// Visible on the page (it may still need scrolling).
    pub visible: bool,
}

impl Control {
    /// `anchor` or `anchor[key]`, the way journeys address it.
    pub fn reference(&self) -> String {
        match &self.key {
            Some(k) => format!("{}[{k}]", self.anchor),
            None => self.anchor.clone(),
        }
    }
}

/// What a cut dropped. `shown + dropped == total`, and the per-region (and per-role) counts
/// add up to `dropped`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Truncation {
    /// Controls in the read.
    pub shown: usize,
    /// Controls on the page.
    pub total: usize,
    /// Controls not in the read.
    pub dropped: usize,
    /// Dropped controls by region.
    pub dropped_by_region: BTreeMap<String, usize>,
    /// Dropped controls by role.
    pub dropped_by_role: BTreeMap<String, usize>,
    /// Which cut: `collection` (what one read gathers) or `description` (what is shown).
    pub cut_at: &'static str,
    /// How to read more, in words.
    pub hint: String,
}

/// What the screen is taken to be. Built only by [`infer`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InferredState {
    /// App-relative route (path and query) of the top document.
    pub route: String,
    /// The registry's app name (empty without a registry).
    pub app: String,
    /// Screen id matched from the registry's route patterns.
    pub screen: Option<String>,
    /// Label of an open modal dialog (or of a JavaScript dialog the browser answered).
    pub dialog: Option<String>,
    /// Anchor (with key) of the focused control.
    pub focus: Option<String>,
    /// How far the read can be trusted, 0..=1.
    pub confidence: f64,
    /// Why confidence is below 1.
    pub confidence_reasons: Vec<String>,
    /// The anchored controls, in document order.
    pub controls: Vec<Control>,
    /// What was cut, if anything.
    pub truncation: Option<Truncation>,
    /// All text here came from the page.
    pub untrusted: bool,
    /// Time the read took end to end, in milliseconds.
    pub elapsed_ms: f64,
    /// HTTP status of the document, when known.
    pub status: Option<u16>,
    /// Page title.
    pub title: String,
    #[serde(skip)]
    _sealed: Sealed,
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Sealed;

impl InferredState {
    /// The control with this anchor (and key, when given).
    pub fn control(&self, anchor: &str, key: Option<&str>) -> Option<&Control> {
        self.controls
            .iter()
            .find(|c| c.anchor == anchor && (key.is_none() || c.key.as_deref() == key))
    }
}

/// The inference step: turns evidence into the state everything downstream reads.
/// `route` is the URL made app-relative by the caller; `elapsed_ms` the read's own cost.
pub fn infer(
    raw: &RawObservation,
    route: String,
    registry: &Registry,
    elapsed_ms: f64,
) -> InferredState {
    let screen = registry.screen_for_route(&route).map(|s| s.id.clone());
    let mut reasons = Vec::new();
    let mut confidence: f64 = 1.0;
    if let Some(status) = raw.status.filter(|s| *s >= 400) {
        confidence = confidence.min(0.5);
        reasons.push(format!("the page answered HTTP {status}"));
    }
    if !raw.js_dialogs.is_empty() {
        confidence = confidence.min(0.9);
        reasons.push(format!(
            "the page opened {} JavaScript dialog(s), answered by the runner",
            raw.js_dialogs.len()
        ));
    }
    let unknown: Vec<&str> = if registry.anchors().is_empty() {
        Vec::new()
    } else {
        raw.controls
            .iter()
            .filter(|c| registry.anchor(&c.anchor).is_none())
            .map(|c| c.anchor.as_str())
            .collect()
    };
    if !unknown.is_empty() && screen.is_some() {
        confidence = confidence.min(0.9);
        reasons.push(format!(
            "{} control(s) carry anchors the registry does not know (first: `{}`)",
            unknown.len(),
            unknown[0]
        ));
    }
    let focus = raw
        .controls
        .iter()
        .find(|c| c.focused)
        .map(|c| match &c.key {
            Some(k) => format!("{}[{k}]", c.anchor),
            None => c.anchor.clone(),
        });
    let controls = raw
        .controls
        .iter()
        .map(|c| Control {
            anchor: c.anchor.clone(),
            key: c.key.clone(),
            label: c.label.clone(),
            role: c.role.clone(),
            disabled: c.disabled,
            editable: c.editable,
            value: c.value.clone(),
            checked: c.checked,
            region: c.region.clone(),
            visible: c.visible,
        })
        .collect::<Vec<_>>();
    let truncation = collection_cut(raw);
    let dialog = raw
        .dialog
        .clone()
        .or_else(|| raw.js_dialogs.last().cloned());
    InferredState {
        route,
        app: registry.app().to_string(),
        screen,
        dialog,
        focus,
        confidence,
        confidence_reasons: reasons,
        controls,
        truncation,
        untrusted: true,
        elapsed_ms,
        status: raw.status,
        title: raw.title.clone(),
        _sealed: Sealed,
    }
}

fn collection_cut(raw: &RawObservation) -> Option<Truncation> {
    let shown = raw.controls.len();
    if shown >= raw.total {
        return None;
    }
    let dropped = raw.total - shown;
    let mut busiest: Vec<(&String, &usize)> = raw.dropped_by_region.iter().collect();
    busiest.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let names = busiest
        .iter()
        .take(5)
        .map(|(r, n)| format!("{r} ({n})"))
        .collect::<Vec<_>>()
        .join(", ");
    let more = if busiest.len() > 5 {
        format!(" and {} more", busiest.len() - 5)
    } else {
        String::new()
    };
    Some(Truncation {
        shown,
        total: raw.total,
        dropped,
        dropped_by_region: raw.dropped_by_region.clone(),
        dropped_by_role: raw.dropped_by_role.clone(),
        cut_at: "collection",
        hint: format!(
            "the screen has more controls than one read gathers; raise --max-controls or ask for a region: {names}{more}"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(anchor: &str, region: &str) -> RawControl {
        RawControl {
            anchor: anchor.into(),
            key: None,
            label: anchor.into(),
            role: "button".into(),
            disabled: false,
            editable: false,
            value: None,
            checked: None,
            region: region.into(),
            visible: true,
            focused: false,
            bbox: [0, 0, 10, 10],
        }
    }

    fn raw(controls: Vec<RawControl>, total: usize) -> RawObservation {
        RawObservation {
            url: "http://127.0.0.1/x".into(),
            title: "x".into(),
            status: Some(200),
            dialog: None,
            controls,
            total,
            dropped_by_region: BTreeMap::new(),
            dropped_by_role: BTreeMap::new(),
            viewport: [1280.0, 800.0],
            collector_ms: 1.0,
            js_dialogs: Vec::new(),
        }
    }

    #[test]
    fn full_read_has_no_truncation() {
        let state = infer(
            &raw(vec![control("a.b", "r")], 1),
            "/x".into(),
            &Registry::empty(),
            1.0,
        );
        assert!(state.truncation.is_none());
        assert_eq!(state.confidence, 1.0);
        assert!(state.untrusted);
    }

    #[test]
    fn capped_read_reports_what_it_dropped() {
        let mut r = raw(vec![control("a.b", "r1")], 4);
        r.dropped_by_region.insert("r1".into(), 1);
        r.dropped_by_region.insert("r2".into(), 2);
        r.dropped_by_role.insert("button".into(), 3);
        let t = infer(&r, "/x".into(), &Registry::empty(), 1.0)
            .truncation
            .expect("a cut read reports its truncation");
        assert_eq!((t.shown, t.dropped, t.total), (1, 3, 4));
        assert_eq!(t.dropped_by_region.values().sum::<usize>(), t.dropped);
        assert!(t.hint.contains("r2 (2), r1 (1)"), "{}", t.hint);
    }

    #[test]
    fn error_status_lowers_confidence_with_a_reason() {
        let mut r = raw(vec![], 0);
        r.status = Some(404);
        let state = infer(&r, "/nope".into(), &Registry::empty(), 1.0);
        assert!(state.confidence < 1.0);
        assert_eq!(state.confidence_reasons, ["the page answered HTTP 404"]);
    }
}
