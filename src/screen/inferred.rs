//! The inferred layer: what everything downstream reads of a screen (scripts, round trips,
//! snapshots, printed output). Its controls are views of the raw layer's records that reach
//! their [`Facts`] only, and an [`InferredState`] can be built by [`infer`](super::infer)
//! alone: a field only this module tree can fill seals it.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use super::raw::{Facts, RawControl};

/// One anchored control, as downstream code sees it: a view of the collector's record that
/// reaches its [`Facts`] only (through `Deref`: `control.label`), not the evidence beside
/// them (box, focus, secrecy). It serializes as its facts.
#[repr(transparent)]
#[derive(Clone)]
pub struct Control(pub(super) RawControl);

impl Control {
    /// The view of `raw`.
    pub(super) fn of(raw: &RawControl) -> &Control {
        // SAFETY: `Control` is `repr(transparent)` over `RawControl`: same layout and
        // alignment, so a reference to one is a valid reference to the other.
        unsafe { &*(raw as *const RawControl as *const Control) }
    }

    /// The views of `raws`.
    pub(super) fn all(raws: &[RawControl]) -> &[Control] {
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
///
/// Beside them, the viewport of the read (its origin in box coordinates, the scroll, and
/// its size), by which each control is shown with `in_viewport`: whether its box meets the
/// viewport (Playwright's `toBeInViewport`). It is worked out as the controls are shown,
/// not held in their records: a scroll changes it for every control without changing any.
#[derive(Clone, Default)]
pub struct Controls(pub(super) Arc<Vec<RawControl>>, pub(super) [f64; 4]);

impl Controls {
    /// The controls as they are shown: the same list when every string of theirs is short,
    /// else a copy with the long ones cut (see [`Facts::cut`]).
    fn shown(self) -> Controls {
        let Some(first) = self.0.iter().position(|c| c.facts.cut().is_some()) else {
            return self;
        };
        let mut records = self.0[..first].to_vec();
        records.extend(self.0[first..].iter().map(|c| match c.facts.cut() {
            Some(facts) => RawControl { facts, ..c.clone() },
            None => c.clone(),
        }));
        Controls(Arc::new(records), self.1)
    }

    /// Whether `control`, one of these, is visible with the part of its box that shows
    /// through its clipping ancestors (see [`RawControl::view`]) meeting the viewport of
    /// the read (at least in part, as Playwright's `toBeInViewport`).
    pub fn in_viewport(&self, control: &Control) -> bool {
        let c = &control.0;
        let [x, y, w, h] = c.view.unwrap_or(c.bbox).map(|v| v as f64);
        let [vx, vy, vw, vh] = self.1;
        let shows = c.view.is_none_or(|[_, _, w, h]| w > 0 && h > 0);
        c.facts.visible && shows && x < vx + vw && x + w > vx && y < vy + vh && y + h > vy
    }

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
        /// A control as it is shown: its facts, and whether it is in the viewport.
        #[derive(Serialize)]
        struct Shown<'a> {
            #[serde(flatten)]
            facts: &'a Facts,
            in_viewport: bool,
        }
        s.collect_seq(self.iter().map(|c| Shown {
            facts: c,
            in_viewport: self.in_viewport(c),
        }))
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

/// The names of `counts` (regions, roles: the page's words) as they are shown; two that cut
/// alike add up, so the counts still add up to what was dropped.
fn cut_keys(counts: &mut BTreeMap<String, usize>) {
    if counts
        .keys()
        .all(|k| matches!(crate::protocol::cut(k), std::borrow::Cow::Borrowed(_)))
    {
        return;
    }
    let mut shown = BTreeMap::new();
    for (name, n) in std::mem::take(counts) {
        *shown
            .entry(crate::protocol::cut(&name).into_owned())
            .or_default() += n;
    }
    *counts = shown;
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
    /// The cut that bound. When both cut, `description`, and `collected < total`.
    pub cut_at: CutAt,
    /// Controls the collection gathered, before the description cut.
    pub collected: usize,
    /// The description budget in characters, when one applied.
    pub budget: Option<usize>,
    /// How to read more, in words.
    pub hint: String,
}

/// The cut that bound a read: written `collection` or `description`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CutAt {
    /// The collector's: what one read gathers (`--max-controls`).
    Collection,
    /// [`infer`](super::infer)'s: what fits a [`View`]'s budget.
    Description,
}

impl CutAt {
    /// The cut as it appears in output.
    pub fn as_str(self) -> &'static str {
        match self {
            CutAt::Collection => "collection",
            CutAt::Description => "description",
        }
    }
}

impl fmt::Display for CutAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// Readers (and tests) that held the string compare with it still.
impl PartialEq<&str> for CutAt {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
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

/// What the screen is taken to be. Built only by [`infer`](super::infer):
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
    /// The frames of another origin whose controls this read lacks: they did not answer
    /// within the read's bound (none when every frame was read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames_unread: Option<FramesUnread>,
    #[serde(skip)]
    pub(super) _sealed: Sealed,
}

/// The frames a read could not read, said as a cut is: how many, and which.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FramesUnread {
    /// How many frames were not read.
    pub count: usize,
    /// Each of them, by its address, title and name, with the reason.
    pub frames: Vec<super::raw::UnreadFrame>,
}

/// The field only this module tree can fill: what keeps an [`InferredState`] from being
/// built anywhere but [`infer`](super::infer).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Sealed;

impl InferredState {
    /// The state as it is shown — in a round trip, a snapshot, a report, a printed read —
    /// with every string from the page or an input cut by [`crate::protocol::cut`] (its
    /// start and its length in characters): the route, title, dialog and focus, each
    /// control's anchor, key, label, role, value and region, the nodes, the region names of
    /// the truncation report. Nothing is copied when every string is short. The engine keeps
    /// the whole state for its own work (the route a screen is matched by, the key a
    /// control is found by).
    pub fn shown(mut self) -> InferredState {
        use crate::protocol::{MESSAGE_CHARS, cut_mut, cut_to};
        cut_mut(&mut self.route);
        cut_mut(&mut self.title);
        for text in [&mut self.dialog, &mut self.focus, &mut self.region]
            .into_iter()
            .flatten()
        {
            cut_mut(text);
        }
        for reason in &mut self.confidence_reasons {
            if let std::borrow::Cow::Owned(shown) = cut_to(reason, MESSAGE_CHARS) {
                *reason = shown;
            }
        }
        self.controls = self.controls.shown();
        for node in self.nodes.iter_mut().flatten() {
            cut_mut(&mut node.role);
            cut_mut(&mut node.label);
            cut_mut(&mut node.region);
        }
        if let Some(t) = &mut self.truncation {
            cut_keys(&mut t.dropped_by_region);
            cut_keys(&mut t.dropped_by_role);
        }
        self
    }

    /// The control with this anchor (and key, when given).
    pub fn control(&self, anchor: &str, key: Option<&str>) -> Option<&Control> {
        self.controls
            .iter()
            .find(|c| c.anchor == anchor && (key.is_none() || c.key.as_deref() == key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(anchor: &str, region: &str) -> RawControl {
        RawControl::button(anchor, region)
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
}
