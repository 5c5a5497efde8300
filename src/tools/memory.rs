//! What the reads of one tab remember (and what the journey's calls share, whichever
//! tab they act in) between calls: the held read (the evidence, and what
//! the page's next delta applies to), its audit, the last region read, the route, the
//! figures a bench asks for, and what the page's style sheets hold. The gates and the trace
//! keep their own state (`call.rs`); nothing here decides whether a call may run.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::collector::HeldRead;
use crate::screen::RawObservation;
use crate::screen::audit::PerceptionAudit;

/// What reads remember.
#[derive(Default)]
pub(super) struct Memory {
    /// Route of the last read.
    pub(super) route: Mutex<Option<String>>,
    /// In-page time of the last read's collector, in milliseconds.
    pub(super) in_page_ms: Mutex<Option<f64>>,
    /// The page's frame after the last action's input, in milliseconds (see
    /// [`Tools::last_frame_ms`](super::Tools::last_frame_ms)).
    pub(super) frame_ms: Mutex<Option<f64>>,
    /// The last read as evidence, and what the page's next delta applies to.
    pub(super) held: Mutex<Option<HeldRead>>,
    /// Reads concluded so far: a call that changed it made a read of its own.
    pub(super) reads: AtomicU64,
    /// The raw layer of the last region read (which is not held), with its read's number.
    pub(super) region_raw: Mutex<Option<(u64, RawObservation)>>,
    /// The perception audit of the last read, when reads are audited.
    pub(super) last_audit: Mutex<Option<PerceptionAudit>>,
    /// The page holds its thread (dialogs in a loop, a script that never ends): a call that
    /// failed reads nothing more, which would only wait out its own bound.
    pub(super) blocked: AtomicBool,
    /// The collector is installed in every new document of the tab, before its scripts.
    pub(super) early: AtomicBool,
    /// What style sheets of another origin that reads named hold, worked out beside the
    /// calls, for the next collector operation to take in (see `collect_as`).
    pub(super) sheets: Arc<Mutex<SheetFacts>>,
    /// The frames of another site the last read placed controls from: each control's
    /// anchor (and `anchor[key]`) to the frame it is in (see `frames.rs`).
    pub(super) far: Mutex<std::collections::HashMap<String, String>>,
    /// The frame of another site the action under way works in: its operations are
    /// evaluated there (see `collect_as`).
    pub(super) acting: Mutex<Option<String>>,
    /// The last whole read with its frames' controls placed in it, when it held frames of
    /// another site: the evidence a trace keeps of it (the held read is the top document's).
    pub(super) framed: Mutex<Option<RawObservation>>,
}

/// What the journey's calls share whichever tab they act in.
#[derive(Default)]
pub(super) struct Shared {
    /// How long the current call waited in the page (for its target or its condition).
    pub(super) waited_ms: Mutex<f64>,
    /// Where the current call's time went so far (see `timing`).
    pub(super) timing: Mutex<super::Timing>,
    /// The action timeout the journey set for its following calls.
    pub(super) action_timeout: Override,
    /// The settle timeout the journey set for its following calls.
    pub(super) settle_timeout: Override,
    /// Where `upload` takes files from and downloads go (default: an agent's).
    pub(super) files: Mutex<Option<super::FileScope>>,
    /// The download the current call started, for its round trip.
    pub(super) download: Mutex<Option<super::DownloadReport>>,
    /// The tab the current call closed (`close_tab`), for its round trip.
    pub(super) closed_tab: Mutex<Option<usize>>,
    /// How the journey's JavaScript dialogs are answered (`on_dialog`).
    pub(super) dialogs: Mutex<crate::browser::DialogAnswer>,
    /// The journey's routes, which each of its tabs routes by.
    pub(super) routes: std::sync::Arc<crate::browser::RouteBook>,
    /// What the server answered the current call's `request`, for its round trip.
    pub(super) response: Mutex<Option<super::Response>>,
    /// The headers and the geolocation the journey set for its tabs, each when set.
    pub(super) context: Mutex<(
        Option<crate::browser::ExtraHeaders>,
        Option<crate::browser::Geolocation>,
    )>,
    /// The network the journey set for its tabs: offline, and the throttle, each when set
    /// (else as the run started them).
    pub(super) network: Mutex<(Option<bool>, Option<Option<crate::browser::Throttle>>)>,
    /// Where the network waits' window starts: the start of the last call that could
    /// have sent a request (see `traffic`); `None`: the journey's start.
    pub(super) traffic_since: Mutex<Option<std::time::Instant>>,
    /// What the current call's network wait matched, for its round trip.
    pub(super) exchange: Mutex<Option<super::traffic::Exchange>>,
    /// What records the journey's traffic for its HAR (`--har record`; see `har`).
    pub(super) har: Mutex<Option<std::sync::Arc<crate::browser::har::HarRecorder>>>,
    /// The journey's clock, once installed (see `clock`).
    pub(super) clock: Mutex<Option<super::clock::ClockState>>,
}

/// What style sheets hold, on its way to the page: for the document `doc`, by address
/// (null: not known).
#[derive(Default)]
pub(super) struct SheetFacts {
    pub(super) doc: String,
    pub(super) facts: serde_json::Map<String, serde_json::Value>,
}

/// A bound the journey set for its following calls over the options' own: milliseconds
/// plus one, 0 when none is set.
#[derive(Default)]
pub(super) struct Override(AtomicU64);

impl Override {
    /// The bound set, else `default`.
    pub(super) fn or(&self, default: Duration) -> Duration {
        match self.0.load(Ordering::Relaxed) {
            0 => default,
            set => Duration::from_millis(set - 1),
        }
    }

    /// Sets the bound (`None`: back to the options' own).
    pub(super) fn set(&self, bound: Option<Duration>) {
        let ms = bound.map_or(0, |b| {
            u64::try_from(b.as_millis()).unwrap_or(u64::MAX - 1) + 1
        });
        self.0.store(ms, Ordering::Relaxed);
    }
}
