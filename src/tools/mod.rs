//! The gateway every journey kind calls: navigate, read the screen, invoke a control, press
//! a key on it, fill a field.
//!
//! Each tool resolves its target *in the page* (one evaluate: present, unique, visible,
//! enabled, not covered), acts through the [`Tab`] with trusted input, waits for the page to
//! settle (navigation committed and loaded, or the DOM quiet), reads the screen in the same
//! round trip where it can, infers the state and returns a [`RoundTrip`]. Nothing else in
//! waymark acts on the browser.

mod error;
mod result;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use url::Url;

pub use error::{Attribution, ErrorCode, ToolError};
pub use result::{Changes, RoundTrip};

use crate::anchor::{AnchorId, AnchorRef};
use crate::browser::{BrowserError, Tab, is_known_key};
use crate::collector::{self, FillFinished, Prepared, Settled};
use crate::registry::Registry;
use crate::screen::{InferredState, RawObservation, infer};

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
    /// Bound on any single in-page script.
    pub script_timeout: Duration,
}

impl Default for ToolOptions {
    fn default() -> Self {
        ToolOptions {
            max_controls: 5_000,
            quiet: Duration::from_millis(15),
            settle_timeout: Duration::from_secs(5),
            load_timeout: Duration::from_secs(15),
            script_timeout: Duration::from_secs(15),
        }
    }
}

/// The four tools over one tab of one app.
pub struct Tools<T: Tab> {
    tab: T,
    base: Url,
    registry: Arc<Registry>,
    options: ToolOptions,
    last: Mutex<Option<InferredState>>,
}

/// What a call that succeeded leaves: the target's label, the screen now, the change.
type Done = (Option<String>, InferredState, Option<Changes>);

/// What a call that failed leaves: the target's label (when it was found) and why.
type Failed = (Option<String>, ToolError);

type Outcome = Result<Done, Failed>;

/// How an action touches its target.
enum Act<'a> {
    Invoke,
    Press(&'a str),
    Fill(&'a str),
}

impl Act<'_> {
    fn tool(&self) -> &'static str {
        match self {
            Act::Invoke => "invoke",
            Act::Press(_) => "press",
            Act::Fill(_) => "fill",
        }
    }

    fn verb(&self) -> &'static str {
        match self {
            Act::Invoke => "pressing",
            Act::Press(_) => "a key press on",
            Act::Fill(_) => "filling",
        }
    }
}

impl<T: Tab> Tools<T> {
    /// Tools over `tab` for the app at `base`.
    pub fn new(tab: T, base: Url, registry: Arc<Registry>, options: ToolOptions) -> Tools<T> {
        Tools {
            tab,
            base,
            registry,
            options,
            last: Mutex::new(None),
        }
    }

    /// Closes the tab the tools drive.
    pub async fn close(self) {
        self.tab.close().await;
    }

    /// The registry the tools resolve anchors against.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Opens an app-relative route (or an absolute URL on the app's origin).
    pub async fn navigate(&self, route: &str) -> RoundTrip {
        let start = Instant::now();
        let before = self.current_route();
        let outcome = self.navigate_inner(route).await;
        self.finish("navigate", None, before, outcome, start).await
    }

    /// Reads the screen: one in-page round trip.
    pub async fn read_screen(&self) -> RoundTrip {
        let start = Instant::now();
        let before = self.current_route();
        let outcome = self
            .read()
            .await
            .map(|s| (None, s, None))
            .map_err(|e| (None, e));
        self.finish("read_screen", None, before, outcome, start)
            .await
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

    async fn navigate_inner(&self, route: &str) -> Outcome {
        let url = self.resolve(route).map_err(|e| (None, e))?;
        self.tab
            .navigate(url.as_str(), self.options.load_timeout)
            .await
            .map_err(|e| {
                let e = match e {
                    BrowserError::Timeout { after, .. } => ToolError::new(
                        ErrorCode::Timeout,
                        format!("`{route}` did not load within {} ms", after.as_millis()),
                    ),
                    BrowserError::Navigation(why) => ToolError::new(
                        ErrorCode::NavigationFailed,
                        format!("`{route}` could not be loaded: {why}"),
                    )
                    .attributed(Attribution::Environment),
                    other => browser_error(other),
                };
                (None, e)
            })?;
        let state = self.read().await.map_err(|e| (None, e))?;
        if let Some(status) = state.status.filter(|s| *s >= 400) {
            return Err((
                None,
                ToolError::new(
                    ErrorCode::NavigationFailed,
                    format!("`{route}` answered HTTP {status}"),
                ),
            ));
        }
        Ok((None, state, None))
    }

    async fn act(&self, act: Act<'_>, target: &str, key: Option<&str>) -> RoundTrip {
        let start = Instant::now();
        let before = self.current_route();
        let outcome = match parse_target(target, key) {
            Ok(anchor) => self.act_inner(&act, &anchor).await,
            Err(e) => Err((None, e)),
        };
        let shown = match parse_target(target, key) {
            Ok(a) => a.to_string(),
            Err(_) => target.to_string(),
        };
        self.finish(act.tool(), Some(shown), before, outcome, start)
            .await
    }

    async fn act_inner(&self, act: &Act<'_>, anchor: &AnchorRef) -> Outcome {
        if let Act::Press(name) = act
            && !is_known_key(name)
        {
            return Err((
                None,
                ToolError::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "`{name}` is not a key name (use names like `Enter`, `Tab`, `Escape`, `ArrowDown`, `a`)"
                    ),
                ),
            ));
        }
        let prepared = self.prepare(act, anchor).await.map_err(|e| (None, e))?;
        let label = prepared.label.clone();
        self.check(act, anchor, &prepared)
            .map_err(|e| (label.clone(), e))?;
        let fail = |e: BrowserError| (label.clone(), browser_error(e));
        let watch = self.tab.watch_load().await.map_err(fail)?;
        let verify = match act {
            Act::Invoke => {
                let (x, y) = (prepared.x.unwrap_or(0.0), prepared.y.unwrap_or(0.0));
                self.tab.click(x, y).await.map_err(fail)?;
                None
            }
            Act::Press(name) => {
                self.tab.press_key(name).await.map_err(fail)?;
                None
            }
            Act::Fill(text) => {
                let kind = prepared.kind.as_deref().unwrap_or("line");
                let expected = match kind {
                    "line" | "set" => text.replace(['\r', '\n'], ""),
                    "multiline" => text.replace("\r\n", "\n").replace('\r', "\n"),
                    "select" => prepared.label_of_choice(),
                    _ => text.split_whitespace().collect::<Vec<_>>().join(" "),
                };
                if matches!(kind, "line" | "multiline" | "contenteditable") && !expected.is_empty()
                {
                    self.tab.insert_text(&expected).await.map_err(fail)?;
                }
                Some(expected)
            }
        };
        let before = self.last_state();
        let (state, raw) = self
            .settle(act, anchor, verify.as_deref(), watch)
            .await
            .map_err(|e| (label.clone(), e))?;
        let changes = match (&before, &raw) {
            (Some(b), Some(_)) if b.route == state.route => Some(Changes::between(b, &state)),
            _ => None,
        };
        Ok((label, state, changes))
    }

    /// Resolves the target and checks it in the page (focusing it for press and fill).
    async fn prepare(&self, act: &Act<'_>, anchor: &AnchorRef) -> Result<Prepared, ToolError> {
        let (mode, text) = match act {
            Act::Invoke => ("invoke", None),
            Act::Press(_) => ("press", None),
            Act::Fill(text) => ("fill", Some(*text)),
        };
        let expr = collector::expression(
            "prepare",
            &json!({"anchor": anchor.id.as_str(), "key": anchor.key, "mode": mode, "text": text}),
        );
        let mut attempt = 0;
        loop {
            match self.tab.evaluate(&expr, self.options.script_timeout).await {
                Ok(s) => return serde_json::from_str(&s).map_err(capture_error),
                // The page was between documents; give the new one a moment to load, once.
                Err(BrowserError::ContextLost) if attempt == 0 => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => return Err(browser_error(e)),
            }
        }
    }

    fn check(&self, act: &Act<'_>, anchor: &AnchorRef, p: &Prepared) -> Result<(), ToolError> {
        let named = match &p.label {
            Some(l) if !l.is_empty() => format!("`{anchor}` (\"{l}\")"),
            _ => format!("`{anchor}`"),
        };
        let route = self.current_route();
        let err = |code, message: String| Err(ToolError::new(code, message));
        match p.status.as_str() {
            "ok" => Ok(()),
            "not_found" => {
                if anchor.key.is_some() && p.unkeyed > 0 {
                    return err(
                        ErrorCode::NotOnScreen,
                        format!(
                            "no `{}` with key `{}` on {route} ({} with other keys)",
                            anchor.id,
                            anchor.key.as_deref().unwrap_or_default(),
                            p.unkeyed
                        ),
                    );
                }
                match self.registry.anchor(anchor.id.as_str()) {
                    Some(spec) => err(
                        ErrorCode::NotOnScreen,
                        format!(
                            "`{anchor}` is not on {route} (the registry expects it on: {})",
                            spec.screens.join(", ")
                        ),
                    ),
                    None => err(
                        ErrorCode::UnknownAnchor,
                        format!("`{anchor}` is not in the registry and not on {route}"),
                    ),
                }
            }
            "ambiguous" => {
                let keys: Vec<String> = p
                    .keys
                    .iter()
                    .map(|k| k.clone().unwrap_or_else(|| "(no key)".into()))
                    .collect();
                err(
                    ErrorCode::AmbiguousAnchor,
                    format!(
                        "`{anchor}` matches {} controls on {route}; name one with a key (keys: {})",
                        p.count,
                        keys.join(", ")
                    ),
                )
            }
            "hidden" => err(
                ErrorCode::NotOnScreen,
                format!("{named} is in the page on {route} but not visible"),
            ),
            "disabled" => err(
                ErrorCode::Disabled,
                format!("{named} is disabled on {route}"),
            ),
            "obscured" => err(
                ErrorCode::Obscured,
                format!(
                    "{named} is covered by {} at its centre",
                    p.cover.as_deref().unwrap_or("another element")
                ),
            ),
            "not_editable" => err(
                ErrorCode::NotEditable,
                format!(
                    "{named} does not take text: it is {}",
                    p.why.as_deref().unwrap_or("not a field")
                ),
            ),
            "no_option" => {
                let text = match act {
                    Act::Fill(t) => *t,
                    _ => "",
                };
                err(
                    ErrorCode::NotEditable,
                    format!(
                        "{named} has no option `{text}` (options: {})",
                        p.options.join(", ")
                    ),
                )
            }
            other => Err(capture_error(format!(
                "the collector answered an unknown status `{other}`"
            ))),
        }
    }

    /// Waits for the page to settle after an action and reads it, in one trip when the
    /// page did not navigate.
    async fn settle(
        &self,
        act: &Act<'_>,
        anchor: &AnchorRef,
        expected: Option<&str>,
        watch: T::LoadWatch,
    ) -> Result<(InferredState, Option<RawObservation>), ToolError> {
        let start = Instant::now();
        let quiet = self.options.quiet.as_millis() as u64;
        let max = self.options.settle_timeout.as_millis() as u64;
        let bound = self.options.settle_timeout + self.options.script_timeout;
        let (state, read, actual) = match expected {
            Some(expected) => {
                let expr = collector::expression(
                    "finish_fill",
                    &json!({"anchor": anchor.id.as_str(), "key": anchor.key, "expected": expected,
                            "quiet_ms": quiet, "max_ms": max, "max": self.options.max_controls}),
                );
                match self.tab.evaluate(&expr, bound).await {
                    Ok(s) => {
                        let f: FillFinished = serde_json::from_str(&s).map_err(capture_error)?;
                        if f.status != "ok" {
                            return Err(ToolError::new(
                                ErrorCode::NotOnScreen,
                                format!("`{anchor}` went away while it was being filled"),
                            )
                            .attributed(Attribution::App));
                        }
                        (f.state, f.read, f.actual)
                    }
                    Err(BrowserError::ContextLost) => ("navigating".to_string(), None, None),
                    Err(e) => return Err(browser_error(e)),
                }
            }
            None => {
                let expr = collector::expression(
                    "settle",
                    &json!({"quiet_ms": quiet, "max_ms": max, "read": true,
                            "max": self.options.max_controls}),
                );
                match self.tab.evaluate(&expr, bound).await {
                    Ok(s) => {
                        let s: Settled = serde_json::from_str(&s).map_err(capture_error)?;
                        (s.state, s.read, None)
                    }
                    Err(BrowserError::ContextLost) => ("navigating".to_string(), None, None),
                    Err(e) => return Err(browser_error(e)),
                }
            }
        };
        if let (Some(expected), Some(actual)) = (expected, &actual)
            && actual != expected
        {
            return Err(ToolError::new(
                ErrorCode::NotEditable,
                format!(
                    "`{anchor}` did not take the value: it holds `{actual}` instead of `{expected}`"
                ),
            )
            .attributed(Attribution::App));
        }
        match state.as_str() {
            "quiet" => {
                let raw =
                    read.ok_or_else(|| capture_error("a settled page came back without a read"))?;
                let state = self.conclude(raw.clone(), start);
                Ok((state, Some(raw)))
            }
            "navigating" => {
                self.tab
                    .wait_load(watch, self.options.load_timeout)
                    .await
                    .map_err(|e| match e {
                        BrowserError::Timeout { after, .. } => ToolError::new(
                            ErrorCode::Timeout,
                            format!(
                                "the page {} `{anchor}` led to did not load within {} ms",
                                act.verb(),
                                after.as_millis()
                            ),
                        ),
                        other => browser_error(other),
                    })?;
                Ok((self.read().await?, None))
            }
            _ => Err(ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "the page was still changing {max} ms after {} `{anchor}`",
                    act.verb()
                ),
            )),
        }
    }

    /// One read of the screen: a single evaluate, one JSON string, one parse.
    async fn read(&self) -> Result<InferredState, ToolError> {
        let start = Instant::now();
        let expr = collector::expression("read", &json!({"max": self.options.max_controls}));
        let mut attempt = 0;
        let json = loop {
            match self.tab.evaluate(&expr, self.options.script_timeout).await {
                Ok(s) => break s,
                Err(BrowserError::ContextLost) if attempt == 0 => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => return Err(browser_error(e)),
            }
        };
        let raw: RawObservation = serde_json::from_str(&json).map_err(capture_error)?;
        Ok(self.conclude(raw, start))
    }

    fn conclude(&self, mut raw: RawObservation, start: Instant) -> InferredState {
        raw.js_dialogs = self.tab.take_dialogs();
        let route = self.route_of(&raw.url);
        let state = infer(&raw, route, &self.registry, ms_since(start));
        if let Ok(mut last) = self.last.lock() {
            *last = Some(state.clone());
        }
        state
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
            },
            Err((label, error)) => {
                // A failed call still says what is on screen now, unless the browser is gone.
                let screen = if error.code == ErrorCode::BrowserCrashed {
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
                }
            }
        }
    }

    fn last_state(&self) -> Option<InferredState> {
        self.last.lock().ok().and_then(|l| l.clone())
    }

    fn current_route(&self) -> String {
        self.last
            .lock()
            .ok()
            .and_then(|l| l.as_ref().map(|s| s.route.clone()))
            .unwrap_or_else(|| "about:blank".to_string())
    }

    /// The route of `url` relative to the app (path and query), or the URL itself when it
    /// is off the app's origin.
    pub fn route_of(&self, url: &str) -> String {
        match Url::parse(url) {
            Ok(u) if u.origin() == self.base.origin() => match u.query() {
                Some(q) => format!("{}?{q}", u.path()),
                None => u.path().to_string(),
            },
            _ => url.to_string(),
        }
    }

    /// The URL a route names, refused unless it is on the app's origin.
    fn resolve(&self, route: &str) -> Result<Url, ToolError> {
        let lower = route.trim_start().to_ascii_lowercase();
        let refused = [
            "javascript:",
            "data:",
            "file:",
            "blob:",
            "about:",
            "chrome:",
            "view-source:",
        ];
        if let Some(scheme) = refused.iter().find(|s| lower.starts_with(**s)) {
            return Err(ToolError::new(
                ErrorCode::OffOrigin,
                format!(
                    "`{scheme}` URLs are refused; journeys navigate within the app at {}",
                    self.origin()
                ),
            ));
        }
        let url = self.base.join(route).map_err(|e| {
            ToolError::new(
                ErrorCode::InvalidArgument,
                format!("`{route}` is not a route: {e}"),
            )
        })?;
        if url.origin() != self.base.origin() {
            return Err(ToolError::new(
                ErrorCode::OffOrigin,
                format!(
                    "`{route}` is off the app's origin {}; journeys navigate within the app",
                    self.origin()
                ),
            ));
        }
        Ok(url)
    }

    fn origin(&self) -> String {
        self.base.origin().ascii_serialization()
    }
}

impl Prepared {
    fn label_of_choice(&self) -> String {
        self.chosen.clone().unwrap_or_default()
    }
}

fn parse_target(target: &str, key: Option<&str>) -> Result<AnchorRef, ToolError> {
    let bad =
        |e: crate::anchor::AnchorError| ToolError::new(ErrorCode::UnknownAnchor, e.to_string());
    match key {
        None => AnchorRef::parse(target).map_err(bad),
        Some(k) => {
            let id = AnchorId::new(target).map_err(bad)?;
            Ok(AnchorRef::new(id, Some(k.to_string())))
        }
    }
}

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

fn capture_error(e: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ErrorCode::CaptureFailed,
        format!("the in-page collector's answer could not be read: {e}"),
    )
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}
