//! The gateway every journey kind calls: navigate, read, invoke, press, fill and the rest.
//!
//! Each tool resolves its target *in the page* (one evaluate: present, unique, visible,
//! enabled, not covered), acts through the [`Tab`] with trusted input, waits for the page to
//! settle (navigation committed and loaded, or the DOM quiet), reads the screen in the same
//! round trip where it can, infers the state and returns a [`RoundTrip`]. Nothing else in
//! waymark acts on the browser.
//! Every call first passes the gates (a refused call never touches the page) and
//! is recorded in the journey's [`Trace`] when there is one (see `call.rs`).

mod act;
mod audit;
mod bench;
mod call;
mod clock;
mod consent;
mod console;
mod context;
mod describe;
mod dialogs;
mod files;
mod first_read;
mod frames;
mod gate;
mod gateway;
mod gesture;
mod guard;
mod har;
mod intercept;
mod memory;
mod network;
mod parts;
mod pointer;
mod refusal;
mod request;
mod result;
mod route;
mod shots;
mod state;
mod tabs;
mod target;
mod timing;
pub mod trace;
mod traffic;
mod verbs;
mod wait;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use url::Url;

pub use crate::protocol::{Attribution, ErrorCode, ToolError};
pub use crate::screen::Changes;
pub use clock::ClockReport;
pub use describe::{Found, Marked, NodeFacts};
pub use dialogs::DialogAnswered;
pub use files::{DOWNLOAD_DIR, DownloadReport, FileScope};
pub use first_read::prepare as prepare_tab;
pub use gate::{
    Action, ActionClass, AllowedSet, Gate, GateContext, GateVerdict, Passage, UnknownClass,
    pass as pass_gates,
};
pub use gateway::{Backstage, Gateway};
pub use har::{finish_har, write_har};
pub use intercept::RouteCount;
pub use request::Response;
pub use result::RoundTrip;
pub use shots::Screenshots;
pub use tabs::{MAX_TABS, TabInfo, TabOpened};
pub use target::TargetRef;
pub use timing::Timing;
pub use traffic::Exchange;
pub use verbs::{
    Args, ArgsVisitor, Call, CloseTabArgs, DialogAction, DragArgs, FillArgs, FinishArgs,
    HandoffArgs, HoverArgs, InvokeArgs, NavigateArgs, OnDialogArgs, PressArgs, REDACTED, ReadArgs,
    SwitchTabArgs, TabsArgs, UploadArgs, Verb, WaitForArgs, tools_schema,
};
pub use verbs::{ButtonArg, ModifierArg, MovePointerArgs, ScrollArgs, ScrollToArgs};
pub use wait::Condition;

use act::Act;
use call::GateState;
use memory::{Shared, SheetFacts};
use tabs::{OpenTab, TabSet};

use crate::browser::{BrowserError, Tab};
use crate::collector::{self, CollectorRead, HeldRead};
use crate::protocol::quoted;
use crate::registry::Registry;
use crate::screen::{Chrome, InferredState, JsDialog, View, infer};
use crate::tools::trace::Trace;

/// Bounds and caps the tools work within.
#[derive(Debug, Clone)]
pub struct ToolOptions {
    /// At most this many controls are gathered by one read (the collection cut).
    pub max_controls: usize,
    /// The DOM counts as settled after this long without a mutation.
    pub quiet: Duration,
    /// Longest wait for the DOM to settle after an action.
    pub settle_timeout: Duration,
    /// Longest wait for a document to load.
    pub load_timeout: Duration,
    /// Longest wait of an action for its target (present, visible, enabled, uncovered);
    /// zero answers at once.
    pub action_timeout: Duration,
    /// Bound on any single in-page script.
    pub script_timeout: Duration,
    /// The surface cannot act: acting calls and handoffs are refused with
    /// `read_only_surface` before anything else happens.
    pub read_only: bool,
    /// Longest wait for a person to finish a handoff.
    pub handoff_timeout: Duration,
    /// The description budget of every read, in characters (`None`: show all gathered).
    pub budget: Option<usize>,
    /// Reads also gather evidence: text runs and controls without an anchor (for traces
    /// and audits; the inferred layer never shows them).
    pub evidence: bool,
    /// Audit every read against Chromium's accessibility tree (the perception audit).
    pub audit: bool,
    /// When the run keeps screenshots for its reports.
    pub screenshots: Screenshots,
    /// A call whose round trip lists an uncaught page error fails with `page_error`.
    pub fail_on_page_error: bool,
}

impl Default for ToolOptions {
    fn default() -> Self {
        ToolOptions {
            max_controls: 5_000,
            quiet: Duration::from_millis(15),
            settle_timeout: Duration::from_secs(5),
            load_timeout: Duration::from_secs(15),
            action_timeout: Duration::from_secs(5),
            script_timeout: Duration::from_secs(15),
            budget: None,
            evidence: false,
            read_only: false,
            handoff_timeout: Duration::from_secs(300),
            audit: false,
            screenshots: Screenshots::Failure,
            fail_on_page_error: false,
        }
    }
}

/// The tools over one tab of one app. A call is: the gates (`gates`), the action through
/// the tab, the read back (remembered in `memory`), the record (`trace`).
pub struct Tools<T: Tab> {
    /// The journey's tabs; the tools act in the current one.
    tabs: TabSet<T>,
    base: Url,
    registry: Arc<Registry>,
    options: ToolOptions,
    /// What the journey's calls share, whichever tab they act in.
    shared: Shared,
    /// What the gates consult beside the call itself.
    gates: GateState,
    /// Where each call is recorded.
    trace: Option<Arc<Trace>>,
}

/// What a call that succeeded leaves: the target's label, the screen now, the change.
type Done = (Option<String>, InferredState, Option<Changes>);

/// What a call that failed leaves: the target's label (when it was found) and why.
type Failed = (Option<String>, ToolError);

type Outcome = Result<Done, Failed>;

impl<T: Tab> Tools<T> {
    /// Tools over `tab` for the app at `base`.
    pub fn new(tab: T, base: Url, registry: Arc<Registry>, options: ToolOptions) -> Tools<T> {
        Tools {
            tabs: TabSet::new(OpenTab::first(tab)),
            base,
            registry,
            options,
            shared: Shared::default(),
            gates: GateState::default(),
            trace: None,
        }
    }

    /// Closes the journey's tabs.
    pub async fn close(self) {
        Tools::close_all(self.tabs).await;
    }

    /// The evidence behind the last whole-screen read: the raw layer, for traces and audits.
    /// Nothing a journey sees comes from here.
    pub fn last_observation(&self) -> Option<crate::screen::RawObservation> {
        if let Some(framed) = self.framed_observation() {
            return Some(framed);
        }
        self.here()
            .memory
            .held
            .lock()
            .ok()
            .and_then(|h| h.as_ref().map(|h| h.raw.clone()))
    }

    /// The bounds and caps the tools work within.
    pub fn options(&self) -> &ToolOptions {
        &self.options
    }

    /// The registry the tools resolve anchors against.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Opens an app-relative route (or an absolute URL on the app's origin).
    pub async fn navigate(&self, route: &str) -> RoundTrip {
        self.call(
            Verb::Navigate,
            Some(route),
            None,
            self.navigate_inner(route),
        )
        .await
    }

    /// Reads the screen: one in-page round trip, within the default description budget.
    pub async fn read_screen(&self) -> RoundTrip {
        self.read_screen_with(self.view()).await
    }

    /// Reads the screen as `view` says: within its budget, or one region of it in full
    /// (the region's controls only, gathered up to the collection cap and then cut to the
    /// budget). One in-page round trip.
    pub async fn read_screen_with(&self, view: View) -> RoundTrip {
        let outcome = async {
            // The first read after the person gave the tab back says what they changed.
            let resumed = self
                .here()
                .resumed
                .swap(false, std::sync::atomic::Ordering::Relaxed);
            self.read_changes(&view)
                .await
                .map(|(s, changes)| (None, s, changes.filter(|_| resumed)))
                .map_err(|e| (None, e))
        };
        self.call(Verb::Read, None, None, outcome).await
    }

    /// Reads the screen as the document's first read does: the page finds every root and
    /// gathers every control again, reusing nothing it kept. The same state as
    /// [`read_screen`](Tools::read_screen), at a first read's cost: what `waymark bench`
    /// reports as a whole read.
    pub async fn read_screen_whole(&self) -> RoundTrip {
        let view = self.view();
        let outcome = async {
            self.gather(&view, true)
                .await
                .map(|(s, _)| (None, s, None))
                .map_err(|e| (None, e))
        };
        self.call(Verb::Read, None, None, outcome).await
    }

    /// The view of reads nobody shaped: the whole screen within the default budget.
    fn view(&self) -> View {
        View {
            budget: self.options.budget,
            ..View::default()
        }
    }

    /// The caps of the evidence reads gather, or null when they gather none.
    fn evidence(&self) -> serde_json::Value {
        self.evidence_for(false)
    }

    /// The caps of the evidence a read gathers, when the tools keep evidence or the read
    /// asks for the controls without an anchor.
    fn evidence_for(&self, nodes: bool) -> serde_json::Value {
        first_read::evidence_caps(self.options.evidence, nodes)
    }

    /// Presses the control `target` (`anchor` or `anchor[key]`, or `anchor` plus `key`).
    pub async fn invoke(&self, target: &str, key: Option<&str>) -> RoundTrip {
        self.act(Act::Invoke, target, key).await
    }

    /// Focuses the control and presses the named key (`Enter`, `Escape`, `ArrowDown`…).
    pub async fn press(&self, target: &str, key_name: &str) -> RoundTrip {
        self.act(Act::Press(key_name), target, None).await
    }

    /// Sets a field's value and fires input and change events. Never presses Enter, never
    /// submits, never clicks: a newline in `text` is text (dropped by single-line fields).
    pub async fn fill(&self, target: &str, text: &str) -> RoundTrip {
        self.act(Act::Fill(text), target, None).await
    }

    /// [`invoke`](Tools::invoke) on any kind of target: an anchor, a node of the latest
    /// read's evidence, or a point (pressed exactly there, whatever lies there).
    pub async fn invoke_target(&self, target: &TargetRef) -> RoundTrip {
        self.act_on(Act::Invoke, target).await
    }

    /// [`press`](Tools::press) on any kind of target.
    pub async fn press_target(&self, target: &TargetRef, key_name: &str) -> RoundTrip {
        self.act_on(Act::Press(key_name), target).await
    }

    /// [`fill`](Tools::fill) on any kind of target.
    pub async fn fill_target(&self, target: &TargetRef, text: &str) -> RoundTrip {
        self.act_on(Act::Fill(text), target).await
    }

    async fn navigate_inner(&self, route: &str) -> Outcome {
        let url = self.resolve(route).map_err(|e| (None, e))?;
        // Once per tab, before its first navigation: the collector in every document.
        let setup = Instant::now();
        if let Err(e) = self.install_early(&self.here()).await {
            return Err((None, browser_error(e)));
        }
        self.timed(timing::Phase::Setup, setup);
        self.drop_unclaimed_pushes().await;
        let loading = Instant::now();
        let loaded = (self.here().tab)
            .navigate(url.as_str(), self.options.load_timeout)
            .await;
        self.timed(timing::Phase::Load, loading);
        if let Err(e) = loaded {
            let e = match e {
                // The page's timeout (attributed to the app), whichever request of the load
                // it was that did not come back in time.
                BrowserError::Timeout { what, .. } => {
                    // Leave the tab usable: back on the document it was on.
                    self.here().tab.stop_loading().await;
                    ToolError::new(
                        ErrorCode::Timeout,
                        format!(
                            "`{}` did not load within {} ms (`--load-timeout`): {what}",
                            quoted(route),
                            self.options.load_timeout.as_millis()
                        ),
                    )
                }
                BrowserError::Navigation(why) => ToolError::new(
                    ErrorCode::NavigationFailed,
                    format!("`{}` could not be loaded: {why}", quoted(route)),
                )
                .attributed(Attribution::Environment),
                other => browser_error(other),
            };
            return Err((None, e));
        }
        let state = self.first_read().await.map_err(|e| (None, e))?;
        if let Some(status) = state.status.filter(|s| *s >= 400) {
            return Err((
                None,
                ToolError::new(
                    ErrorCode::NavigationFailed,
                    format!("`{}` answered HTTP {status}", quoted(route)),
                ),
            ));
        }
        Ok((None, state, None))
    }

    /// One read of the screen: a single evaluate, one JSON string, one parse. Against the
    /// read the tools hold, the page sends only what changed.
    async fn read(&self) -> Result<InferredState, ToolError> {
        self.read_as(&self.view()).await
    }

    async fn read_as(&self, view: &View) -> Result<InferredState, ToolError> {
        self.read_changes(view).await.map(|(state, _)| state)
    }

    /// A read, and what changed since the read held before it (same document only).
    async fn read_changes(
        &self,
        view: &View,
    ) -> Result<(InferredState, Option<Changes>), ToolError> {
        self.gather(view, false).await
    }

    /// [`read_changes`](Tools::read_changes), or with `whole` a read that reuses nothing
    /// the page kept (see [`read_screen_whole`](Tools::read_screen_whole)).
    async fn gather(
        &self,
        view: &View,
        whole: bool,
    ) -> Result<(InferredState, Option<Changes>), ToolError> {
        let start = Instant::now();
        let args = json!({"max": self.options.max_controls, "since": self.held_token(),
                "region": view.region, "evidence": self.evidence_for(view.nodes),
                "whole": whole, "chunk": parts::PART_RECORDS});
        let json = self.collect("read", &args).await?;
        let json = self.with_parts(json, &args).await?;
        let read: CollectorRead = collector::parse_answer(json).map_err(capture_error)?;
        if let (Some(region), Some(regions)) = (&view.region, &read.regions) {
            return Err(no_such_region(region, regions));
        }
        self.conclude(read, start, view, true).await
    }

    /// Runs collector operation `op` with `args` in the page: by the collector installed in
    /// the document when there is one, else by sending it whole (which installs it).
    async fn collect(&self, op: &str, args: &serde_json::Value) -> Result<String, ToolError> {
        self.collect_with(op, args, self.options.script_timeout, false)
            .await
    }

    /// [`collect`](Tools::collect) bounded by `timeout`, as a user gesture when `gesture`.
    async fn collect_with(
        &self,
        op: &str,
        args: &serde_json::Value,
        timeout: Duration,
        gesture: bool,
    ) -> Result<String, ToolError> {
        match self.collect_as(op, args, timeout, gesture).await {
            // A page caught between documents: one more try once the new one has loaded.
            Err(BrowserError::ContextLost) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                self.collect_as(op, args, timeout, gesture)
                    .await
                    .map_err(browser_error)
            }
            other => other.map_err(browser_error),
        }
    }

    /// [`collect`](Tools::collect) bounded by `timeout`, one try, with the browser's error;
    /// as a user gesture when `gesture`.
    async fn collect_as(
        &self,
        op: &str,
        args: &serde_json::Value,
        timeout: Duration,
        gesture: bool,
    ) -> Result<String, BrowserError> {
        if let Some(frame) = self.acting_frame() {
            return Box::pin(self.collect_in_frame(&frame, op, args, timeout, gesture)).await;
        }
        let evaluate = |expr: String| async move {
            if gesture {
                self.here().tab.evaluate_as_user(&expr, timeout).await
            } else {
                self.here().tab.evaluate(&expr, timeout).await
            }
        };
        // What style sheets hold, worked out since the last operation, goes with this one.
        let sheets = self.here().memory.sheets.lock().ok().and_then(|mut s| {
            (!s.facts.is_empty()).then(|| {
                let taken = std::mem::take(&mut *s);
                serde_json::json!({"doc": taken.doc, "facts": taken.facts})
            })
        });
        // The registry's matchers go by their version; a document without them asks.
        let matchers = self.registry.matchers();
        let with_sheets;
        let args = match (sheets, matchers) {
            (None, None) => args,
            (sheets, matchers) => {
                let mut all = args.clone();
                if let Some(sheets) = sheets {
                    all["sheets"] = sheets;
                }
                if let Some(m) = matchers {
                    all["mv"] = serde_json::json!(m.v);
                }
                with_sheets = all;
                &with_sheets
            }
        };
        let mut reply = evaluate(collector::installed(op, args)).await?;
        if reply == collector::MISSING {
            reply = evaluate(collector::expression(op, args)).await?;
        }
        if reply == collector::NEED_MATCHERS
            && let Some(m) = matchers
        {
            let mut all = args.clone();
            all["matchers"] = serde_json::json!(m.as_ref());
            reply = evaluate(collector::installed(op, &all)).await?;
        }
        Ok(reply)
    }

    /// Works out, beside the calls, what the style sheets of another origin a read of
    /// document `doc` could not read hold (from the browser's copy of their text, in a world
    /// apart from the page's: see [`Tab::style_sheet_facts`]), for the next operation to
    /// send (see `collect_as`): with it the page knows whether their rules follow state,
    /// hide or pin controls, as for its own sheets, instead of assuming they do. Without a
    /// runtime to work on, the sheets stay unknown.
    fn fetch_sheets(&self, doc: &str, urls: Vec<String>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let program = |texts: &[(String, String)]| {
            let texts: serde_json::Map<String, serde_json::Value> = texts
                .iter()
                .map(|(url, text)| (url.clone(), text.as_str().into()))
                .collect();
            collector::expression("facts", &json!({ "texts": texts }))
        };
        let answer = self.here().tab.style_sheet_facts(&urls, program);
        let sheets = Arc::clone(&self.here().memory.sheets);
        let doc = doc.to_string();
        runtime.spawn(async move {
            let mut facts = answer
                .await
                .and_then(|a| serde_json::from_str::<serde_json::Value>(&a).ok());
            if let Ok(mut sheets) = sheets.lock() {
                if sheets.doc != doc {
                    *sheets = SheetFacts {
                        doc,
                        ..SheetFacts::default()
                    };
                }
                // Every sheet named gets an answer: null for one not known.
                for url in urls {
                    let known = facts
                        .as_mut()
                        .and_then(|f| f.get_mut(&url))
                        .map(serde_json::Value::take)
                        .unwrap_or_default();
                    sheets.facts.insert(url, known);
                }
            }
        });
    }

    /// Evaluates an in-page operation. A page caught between documents (the script's
    /// context destroyed under it) gets [`CONTEXT_LOST_RETRIES`] more try after a moment for
    /// the new one to load.
    async fn evaluate(&self, expr: &str) -> Result<String, ToolError> {
        match self
            .here()
            .tab
            .evaluate(expr, self.options.script_timeout)
            .await
        {
            Err(BrowserError::ContextLost) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                self.here()
                    .tab
                    .evaluate(expr, self.options.script_timeout)
                    .await
                    .map_err(browser_error)
            }
            other => other.map_err(browser_error),
        }
    }

    /// The token of the read the tools hold, for the page to send a delta against.
    fn held_token(&self) -> Option<String> {
        self.here()
            .memory
            .held
            .lock()
            .ok()
            .and_then(|h| h.as_ref().map(|h| h.token.clone()))
    }

    /// Applies a read to the one held, audits it when asked to, infers the state, and
    /// holds the result. Also says what changed since the held read, when it was of the
    /// same document. A region read (its token is empty) is not held: the next delta still
    /// applies to the whole read.
    /// `in_call`: the page collected the read in this call's round trip, whose time its
    /// collection is a part of; a read the page sent of its own accord during a load (see
    /// first_read.rs) is a part of the load's time instead.
    async fn conclude(
        &self,
        mut read: CollectorRead,
        start: Instant,
        view: &View,
        in_call: bool,
    ) -> Result<(InferredState, Option<Changes>), ToolError> {
        let concluding = Instant::now();
        let poisoned = || capture_error("the held read was poisoned");
        let token = read.token.clone();
        if !read.unread_sheets.is_empty()
            && let Some((doc, _)) = token.split_once(':')
        {
            self.fetch_sheets(doc, std::mem::take(&mut read.unread_sheets));
        }
        let whole = !token.is_empty();
        let base = if whole {
            self.here()
                .memory
                .held
                .lock()
                .map_err(|_| poisoned())?
                .take()
        } else {
            None
        };
        let far = std::mem::take(&mut read.frames);
        let (ids, mut raw, changes, strings) = read.apply(base).map_err(capture_error)?;
        raw.chrome = self.chrome(&raw.url, raw.status);
        if self.options.audit {
            let audit = self.audit(&ids, &raw.controls).await;
            if let Ok(mut last) = self.here().memory.last_audit.lock() {
                *last = Some(audit.clone());
            }
            raw.audit = Some(audit);
        }
        let framed = self.placed(&raw, far, whole).await;
        let here = self.here();
        let mut held = here.memory.held.lock().map_err(|_| poisoned())?;
        if let Ok(mut ms) = self.here().memory.in_page_ms.lock() {
            *ms = Some(raw.collector_ms);
        }
        if in_call {
            self.timed_collect(raw.collector_ms);
        }
        let route = self.route_of(&raw.url);
        let seen = framed.as_ref().unwrap_or(&raw);
        let state = infer(seen, route, &self.registry, ms_since(start), view);
        let seq = 1 + self
            .here()
            .memory
            .reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if whole {
            self.keep_framed(framed);
            *held = Some(HeldRead {
                token,
                ids,
                raw,
                strings,
            });
        } else if let Ok(mut region) = self.here().memory.region_raw.lock() {
            // Kept (not held for deltas) as the evidence of this read, for the trace.
            *region = Some((seq, raw));
        }
        drop(held);
        if let Ok(mut route) = self.here().memory.route.lock() {
            *route = Some(state.route.clone());
        }
        self.timed(timing::Phase::Infer, concluding);
        Ok((state, changes))
    }

    async fn finish(
        &self,
        tool: &'static str,
        anchor: Option<String>,
        route_before: String,
        outcome: Outcome,
        start: Instant,
    ) -> RoundTrip {
        match outcome {
            Ok((label, screen, changes)) => RoundTrip {
                tool,
                ok: true,
                anchor,
                label,
                route_before,
                route: screen.route.clone(),
                screen: Some(screen),
                changes,
                error: None,
                elapsed_ms: ms_since(start),
                download: self.take_download(),
                ..RoundTrip::default()
            },
            Err((label, error)) => {
                // A failed call still says what is on screen now, unless the browser is gone
                // or the page holds its thread.
                let blocked = self
                    .here()
                    .memory
                    .blocked
                    .load(std::sync::atomic::Ordering::Relaxed);
                let screen = if error.code == ErrorCode::BrowserCrashed || blocked {
                    None
                } else {
                    self.read().await.ok()
                };
                RoundTrip {
                    tool,
                    ok: false,
                    anchor,
                    label,
                    route: screen
                        .as_ref()
                        .map(|s| s.route.clone())
                        .unwrap_or_else(|| self.current_route()),
                    route_before,
                    screen,
                    changes: None,
                    error: Some(error),
                    elapsed_ms: ms_since(start),
                    ..RoundTrip::default()
                }
            }
        }
    }

    /// The browser's chrome as of now: the dialogs it answered since the last read, and
    /// whether the document is an error page.
    fn chrome(&self, url: &str, status: Option<u16>) -> Chrome {
        let events = self.here().tab.take_chrome();
        let js_dialogs: Vec<JsDialog> = events
            .dialogs
            .into_iter()
            .map(|(kind, message)| JsDialog { kind, message })
            .collect();
        let error_page = if url.starts_with("chrome-error:") {
            Some("the browser's error page: the document could not be loaded".to_string())
        } else {
            status
                .filter(|s| *s >= 400)
                .map(|s| format!("the server answered HTTP {s}"))
        };
        Chrome {
            beforeunload: js_dialogs.iter().any(|d| d.kind == "beforeunload"),
            js_dialogs,
            crashed: events.crashed,
            error_page,
            file_chooser: events.file_choosers > 0,
        }
    }

    pub(super) fn current_route(&self) -> String {
        self.here()
            .memory
            .route
            .lock()
            .ok()
            .and_then(|r| r.clone())
            .unwrap_or_else(|| "about:blank".to_string())
    }
}

/// How often an in-page script whose document went away under it is evaluated again.
pub const CONTEXT_LOST_RETRIES: u32 = 1;

fn browser_error(e: BrowserError) -> ToolError {
    match e {
        BrowserError::Timeout { .. } => {
            ToolError::new(ErrorCode::Timeout, e.to_string()).attributed(Attribution::Environment)
        }
        BrowserError::Script(_) => ToolError::new(ErrorCode::CaptureFailed, e.to_string()),
        BrowserError::Navigation(_) => ToolError::new(ErrorCode::NavigationFailed, e.to_string())
            .attributed(Attribution::Environment),
        BrowserError::ContextLost => ToolError::new(
            ErrorCode::Timeout,
            "the page kept navigating while it was being read",
        )
        .attributed(Attribution::App),
        other => ToolError::new(ErrorCode::BrowserCrashed, other.to_string()),
    }
}

/// How many of a screen's regions a message lists.
const REGIONS_LISTED: usize = 20;

/// A region read of a region the screen does not have: which it does have.
fn no_such_region(region: &str, regions: &std::collections::BTreeMap<String, usize>) -> ToolError {
    let names: Vec<String> = regions.keys().cloned().collect();
    let near = crate::registry::closest(region, &names)
        .map(|n| format!(" (did you mean `{}`?)", quoted(n)))
        .unwrap_or_default();
    let mut listed = regions
        .iter()
        .take(REGIONS_LISTED)
        .map(|(r, n)| format!("{} ({n})", quoted(r)))
        .collect::<Vec<_>>()
        .join(", ");
    if regions.len() > REGIONS_LISTED {
        listed.push_str(&format!(" and {} more", regions.len() - REGIONS_LISTED));
    }
    ToolError::new(
        ErrorCode::InvalidArgument,
        format!(
            "no region `{}` on this screen{near}; its regions: {listed}",
            quoted(region)
        ),
    )
}

fn capture_error(e: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ErrorCode::CaptureFailed,
        format!("the in-page collector's answer could not be read: {e}"),
    )
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}
