//! Screen reads in two layers, kept apart by types.
//!
//! A [`RawObservation`] is evidence: what the in-page collector literally read off the page —
//! every anchored control with its box, and (when evidence is asked for) the text runs and
//! the controls that carry no anchor — plus the flags of the browser's own chrome (a
//! JavaScript dialog, a crashed renderer, an error page, a file chooser). An
//! [`InferredState`] is what everything downstream reads (scripts, round-trip results,
//! snapshots, printed output): app, route, screen, dialog, focus, confidence, the anchored
//! controls and the truncation report. It can only be built by [`infer`]: its fields are
//! public to read, and a private field keeps it from being built anywhere else.
//!
//! The layers share the controls' records without sharing what they say of them. A
//! [`RawControl`] is a control's [`Facts`] — what it is and shows — with the evidence
//! beside them (its box, its focus, whether it is secret); a [`Control`] is a view of the
//! same record that reaches the facts only. A read that shows every control it gathered
//! (no description cut) shows the raw layer's own list ([`Records`], shared), so inferring
//! a 50,000-control read copies none of them; a change to a list still shown copies it
//! first, so neither layer sees the other change.
//!
//! Truncation happens at two cut points and is always reported. The *collection* cut is the
//! collector's (`--max-controls`: how many controls one read gathers); the *description*
//! cut is [`infer`]'s (a [`View`]'s budget: how many characters of controls are shown).
//! The description cut keeps, in this order, the focused control and its region, the controls in
//! the viewport, the enabled actionable ones, then the rest in document order — whole
//! controls only — and shows what it kept in document order.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Serialize, Serializer};

use crate::audit::PerceptionAudit;
use crate::registry::Registry;

mod text;

pub use text::Text;
pub(crate) use text::{Slicer, parse_reply};

/// What a control is and shows: its anchor and key, its name, role and state, its region.
/// Both layers tell these alike — the raw one as the collector read them, the inferred one
/// as it shows them — so one record serves both: a [`RawControl`] holds its facts, and a
/// [`Control`] is a view of that record that reaches its facts only. Reading and showing
/// 50,000 controls then shares their records instead of copying every string of them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Facts {
    /// `data-anchor`.
    pub anchor: Text,
    /// `data-anchor-key`, for repeated controls.
    pub key: Option<Text>,
    /// Accessible name, as Chromium computes it for the common cases.
    pub label: Text,
    /// ARIA role, explicit or implicit.
    pub role: Text,
    /// Disabled (natively, by a disabled fieldset, or `aria-disabled`): cannot be acted on.
    #[serde(default)]
    pub disabled: bool,
    /// Accepts `fill`.
    #[serde(default)]
    pub editable: bool,
    /// Current value (secrets redacted); `None` for controls without one.
    pub value: Option<Text>,
    /// Checked state of checkboxes, radios and `aria-checked`.
    pub checked: Option<bool>,
    /// `data-anchor-region` of the nearest container (or a landmark, or `page`).
    pub region: Text,
    /// Rendered and not hidden by CSS (it may still need scrolling).
    #[serde(default = "yes")]
    pub visible: bool,
}

impl Facts {
    /// `anchor` or `anchor[key]`, the way journeys address it.
    pub fn reference(&self) -> String {
        match &self.key {
            Some(k) => format!("{}[{k}]", self.anchor),
            None => self.anchor.to_string(),
        }
    }
}

#[cfg(test)]
impl Facts {
    /// The facts of a plain control, for tests: enabled, visible, not editable, with no
    /// key, value or checked state.
    pub(crate) fn named(anchor: &str, label: &str, role: &str, region: &str) -> Facts {
        Facts {
            anchor: anchor.into(),
            key: None,
            label: label.into(),
            role: role.into(),
            disabled: false,
            editable: false,
            value: None,
            checked: None,
            region: region.into(),
            visible: true,
        }
    }
}

/// One control as the collector found it: its [`Facts`] (read through `Deref`, so
/// `raw.anchor` reads as before), and what only the evidence keeps.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RawControl {
    /// What it is and shows.
    #[serde(flatten)]
    pub facts: Facts,
    /// A secret field (a password, a one-time code, a card number): its value is never read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// Has keyboard focus (or contains it).
    #[serde(default)]
    pub focused: bool,
    /// Box in top-document CSS pixels (scroll-independent): x, y, width, height.
    pub bbox: [i64; 4],
}

impl Deref for RawControl {
    type Target = Facts;

    fn deref(&self) -> &Facts {
        &self.facts
    }
}

impl DerefMut for RawControl {
    fn deref_mut(&mut self) -> &mut Facts {
        &mut self.facts
    }
}

/// The anchored controls of a read, in document order: a list shared, not copied, by the
/// raw layer that holds it and the inferred states shown from it. Reads as a `Vec`; a
/// change to a list that a state still shows copies it first (`Arc::make_mut`), so neither
/// layer ever sees the other's change.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct Records(Arc<Vec<RawControl>>);

impl Records {
    /// The records, taken out of the list (copied only when a state still shows them).
    pub fn into_vec(self) -> Vec<RawControl> {
        Arc::unwrap_or_clone(self.0)
    }
}

impl From<Vec<RawControl>> for Records {
    fn from(v: Vec<RawControl>) -> Records {
        Records(Arc::new(v))
    }
}

impl FromIterator<RawControl> for Records {
    fn from_iter<I: IntoIterator<Item = RawControl>>(iter: I) -> Records {
        Records::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a Records {
    type Item = &'a RawControl;
    type IntoIter = std::slice::Iter<'a, RawControl>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Deref for Records {
    type Target = Vec<RawControl>;

    fn deref(&self) -> &Vec<RawControl> {
        &self.0
    }
}

impl DerefMut for Records {
    fn deref_mut(&mut self) -> &mut Vec<RawControl> {
        Arc::make_mut(&mut self.0)
    }
}

fn yes() -> bool {
    true
}

/// A run of text on the page, with its box.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct TextRun {
    /// The words, whitespace collapsed.
    pub text: String,
    /// Box in top-document CSS pixels: x, y, width, height.
    pub bbox: [i64; 4],
    /// How sure the reader is of the words: 1.0 for text read from the DOM (a pixel reader
    /// would report less).
    #[serde(default = "certain")]
    pub confidence: f64,
}

fn certain() -> f64 {
    1.0
}

/// A control the page offers without an anchor (a button, link, field or ARIA widget).
/// Its `node` id names it for an action as long as the page keeps the element.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RawNode {
    /// The page's id for the element, stable while the element lives.
    pub node: u64,
    /// ARIA role, explicit or implicit.
    pub role: String,
    /// Accessible name.
    pub label: String,
    /// The region it sits in.
    pub region: String,
    /// Disabled.
    #[serde(default)]
    pub disabled: bool,
    /// Rendered and not hidden by CSS.
    #[serde(default = "yes")]
    pub visible: bool,
    /// Box in top-document CSS pixels: x, y, width, height.
    pub bbox: [i64; 4],
}

/// What a read gathers beyond the anchored controls, when evidence is asked for (a trace or
/// an audit is being kept): the text on the page and the controls without an anchor, each
/// capped.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Evidence {
    /// Visible text runs in document order (at most the cap).
    pub text_runs: Vec<TextRun>,
    /// The page has more text than the cap: the walk stopped there.
    #[serde(default)]
    pub text_runs_capped: bool,
    /// Controls without an anchor, in document order (at most the cap).
    pub unanchored: Vec<RawNode>,
    /// Controls without an anchor on the page.
    pub unanchored_total: usize,
}

/// A JavaScript dialog the page opened (`alert`, `confirm`, `prompt`, `beforeunload`),
/// answered by the runner so that it cannot hang the run.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct JsDialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    /// The text the page showed.
    pub message: String,
}

/// Flags of the browser's own chrome, outside the page's DOM.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Chrome {
    /// JavaScript dialogs opened (and answered) since the previous read.
    pub js_dialogs: Vec<JsDialog>,
    /// A `beforeunload` prompt was among them.
    pub beforeunload: bool,
    /// The tab's renderer crashed.
    pub crashed: bool,
    /// The document is the browser's error or interstitial page, or the server's answer
    /// to a failed request: why.
    pub error_page: Option<String>,
    /// The page opened a file chooser (intercepted: nobody can pick a file headless).
    pub file_chooser: bool,
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
    /// The anchored controls gathered (at most the collection cap), in document order.
    pub controls: Records,
    /// How many anchored controls the page (or the region read) has.
    pub total: usize,
    /// Controls beyond the collection cap, by region.
    pub dropped_by_region: BTreeMap<String, usize>,
    /// Controls beyond the collection cap, by role.
    pub dropped_by_role: BTreeMap<String, usize>,
    /// Viewport width and height.
    pub viewport: [f64; 2],
    /// Scroll offset of the top document: the viewport's origin in box coordinates.
    #[serde(default)]
    pub scroll: [f64; 2],
    /// Time the collector spent in the page, in milliseconds.
    pub collector_ms: f64,
    /// Text runs and unanchored controls, when the read gathered them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// The browser's chrome: dialogs, crash, error page, file chooser.
    #[serde(default)]
    pub chrome: Chrome,
    /// The perception audit of this read, when asked for (`--audit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<PerceptionAudit>,
}

/// One anchored control, as downstream code sees it: a view of the collector's record that
/// reaches its [`Facts`] only (through `Deref`: `control.label`), not the evidence beside
/// them (box, focus, secrecy). It serializes as its facts.
#[repr(transparent)]
#[derive(Clone)]
pub struct Control(RawControl);

impl Control {
    /// The view of `raw`.
    fn of(raw: &RawControl) -> &Control {
        // SAFETY: `Control` is `repr(transparent)` over `RawControl`: same layout and
        // alignment, so a reference to one is a valid reference to the other.
        unsafe { &*(raw as *const RawControl as *const Control) }
    }

    /// The views of `raws`.
    fn all(raws: &[RawControl]) -> &[Control] {
        // SAFETY: as in `of`, element by element: the same size, so the same slice length.
        unsafe { std::slice::from_raw_parts(raws.as_ptr() as *const Control, raws.len()) }
    }
}

impl Deref for Control {
    type Target = Facts;

    fn deref(&self) -> &Facts {
        &self.0.facts
    }
}

impl PartialEq for Control {
    fn eq(&self, other: &Control) -> bool {
        self.0.facts == other.0.facts
    }
}

impl fmt::Debug for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.facts.fmt(f)
    }
}

impl Serialize for Control {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.facts.serialize(s)
    }
}

/// The anchored controls an [`InferredState`] shows, in document order. Reads as a slice
/// of [`Control`]s. When nothing is cut it is the raw layer's own list, shared: showing
/// 50,000 controls copies none of them.
#[derive(Clone, Default)]
pub struct Controls(Arc<Vec<RawControl>>);

impl Controls {
    /// Whether both show the very same list (then nothing changed between them).
    pub fn same_list(&self, other: &Controls) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for Controls {
    type Target = [Control];

    fn deref(&self) -> &[Control] {
        Control::all(&self.0)
    }
}

impl<'a> IntoIterator for &'a Controls {
    type Item = &'a Control;
    type IntoIter = std::slice::Iter<'a, Control>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Controls {
    fn eq(&self, other: &Controls) -> bool {
        self.same_list(other) || **self == **other
    }
}

impl fmt::Debug for Controls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Controls {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// A control without an anchor, as downstream code sees it: named for an action by its
/// `node` id (`invoke(#{node: 17})`), valid while the page keeps the element.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    /// The page's id for the element.
    pub node: u64,
    /// ARIA role.
    pub role: String,
    /// The words on screen that name it.
    pub label: String,
    /// The region it sits in.
    pub region: String,
    /// Cannot be acted on.
    pub disabled: bool,
    /// Visible on the page.
    pub visible: bool,
}

/// What a cut dropped. `shown + dropped == total`, and the per-region (and per-role) counts
/// add up to `dropped`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Truncation {
    /// Controls in the read.
    pub shown: usize,
    /// Controls on the page (or in the region read).
    pub total: usize,
    /// Controls not in the read.
    pub dropped: usize,
    /// Dropped controls by region.
    pub dropped_by_region: BTreeMap<String, usize>,
    /// Dropped controls by role.
    pub dropped_by_role: BTreeMap<String, usize>,
    /// The cut that bound: `collection` (what one read gathers) or `description` (what
    /// fits the budget). When both cut, `description`, and `collected < total`.
    pub cut_at: &'static str,
    /// Controls the collection gathered, before the description cut.
    pub collected: usize,
    /// The description budget in characters, when one applied.
    pub budget: Option<usize>,
    /// How to read more, in words.
    pub hint: String,
}

/// What part of a read is shown, and how much of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// Characters the controls' descriptions may take (the description budget): each
    /// control costs the characters of its JSON record. `None` shows every control gathered.
    pub budget: Option<usize>,
    /// The read covers only this region (the collector gathered only it).
    pub region: Option<String>,
    /// Also list the controls without an anchor (as [`Node`]s).
    pub nodes: bool,
}

/// What the screen is taken to be. Built only by [`infer`]:
///
/// ```compile_fail
/// // A private field keeps every other module (and crate) from building one.
/// let forged = waymark::screen::InferredState {
///     route: "/claims".into(),
///     ..unimplemented!()
/// };
/// ```
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
    /// The anchored controls shown, in document order.
    pub controls: Controls,
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
    /// The one region this read covers, when it was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Controls without an anchor, when they were asked for (at most 2,000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<Node>>,
    /// How many controls without an anchor the page has, when they were asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes_total: Option<usize>,
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
/// `route` is the URL made app-relative by the caller; `elapsed_ms` the read's own cost;
/// `view` the description budget and region of the read.
pub fn infer(
    raw: &RawObservation,
    route: String,
    registry: &Registry,
    elapsed_ms: f64,
    view: &View,
) -> InferredState {
    let screen = registry.screen_for_route(&route).map(|s| s.id.clone());
    let mut reasons = Vec::new();
    let mut confidence: f64 = 1.0;
    let chrome = &raw.chrome;
    if chrome.crashed {
        confidence = 0.0;
        reasons.push("the tab's renderer crashed".to_string());
    }
    if let Some(why) = &chrome.error_page {
        confidence = confidence.min(0.5);
        reasons.push(format!("an error page: {why}"));
    }
    if !chrome.js_dialogs.is_empty() {
        confidence = confidence.min(0.9);
        reasons.push(format!(
            "the page opened {} JavaScript dialog(s), answered by the runner",
            chrome.js_dialogs.len()
        ));
    }
    for (ceiling, reason) in raw.audit.iter().flat_map(PerceptionAudit::confidence) {
        confidence = confidence.min(ceiling);
        reasons.push(reason);
    }
    if chrome.file_chooser {
        confidence = confidence.min(0.9);
        reasons.push("the page opened a file chooser; no file was picked".to_string());
    }
    if !registry.anchors().is_empty() && screen.is_some() {
        let mut unknown = raw
            .controls
            .iter()
            .filter(|c| registry.anchor(&c.anchor).is_none());
        if let Some(first) = unknown.next() {
            confidence = confidence.min(0.9);
            reasons.push(format!(
                "{} control(s) carry anchors the registry does not know (first: `{}`)",
                1 + unknown.count(),
                first.anchor
            ));
        }
    }
    let (controls, truncation, focused) = cut(raw, view);
    let focus = focused.map(|i| raw.controls[i].reference());
    let nodes = match (&raw.evidence, view.nodes) {
        (Some(ev), true) => Some((
            ev.unanchored
                .iter()
                .map(|n| Node {
                    node: n.node,
                    role: n.role.clone(),
                    label: n.label.clone(),
                    region: n.region.clone(),
                    disabled: n.disabled,
                    visible: n.visible,
                })
                .collect::<Vec<_>>(),
            ev.unanchored_total,
        )),
        _ => None,
    };
    let dialog = raw
        .dialog
        .clone()
        .or_else(|| chrome.js_dialogs.last().map(|d| d.message.clone()));
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
        region: view.region.clone(),
        nodes: nodes.as_ref().map(|(n, _)| n.clone()),
        nodes_total: nodes.map(|(_, total)| total),
        _sealed: Sealed,
    }
}

/// How many ranks [`rank`] has.
const RANKS: u8 = 5;

/// Priority of keeping a control under the description budget: 0 it has the focus, 1 its
/// region has, 2 in the viewport, 3 enabled and actionable, 4 the rest.
fn rank(c: &RawControl, focus_region: Option<&str>, viewport: [f64; 4]) -> u8 {
    if c.focused {
        return 0;
    }
    if focus_region == Some(c.region.as_str()) {
        return 1;
    }
    let [x, y, w, h] = c.bbox.map(|v| v as f64);
    let [vx, vy, vw, vh] = viewport;
    if c.visible && x < vx + vw && x + w > vx && y < vy + vh && y + h > vy {
        return 2;
    }
    if c.visible && !c.disabled && actionable(&c.role) {
        return 3;
    }
    4
}

/// Roles a person acts on.
fn actionable(role: &str) -> bool {
    matches!(
        role,
        "button"
            | "link"
            | "checkbox"
            | "radio"
            | "switch"
            | "textbox"
            | "searchbox"
            | "combobox"
            | "listbox"
            | "spinbutton"
            | "slider"
            | "tab"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "treeitem"
    )
}

/// Controls the description cut dropped, counted by region and role on borrowed names:
/// regions come in runs (document order), roles are few, so a 50,000-control cut touches a
/// map once per run of a region rather than allocating two keys per control.
#[derive(Default)]
struct Dropped<'a> {
    regions: Vec<(&'a str, usize)>,
    roles: Vec<(&'a str, usize)>,
}

impl<'a> Dropped<'a> {
    fn count(&mut self, c: &'a RawControl) {
        match self.regions.last_mut() {
            Some((region, n)) if *region == c.region.as_str() => *n += 1,
            _ => self.regions.push((c.region.as_str(), 1)),
        }
        match self
            .roles
            .iter_mut()
            .find(|(role, _)| *role == c.role.as_str())
        {
            Some((_, n)) => *n += 1,
            None => self.roles.push((c.role.as_str(), 1)),
        }
    }

    fn add_to(
        self,
        by_region: &mut BTreeMap<String, usize>,
        by_role: &mut BTreeMap<String, usize>,
    ) {
        let mut runs: BTreeMap<&str, usize> = BTreeMap::new();
        for (region, n) in self.regions {
            *runs.entry(region).or_default() += n;
        }
        for (region, n) in runs {
            *by_region.entry(region.to_string()).or_default() += n;
        }
        for (role, n) in self.roles {
            *by_role.entry(role.to_string()).or_default() += n;
        }
    }
}

/// Counts the characters written to it.
struct Chars(usize);

impl std::io::Write for Chars {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // UTF-8: every byte but a continuation byte starts a character.
        self.0 += buf.iter().filter(|b| (**b & 0xC0) != 0x80).count();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What one control costs of the budget: the characters of its JSON record, and a comma.
pub fn description_len(c: &Control) -> usize {
    let mut chars = Chars(1);
    // Writing to a counter cannot fail, and a Control always serializes.
    let _ = serde_json::to_writer(&mut chars, c);
    chars.0
}

/// Both cuts: the collection cut the collector made, and the description cut of `view`;
/// with the index of the (first) focused control.
fn cut(raw: &RawObservation, view: &View) -> (Controls, Option<Truncation>, Option<usize>) {
    let collected = raw.controls.len();
    let mut by_region = raw.dropped_by_region.clone();
    let mut by_role = raw.dropped_by_role.clone();
    let focused = raw.controls.iter().position(|c| c.focused);
    let (controls, described) = match view.budget {
        // Every control gathered is shown: the raw layer's list itself.
        None => (Controls(Arc::clone(&raw.controls.0)), false),
        Some(budget) => {
            let focus_region = focused.map(|i| raw.controls[i].region.as_str());
            let viewport = [
                raw.scroll[0],
                raw.scroll[1],
                raw.viewport[0],
                raw.viewport[1],
            ];
            let ranks: Vec<u8> = raw
                .controls
                .iter()
                .map(|c| rank(c, focus_region, viewport))
                .collect();
            let mut keep = vec![false; collected];
            let (mut used, mut kept) = (0, 0);
            'fill: for r in 0..RANKS {
                for (i, c) in raw.controls.iter().enumerate() {
                    if ranks[i] != r {
                        continue;
                    }
                    let cost = description_len(Control::of(c));
                    if used + cost > budget {
                        break 'fill;
                    }
                    used += cost;
                    keep[i] = true;
                    kept += 1;
                }
            }
            if kept == collected {
                (Controls(Arc::clone(&raw.controls.0)), false)
            } else {
                let mut controls = Vec::with_capacity(kept);
                let mut dropped = Dropped::default();
                for (kept, c) in keep.into_iter().zip(raw.controls.iter()) {
                    if kept {
                        controls.push(c.clone());
                    } else {
                        dropped.count(c);
                    }
                }
                dropped.add_to(&mut by_region, &mut by_role);
                (Controls(Arc::new(controls)), true)
            }
        }
    };
    let shown = controls.len();
    let total = raw.total.max(collected);
    if shown >= total {
        return (controls, None, focused);
    }
    let why = if described {
        format!(
            "more controls than fit the description budget ({} characters{})",
            view.budget.unwrap_or_default(),
            if collected < total {
                format!(", and more than one read gathers: {collected} of {total}")
            } else {
                String::new()
            }
        )
    } else {
        "more controls than one read gathers (--max-controls)".to_string()
    };
    let hint = match &view.region {
        Some(region) => format!(
            "region `{region}` has {why}; raise {} to see it all",
            if described {
                "the budget"
            } else {
                "--max-controls"
            }
        ),
        None => {
            let mut busiest: Vec<(&String, &usize)> = by_region.iter().collect();
            busiest.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let names = busiest
                .iter()
                .take(5)
                .map(|(r, n)| format!("{r} ({n})"))
                .collect::<Vec<_>>()
                .join(", ");
            let more = match busiest.len() {
                0..=5 => String::new(),
                n => format!(" and {} more", n - 5),
            };
            let first = busiest.first().map(|(r, _)| r.as_str()).unwrap_or("…");
            format!(
                "the screen has {why}; ask for one region with read_screen(#{{region: \"{first}\"}}): {names}{more}"
            )
        }
    };
    let truncation = Truncation {
        shown,
        total,
        dropped: total - shown,
        dropped_by_region: by_region,
        dropped_by_role: by_role,
        cut_at: if described {
            "description"
        } else {
            "collection"
        },
        collected,
        budget: view.budget,
        hint,
    };
    (controls, Some(truncation), focused)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(anchor: &str, region: &str) -> RawControl {
        RawControl {
            facts: Facts::named(anchor, anchor, "button", region),
            secret: false,
            focused: false,
            bbox: [0, 2000, 10, 10],
        }
    }

    fn raw(controls: Vec<RawControl>, total: usize) -> RawObservation {
        RawObservation {
            url: "http://127.0.0.1/x".into(),
            title: "x".into(),
            status: Some(200),
            dialog: None,
            controls: controls.into(),
            total,
            dropped_by_region: BTreeMap::new(),
            dropped_by_role: BTreeMap::new(),
            viewport: [1280.0, 800.0],
            scroll: [0.0, 0.0],
            collector_ms: 1.0,
            evidence: None,
            chrome: Chrome::default(),
            audit: None,
        }
    }

    fn state(raw: &RawObservation, view: &View) -> InferredState {
        infer(raw, "/x".into(), &Registry::empty(), 1.0, view)
    }

    #[test]
    fn full_read_has_no_truncation() {
        let state = state(&raw(vec![control("a.b", "r")], 1), &View::default());
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
        let t = state(&r, &View::default())
            .truncation
            .expect("a cut read reports its truncation");
        assert_eq!((t.shown, t.dropped, t.total), (1, 3, 4));
        assert_eq!(t.cut_at, "collection");
        assert_eq!(t.dropped_by_region.values().sum::<usize>(), t.dropped);
        assert!(t.hint.contains("r2 (2), r1 (1)"), "{}", t.hint);
        assert!(
            t.hint.contains(r#"read_screen(#{region: "r2"})"#),
            "{}",
            t.hint
        );
    }

    #[test]
    fn error_status_lowers_confidence_with_a_reason() {
        let mut r = raw(vec![], 0);
        r.status = Some(404);
        r.chrome.error_page = Some("the server answered HTTP 404".into());
        let state = state(&r, &View::default());
        assert!(state.confidence < 1.0);
        assert_eq!(
            state.confidence_reasons,
            ["an error page: the server answered HTTP 404"]
        );
    }

    #[test]
    fn a_javascript_dialog_is_the_dialog_of_the_inferred_state() {
        let mut r = raw(vec![], 0);
        r.chrome.js_dialogs.push(JsDialog {
            kind: "alert".into(),
            message: "Saved!".into(),
        });
        let state = state(&r, &View::default());
        assert_eq!(state.dialog.as_deref(), Some("Saved!"));
        assert!(state.confidence < 1.0);
    }

    #[test]
    fn the_focus_is_the_first_focused_control_cut_or_not() {
        let mut controls = vec![
            control("a.one", "a"),
            control("a.two", "a"),
            control("b.one", "b"),
        ];
        let none = state(&raw(controls.clone(), 3), &View::default());
        assert_eq!(none.focus, None);
        controls[1].focused = true;
        controls[1].key = Some("7".into());
        controls[2].focused = true;
        let r = raw(controls, 3);
        assert_eq!(
            state(&r, &View::default()).focus.as_deref(),
            Some("a.two[7]")
        );
        let budget = View {
            budget: Some(1),
            ..View::default()
        };
        assert_eq!(state(&r, &budget).focus.as_deref(), Some("a.two[7]"));
    }

    #[test]
    fn the_budget_keeps_the_focused_region_then_the_viewport_then_actionable() {
        let mut controls = vec![
            control("far.text", "far"),
            control("far.button", "far"),
            control("seen.one", "seen"),
            control("form.field", "form"),
            control("form.other", "form"),
        ];
        controls[0].role = "status".into();
        controls[2].bbox = [0, 100, 10, 10];
        controls[3].focused = true;
        let r = raw(controls, 5);
        let cost = |a: &str| {
            description_len(Control::of(
                r.controls.iter().find(|c| c.anchor == a).unwrap(),
            ))
        };
        // Room for the focused region and the control in the viewport, not for more.
        let budget = cost("form.field") + cost("form.other") + cost("seen.one") + 1;
        let s = state(
            &r,
            &View {
                budget: Some(budget),
                region: None,
                ..View::default()
            },
        );
        let kept: Vec<&str> = s.controls.iter().map(|c| c.anchor.as_str()).collect();
        assert_eq!(
            kept,
            ["seen.one", "form.field", "form.other"],
            "document order"
        );
        let t = s.truncation.expect("a cut is reported");
        assert_eq!((t.shown, t.dropped, t.total, t.collected), (3, 2, 5, 5));
        assert_eq!(t.cut_at, "description");
        assert_eq!(
            t.dropped_by_region,
            BTreeMap::from([("far".to_string(), 2)])
        );
        assert_eq!(
            t.dropped_by_role,
            BTreeMap::from([("button".to_string(), 1), ("status".to_string(), 1)])
        );
        // One more control's worth: the actionable button comes before the status.
        let s = state(
            &r,
            &View {
                budget: Some(budget + cost("far.button")),
                ..View::default()
            },
        );
        assert!(s.control("far.button", None).is_some());
        assert!(s.control("far.text", None).is_none());
    }

    #[test]
    fn both_cuts_add_up() {
        let mut r = raw(vec![control("a.one", "r1"), control("a.two", "r2")], 10);
        r.dropped_by_region.insert("r3".into(), 8);
        r.dropped_by_role.insert("textbox".into(), 8);
        let one = description_len(Control::of(&r.controls[0]));
        let t = state(
            &r,
            &View {
                budget: Some(one),
                region: None,
                ..View::default()
            },
        )
        .truncation
        .unwrap();
        assert_eq!((t.shown, t.dropped, t.total, t.collected), (1, 9, 10, 2));
        assert_eq!(t.cut_at, "description");
        assert_eq!(t.dropped_by_region.values().sum::<usize>(), 9);
        assert_eq!(t.dropped_by_role.values().sum::<usize>(), 9);
        assert!(t.hint.contains("2 of 10"), "{}", t.hint);
    }

    /// Shown whole, a read's state shows the raw layer's own records; a change to the raw
    /// list then copies it, and the state still shows what was read.
    #[test]
    fn a_state_shown_whole_shares_the_records_it_shows() {
        let mut r = raw(vec![control("a.b", "r"), control("a.c", "r")], 2);
        r.controls[1].focused = true;
        let s = state(&r, &View::default());
        assert!(Arc::ptr_eq(&s.controls.0, &r.controls.0));
        assert_eq!(s.focus.as_deref(), Some("a.c"));
        r.controls[0].label = "Changed".into();
        assert!(!Arc::ptr_eq(&s.controls.0, &r.controls.0));
        assert_eq!(s.controls[0].label, "a.b");
        // A budget that keeps every control shows the same list too.
        let roomy = View {
            budget: Some(100_000),
            ..View::default()
        };
        let s = state(&r, &roomy);
        assert!(s.truncation.is_none());
        assert!(Arc::ptr_eq(&s.controls.0, &r.controls.0));
    }

    /// A control shows its facts and nothing of the evidence beside them: its JSON is its
    /// facts', with no box, focus or secrecy.
    #[test]
    fn a_control_shows_its_facts_only() {
        let mut c = control("a.b", "r");
        c.secret = true;
        c.focused = true;
        let shown = serde_json::to_value(Control::of(&c)).unwrap();
        assert_eq!(shown, serde_json::to_value(&c.facts).unwrap());
        for key in ["bbox", "focused", "secret"] {
            assert!(shown.get(key).is_none(), "{key} in {shown}");
        }
        // The raw record keeps them, in one flat object as before.
        let raw = serde_json::to_value(&c).unwrap();
        assert_eq!(raw["bbox"], serde_json::json!([0, 2000, 10, 10]));
        assert_eq!(raw["anchor"], "a.b");
        let back: RawControl = serde_json::from_value(raw).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn description_len_counts_characters_not_bytes() {
        let mut a = control("a.b", "r");
        let ascii = description_len(Control::of(&a));
        a.label = "ab".into();
        let two = description_len(Control::of(&a));
        a.label = "äö".into();
        assert_eq!(description_len(Control::of(&a)), two);
        assert!(ascii > 0);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn screens() -> impl Strategy<Value = (RawObservation, usize)> {
            let one = (0..6usize, 0..4usize, any::<bool>(), 0..3000i64, 0..40usize);
            (
                prop::collection::vec(one, 0..60),
                0..40usize,
                prop::option::of(0..60usize),
                0..6000usize,
            )
                .prop_map(|(specs, extra, focus, budget)| {
                    let roles = ["button", "textbox", "status", "link"];
                    let mut controls: Vec<RawControl> = specs
                        .iter()
                        .enumerate()
                        .map(|(i, (region, role, disabled, y, label))| {
                            let mut c = control(&format!("c.n{i}"), &format!("r{region}"));
                            c.role = roles[*role].into();
                            c.disabled = *disabled;
                            c.bbox = [0, *y, 100, 20];
                            c.label = "x".repeat(*label).into();
                            c
                        })
                        .collect();
                    if let Some(f) = focus.filter(|f| *f < controls.len()) {
                        controls[f].focused = true;
                    }
                    let n = controls.len();
                    let mut r = raw(controls, n + extra);
                    for i in 0..extra {
                        *r.dropped_by_region
                            .entry(format!("r{}", i % 7))
                            .or_default() += 1;
                        *r.dropped_by_role.entry("button".into()).or_default() += 1;
                    }
                    (r, budget)
                })
        }

        proptest! {
            #[test]
            fn cuts_are_whole_counted_and_keep_the_focused_region((r, budget) in screens()) {
                let s = state(&r, &View { budget: Some(budget), region: None, nodes: false });
                let shown_len: usize = s.controls.iter().map(description_len).sum();
                prop_assert!(shown_len <= budget, "the budget holds");
                // No control cut in half: every shown control is one of the read's, whole.
                for c in &s.controls {
                    prop_assert!(r.controls.iter().any(|raw| Control::of(raw) == c));
                }
                match &s.truncation {
                    None => prop_assert_eq!(s.controls.len(), r.total),
                    Some(t) => {
                        prop_assert_eq!(t.shown, s.controls.len());
                        prop_assert_eq!(t.shown + t.dropped, t.total);
                        prop_assert_eq!(t.total, r.total);
                        prop_assert_eq!(t.dropped_by_region.values().sum::<usize>(), t.dropped);
                        prop_assert_eq!(t.dropped_by_role.values().sum::<usize>(), t.dropped);
                        // Per region: shown + dropped = what the page has there.
                        let mut on_page: BTreeMap<String, usize> = r.dropped_by_region.clone();
                        for c in &r.controls {
                            *on_page.entry(c.region.to_string()).or_default() += 1;
                        }
                        for (region, n) in &on_page {
                            let kept = s.controls.iter().filter(|c| &c.region == region).count();
                            let dropped = t.dropped_by_region.get(region).copied().unwrap_or(0);
                            prop_assert_eq!(kept + dropped, *n, "region {}", region);
                        }
                    }
                }
                // Shown in document order.
                let positions: Vec<usize> = s
                    .controls
                    .iter()
                    .map(|c| r.controls.iter().position(|raw| raw.anchor == c.anchor).unwrap())
                    .collect();
                prop_assert!(positions.windows(2).all(|w| w[0] < w[1]));
                // The focused region goes first: anything else kept means all of it was.
                if let Some(focused) = r.controls.iter().find(|c| c.focused) {
                    let region = &focused.region;
                    let other_kept = s.controls.iter().any(|c| &c.region != region);
                    let all_focused_kept = r
                        .controls
                        .iter()
                        .filter(|c| &c.region == region)
                        .all(|c| s.control(&c.anchor, None).is_some());
                    prop_assert!(!other_kept || all_focused_kept);
                    if description_len(Control::of(focused)) <= budget {
                        prop_assert!(s.control(&focused.anchor, None).is_some(),
                            "the focused control fits, so it is kept");
                    }
                }
            }
        }
    }
}
