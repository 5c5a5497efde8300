//! The journey's clock: `clock_install`, `clock_set`, `clock_advance`, `clock_pause`,
//! `clock_resume` — a fake `Date`, timers, animation frames and `performance.now` in every
//! frame of the journey's tabs (the page script is `clock.js`, beside this file).
//!
//! The runner keeps the clock ([`ClockState`]: where it stands, what `Date` says, running or
//! paused) and every change goes two ways into each tab of the journey: the tab's clock
//! script for new documents is replaced by one that starts where the clock is now (run
//! before the document's own scripts, in every frame: `Tab::set_clock`), and the document
//! on screen (and its same-origin frames) is moved there at once. A tab the journey's pages
//! open gets it as it joins. So a navigation keeps the time, and two journeys, each with
//! tabs of its own, keep two clocks.
//!
//! waymark's own in-page code never runs on the page's timers: the collector keeps the
//! browser's own (`__wmReal`, see `realTimers` in the collector) from its first run in a
//! document, and this module installs the collector's early script in a tab before its
//! clock script, so in a new document the collector runs first (scripts for new documents
//! run in the order they were added); where the clock's script ran first all the same (a
//! document the collector was not in), it keeps the real ones for the collector.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::json;

use super::tabs::OpenTab;
use super::verbs::ClockTime;
use super::{RoundTrip, Tools, Verb, browser_error};
use crate::browser::{BrowserError, Tab};
use crate::protocol::{ErrorCode, ToolError, quoted};

/// The page's side (see the file's head).
const SOURCE: &str = include_str!("clock.js");

/// The longest one `clock_advance` may move the clock: 100 days.
const ADVANCE_MOST_MS: u64 = 100 * 24 * 3600 * 1000;

/// The journey's clock, as the runner keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(super) struct ClockState {
    /// `Date.now()` is `offset + ticks`.
    offset: f64,
    /// Milliseconds of the clock since it was installed: timers and `performance.now`
    /// run on them.
    ticks: f64,
    /// The ticks follow real time (from `real_at`); else they stand still.
    running: bool,
    /// The real time (epoch ms) `ticks` was taken at.
    real_at: f64,
}

impl ClockState {
    /// The clock now: its ticks moved on by the real time since they were taken, when it
    /// runs.
    fn now(self) -> ClockState {
        let real = wall_ms();
        let ticks = match self.running {
            true => self.ticks + (real - self.real_at).max(0.0),
            false => self.ticks,
        };
        ClockState {
            ticks,
            real_at: real,
            ..self
        }
    }

    /// What `Date.now()` says.
    fn time(self) -> f64 {
        (self.offset + self.ticks).floor()
    }
}

/// What a clock call's round trip says of the clock.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClockReport {
    /// What the page's `Date.now()` says, in epoch milliseconds.
    pub time: f64,
    /// The same, as ISO-8601 in UTC.
    pub iso: String,
    /// The clock stands still (`clock_pause`): only `clock_advance` moves it.
    pub paused: bool,
}

/// A clock call.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ClockOp {
    Install(Option<ClockTime>),
    Set(ClockTime),
    Advance(u64),
    Pause,
    Resume,
}

fn wall_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

impl<T: Tab> Tools<T> {
    /// Performs a clock call on every tab of the journey, then reads the screen.
    pub(super) async fn clock(&self, op: ClockOp) -> RoundTrip {
        let (verb, target) = match &op {
            ClockOp::Install(t) => (Verb::ClockInstall, t.as_ref().map(ClockTime::to_string)),
            ClockOp::Set(t) => (Verb::ClockSet, Some(t.to_string())),
            ClockOp::Advance(ms) => (Verb::ClockAdvance, Some(format!("{ms} ms"))),
            ClockOp::Pause => (Verb::ClockPause, None),
            ClockOp::Resume => (Verb::ClockResume, None),
        };
        let work = async {
            let state = self.clock_inner(&op).await.map_err(|e| (None, e))?;
            if let Ok(mut slot) = self.shared.clock.lock() {
                *slot = Some(state);
            }
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        let mut rt = self.call(verb, target.as_deref(), None, work).await;
        rt.clock = self.shared.clock.lock().ok().and_then(|c| *c).map(|c| {
            let c = c.now();
            let iso = chrono::DateTime::from_timestamp_millis(c.time() as i64)
                .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
                .unwrap_or_default();
            ClockReport {
                time: c.time(),
                iso,
                paused: !c.running,
            }
        });
        rt
    }

    async fn clock_inner(&self, op: &ClockOp) -> Result<ClockState, ToolError> {
        let invalid = |why: String| ToolError::new(ErrorCode::InvalidArgument, why);
        let before = self.shared.clock.lock().ok().and_then(|c| *c);
        // A call before `clock_install` installs it at the real time first (as Playwright's
        // clock calls do).
        let installed = |time: f64| ClockState {
            offset: time,
            ticks: 0.0,
            running: true,
            real_at: wall_ms(),
        };
        let current = before.map(ClockState::now);
        let (state, advance) = match op {
            ClockOp::Install(_) if before.is_some() => {
                return Err(invalid(
                    "`clock_install`: the journey's clock is installed already (`clock_set` \
                     moves it)"
                        .into(),
                ));
            }
            ClockOp::Install(time) => {
                let time = match time {
                    Some(t) => self.epoch_ms(t).await?,
                    None => wall_ms().floor(),
                };
                (installed(time), None)
            }
            ClockOp::Set(time) => {
                let time = self.epoch_ms(time).await?;
                let now = current.unwrap_or_else(|| installed(time));
                (
                    ClockState {
                        offset: time - now.ticks,
                        ..now
                    },
                    None,
                )
            }
            ClockOp::Advance(ms) => {
                if *ms > ADVANCE_MOST_MS {
                    return Err(invalid(format!(
                        "`clock_advance`: {ms} ms is more than 100 days"
                    )));
                }
                let now = current.unwrap_or_else(|| installed(wall_ms().floor()));
                let moved = ClockState {
                    ticks: now.ticks + *ms as f64,
                    ..now
                };
                (moved, Some(*ms))
            }
            ClockOp::Pause | ClockOp::Resume => {
                let now = current.unwrap_or_else(|| installed(wall_ms().floor()));
                let running = *op == ClockOp::Resume;
                (ClockState { running, ..now }, None)
            }
        };
        for open in self.tabs.all() {
            if open.tab.is_closed() {
                continue;
            }
            self.clock_tab(&open, state, advance)
                .await
                .map_err(browser_error)?;
        }
        Ok(state)
    }

    /// Gives `open` the clock `state`: its new documents' script (after the collector's),
    /// and the document on screen moved there (`advance`: by that many ms, firing the
    /// timers due on the way).
    async fn clock_tab(
        &self,
        open: &OpenTab<T>,
        state: ClockState,
        advance: Option<u64>,
    ) -> Result<(), BrowserError> {
        self.install_early(open).await?;
        let init = format!("({SOURCE})(window, 'install', {}, 0, false);", json!(state));
        open.tab.set_clock(&init).await?;
        let (op, ms) = match advance {
            Some(ms) => ("advance", ms),
            None => ("set", 0),
        };
        let now = format!(
            "({SOURCE})(window, {}, {}, {ms}, true)",
            json!(op),
            json!(state)
        );
        // An advance runs the page's timers: as long as a script may run, and the time
        // they take on top.
        let bound = self.options.script_timeout + self.action_timeout();
        match open.tab.evaluate(&now, bound).await {
            // The document went away under it: the next one starts from the script.
            Ok(_) | Err(BrowserError::ContextLost) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Gives a tab that joined the journey its clock, when it has one.
    pub(super) async fn clock_joined(&self, open: &OpenTab<T>) {
        let state = self.shared.clock.lock().ok().and_then(|c| *c);
        if let Some(state) = state {
            let _ = self.clock_tab(open, state.now(), None).await;
        }
    }

    /// `time` in epoch milliseconds: a number as it is, a string as the page's own `Date`
    /// (the browser's, not the clock's) reads it — ISO-8601 without a zone is the browser's
    /// local time, as Playwright's `new Date(…)` is.
    async fn epoch_ms(&self, time: &ClockTime) -> Result<f64, ToolError> {
        let text = match time {
            ClockTime::Epoch(ms) => return Ok(*ms as f64),
            ClockTime::Iso(text) => text,
        };
        let expr = format!(
            "(function (s) {{ var D = (window.__wmReal || window).Date; \
               return String(new D(s).getTime()); }})({})",
            json!(text)
        );
        let answer = self
            .here()
            .tab
            .evaluate(&expr, self.options.script_timeout)
            .await
            .map_err(browser_error)?;
        answer
            .parse::<f64>()
            .ok()
            .filter(|ms| ms.is_finite())
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "`{}` is not a time: an ISO-8601 string (`2026-01-31T23:59:00`) or \
                         epoch milliseconds",
                        quoted(text)
                    ),
                )
            })
    }

    /// Once per tab, before its clock and its first navigation: every document it loads
    /// gets the collector before its own scripts (see collector::early).
    pub(super) async fn install_early(&self, open: &OpenTab<T>) -> Result<(), BrowserError> {
        use std::sync::atomic::Ordering;
        if open.memory.early.swap(true, Ordering::Relaxed) {
            return Ok(());
        }
        let installed = super::first_read::prepare(&*open.tab, &self.registry, &self.options).await;
        if installed.is_err() {
            open.memory.early.store(false, Ordering::Relaxed);
        }
        installed
    }
}
