//! The trace of one journey: JSON lines, written as the journey goes, so a failure can be
//! understood (and attributed) afterwards without running it again.
//!
//! Lines, each an object with a `kind`:
//! - `header` — the environment the journey ran in: waymark and browser versions, viewport
//!   and device scale, the wait policy and the retry budget, the OS;
//! - `step` — one tool call: the action, each gate's verdict, the raw and the inferred read
//!   layers, the result (the round trip without its screen, which is `inferred`), timings.
//!   A raw layer larger than [`RAW_INLINE_MAX`] goes to a side file and the line holds
//!   `{"ref": "<journey>.raw/<n>.json", "bytes": N}`, relative to the trace's folder;
//! - `event` — `unauthorized_action` (just before the refused step's line) and
//!   `allowed_set` (the journey changed its allowed set);
//! - `end` — passed or failed, with the failure and its attribution.
//!
//! Every line is written and flushed on its own: a crash loses nothing already recorded.
//! A write that fails does not fail the journey; the first such error is kept and the
//! runner reports the trace as incomplete.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::{Action, AllowedSet, Attribution, GateVerdict, RoundTrip, ToolOptions};
use crate::protocol::Failure;
use crate::screen::RawObservation;

/// A raw layer whose JSON is larger than this (in bytes) is stored in a side file.
pub const RAW_INLINE_MAX: usize = 256 * 1024;

/// Why a trace could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the trace `{path}`: {source}")]
pub struct TraceError {
    /// The trace file (or its folder).
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: io::Error,
}

/// The tab's viewport, asked of the page once for the header.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Viewport {
    /// Width and height in CSS pixels.
    pub size: [f64; 2],
    /// Device pixels per CSS pixel.
    pub device_scale: f64,
    /// The page sees a touch screen (a mobile device).
    pub mobile: bool,
}

/// The environment a journey ran in: the first line of its trace.
#[derive(Debug, Clone, Serialize)]
pub struct TraceHeader {
    kind: &'static str,
    /// waymark's version.
    pub waymark: &'static str,
    /// The browser's product and version.
    pub browser: BrowserVersion,
    /// Width and height in CSS pixels, when the page could be asked.
    pub viewport: Option<[f64; 2]>,
    /// Device pixels per CSS pixel, when the page could be asked.
    pub device_scale: Option<f64>,
    /// The page sees a touch screen (a mobile device), when it could be asked.
    pub mobile: Option<bool>,
    /// The named device the run emulates (`--device "Pixel 7"`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// How long the tools wait, and for what.
    pub wait: WaitPolicy,
    /// The collection cut: at most this many controls per read.
    pub max_controls: usize,
    /// How often an operation is tried again, by cause.
    pub retry_budget: RetryBudget,
    /// The operating system.
    pub os: Os,
    /// The journey's name.
    pub journey: String,
    /// The journey's file.
    pub file: PathBuf,
    /// When it started, in seconds since the Unix epoch.
    pub started_at: u64,
}

/// `HeadlessChrome/142.0.7444.175` taken apart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BrowserVersion {
    /// `HeadlessChrome`, `Chrome`.
    pub product: String,
    /// `142.0.7444.175`.
    pub version: String,
}

impl BrowserVersion {
    /// Parses `product/version` as the browser reports it.
    pub fn parse(reported: &str) -> BrowserVersion {
        let (product, version) = reported.split_once('/').unwrap_or((reported, "unknown"));
        BrowserVersion {
            product: product.to_string(),
            version: version.to_string(),
        }
    }
}

/// The tools' waits, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitPolicy {
    /// The DOM counts as settled after this long without a mutation.
    pub quiet_ms: u128,
    /// Longest wait for the DOM to settle after an action.
    pub settle_timeout_ms: u128,
    /// Longest wait for a document to load.
    pub load_timeout_ms: u128,
    /// Bound on any single in-page script.
    pub script_timeout_ms: u128,
    /// Longest wait of an action for its target.
    pub action_timeout_ms: u128,
}

/// How often the tools try an operation again, by cause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetryBudget {
    /// An in-page script whose document went away under it (the page was between
    /// documents) is evaluated again this many times.
    pub context_lost: u32,
}

/// The operating system, as Rust names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Os {
    /// `linux`, `macos`.
    pub name: &'static str,
    /// `x86_64`, `aarch64`.
    pub arch: &'static str,
}

impl TraceHeader {
    /// The header of `journey` (from `file`) run in `browser` (as it reports its version)
    /// with the tools' `options`.
    pub fn new(
        journey: &str,
        file: &Path,
        browser: &str,
        options: &ToolOptions,
        viewport: Option<Viewport>,
    ) -> TraceHeader {
        TraceHeader {
            kind: "header",
            waymark: env!("CARGO_PKG_VERSION"),
            browser: BrowserVersion::parse(browser),
            viewport: viewport.map(|v| v.size),
            device_scale: viewport.map(|v| v.device_scale),
            mobile: viewport.map(|v| v.mobile),
            device: None,
            wait: WaitPolicy {
                quiet_ms: options.quiet.as_millis(),
                settle_timeout_ms: options.settle_timeout.as_millis(),
                load_timeout_ms: options.load_timeout.as_millis(),
                script_timeout_ms: options.script_timeout.as_millis(),
                action_timeout_ms: options.action_timeout.as_millis(),
            },
            max_controls: options.max_controls,
            retry_budget: RetryBudget {
                context_lost: super::CONTEXT_LOST_RETRIES,
            },
            os: Os {
                name: std::env::consts::OS,
                arch: std::env::consts::ARCH,
            },
            journey: journey.to_string(),
            file: file.to_path_buf(),
            started_at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        }
    }
}

/// The folder a run writes its traces to: one file per journey, named after the journey
/// (`approve_claim.jsonl`, `sub/flow.jsonl`), overwritten by the next run.
#[derive(Debug)]
pub struct TraceDir {
    root: PathBuf,
    used: HashSet<PathBuf>,
}

impl TraceDir {
    /// Creates the folder (and its parents) when missing.
    pub fn create(root: &Path) -> Result<TraceDir, TraceError> {
        std::fs::create_dir_all(root).map_err(|source| {
            // "File exists" says little when the folder asked for is a file.
            let source = if root.is_file() {
                std::io::Error::new(source.kind(), "it is a file, not a folder")
            } else {
                source
            };
            TraceError {
                path: root.to_path_buf(),
                source,
            }
        })?;
        Ok(TraceDir {
            root: root.to_path_buf(),
            used: HashSet::new(),
        })
    }

    /// The trace file of the journey `name` (a `/`-separated path without `.rhai`), unique
    /// in this run: a second journey of the same name gets `-2`, and so on.
    pub fn path_for(&mut self, name: &str) -> PathBuf {
        let parts: Vec<String> = name.split('/').map(file_safe).collect();
        let stem = parts.join("/");
        let mut n = 1;
        loop {
            let file = match n {
                1 => format!("{stem}.jsonl"),
                _ => format!("{stem}-{n}.jsonl"),
            };
            let path = self.root.join(file);
            if self.used.insert(path.clone()) {
                self.forget_attempts(&path);
                return path;
            }
            n += 1;
        }
    }

    /// The trace file of a journey's attempt `attempt` (`--retries`; from 2) beside its
    /// first attempt's `first`: `approve_claim.attempt-2.jsonl`.
    pub fn attempt_path(&mut self, first: &Path, attempt: u32) -> PathBuf {
        let stem = first
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = first.with_file_name(format!("{stem}.attempt-{attempt}.jsonl"));
        self.used.insert(path.clone());
        path
    }

    /// Removes the later attempts' traces an earlier run left beside `first`, so the
    /// folder holds only this run's attempts.
    fn forget_attempts(&self, first: &Path) {
        let (Some(dir), Some(stem)) = (first.parent(), first.file_stem()) else {
            return;
        };
        let prefix = format!("{}.attempt-", stem.to_string_lossy());
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let number = name
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(".jsonl"));
            if number.is_some_and(|n| n.parse::<u32>().is_ok()) && !self.used.contains(&path) {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

/// A path component that stays inside its folder and means the same on every OS.
fn file_safe(part: &str) -> String {
    let safe: String = part
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            _ => '_',
        })
        .collect();
    match safe.trim_matches('.') {
        "" => "_".to_string(),
        _ => safe,
    }
}

/// One journey's trace file.
pub struct Trace {
    path: PathBuf,
    /// Folder of the raw layers too large to inline (created on first use).
    side: PathBuf,
    started: Instant,
    inline_max: usize,
    /// Values written as `[redacted]` wherever they appear (secret variables', credentials
    /// and header values).
    secrets: std::sync::RwLock<Vec<String>>,
    state: Mutex<State>,
}

struct State {
    out: BufWriter<File>,
    /// Steps recorded so far.
    steps: u64,
    /// The screenshot taken when the journey failed, as the end line names it.
    failure_shot: Option<String>,
    /// The first write that failed; nothing is written after it.
    error: Option<String>,
}

impl Trace {
    /// Creates (or overwrites) the trace at `path` and writes its header. A side folder
    /// left by an earlier run of the same journey is removed.
    pub fn create(path: &Path, header: &TraceHeader) -> Result<Trace, TraceError> {
        let fail = |source| TraceError {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let side = path.with_extension("raw");
        if side.is_dir() {
            std::fs::remove_dir_all(&side).map_err(fail)?;
        }
        let mut out = BufWriter::new(File::create(path).map_err(fail)?);
        line(&mut out, &[], header).map_err(fail)?;
        Ok(Trace {
            path: path.to_path_buf(),
            side,
            started: Instant::now(),
            inline_max: RAW_INLINE_MAX,
            secrets: std::sync::RwLock::new(Vec::new()),
            state: Mutex::new(State {
                out,
                steps: 0,
                failure_shot: None,
                error: None,
            }),
        })
    }

    /// The same trace, writing each of `secrets` (a secret variable's value) as
    /// `[redacted]` wherever it would appear, as a secret field's value is.
    pub fn redacting(self, secrets: Vec<String>) -> Trace {
        self.also_redact(secrets);
        self
    }

    /// Writes each of `more` (a journey's credentials, its headers' values) `[redacted]`
    /// from now on, as [`redacting`](Trace::redacting)'s.
    pub fn also_redact(&self, more: impl IntoIterator<Item = String>) {
        if let Ok(mut secrets) = self.secrets.write() {
            for secret in more {
                if !secret.is_empty() && !secrets.contains(&secret) {
                    secrets.push(secret);
                }
            }
        }
    }

    /// The values written `[redacted]`, as now.
    fn secrets(&self) -> Vec<String> {
        self.secrets.read().map(|s| s.clone()).unwrap_or_default()
    }

    /// The same trace, storing raw layers larger than `bytes` in side files.
    pub fn inline_max(mut self, bytes: usize) -> Trace {
        self.inline_max = bytes;
        self
    }

    /// The trace file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The first write that failed, if any: the trace is incomplete after it.
    pub fn error(&self) -> Option<String> {
        self.state.lock().ok().and_then(|s| s.error.clone())
    }

    /// Records one tool call. `raw` is the read this call made (`None` when it made none);
    /// `refused_with` is the allowed set that refused it, when the allowed gate did.
    pub(crate) fn step(
        &self,
        action: &Action,
        gates: &[GateVerdict],
        raw: Option<&RawObservation>,
        rt: &RoundTrip,
        refused_with: Option<AllowedSet>,
        shot: Option<&[u8]>,
    ) {
        let at_ms = self.at_ms();
        let secrets = self.secrets();
        self.write(|state| {
            state.steps += 1;
            let n = state.steps;
            if let Some(allowed) = refused_with {
                line(
                    &mut state.out,
                    &secrets,
                    &Event {
                        kind: "event",
                        event: "unauthorized_action",
                        n: Some(n),
                        action: Some(action),
                        allowed,
                        at_ms,
                    },
                )?;
            }
            let raw = match raw {
                Some(raw) => Some(self.raw_layer(n, raw)?),
                None => None,
            };
            let screenshot = match shot {
                Some(png) => Some(self.side_file(&format!("{n}.png"), png)?),
                None => None,
            };
            line(
                &mut state.out,
                &secrets,
                &Step {
                    kind: "step",
                    n,
                    action,
                    gates,
                    raw,
                    inferred: rt.screen.as_ref(),
                    result: StepResult::of(rt),
                    tab: rt.tab,
                    screenshot,
                    routed: &rt.routed_requests,
                    elapsed_ms: rt.elapsed_ms,
                    timing: &rt.timing,
                    at_ms,
                },
            )
        });
    }

    /// Records that the journey changed its allowed set.
    pub(crate) fn allowed_set(&self, allowed: AllowedSet) {
        let at_ms = self.at_ms();
        let secrets = self.secrets();
        self.write(|state| {
            line(
                &mut state.out,
                &secrets,
                &Event {
                    kind: "event",
                    event: "allowed_set",
                    n: None,
                    action: None,
                    allowed,
                    at_ms,
                },
            )
        });
    }

    /// Keeps `png`, the screen as the journey failed on it, beside the trace; the end line
    /// names it.
    pub fn failure_screenshot(&self, png: &[u8]) {
        self.write(|state| {
            state.failure_shot = Some(self.side_file("failure.png", png)?);
            Ok(())
        });
    }

    /// The closing line: passed, or the failure with its attribution.
    pub fn end(&self, failure: Option<&Failure>, elapsed: Duration) {
        let end = End {
            kind: "end",
            outcome: if failure.is_some() {
                JourneyResult::Failed
            } else {
                JourneyResult::Passed
            },
            failure: failure.map(|f| EndFailure {
                code: f.code.as_ref(),
                message: &f.message,
                attribution: f.attribution,
                line: f.line,
                column: f.column,
            }),
            steps: self.state.lock().map(|s| s.steps).unwrap_or(0),
            screenshot: self.state.lock().ok().and_then(|s| s.failure_shot.clone()),
            elapsed_ms: elapsed.as_secs_f64() * 1000.0,
        };
        let secrets = self.secrets();
        self.write(|state| line(&mut state.out, &secrets, &end));
    }

    /// Milliseconds since the header, to the microsecond.
    fn at_ms(&self) -> f64 {
        (self.started.elapsed().as_secs_f64() * 1_000_000.0).round() / 1000.0
    }

    /// Runs `f` on the open file unless an earlier write failed; keeps the first error.
    fn write(&self, f: impl FnOnce(&mut State) -> io::Result<()>) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        if state.error.is_some() {
            return;
        }
        if let Err(e) = f(&mut state) {
            state.error = Some(e.to_string());
        }
    }

    /// The raw layer inline, or written to a side file when its JSON is large. It is
    /// serialized once to learn its size; a small one is serialized again into its line
    /// (cheap), a large one is written as it is.
    fn raw_layer<'a>(&self, n: u64, raw: &'a RawObservation) -> io::Result<RawLayer<'a>> {
        let json = serde_json::to_vec(raw)?;
        if json.len() <= self.inline_max {
            return Ok(RawLayer::Inline(raw));
        }
        let secrets = self.secrets();
        let json = match secrets.is_empty() {
            true => json,
            false => redact_json(&String::from_utf8_lossy(&json), &secrets).into_bytes(),
        };
        Ok(RawLayer::Ref {
            r#ref: self.side_file(&format!("{n}.json"), &json)?,
            bytes: json.len(),
        })
    }

    /// Writes `bytes` to `file` in the side folder; its path from the trace's folder.
    fn side_file(&self, file: &str, bytes: &[u8]) -> io::Result<String> {
        std::fs::create_dir_all(&self.side)?;
        std::fs::write(self.side.join(file), bytes)?;
        let dir = self
            .side
            .file_name()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(format!("{dir}/{file}"))
    }
}

/// Writes one value as one line and flushes it.
fn line(out: &mut BufWriter<File>, secrets: &[String], value: &impl Serialize) -> io::Result<()> {
    if secrets.is_empty() {
        serde_json::to_writer(&mut *out, value)?;
    } else {
        let text = serde_json::to_string(value)?;
        out.write_all(redact_json(&text, secrets).as_bytes())?;
    }
    out.write_all(b"\n")?;
    out.flush()
}

/// JSON `text` with each of `secrets` in its strings written as `[redacted]`: a secret as
/// JSON writes it inside a string (its escapes, without its quotes).
fn redact_json(text: &str, secrets: &[String]) -> String {
    let inside: Vec<String> = secrets
        .iter()
        .filter_map(|s| serde_json::to_string(s).ok())
        .map(|q| q[1..q.len() - 1].to_string())
        .filter(|q| !q.is_empty())
        .collect();
    redact(text, &inside)
}

/// `text` with every one of `secrets` in it replaced by `[redacted]`
/// ([`REDACTED`](super::REDACTED)), the longest first so one holding another goes whole.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut secrets: Vec<&String> = secrets.iter().filter(|s| !s.is_empty()).collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut text = text.to_string();
    for secret in secrets {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), super::REDACTED);
        }
    }
    text
}

#[derive(Serialize)]
struct Step<'a> {
    kind: &'static str,
    n: u64,
    action: &'a Action,
    gates: &'a [GateVerdict],
    raw: Option<RawLayer<'a>>,
    inferred: Option<&'a crate::screen::InferredState>,
    result: StepResult<'a>,
    /// The tab the step ended in (0, the journey's first, is not written).
    #[serde(skip_serializing_if = "is_first_tab")]
    tab: usize,
    /// The screen after an acting step, as a PNG beside the trace (`--screenshots on`).
    #[serde(skip_serializing_if = "Option::is_none")]
    screenshot: Option<String>,
    /// Each request a route answered during the step.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    routed: &'a [crate::browser::Routed],
    elapsed_ms: f64,
    /// Where `elapsed_ms` went, phase by phase (see `tools::timing`).
    timing: &'a super::Timing,
    at_ms: f64,
}

#[derive(Serialize)]
#[serde(untagged)]
enum RawLayer<'a> {
    Inline(&'a RawObservation),
    Ref { r#ref: String, bytes: usize },
}

/// A round trip without its screen (the step's `inferred` is that screen).
#[derive(Serialize)]
struct StepResult<'a> {
    tool: &'a str,
    ok: bool,
    anchor: Option<&'a str>,
    label: Option<&'a str>,
    route_before: &'a str,
    route: &'a str,
    changes: Option<&'a crate::screen::Changes>,
    error: Option<&'a crate::protocol::ToolError>,
    elapsed_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    opened: Option<&'a super::TabOpened>,
    #[serde(skip_serializing_if = "Option::is_none")]
    closed: Option<usize>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    dialogs: &'a [super::DialogAnswered],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    console: &'a [crate::browser::ConsoleMessage],
    #[serde(skip_serializing_if = "is_zero")]
    console_dropped: u64,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    page_errors: &'a [crate::browser::PageError],
    #[serde(skip_serializing_if = "is_zero")]
    page_errors_dropped: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_first_tab(tab: &usize) -> bool {
    *tab == 0
}

impl<'a> StepResult<'a> {
    fn of(rt: &'a RoundTrip) -> StepResult<'a> {
        StepResult {
            tool: rt.tool,
            ok: rt.ok,
            anchor: rt.anchor.as_deref(),
            label: rt.label.as_deref(),
            route_before: &rt.route_before,
            route: &rt.route,
            changes: rt.changes.as_ref(),
            error: rt.error.as_ref(),
            elapsed_ms: rt.elapsed_ms,
            opened: rt.opened.as_ref(),
            closed: rt.closed,
            dialogs: &rt.dialogs,
            console: &rt.console,
            console_dropped: rt.console_dropped,
            page_errors: &rt.page_errors,
            page_errors_dropped: rt.page_errors_dropped,
        }
    }
}

#[derive(Serialize)]
struct Event<'a> {
    kind: &'static str,
    event: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    n: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<&'a Action>,
    allowed: AllowedSet,
    at_ms: f64,
}

#[derive(Serialize)]
struct End<'a> {
    kind: &'static str,
    outcome: JourneyResult,
    failure: Option<EndFailure<'a>>,
    steps: u64,
    /// The screen the journey failed on, as a PNG beside the trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    screenshot: Option<String>,
    elapsed_ms: f64,
}

/// How the journey ended, as the end line writes it.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum JourneyResult {
    Passed,
    Failed,
}

#[derive(Serialize)]
struct EndFailure<'a> {
    code: Option<&'a crate::protocol::FailureCode>,
    message: &'a str,
    attribution: Attribution,
    line: Option<usize>,
    column: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FailureKind;
    use crate::registry::Registry;
    use crate::screen::Facts;
    use crate::screen::{RawControl, View, infer};
    use crate::tools::{ErrorCode, GateContext, ToolError, Verb, pass_gates};
    use serde_json::{Value, json};

    fn raw(controls: usize) -> RawObservation {
        RawObservation {
            url: "http://127.0.0.1:1/claims".into(),
            title: "Claims".into(),
            status: Some(200),
            dialog: None,
            controls: (0..controls)
                .map(|i| RawControl {
                    facts: Facts {
                        key: Some(i.to_string().into()),
                        ..Facts::named("claims.open", &format!("Open {i}"), "button", "list")
                    },
                    secret: false,
                    focused: false,
                    bbox: [0, 0, 10, 10],
                    view: None,
                })
                .collect(),
            total: controls,
            dropped_by_region: Default::default(),
            dropped_by_role: Default::default(),
            viewport: [1280.0, 720.0],
            scroll: [0.0, 0.0],
            collector_ms: 1.0,
            evidence: None,
            chrome: Default::default(),
            audit: None,
            frames_unread: Vec::new(),
        }
    }

    fn round_trip(raw: &RawObservation, error: Option<ToolError>) -> RoundTrip {
        let screen = error.is_none().then(|| {
            infer(
                raw,
                "/claims".into(),
                &Registry::empty(),
                1.0,
                &View::default(),
            )
        });
        RoundTrip {
            tool: "invoke",
            ok: error.is_none(),
            anchor: Some("claims.open[1]".into()),
            label: None,
            route_before: "/claims".into(),
            route: "/claims".into(),
            screen,
            changes: None,
            error,
            elapsed_ms: 3.0,
            ..RoundTrip::default()
        }
    }

    fn lines(path: &Path) -> Vec<Value> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn header() -> TraceHeader {
        let viewport = Viewport {
            size: [1280.0, 720.0],
            device_scale: 1.0,
            mobile: false,
        };
        TraceHeader::new(
            "claims",
            Path::new("journeys/claims.rhai"),
            "HeadlessChrome/142.0.7444.175",
            &ToolOptions::default(),
            Some(viewport),
        )
    }

    #[test]
    fn trace_files_are_named_after_journeys_and_unique() {
        let dir = tempfile::tempdir().unwrap();
        let mut traces = TraceDir::create(&dir.path().join("a/b")).unwrap();
        let root = dir.path().join("a/b");
        assert_eq!(
            traces.path_for("approve_claim"),
            root.join("approve_claim.jsonl")
        );
        assert_eq!(
            traces.path_for("approve_claim"),
            root.join("approve_claim-2.jsonl")
        );
        assert_eq!(traces.path_for("sub/flow"), root.join("sub/flow.jsonl"));
        assert_eq!(traces.path_for("../up"), root.join("_/up.jsonl"));
        assert_eq!(traces.path_for("a b:c"), root.join("a_b_c.jsonl"));
    }

    #[test]
    fn a_later_attempt_is_traced_beside_the_first_and_stale_attempts_go() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("t");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        for stale in [
            "flow.attempt-3.jsonl",
            "flow.attempt-x.jsonl",
            "other.attempt-2.jsonl",
        ] {
            std::fs::write(root.join("sub").join(stale), "").unwrap();
        }
        let mut traces = TraceDir::create(&root).unwrap();
        let first = traces.path_for("sub/flow");
        assert_eq!(
            traces.attempt_path(&first, 2),
            root.join("sub/flow.attempt-2.jsonl")
        );
        assert!(
            !root.join("sub/flow.attempt-3.jsonl").exists(),
            "a stale attempt goes"
        );
        assert!(root.join("sub/flow.attempt-x.jsonl").exists());
        assert!(root.join("sub/other.attempt-2.jsonl").exists());
        let second = traces.path_for("sub/flow");
        assert_eq!(
            traces.attempt_path(&second, 2),
            root.join("sub/flow-2.attempt-2.jsonl")
        );
    }

    #[test]
    fn the_header_names_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claims.jsonl");
        let trace = Trace::create(&path, &header()).unwrap();
        drop(trace);
        let h = &lines(&path)[0];
        assert_eq!(h["kind"], "header");
        assert_eq!(h["waymark"], env!("CARGO_PKG_VERSION"));
        assert_eq!(
            h["browser"],
            json!({"product": "HeadlessChrome", "version": "142.0.7444.175"})
        );
        assert_eq!(h["viewport"], json!([1280.0, 720.0]));
        assert_eq!(h["device_scale"], 1.0);
        assert_eq!(
            h["wait"],
            json!({"quiet_ms": 15, "settle_timeout_ms": 5000, "load_timeout_ms": 15000,
                   "script_timeout_ms": 15000, "action_timeout_ms": 5000})
        );
        assert_eq!(h["retry_budget"], json!({"context_lost": 1}));
        assert_eq!(h["os"]["name"], std::env::consts::OS);
        assert_eq!(h["journey"], "claims");
        assert!(h["started_at"].as_u64().unwrap() > 1_600_000_000);
    }

    #[test]
    fn a_refused_step_follows_its_unauthorized_action_event() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let trace = Trace::create(&path, &header()).unwrap();
        let allowed = AllowedSet::parse(["read"]).unwrap();
        let action = Action::new(Verb::Invoke, Some("claims.open[1]".into()));
        let passage = pass_gates(&action, &GateContext::new(allowed));
        let refusal = passage.refusal.clone().unwrap();
        let observed = raw(1);
        trace.step(
            &action,
            &passage.verdicts,
            None,
            &round_trip(&observed, Some(refusal)),
            Some(allowed),
            None,
        );
        let lines = lines(&path);
        assert_eq!(lines.len(), 3);
        let event = &lines[1];
        assert_eq!(event["kind"], "event");
        assert_eq!(event["event"], "unauthorized_action");
        assert_eq!(event["n"], 1);
        assert_eq!(
            event["action"],
            json!({"verb": "invoke", "target": "claims.open[1]", "class": "act"})
        );
        assert_eq!(event["allowed"], json!(["read"]));
        let step = &lines[2];
        assert_eq!(step["kind"], "step");
        assert_eq!(step["n"], 1);
        assert_eq!(step["gates"][1]["gate"], "allowed");
        assert_eq!(step["gates"][1]["passed"], false);
        assert_eq!(step["raw"], Value::Null);
        assert_eq!(step["inferred"], Value::Null);
        assert_eq!(step["result"]["error"]["code"], "not_allowed");
        assert_eq!(step["result"]["error"]["attribution"], "gate");
        assert!(step["result"].get("screen").is_none(), "{step}");
    }

    #[test]
    fn a_large_raw_layer_goes_to_a_side_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dense.jsonl");
        let trace = Trace::create(&path, &header()).unwrap().inline_max(4096);
        let action = Action::new(Verb::Read, None);
        let passage = pass_gates(&action, &GateContext::new(AllowedSet::default()));
        let (small, large) = (raw(2), raw(200));
        for observed in [&small, &large] {
            let rt = round_trip(observed, None);
            trace.step(&action, &passage.verdicts, Some(observed), &rt, None, None);
        }
        let lines = lines(&path);
        assert_eq!(lines[1]["raw"]["controls"].as_array().unwrap().len(), 2);
        assert_eq!(lines[1]["inferred"]["route"], "/claims");
        let reference = &lines[2]["raw"];
        assert_eq!(reference["ref"], "dense.raw/2.json");
        let side = std::fs::read_to_string(dir.path().join("dense.raw/2.json")).unwrap();
        assert_eq!(reference["bytes"], side.len());
        let back: RawObservation = serde_json::from_str(&side).unwrap();
        assert_eq!(back, large);
        // A new run of the same journey starts without the old side files.
        drop(trace);
        Trace::create(&path, &header()).unwrap();
        assert!(!dir.path().join("dense.raw").exists());
    }

    #[test]
    fn the_end_line_carries_the_failure_and_its_attribution() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let trace = Trace::create(&path, &header()).unwrap();
        let failure = Failure {
            kind: FailureKind::Tool,
            code: Some(ErrorCode::NotAllowed.into()),
            message: "no".into(),
            attribution: Attribution::Gate,
            file: "t.rhai".into(),
            line: Some(2),
            column: Some(1),
        };
        trace.end(Some(&failure), Duration::from_millis(5));
        let end = &lines(&path)[1];
        assert_eq!(end["kind"], "end");
        assert_eq!(end["outcome"], "failed");
        assert_eq!(
            end["failure"],
            json!({"code": "not_allowed", "message": "no", "attribution": "gate",
                   "line": 2, "column": 1})
        );
        trace.end(None, Duration::ZERO);
        assert_eq!(lines(&path)[2]["outcome"], "passed");
    }
}
