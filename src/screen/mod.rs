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

pub mod audit;
mod changes;
mod infer;
mod inferred;
mod raw;
mod role;
mod text;

pub use changes::Changes;
pub use infer::{description_len, infer};
pub use inferred::{Control, Controls, CutAt, FramesUnread, InferredState, Node, Truncation, View};
pub use raw::{
    Chrome, Evidence, Facts, JsDialog, RawControl, RawNode, RawObservation, Records, TextRun,
    UnreadFrame,
};
pub use role::Role;
pub use text::Text;
pub(crate) use text::{Slicer, parse_reply};
