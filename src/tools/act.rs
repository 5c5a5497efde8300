//! Acting on a control: resolve and check it in the page, press or type with trusted input,
//! then wait for the page to settle and read it — in the same round trip when the page did
//! not navigate.

use std::time::{Duration, Instant};

use serde_json::json;

use super::consent::Subject;
use super::target::TargetRef;
use super::timing::Phase;
use super::{Attribution, Changes, ErrorCode, Outcome, RoundTrip, ToolError, Tools, Verb};
use super::{browser_error, capture_error};
use crate::anchor::{AnchorId, AnchorRef};
use crate::browser::{BrowserError, Tab, is_known_key};
use crate::collector::{FillFinished, Filled, Prepared, Settled, Typing, parse_answer};
use crate::protocol::quoted;
use crate::screen::InferredState;

/// What the page gives for a secret field's value (see `valueOf` in the collector).
const REDACTED: &str = "[redacted]";

/// How an action touches its target.
pub(super) enum Act<'a> {
    Invoke,
    /// An invoke that presses as this says: another button, a double click, modifiers.
    Click(&'a crate::browser::Click),
    /// Scrolled into view, nothing more (`scroll_to`).
    ScrollTo,
    Press(&'a str),
    Fill(&'a str),
    Hover,
    /// Dragged onto this target.
    Drag(&'a TargetRef),
    /// These files (checked inside the fixtures) into the chooser the target opens.
    Upload(&'a [std::path::PathBuf]),
}

impl Act<'_> {
    pub(super) fn kind(&self) -> Verb {
        match self {
            Act::Invoke | Act::Click(_) => Verb::Invoke,
            Act::ScrollTo => Verb::ScrollTo,
            Act::Press(_) => Verb::Press,
            Act::Fill(_) => Verb::Fill,
            Act::Hover => Verb::Hover,
            Act::Drag(_) => Verb::Drag,
            Act::Upload(_) => Verb::Upload,
        }
    }

    pub(super) fn verb(&self) -> &'static str {
        match self {
            Act::Invoke => "pressing",
            Act::Click(_) => "clicking",
            Act::ScrollTo => "scrolling to",
            Act::Press(_) => "a key press on",
            Act::Fill(_) => "filling",
            Act::Hover => "hovering over",
            Act::Drag(_) => "dragging",
            Act::Upload(_) => "uploading to",
        }
    }
}

impl<T: Tab> Tools<T> {
    /// An action on an anchor written the way journeys write it.
    pub(super) async fn act(&self, act: Act<'_>, target: &str, key: Option<&str>) -> RoundTrip {
        match parse_target(target, key) {
            Ok(anchor) => self.act_on(act, &TargetRef::Anchor(anchor)).await,
            Err(e) => {
                let outcome = async { Err((None, e)) };
                self.call(act.kind(), Some(target), None, outcome).await
            }
        }
    }

    /// An action on any kind of target.
    pub(super) async fn act_on(&self, act: Act<'_>, target: &TargetRef) -> RoundTrip {
        let shown = match act {
            // The kind of click, in the trace and the report beside its target.
            Act::Click(click) => format!("{target} ({})", super::pointer::said(click)),
            _ => target.to_string(),
        };
        let subject = Subject {
            target,
            key_name: match act {
                Act::Press(k) => Some(k),
                _ => None,
            },
            text: match act {
                Act::Fill(t) => Some(t),
                _ => None,
            },
        };
        let to = match act {
            Act::Drag(to) => Some(to.to_string()),
            Act::Click(click) => Some(super::pointer::said(click)),
            _ => None,
        };
        let subject = Subject {
            text: subject.text.or(to.as_deref()),
            ..subject
        };
        let outcome = self.act_inner(&act, target);
        let mut rt = self
            .call(act.kind(), Some(&shown), Some(subject), outcome)
            .await;
        // The round trip's `anchor` names the control alone; the trace's target, the click.
        if let (Act::Click(click), Some(anchor)) = (&act, &mut rt.anchor)
            && let Some(bare) = anchor.strip_suffix(&format!(" ({})", super::pointer::said(click)))
        {
            *anchor = bare.to_string();
        }
        rt
    }

    pub(super) async fn act_inner(&self, act: &Act<'_>, anchor: &TargetRef) -> Outcome {
        if let Ok(mut ms) = self.here().memory.frame_ms.lock() {
            *ms = None;
        }
        if let Act::Press(name) = act
            && !is_known_key(name)
        {
            return Err((
                None,
                ToolError::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "`{}` is not a key name (use names like `Enter`, `Tab`, `Escape`, `ArrowDown`, `a`)",
                        quoted(name)
                    ),
                ),
            ));
        }
        // A control the last read placed from a frame of another site is acted on there.
        let _acting = self.acting_in(self.far_frame_of(anchor.anchor()));
        if let Act::Fill(text) = act {
            return self.fill_in(text, anchor).await;
        }
        // Aimed again while a press misses its target (see `Landed::Missed`), within the
        // action timeout: the box seen steady over two frames each time.
        let start = Instant::now();
        let mut tries = 0usize;
        loop {
            let left = self.action_timeout().saturating_sub(start.elapsed());
            let again = (tries > 0).then_some(left);
            let prepared = self
                .prepare_again(act, anchor, again)
                .await
                .map_err(|e| (None, e))?;
            let label = prepared.label.clone();
            self.checked(act, anchor, &prepared)
                .map_err(|e| (label.clone(), e))?;
            let fail = |e: BrowserError| (label.clone(), browser_error(e));
            let watch = self.here().tab.watch_load().await.map_err(fail)?;
            let input = Instant::now();
            let pressed = match act {
                Act::Invoke => {
                    let (x, y) = (prepared.x.unwrap_or(0.0), prepared.y.unwrap_or(0.0));
                    self.here().tab.click(x, y).await.map_err(fail)?;
                    None
                }
                Act::Click(click) => {
                    let (x, y) = (prepared.x.unwrap_or(0.0), prepared.y.unwrap_or(0.0));
                    Box::pin(self.here().tab.click_with(x, y, click))
                        .await
                        .map_err(fail)?;
                    None
                }
                Act::Press(name) => {
                    // Boxed: a chord's keys are many awaits, and this future is every
                    // action's.
                    Box::pin(self.here().tab.press_key(name))
                        .await
                        .map_err(fail)?;
                    None
                }
                // Returned above, from `fill_in`.
                Act::Fill(_) => None,
                gesture => self
                    .gesture(gesture, &prepared)
                    .await
                    .map_err(|e| (label.clone(), e))?,
            };
            self.timed(Phase::Input, input);
            let landed = match pressed {
                Some(missed) => missed,
                None => self
                    .settle(act, anchor, None, watch)
                    .await
                    .map_err(|e| (label.clone(), e))?,
            };
            match landed {
                Landed::Read {
                    state,
                    changes,
                    download,
                } => {
                    if tries > 0
                        && let Ok(mut w) = self.shared.waited_ms.lock()
                    {
                        *w = super::ms_since(start);
                    }
                    self.keep_downloads(download).await;
                    return Ok((label, *state, changes));
                }
                Landed::Missed { hit, moved } => {
                    if start.elapsed() >= self.action_timeout() {
                        return Err((label.clone(), missed(anchor, &prepared, &hit, moved, start)));
                    }
                    // Playwright's pauses between tries: a page that keeps covering the
                    // target is not pressed in a tight loop.
                    let pause = [0, 20, 100, 100, 500][tries.min(4)];
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                    tries += 1;
                }
            }
        }
    }

    /// Fills a field in two trips where there were three. The first resolves and checks the
    /// field and, where nothing in the page could tell it from typing, types the text with
    /// the editing command CDP's `Input.insertText` runs (see `fill` in collector's 13-ops.js), as
    /// a user gesture, then sends the field's `change` and arms the first quiet window; the
    /// second (`finish_fill`) checks the value, waits out the quiet and reads. Each trip
    /// waits behind the frame the one before it caused, which on a dense page is most of a
    /// fill's time: a window armed in the first trip runs during that frame instead of
    /// after it. A field the page could not type into gets `Input.insertText` between the
    /// two, as every fill did before, and its `change` and whole window in the second.
    async fn fill_in(&self, text: &str, target: &TargetRef) -> Outcome {
        let act = Act::Fill(text);
        let mut args = self.prepare_args(&act, target);
        // The value each kind of field ends with; the page knows the field's kind.
        args["expected"] = json!({
            "line": text.replace(['\r', '\n'], ""),
            "multiline": text.replace("\r\n", "\n").replace('\r', "\n"),
            "words": text.split_whitespace().collect::<Vec<_>>().join(" "),
        });
        // Taken before the typing, which may navigate.
        let watch = self
            .here()
            .tab
            .watch_load()
            .await
            .map_err(|e| (None, browser_error(e)))?;
        // Finding the field and typing in it, in one trip: timed as finding it.
        let aiming = Instant::now();
        let json = self
            .collect_with("fill", &args, self.action_bound(), true)
            .await;
        self.timed(Phase::Target, aiming);
        let json = json.map_err(|e| (None, e))?;
        let filled: Filled = serde_json::from_str(&json).map_err(|e| (None, capture_error(e)))?;
        let prepared = filled.prepared;
        let label = prepared.label.clone();
        self.checked(&act, target, &prepared)
            .map_err(|e| (label.clone(), e))?;
        let expected = filled.expected;
        if filled.typing == Typing::Runner {
            let typing = Instant::now();
            let typed = self.here().tab.insert_text(&expected).await;
            self.timed(Phase::Input, typing);
            typed.map_err(|e| (label.clone(), browser_error(e)))?;
        }
        match self
            .settle(&act, target, Some(&expected), watch)
            .await
            .map_err(|e| (label.clone(), e))?
        {
            Landed::Read { state, changes, .. } => Ok((label, *state, changes)),
            // A fill aims no pointer.
            Landed::Missed { .. } => {
                Err((label, capture_error("a fill came back as a missed press")))
            }
        }
    }

    /// Resolves the target and checks it in the page (focusing it for press and fill).
    pub(super) async fn prepare(
        &self,
        act: &Act<'_>,
        target: &TargetRef,
    ) -> Result<Prepared, ToolError> {
        self.prepare_again(act, target, None).await
    }

    /// [`prepare`](Self::prepare); `again`: after a press that missed, waiting what is
    /// left of the action timeout, and the box watched over two frames whatever the page
    /// seems to be doing (it moved once already).
    async fn prepare_again(
        &self,
        act: &Act<'_>,
        target: &TargetRef,
        again: Option<Duration>,
    ) -> Result<Prepared, ToolError> {
        let mut args = self.prepare_args(act, target);
        if let Some(left) = again {
            args["wait_ms"] = json!(left.as_millis() as u64);
            args["frames"] = json!(true);
        }
        let aiming = Instant::now();
        let json = self
            .collect_with("prepare", &args, self.action_bound(), false)
            .await;
        self.timed(Phase::Target, aiming);
        let mut prepared: Prepared = serde_json::from_str(&json?).map_err(capture_error)?;
        if self.acting_frame().is_some() {
            // Boxed: out of every action's future (a worker's stack holds those).
            (prepared.x, prepared.y) = Box::pin(self.moved_to_top(prepared.x, prepared.y))
                .await
                .map_err(browser_error)?;
        }
        Ok(prepared)
    }

    /// What `prepare` (and `fill`, which starts with it) is given.
    fn prepare_args(&self, act: &Act<'_>, target: &TargetRef) -> serde_json::Value {
        let (mode, text) = match act {
            Act::Invoke | Act::Click(_) => ("invoke", None),
            Act::ScrollTo => ("scroll", None),
            Act::Press(_) => ("press", None),
            Act::Fill(text) => ("fill", Some(*text)),
            Act::Hover => ("hover", None),
            Act::Drag(_) => ("drag", None),
            Act::Upload(_) => ("upload", None),
        };
        let mut args = target.args();
        if let TargetRef::Point { .. } = target {
            // The document the point was read from: the held read's token is `doc:epoch`.
            let doc = self
                .held_token()
                .and_then(|t| t.split(':').next().map(str::to_string));
            args["doc"] = json!(doc);
        }
        args["mode"] = json!(mode);
        args["text"] = json!(text);
        if let Act::Click(click) = act {
            args["arm"] = json!(super::pointer::last_event(click));
        }
        // For the first quiet window, armed in the page when the action's input arrives.
        args["quiet_ms"] = json!(self.options.quiet.as_millis() as u64);
        args["max_ms"] = json!(self.settle_timeout().as_millis() as u64);
        self.wait_args(target, &mut args);
        args
    }

    /// Waits for the page to settle after an action and reads it, in one trip when the
    /// page did not navigate.
    pub(super) async fn settle(
        &self,
        act: &Act<'_>,
        anchor: &TargetRef,
        expected: Option<&str>,
        watch: T::LoadWatch,
    ) -> Result<Landed, ToolError> {
        let start = Instant::now();
        let shown = anchor.to_string();
        let quiet = self.options.quiet.as_millis() as u64;
        let settle_timeout = self.settle_timeout();
        let max = settle_timeout.as_millis() as u64;
        let bound = settle_timeout + self.options.script_timeout;
        let (op, args) = match expected {
            Some(expected) => {
                let mut args = json!({"expected": expected,
                        "quiet_ms": quiet, "max_ms": max, "max": self.options.max_controls,
                        "since": self.held_token(), "evidence": self.evidence()});
                if let Some(a) = anchor.anchor() {
                    args["anchor"] = json!(a.id.as_str());
                    args["key"] = json!(a.key);
                }
                ("finish_fill", args)
            }
            None => (
                "settle",
                json!({"quiet_ms": quiet, "max_ms": max, "max": self.options.max_controls,
                        "since": self.held_token(), "evidence": self.evidence()}),
            ),
        };
        // While a navigation is pending Chromium holds evaluations until it commits, so the
        // settle script races the browser's own word that a new document started loading.
        let mut watch = watch;
        let reply = {
            let settled = self.collect_as(op, &args, bound, false);
            let here = self.here();
            let started = here.tab.navigation_started(&mut watch);
            tokio::select! {
                reply = settled => Some(reply),
                () = started => None,
            }
        };
        let navigating = || ("navigating".to_string(), None, None, None, false);
        // The page's work and the quiet window after it, as the page measured them.
        let mut in_page = (None, None);
        let (state, read, actual, frame_ms, download) = match reply {
            Some(Ok(s)) if expected.is_none() && s.starts_with("{\"state\":\"missed\"") => {
                let s: Settled = parse_answer(s).map_err(capture_error)?;
                return Ok(Landed::Missed {
                    hit: s.hit.unwrap_or_else(|| "another element".into()),
                    moved: s.moved,
                });
            }
            None | Some(Err(BrowserError::ContextLost)) => navigating(),
            Some(Err(e)) => return Err(browser_error(e)),
            Some(Ok(s)) if expected.is_some() => {
                let f: FillFinished = parse_answer(s).map_err(capture_error)?;
                if f.status != "ok" {
                    return Err(ToolError::new(
                        ErrorCode::NotOnScreen,
                        format!("`{}` went away while it was being filled", quoted(&shown)),
                    )
                    .attributed(Attribution::App));
                }
                in_page = (f.page_ms, f.quiet_ms);
                (f.state, f.read, f.actual, f.frame_ms, false)
            }
            Some(Ok(s)) => {
                let s: Settled = parse_answer(s).map_err(capture_error)?;
                in_page = (s.page_ms, s.quiet_ms);
                (s.state, s.read, None, s.frame_ms, s.download)
            }
        };

        if let (Some(expected), Some(actual)) = (expected, &actual)
            && actual != expected
        {
            // A secret field's value comes back `[redacted]`: neither value is told, or the
            // message would carry the secret that was typed into every report and trace.
            let message = if actual == REDACTED {
                format!(
                    "`{}` did not take the value: the secret field holds something else than \
                     what was typed (neither is shown)",
                    quoted(&shown)
                )
            } else {
                format!(
                    "`{}` did not take the value: it holds `{}` instead of `{}`",
                    quoted(&shown),
                    quoted(actual),
                    quoted(expected)
                )
            };
            return Err(
                ToolError::new(ErrorCode::NotEditable, message).attributed(Attribution::App)
            );
        }
        match state.as_str() {
            "quiet" => {
                self.timed_settle(in_page.0, in_page.1);
                // Kept only for an action the page answered: a failed, busy or navigating
                // one leaves none.
                if let Ok(mut ms) = self.here().memory.frame_ms.lock() {
                    *ms = frame_ms;
                }
                let read =
                    read.ok_or_else(|| capture_error("a settled page came back without a read"))?;
                // Settled in a frame of another site: the screen is the whole page's.
                let (state, changes) = if self.acting_frame().is_some() {
                    let _top = self.acting_in(None);
                    self.read_changes(&self.view()).await?
                } else {
                    self.conclude(read, start, &self.view(), true).await?
                };
                Ok(Landed::Read {
                    state: Box::new(state),
                    changes,
                    download,
                })
            }
            "navigating" => {
                let _top = self.acting_in(None);
                // The settle until the navigation showed is a part of the load's wait.
                self.timed(Phase::Load, start);
                let loading = Instant::now();
                let loaded = self
                    .here()
                    .tab
                    .wait_load(watch, self.options.load_timeout)
                    .await;
                self.timed(Phase::Load, loading);
                if let Err(e) = loaded {
                    return Err(match e {
                        BrowserError::Timeout { after, .. } => {
                            // Leave the tab usable: back on the document the action started from.
                            self.here().tab.stop_loading().await;
                            ToolError::new(
                                ErrorCode::Timeout,
                                format!(
                                    "the page `{}` led to did not load within {} ms",
                                    quoted(&shown),
                                    after.as_millis()
                                ),
                            )
                        }
                        other => browser_error(other),
                    });
                }
                // A new document is read as `navigate` reads one: at its load, by the read
                // it sent then. A move within the document (a link to a hash route, which
                // Chromium tells of as a load, maybe before the page ran its `hashchange`)
                // sends none, and is read once the page is quiet.
                let state = match self.sent_first_read().await {
                    Some(sent) => sent?,
                    None => self.settled_read(quiet, max, bound).await?,
                };
                let failed = if state.route.starts_with("chrome-error:") {
                    self.here().tab.failed_load().await.unwrap_or((None, None))
                } else {
                    (None, None)
                };
                match left_the_app(&state.route, &shown, failed) {
                    Some(error) => Err(error),
                    None => Ok(Landed::Read {
                        state: Box::new(state),
                        changes: None,
                        download,
                    }),
                }
            }
            // Still changing at the settle's bound: the page's time.
            _ => Err({
                self.timed_settle(in_page.0, in_page.1);
                ToolError::new(
                    ErrorCode::Timeout,
                    format!(
                        "the page was still changing {max} ms after {} `{}`",
                        act.verb(),
                        quoted(&shown)
                    ),
                )
            }),
        }
    }
}

impl<T: Tab> Tools<T> {
    /// The page read once it is quiet, after a load an action led to that brought no new
    /// document's read (see `sent_first_read`). Chromium tells of a same-document navigation
    /// (a link to `#/active`) as a load as well, and may tell of it before the page has run
    /// its `hashchange`, where a hash-routed app draws the route: a read at once would show
    /// the screen before. The settle waits for it (see `quietWatch`). A page that does not
    /// settle is read as it is.
    async fn settled_read(
        &self,
        quiet: u64,
        max: u64,
        bound: Duration,
    ) -> Result<InferredState, ToolError> {
        let start = Instant::now();
        let args = json!({"quiet_ms": quiet, "max_ms": max, "max": self.options.max_controls,
                "since": self.held_token(), "evidence": self.evidence()});
        if let Ok(answer) = self.collect_as("settle", &args, bound, false).await
            && let Ok(Settled {
                state,
                read: Some(read),
                page_ms,
                quiet_ms,
                ..
            }) = parse_answer::<Settled>(answer)
            && state == "quiet"
        {
            self.timed_settle(page_ms, quiet_ms);
            return self
                .conclude(read, start, &self.view(), true)
                .await
                .map(|(state, _)| state);
        }
        self.read().await
    }
}

/// Where an action ended: the page read once settled, or a press that did not reach its
/// target, stopped in the page before the page saw it (see `aimHits` in
/// `collector/js/10-act.js`).
pub(super) enum Landed {
    Read {
        state: Box<InferredState>,
        changes: Option<Changes>,
        /// The page asked for a download (see `take_downloads`).
        download: bool,
    },
    /// What the press reached instead, and whether the target had moved since it was aimed
    /// at.
    Missed { hit: String, moved: bool },
}

/// The error of a press that kept missing its target until the action timeout: it moved
/// away under the press (`not_stable`), or something else took it (`obscured`).
fn missed(target: &TargetRef, p: &Prepared, hit: &str, moved: bool, start: Instant) -> ToolError {
    let shown = target.to_string();
    let named = match &p.label {
        Some(l) if !l.is_empty() => format!("`{}` (\"{}\")", quoted(&shown), quoted(l)),
        _ => format!("`{}`", quoted(&shown)),
    };
    let waited = start.elapsed().as_millis();
    if moved {
        ToolError::new(
            ErrorCode::NotStable,
            format!(
                "after trying for {waited} ms, {named} moved under the press: it reached {hit} instead"
            ),
        )
    } else {
        ToolError::new(
            ErrorCode::Obscured,
            format!(
                "after trying for {waited} ms, {named} is present but the press at its centre reached {hit} instead"
            ),
        )
    }
}

/// The error of an action that took the tab off the app: to another origin (`route` is
/// then the whole URL: see `route_of`), or to Chromium's error page when the page it led to
/// could not be loaded. `None` while the tab is on the app.
fn left_the_app(
    route: &str,
    shown: &str,
    (url, code): (Option<String>, Option<String>),
) -> Option<ToolError> {
    if route.starts_with('/') {
        return None;
    }
    let error = if route.starts_with("chrome-error:") {
        let to = url.map_or_else(String::new, |u| format!(", `{}`,", quoted(&u)));
        let why = code.map_or_else(
            || "Chromium shows its error page".to_string(),
            |c| format!("{c} (Chromium shows its error page)"),
        );
        ToolError::new(
            ErrorCode::NavigationFailed,
            format!(
                "the page `{}` led to{to} could not be loaded: {why}",
                quoted(shown)
            ),
        )
    } else {
        ToolError::new(
            ErrorCode::OffOrigin,
            format!(
                "`{}` led off the app, to `{}`; journeys stay on the app's origin",
                quoted(shown),
                quoted(route)
            ),
        )
    };
    Some(error.attributed(Attribution::App))
}

pub(super) fn parse_target(target: &str, key: Option<&str>) -> Result<AnchorRef, ToolError> {
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
