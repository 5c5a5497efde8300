//! Where a call's time went: the page's own work, and each of waymark's waits and trips
//! apart, so a slow step says whose time it was (the trace's `timing`; see README.md,
//! "Where a step's time goes").
//!
//! A call gathers its phases as it goes (the gates, finding its target, the input, the
//! page's answer and the quiet window after it, a load, the collection in the page and the
//! inference here); [`Timing::other_ms`] is what is left of the call's wall time, so the
//! parts add up to `elapsed_ms`. The trace's screenshot, taken after the call, is timed
//! apart.

use std::time::Instant;

use serde::Serialize;

use super::Tools;
use crate::browser::Tab;

/// A call's time by phase, in milliseconds (0.1 ms); a phase the call did not have is 0 and
/// left out of the trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timing {
    /// The gates: tab control, the allowed set, consent and the guardrail (a person's
    /// answer included).
    #[serde(skip_serializing_if = "zero")]
    pub gates_ms: f64,
    /// A tab's setup before its first navigation: the collector given to every document
    /// it will load (`Page.addScriptToEvaluateOnNewDocument`). Once per tab.
    #[serde(skip_serializing_if = "zero")]
    pub setup_ms: f64,
    /// Finding the target and waiting for it to be visible, enabled, stable and uncovered:
    /// the trips that aim an action (or a `wait_for`'s wait in the page).
    #[serde(skip_serializing_if = "zero")]
    pub target_ms: f64,
    /// Sending the input through CDP (`Input.dispatch*Event`) until Chromium took it.
    #[serde(skip_serializing_if = "zero")]
    pub input_ms: f64,
    /// The page's own work after the input: its handlers and the changes they made, to
    /// the last change the settle saw (measured in the page).
    #[serde(skip_serializing_if = "zero")]
    pub page_ms: f64,
    /// waymark's wait after the page's last change: the quiet window, the frame it waits to
    /// see rendered and the tasks it lets run before it calls the page quiet.
    #[serde(skip_serializing_if = "zero")]
    pub quiet_ms: f64,
    /// Waiting for a document to load (a navigation, or one an action led to).
    #[serde(skip_serializing_if = "zero")]
    pub load_ms: f64,
    /// The read's collection in the page (the collector's own clock).
    #[serde(skip_serializing_if = "zero")]
    pub collect_ms: f64,
    /// The read here: its answer parsed and applied to the held read, the screen inferred,
    /// what changed, the audit when asked for.
    #[serde(skip_serializing_if = "zero")]
    pub infer_ms: f64,
    /// The step's screenshot, when the trace takes one: after the call, so not a part of
    /// its `elapsed_ms`.
    #[serde(skip_serializing_if = "zero")]
    pub screenshot_ms: f64,
    /// The rest of the call's wall time: the CDP trips' transport, the answers' transfer
    /// and parsing, the tabs' bookkeeping.
    #[serde(skip_serializing_if = "zero")]
    pub other_ms: f64,
}

fn zero(ms: &f64) -> bool {
    *ms == 0.0
}

/// One of a call's phases (see [`Timing`]'s fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Gates,
    Setup,
    Target,
    Input,
    Load,
    Infer,
}

impl Timing {
    fn slot(&mut self, phase: Phase) -> &mut f64 {
        match phase {
            Phase::Gates => &mut self.gates_ms,
            Phase::Setup => &mut self.setup_ms,
            Phase::Target => &mut self.target_ms,
            Phase::Input => &mut self.input_ms,
            Phase::Load => &mut self.load_ms,
            Phase::Infer => &mut self.infer_ms,
        }
    }

    /// The same, with the screenshot taken after the call.
    pub(super) fn with_screenshot(mut self, ms: f64) -> Timing {
        self.screenshot_ms = (ms * 10.0).round() / 10.0;
        self
    }

    /// The phases' sum but `other_ms` (the screenshot is not a part of the call).
    fn measured(&self) -> f64 {
        self.gates_ms
            + self.setup_ms
            + self.target_ms
            + self.input_ms
            + self.page_ms
            + self.quiet_ms
            + self.load_ms
            + self.collect_ms
            + self.infer_ms
    }

    /// The timing of a call that took `elapsed_ms` in all: each phase to 0.1 ms and the
    /// rest in `other_ms` (never below 0: the page's clock and ours may disagree by a
    /// fraction of a millisecond).
    pub(super) fn of_call(mut self, elapsed_ms: f64) -> Timing {
        self.other_ms = (elapsed_ms - self.measured()).max(0.0);
        for ms in [
            &mut self.gates_ms,
            &mut self.setup_ms,
            &mut self.target_ms,
            &mut self.input_ms,
            &mut self.page_ms,
            &mut self.quiet_ms,
            &mut self.load_ms,
            &mut self.collect_ms,
            &mut self.infer_ms,
            &mut self.screenshot_ms,
            &mut self.other_ms,
        ] {
            *ms = (*ms * 10.0).round() / 10.0;
        }
        self
    }
}

impl<T: Tab> Tools<T> {
    /// Starts the current call's timing afresh.
    pub(super) fn timing_reset(&self) {
        if let Ok(mut t) = self.shared.timing.lock() {
            *t = Timing::default();
        }
    }

    /// Adds the time since `from` to the current call's `phase`.
    pub(super) fn timed(&self, phase: Phase, from: Instant) {
        let ms = super::ms_since(from);
        if let Ok(mut t) = self.shared.timing.lock() {
            *t.slot(phase) += ms;
        }
    }

    /// Adds what the page measured of a settle: its own work and the quiet window after it
    /// (see `quietWatch` in `collector/js/11-settle.js`).
    pub(super) fn timed_settle(&self, page_ms: Option<f64>, quiet_ms: Option<f64>) {
        if let Ok(mut t) = self.shared.timing.lock() {
            t.page_ms += page_ms.unwrap_or(0.0).max(0.0);
            t.quiet_ms += quiet_ms.unwrap_or(0.0).max(0.0);
        }
    }

    /// Adds a read's collection in the page, by the collector's clock.
    pub(super) fn timed_collect(&self, collector_ms: f64) {
        if let Ok(mut t) = self.shared.timing.lock() {
            t.collect_ms += collector_ms;
        }
    }

    /// The current call's timing so far.
    pub(super) fn timing(&self) -> Timing {
        self.shared.timing.lock().map(|t| *t).unwrap_or_default()
    }

    /// How long the in-page collector itself took in the last read, in milliseconds: the
    /// floor a read's round trip is measured against.
    pub fn last_in_page_ms(&self) -> Option<f64> {
        self.here().memory.in_page_ms.lock().ok().and_then(|ms| *ms)
    }

    /// The page's own time to answer the last action's input, in milliseconds of its clock:
    /// from the first input event reaching the page (the pointer's move or press, the key's
    /// press, the typing), before the page's handlers, to the end of the first frame
    /// rendered after the last (the click, the key's release, the typing). The
    /// part of an action's round trip that is the app's, not waymark's: no tool that sends
    /// the input can answer with the screen sooner. None when the action did not settle in
    /// the page (it navigated, failed or timed out), when the runner typed the text, or when
    /// no frame rendered.
    pub fn last_frame_ms(&self) -> Option<f64> {
        self.here().memory.frame_ms.lock().ok().and_then(|ms| *ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_add_up_to_the_call_and_are_rounded() {
        let t = Timing {
            gates_ms: 0.04,
            target_ms: 3.26,
            input_ms: 1.0,
            page_ms: 4.0,
            quiet_ms: 15.5,
            collect_ms: 2.0,
            infer_ms: 0.7,
            ..Timing::default()
        }
        .of_call(30.0);
        assert_eq!(t.gates_ms, 0.0);
        assert_eq!(t.target_ms, 3.3);
        assert!((t.other_ms - 3.5).abs() < 1e-9, "{t:?}");
        let json = serde_json::to_value(t).unwrap();
        assert!(
            json.get("gates_ms").is_none(),
            "a phase of 0 is left out: {json}"
        );
        assert!(json.get("load_ms").is_none());
        assert_eq!(json["quiet_ms"], 15.5);
    }

    #[test]
    fn clocks_that_disagree_leave_no_negative_rest() {
        let t = Timing {
            page_ms: 10.2,
            ..Timing::default()
        }
        .of_call(10.0);
        assert_eq!(t.other_ms, 0.0);
    }
}
