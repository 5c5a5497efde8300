//! The raw layer: what the in-page collector literally read off the page — every anchored
//! control with its box and, when evidence is asked for, the text runs and the controls
//! without an anchor — and the flags of the browser's own chrome. Evidence only: nothing
//! here is inferred, and nothing downstream but [`infer`](super::infer) reads it to decide
//! what the screen is.

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Text;
use crate::screen::audit::PerceptionAudit;

/// What a control is and shows: its anchor and key, its name, role and state, its region.
/// Both layers tell these alike — the raw one as the collector read them, the inferred one
/// as it shows them — so one record serves both: a [`RawControl`] holds its facts, and a
/// [`Control`](super::Control) is a view of that record that reaches its facts only. Reading and showing
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
        crate::anchor::reference(&self.anchor, self.key.as_deref())
    }

    /// The facts as they are shown, when a string of theirs is too long to be shown whole
    /// (a 1 MB label, a 2 MB value): each cut by [`crate::protocol::cut`], with its length.
    /// `None` when every string is shown whole.
    pub fn cut(&self) -> Option<Facts> {
        let anchor = self.anchor.cut();
        let key = self.key.as_ref().and_then(Text::cut);
        let label = self.label.cut();
        let role = self.role.cut();
        let value = self.value.as_ref().and_then(Text::cut);
        let region = self.region.cut();
        if anchor.is_none()
            && key.is_none()
            && label.is_none()
            && role.is_none()
            && value.is_none()
            && region.is_none()
        {
            return None;
        }
        Some(Facts {
            anchor: anchor.unwrap_or_else(|| self.anchor.clone()),
            key: key.or_else(|| self.key.clone()),
            label: label.unwrap_or_else(|| self.label.clone()),
            role: role.unwrap_or_else(|| self.role.clone()),
            value: value.or_else(|| self.value.clone()),
            region: region.unwrap_or_else(|| self.region.clone()),
            ..*self
        })
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
    /// The part of `bbox` its clipping ancestors let show (a list that scrolls, a panel
    /// that hides its overflow, its frame's viewport), in the same pixels: `None` when
    /// nothing clips it, empty (no width or height) when none of it shows. What
    /// `in_viewport` is told by, as an IntersectionObserver tells Playwright's
    /// `toBeInViewport`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<[i64; 4]>,
}

#[cfg(test)]
impl RawControl {
    /// A plain button named after its anchor in `region`, below the fold, for tests.
    pub(crate) fn button(anchor: &str, region: &str) -> RawControl {
        RawControl {
            facts: Facts::named(anchor, anchor, "button", region),
            secret: false,
            focused: false,
            bbox: [0, 2000, 10, 10],
            view: None,
        }
    }
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
pub struct Records(pub(super) Arc<Vec<RawControl>>);

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
    /// The frames of another origin that did not answer within the read's bound: their
    /// controls are not in this read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames_unread: Vec<UnreadFrame>,
}

/// A frame of another origin a read could not read: what names it, and why.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct UnreadFrame {
    /// The frame's address (its iframe's `src`).
    pub src: String,
    /// Its iframe's `title`, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its iframe's `name`, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Why: it did not answer within the bound, or could not be reached.
    pub reason: String,
}
