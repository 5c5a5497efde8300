//! The browser: the only module that speaks CDP.
//!
//! Everything above it sees a [`Tab`]: the handful of calls a journey needs (evaluate one
//! expression, navigate, press the mouse at a point, press a key, insert text, wait for a
//! load). The implementation today is [`Chromium`] over `chromiumoxide`; a thin CDP client
//! of our own could replace it without touching anything else.

mod accessibility;
mod camera;
mod chromium;
mod clock;
mod commands;
mod console;
mod context_settings;
mod convert;
mod device;
mod dialogs;
mod files;
mod frames;
pub mod har;
mod input;
mod keyboard;
mod launch;
mod naive;
mod navigation;
mod network;
mod popups;
mod pushes;
mod remote;
mod routes;
mod setup;
mod sheets;
mod storage;
mod tap;
mod traffic;
mod wire;

use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::protocol::ScreenshotSource;

pub use crate::screen::audit::AxView;
pub use camera::TabCamera;
pub use chromium::{Chromium, ChromiumTab};
pub use console::{CONSOLE_KEPT, ConsoleMessage, PageError, PageLog};
pub use context_settings::{
    ContextChange, ContextSettings, Credentials, ExtraHeaders, Geolocation, SECRET_MIN_CHARS,
};
pub use device::{ColorScheme, DEVICES, Device};
pub use dialogs::{AnsweredDialog, DialogAnswer};
pub use files::Download;
pub use input::{Button, Click, Modifier, parse_chord};
pub use launch::{
    LaunchOptions, find_browser, is_headless_shell, kill_launched_browsers,
    put_down_launched_browsers,
};
pub use naive::NaiveElement;
pub use network::{NetworkConditions, NetworkPreset, Throttle};
pub use remote::{Remote, end_leases};
pub(crate) use remote::{Unanswered, exchange};
pub use routes::{Abort, Reply, Route, RouteBook, Routed};
pub use traffic::{Exchange, TrafficLog};

/// Whether `name` is a key [`Tab::press_key`] can press.
pub fn is_known_key(name: &str) -> bool {
    input::parse_chord(name).is_some()
}

/// One browser tab, as the tools drive it.
pub trait Tab: Send + Sync + 'static {
    /// A subscription to the next document load, taken *before* an action that may navigate.
    type LoadWatch: Send;

    /// Evaluates `expression` in the page (returning by value, awaiting a promise) and
    /// returns the string it produced. Bounded by `timeout`.
    fn evaluate(
        &self,
        expression: &str,
        timeout: Duration,
    ) -> impl Future<Output = Result<String, BrowserError>> + Send;

    /// [`evaluate`](Tab::evaluate) as a person's gesture: the page gets the transient user
    /// activation real input gives, for a script that types into it (see `fill`).
    fn evaluate_as_user(
        &self,
        expression: &str,
        timeout: Duration,
    ) -> impl Future<Output = Result<String, BrowserError>> + Send {
        self.evaluate(expression, timeout)
    }

    /// Evaluates `source` in every document the tab loads from now on, before the
    /// document's own scripts run.
    fn on_new_document(
        &self,
        source: &str,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;

    /// Evaluates `source` in every document the tab loads from now on, as
    /// [`on_new_document`](Tab::on_new_document) does, in place of the source an earlier call
    /// gave: a call with the source already given does nothing. The collector's early part
    /// (see `tools/first_read.rs`), which a tab opened ahead of its journey is given before
    /// the journey asks.
    fn set_early(&self, source: &str) -> impl Future<Output = Result<(), BrowserError>> + Send {
        self.on_new_document(source)
    }

    /// Gives every document the tab loads from now on a function named `name` on its
    /// window (a CDP binding) that sends the runner one string per call, which the tab
    /// queues for [`pushed`](Tab::pushed) (see `pushes.rs`); a second call with the same
    /// name does nothing. A tab that cannot says so.
    fn allow_pushes(&self, name: &str) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let _ = name;
        async { Err(BrowserError::Protocol("this tab takes no pushes".into())) }
    }

    /// The next string a document pushed (see [`allow_pushes`](Tab::allow_pushes)): one
    /// queued already, else the next to come within `bound` (none after it; with a zero
    /// bound, only one queued already).
    fn pushed(&self, bound: Duration) -> impl Future<Output = Option<String>> + Send {
        let _ = bound;
        async { None }
    }

    /// The next part of a read's records a document pushed with `prefix` (see
    /// `src/tools/parts.rs`), without the prefix: one queued already, else the next to come
    /// within `bound`. Other pushes met on the way stay queued for
    /// [`pushed`](Tab::pushed).
    fn pushed_part(
        &self,
        prefix: &str,
        bound: Duration,
    ) -> impl Future<Output = Option<String>> + Send {
        let _ = (prefix, bound);
        async { None }
    }

    /// Navigates the tab to `url` and waits for the document to load.
    fn navigate(
        &self,
        url: &str,
        timeout: Duration,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;

    /// Presses and releases the left mouse button at viewport point (`x`, `y`), with trusted
    /// input events (move, press, release).
    fn click(&self, x: f64, y: f64) -> impl Future<Output = Result<(), BrowserError>> + Send;

    /// A click at viewport point (`x`, `y`) as `click` says: its button, how many presses in
    /// a row, the modifier keys held.
    fn click_with(
        &self,
        x: f64,
        y: f64,
        click: &Click,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let plain = click.is_plain();
        async move {
            match plain {
                true => self.click(x, y).await,
                false => Err(BrowserError::Protocol(
                    "this tab clicks the left button only".into(),
                )),
            }
        }
    }

    /// Moves the pointer onto viewport point (`x`, `y`) with a trusted move.
    fn hover(&self, x: f64, y: f64) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let _ = (x, y);
        async { Err(BrowserError::Protocol("this tab cannot hover".into())) }
    }

    /// Drags with the left button from one viewport point to another, through HTML5 drag
    /// and drop where the page starts a drag (looked for only when `html5` says it may).
    fn drag(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        html5: bool,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let _ = (from, to, html5);
        async { Err(BrowserError::Protocol("this tab cannot drag".into())) }
    }

    /// Presses viewport point (`x`, `y`) and answers the file chooser it opens with
    /// `files`; `false` when it opened none.
    fn upload(
        &self,
        x: f64,
        y: f64,
        files: &[PathBuf],
    ) -> impl Future<Output = Result<bool, BrowserError>> + Send {
        let _ = (x, y, files);
        async { Err(BrowserError::Protocol("this tab cannot upload".into())) }
    }

    /// The downloads completed since the last call, waiting up to `wait` for those under
    /// way; with `asked` (the page asked for one), for one to begin as well.
    fn downloads(&self, wait: Duration, asked: bool) -> impl Future<Output = Vec<Download>> + Send {
        let _ = (wait, asked);
        async { Vec::new() }
    }

    /// Presses and releases the named key (`Enter`, `Tab`, `Escape`, `ArrowDown`, `a`…) on the
    /// focused element.
    fn press_key(&self, key: &str) -> impl Future<Output = Result<(), BrowserError>> + Send;

    /// Inserts `text` at the caret as one trusted input (no key presses: a newline is text,
    /// never an Enter that could submit a form).
    fn insert_text(&self, text: &str) -> impl Future<Output = Result<(), BrowserError>> + Send;

    /// Subscribes to the top document's loading, *before* an action that may navigate.
    fn watch_load(&self) -> impl Future<Output = Result<Self::LoadWatch, BrowserError>> + Send;

    /// Resolves when the top document has started loading a new document (a navigation
    /// began). Never resolves when none does. While such a navigation is pending, Chromium
    /// holds evaluations until it commits, so callers race this against their evaluate.
    fn navigation_started(&self, watch: &mut Self::LoadWatch) -> impl Future<Output = ()> + Send;

    /// Waits until the top document stopped loading (loaded, or the navigation ended
    /// without a new document), bounded by `timeout`.
    fn wait_load(
        &self,
        watch: Self::LoadWatch,
        timeout: Duration,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send;

    /// Stops a pending navigation (after a load timed out), so the tab is usable again.
    fn stop_loading(&self) -> impl Future<Output = ()> + Send;

    /// What happened in the browser's chrome since the last call: JavaScript dialogs
    /// (answered at once, so a page can never hang the runner), file choosers (intercepted),
    /// and whether the renderer crashed (that one stays set).
    fn take_chrome(&self) -> ChromeEvents;

    /// The tabs this one opened since the last call (popups, `target="_blank"` links),
    /// each ready to drive, waiting up to `wait` for those the page announced that have not
    /// arrived yet; at once when it opened none.
    fn opened(&self, wait: Duration) -> impl Future<Output = Vec<Opened<Self>>> + Send
    where
        Self: Sized,
    {
        let _ = wait;
        async { Vec::new() }
    }

    /// The tab's address and its document's title, asked of the browser where it can (a
    /// page whose script never returns still answers), bounded by `timeout`.
    fn describe(
        &self,
        timeout: Duration,
    ) -> impl Future<Output = Result<(String, String), BrowserError>> + Send {
        async move {
            let json = self
                .evaluate("JSON.stringify([location.href, document.title])", timeout)
                .await?;
            serde_json::from_str(&json).map_err(|e| BrowserError::Script(e.to_string()))
        }
    }

    /// Makes the tab the one its window shows (a tab behind another is hidden: its page
    /// renders no frames and its timers slow down).
    fn bring_to_front(&self) -> impl Future<Output = Result<(), BrowserError>> + Send {
        async { Ok(()) }
    }

    /// Closes the tab in place, as a journey asked (`close_tab`), and waits, up to the tab's
    /// own command timeout, until it is gone ([`is_closed`](Tab::is_closed) then says so).
    fn shut(&self) -> impl Future<Output = Result<(), BrowserError>> + Send {
        async {
            Err(BrowserError::Protocol(
                "this tab cannot be closed in place".into(),
            ))
        }
    }

    /// Tags the element of each frame of another site (an out-of-process iframe) under the
    /// tab not tagged yet with the frame's id, so a read of the document holding it can
    /// name it (see `frames.rs`), within `bound`; how many it tagged.
    fn tag_far_frames(
        &self,
        bound: Duration,
    ) -> impl Future<Output = Result<usize, BrowserError>> + Send {
        let _ = bound;
        async { Ok(0) }
    }

    /// [`evaluate`](Tab::evaluate) in the frame of another site `frame` (an id a read
    /// named), as a user gesture when `gesture`.
    fn evaluate_in_frame(
        &self,
        frame: &str,
        expression: &str,
        timeout: Duration,
        gesture: bool,
    ) -> impl Future<Output = Result<String, BrowserError>> + Send {
        let _ = (frame, expression, timeout, gesture);
        async {
            Err(BrowserError::Protocol(
                "this tab has no frames of another site".into(),
            ))
        }
    }

    /// Where the content box of the frame of another site `frame` starts in the top
    /// page's viewport now: what turns a point in the frame into one trusted input aims at.
    fn frame_origin(
        &self,
        frame: &str,
        timeout: Duration,
    ) -> impl Future<Output = Result<(f64, f64), BrowserError>> + Send {
        let _ = (frame, timeout);
        async {
            Err(BrowserError::Protocol(
                "this tab has no frames of another site".into(),
            ))
        }
    }

    /// Whether the tab is gone: its page closed it (`window.close()`), or the browser did.
    fn is_closed(&self) -> bool {
        false
    }

    /// Whether the tab's browser answers a trivial command (`Browser.getVersion`) within
    /// `bound`: a browser process stopped or stuck keeps its connection open and answers
    /// nothing, one gone answers nothing either.
    fn browser_answers(&self, bound: Duration) -> impl Future<Output = bool> + Send {
        let _ = bound;
        async { true }
    }

    /// Whether the tab's renderer crashed (it stays so).
    fn renderer_crashed(&self) -> bool {
        false
    }

    /// How many JavaScript dialogs the tab has answered since it opened (never reset: a
    /// call compares it before and after, to tell a page that loops on dialogs).
    fn dialogs_answered(&self) -> u64 {
        0
    }

    /// Answers the JavaScript dialogs the tab's pages open from now on as `answer` says
    /// (they are accepted until told otherwise).
    fn answer_dialogs(&self, answer: &DialogAnswer) {
        let _ = answer;
    }

    /// The JavaScript dialogs answered since this was last asked (the first 20).
    fn take_answered(&self) -> Vec<AnsweredDialog> {
        Vec::new()
    }

    /// The console errors and warnings, and the uncaught errors, of the tab's pages since
    /// this was last asked.
    fn take_console(&self) -> PageLog {
        PageLog::default()
    }

    /// Chromium's accessibility view of the elements `elements` evaluates to (a JavaScript
    /// expression giving an array), in order: `None` where an entry is not an element.
    /// Batched and bounded by `timeout` as a whole. A tab without an accessibility tree
    /// says so with an error.
    fn accessibility(
        &self,
        elements: &str,
        timeout: Duration,
    ) -> impl Future<Output = Result<Vec<Option<AxView>>, BrowserError>> + Send {
        let _ = (elements, timeout);
        async {
            Err(BrowserError::Protocol(
                "this tab offers no accessibility tree".into(),
            ))
        }
    }

    /// What the style sheets the document loaded from `urls` hold, for the sheets of another
    /// origin, whose rules the page cannot read: the browser's own copies of their text
    /// (never fetched again), by address, go to `program`, which makes the expression that
    /// works it out, and that runs in a world of its own beside the page's, whose scripts can
    /// neither see the text nor change what the expression runs on. Its string, or `None`
    /// when the browser holds none of the sheets or the expression fails. A `'static`
    /// future, so it can run beside the tab's other work; bounded by the tab's own command
    /// timeout at each step.
    fn style_sheet_facts(
        &self,
        urls: &[String],
        program: impl FnOnce(&[(String, String)]) -> String + Send + 'static,
    ) -> impl Future<Output = Option<String>> + Send + 'static {
        let _ = (urls, program);
        async { None }
    }

    /// On Chromium's error page: the address that failed to load and the network error,
    /// as far as known.
    fn failed_load(
        &self,
    ) -> impl Future<Output = Result<(Option<String>, Option<String>), BrowserError>> + Send {
        async { Ok((None, None)) }
    }

    /// The cookies the tab's page and frames are sent (for `waymark state save`).
    fn cookies(
        &self,
    ) -> impl Future<Output = Result<Vec<crate::protocol::Cookie>, BrowserError>> + Send {
        async {
            Err(BrowserError::Protocol(
                "this tab cannot tell its cookies".into(),
            ))
        }
    }

    /// A PNG of what the tab shows now (its viewport), bounded by the tab's own command
    /// timeout. For the person watching on the control page; never shown to a journey.
    fn screenshot(&self) -> impl Future<Output = Result<Vec<u8>, BrowserError>> + Send {
        async {
            Err(BrowserError::Protocol(
                "this tab cannot take screenshots".into(),
            ))
        }
    }

    /// Routes the tab's requests by `book` as it stands now (see [`RouteBook`]): called
    /// again after each change to it.
    fn route(
        &self,
        book: &Arc<RouteBook>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let _ = book;
        async {
            Err(BrowserError::Protocol(
                "this tab cannot route requests".into(),
            ))
        }
    }

    /// Changes the network the tab's pages see: `offline` when given, the throttle when
    /// given (`Some(None)`: none); the other part stays as it was.
    fn emulate_network(
        &self,
        offline: Option<bool>,
        throttle: Option<Option<Throttle>>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let _ = (offline, throttle);
        async {
            Err(BrowserError::Protocol(
                "this tab cannot change its network".into(),
            ))
        }
    }

    /// Makes a change to the settings of the journey's context in this tab (its headers,
    /// its geolocation), or in its whole context (permissions).
    fn change_context(
        &self,
        change: &ContextChange,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let _ = change;
        async {
            Err(BrowserError::Protocol(
                "this tab cannot change its context's settings".into(),
            ))
        }
    }

    /// The log of the requests the tab's pages made (see [`TrafficLog`]); `None` for a tab
    /// that keeps none.
    fn traffic(&self) -> Option<Arc<TrafficLog>> {
        None
    }

    /// The body of the request `id` of its [`traffic`](Tab::traffic) as text: its
    /// response's when `response`, else what it sent. `None` when the browser keeps none or
    /// it is not text.
    fn body(
        &self,
        id: &str,
        response: bool,
    ) -> impl Future<Output = Result<Option<String>, BrowserError>> + Send {
        let _ = (id, response);
        async { Ok(None) }
    }

    /// Records the traffic of the tab's pages in `recorder` from now on (`--har record`).
    fn record_har(
        &self,
        recorder: &Arc<har::HarRecorder>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let _ = recorder;
        async {
            Err(BrowserError::Protocol(
                "this tab cannot record its traffic".into(),
            ))
        }
    }

    /// Makes `source` the clock script of every document the tab loads from now on, before
    /// the document's own scripts, in place of the one set before (see `tools::clock`).
    /// It does not run it in the document on screen.
    fn set_clock(&self, source: &str) -> impl Future<Output = Result<(), BrowserError>> + Send {
        let _ = source;
        async {
            Err(BrowserError::Protocol(
                "this tab cannot install a clock".into(),
            ))
        }
    }

    /// Closes the tab.
    fn close(self) -> impl Future<Output = ()> + Send
    where
        Self: Sized;
}

/// A tab another tab opened.
pub struct Opened<T> {
    /// The new tab, ready to drive.
    pub tab: T,
    /// The address it was opened at (its page may still be loading it).
    pub url: String,
}

/// Events of the browser's own chrome, outside the page's DOM.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChromeEvents {
    /// JavaScript dialogs answered, as (kind, message): `alert`, `confirm`, `prompt`,
    /// `beforeunload`; the first 20 since the last read (a page that loops on dialogs is
    /// counted by [`Tab::dialogs_answered`], not kept).
    pub dialogs: Vec<(String, String)>,
    /// The tab's renderer crashed.
    pub crashed: bool,
    /// File choosers the page opened (intercepted: none was shown).
    pub file_choosers: usize,
}

/// What went wrong in the browser layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    /// No browser executable could be found.
    #[error(
        "no Chromium found: looked for {looked_for}; install Debian's packages with `apt-get install chromium chromium-headless-shell`, or pass `--browser PATH`"
    )]
    NotFound {
        /// What was looked for, in words.
        looked_for: String,
    },
    /// The browser process could not be started or connected to.
    #[error("could not start `{path}`: {reason}")]
    Launch {
        /// The executable.
        path: String,
        /// Why, in the browser's or the OS's words.
        reason: String,
    },
    /// A browser elsewhere (`--cdp-endpoint`, `--webdriver-url`) could not be reached or
    /// would not start.
    #[error("could not get a browser from `{endpoint}`: {reason}")]
    Remote {
        /// The endpoint or server, as given.
        endpoint: String,
        /// Why, in the server's or the network's words.
        reason: String,
    },
    /// A CDP command or a wait did not finish in time.
    #[error("{what} did not finish within {} ms", after.as_millis())]
    Timeout {
        /// What was being waited for.
        what: String,
        /// The bound that passed.
        after: Duration,
    },
    /// The document the expression ran in went away (the page navigated).
    #[error("the page navigated while a script was running in it")]
    ContextLost,
    /// The page's script threw.
    #[error("the in-page script threw: {0}")]
    Script(String),
    /// The navigation itself failed (DNS, connection refused, aborted…).
    #[error("navigation failed: {0}")]
    Navigation(String),
    /// The renderer or the browser process is gone: why, in words.
    #[error("{0}")]
    Crashed(String),
    /// Any other protocol failure.
    #[error("browser protocol error: {0}")]
    Protocol(String),
}

impl BrowserError {
    /// The browser's process or its connection ended under a call.
    pub(crate) fn browser_gone() -> BrowserError {
        BrowserError::Crashed("the browser went away (killed or crashed)".into())
    }
}

/// A [`ScreenshotSource`] over a tab held weakly: once the tab is gone, it says so.
pub fn screenshot_source<T: Tab + 'static>(tab: Weak<T>) -> ScreenshotSource {
    Arc::new(move || {
        let tab = tab.clone();
        Box::pin(async move {
            let tab = tab.upgrade().ok_or("the tab is closed")?;
            tab.screenshot().await.map_err(|e| e.to_string())
        })
    })
}

/// A [`ScreenshotSource`] over a Chromium tab's camera (see [`ChromiumTab::camera`]): it
/// does not keep the tab open.
///
/// [`ChromiumTab::camera`]: ChromiumTab::camera
pub fn camera_source(camera: TabCamera) -> ScreenshotSource {
    Arc::new(move || {
        let camera = camera.clone();
        Box::pin(async move { camera.screenshot().await.map_err(|e| e.to_string()) })
    })
}

/// Whether `target` names another fragment of the document at `current` (a same-document
/// navigation: a hash-routed app's next screen).
pub(crate) fn same_document(current: &str, target: &str) -> bool {
    let (Ok(mut current), Ok(mut target)) = (url::Url::parse(current), url::Url::parse(target))
    else {
        return false;
    };
    if target.fragment().is_none() {
        return false;
    }
    current.set_fragment(None);
    target.set_fragment(None);
    current == target
}

/// The script that moves a document to its fragment `url` and answers once the page has
/// heard of it: after its `hashchange` listeners (a hash-routed app draws its next screen
/// there), or at once when the fragment did not change (no event comes), and after 500 ms
/// at most.
pub(crate) fn fragment_navigation(url: &str) -> Result<String, BrowserError> {
    let target = serde_json::to_string(url).map_err(|e| BrowserError::Script(e.to_string()))?;
    Ok(format!(
        "new Promise(function (done) {{ \
           var finish = function () {{ removeEventListener('hashchange', finish); \
             setTimeout(function () {{ done('ok'); }}, 0); }}; \
           addEventListener('hashchange', finish); \
           var before = location.href; location.href = {target}; \
           if (location.href === before) finish(); \
           setTimeout(finish, 500); }})"
    ))
}

#[cfg(test)]
mod tests {
    use super::same_document;

    #[test]
    fn only_a_fragment_of_the_same_document_is_a_same_document_navigation() {
        assert!(same_document("http://a/app", "http://a/app#/active"));
        assert!(same_document("http://a/app#/x", "http://a/app#/y"));
        assert!(!same_document("http://a/app#/x", "http://a/app"));
        assert!(!same_document("http://a/app?q=1", "http://a/app#/y"));
        assert!(!same_document("http://a/other", "http://a/app#/y"));
    }
}
