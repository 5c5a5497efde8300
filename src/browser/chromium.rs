//! [`Tab`] over `chromiumoxide`, with the guards its issue tracker taught us.
//!
//! - The handler loop logs an event it cannot parse and keeps going (newer Chromium sends
//!   events that older protocol types cannot parse); it stops only when the connection is gone.
//! - Every command runs under a `tokio::time::timeout` of ours, the bound of the step it
//!   serves, which names what timed out and the CDP method; chromiumoxide's own
//!   `request_timeout` lies past all of them ([`BACKSTOP`]), and when it passes first all
//!   the same it is that timeout, never a browser gone.
//! - Only raw `execute` of typed CDP parameters (`Runtime.evaluate`, `Input.*`,
//!   screenshots, cookies, …): no element helpers, no string-guessing
//!   `evaluate(&str)`. (The accessibility queries of
//!   `accessibility.rs` are raw JSON commands of their own.) Not even `Page.navigate`,
//!   which chromiumoxide answers only once its own watcher saw the page load, and that
//!   watcher misses loads: it goes on a connection of waymark's own (`wire.rs`), and the
//!   load is read off the tab's events (`navigation.rs`).
//! - A fresh `user_data_dir` per run (its default directory is shared between runs).
//! - `close()` and wait, then make sure the child process is gone.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::input::InsertTextParams;
use chromiumoxide::cdp::browser_protocol::network::RequestId;
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, EventFrameStartedLoading, EventFrameStoppedLoading,
    FrameId,
};
use chromiumoxide::cdp::browser_protocol::storage::SetCookiesParams;
use chromiumoxide::cdp::browser_protocol::target::{
    CloseTargetParams, CreateBrowserContextParams, CreateTargetParams,
};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::handler::HandlerConfig;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::listeners::EventStream;
use chromiumoxide::{Browser, Page};
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::camera::TabCamera;
use super::commands::{BACKSTOP, Commands, bounded};
use super::convert::cookie_param;
use super::launch::{self, LaunchOptions};
use super::popups::Family;
use super::remote;
use super::{BrowserError, ChromeEvents, Tab};
use crate::protocol::Cookie;

/// A Chromium process owned by this run.
pub struct Chromium {
    // Shared (weakly) with its tabs, which make the tabs their pages open (see `popups.rs`).
    pub(super) browser: Arc<Browser>,
    pub(super) handler: JoinHandle<()>,
    pub(super) pid: Option<u32>,
    pub(super) version: String,
    pub(super) options: LaunchOptions,
    // A launched browser's profile (removed by its thread once it exited); for a remote
    // browser, only where its downloads go (a browser on this machine: a CDP endpoint's, a
    // local Grid's), removed when dropped.
    pub(super) files: Option<launch::Files>,
    // The WebDriver session the browser is of, ended when it closes.
    pub(super) lease: Option<remote::Lease>,
}

impl Chromium {
    /// Starts the browser: headless unless `options.headed`, in a fresh profile directory;
    /// or, with `options.remote`, gets one from elsewhere (see [`Remote`]).
    pub async fn launch(options: LaunchOptions) -> Result<Chromium, BrowserError> {
        if let Some(remote) = options.remote.clone() {
            return Chromium::connect(&remote, options).await;
        }
        let executable = launch::find_browser(options.executable.as_deref(), options.headed)?;
        let launch_error = |reason: String| BrowserError::Launch {
            path: executable.display().to_string(),
            reason,
        };
        let profile = tempfile::Builder::new()
            .prefix("waymark-profile-")
            .tempdir()
            .map_err(|e| launch_error(format!("cannot create a profile directory: {e}")))?;
        let args = launch::switches(&options, &executable, profile.path());
        let spawned = launch::spawn(&executable, args, profile, options.launch_timeout)
            .await
            .map_err(|failed| match failed.killed {
                // Not a browser that cannot start: one that was killed while it did.
                true => BrowserError::Crashed(format!(
                    "`{}` was killed while it started: {}",
                    executable.display(),
                    failed.reason
                )),
                false => launch_error(failed.reason),
            })?;
        let (width, height) = options.viewport;
        let config = HandlerConfig {
            viewport: (!options.headed).then(|| Viewport {
                width,
                height,
                device_scale_factor: Some(options.device_scale),
                emulating_mobile: options.mobile,
                ..Viewport::default()
            }),
            request_timeout: BACKSTOP,
            ..HandlerConfig::default()
        };
        let connected = tokio::time::timeout(
            options.launch_timeout,
            Browser::connect_with_config(&spawned.ws, config),
        )
        .await;
        let (browser, handler) = match connected {
            Ok(Ok(connected)) => connected,
            failed => {
                let (pid, files) = (spawned.pid, spawned.files);
                let _ = tokio::task::spawn_blocking(move || {
                    launch::put_down(pid, Some(&files));
                })
                .await;
                return Err(launch_error(match failed {
                    Ok(Err(e)) => format!("cannot connect to {}: {e}", spawned.ws),
                    _ => format!(
                        "no connection to {} within {} ms",
                        spawned.ws,
                        options.launch_timeout.as_millis()
                    ),
                }));
            }
        };
        Ok(Chromium::assemble(
            browser,
            handler,
            Some(spawned.pid),
            options,
            Some(spawned.files),
            None,
        )
        .await)
    }

    /// The browser's product and version, e.g. `Chrome/156.0.8078.114`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Whether the browser is still there: its connection open and its process running.
    pub fn is_connected(&self) -> bool {
        !self.handler.is_finished() && self.pid.is_none_or(launch::running)
    }

    /// Whether the browser answers a trivial command within `bound`: a browser process
    /// stopped or stuck keeps its connection open and answers nothing.
    pub async fn answers(&self, bound: Duration) -> bool {
        answers(&self.browser, bound).await
    }

    /// Kills the browser's process now (one this run launched; a remote one is only let
    /// go when dropped).
    pub fn kill(&self) {
        if let Some(pid) = self.pid {
            launch::kill(pid);
        }
    }

    /// The browser's process, when this run launched it.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Opens a tab in a browser context of its own (its own cookies and storage).
    pub async fn new_tab(&self) -> Result<ChromiumTab, BrowserError> {
        self.new_tab_with_cookies(&[]).await
    }

    /// Opens a tab in a browser context of its own that starts with `cookies` (a profile's),
    /// set before the tab opens, so its first request already carries them. Their values go
    /// to Chromium in that one command and nowhere else; an error names no value.
    pub async fn new_tab_with_cookies(
        &self,
        cookies: &[Cookie],
    ) -> Result<ChromiumTab, BrowserError> {
        let timeout = self.options.command_timeout;
        let context: BrowserContextId = bounded(
            timeout,
            "creating a browser context",
            // Disposed, with its tabs, when this connection ends, however it ends: a
            // browser at a CDP endpoint keeps nothing of a waymark killed mid-journey.
            self.browser
                .create_browser_context(CreateBrowserContextParams {
                    dispose_on_detach: Some(true),
                    ..CreateBrowserContextParams::default()
                }),
        )
        .await?;
        if !cookies.is_empty() {
            let mut params = SetCookiesParams::new(cookies.iter().map(cookie_param).collect());
            params.browser_context_id = Some(context.clone());
            // Chromium's refusal ("Invalid cookie fields") names no value; the command's
            // own text (values included) is not part of the error.
            self.browser
                .command(timeout, "setting the profile's cookies", params)
                .await
                .map_err(|e| match e {
                    BrowserError::Protocol(why) => BrowserError::Protocol(format!(
                        "Chromium refused the profile's {} cookies: {why}",
                        cookies.len()
                    )),
                    other => other,
                })?;
        }
        let params = CreateTargetParams::builder()
            .url("about:blank")
            .browser_context_id(context.clone())
            .build()
            .map_err(BrowserError::Protocol)?;
        let page = bounded(timeout, "opening a tab", self.browser.new_page(params)).await?;
        let root = self
            .files
            .as_ref()
            .map_or_else(std::env::temp_dir, |f| f.path().to_path_buf());
        let downloads = root.join("downloads").join(context.inner());
        let family = (context, downloads);
        let address = self.browser.websocket_address().clone();
        let mut tab = ChromiumTab::new((page, address), &self.options, family.clone()).await?;
        let family = (family, true);
        tab.family = Some(Family::watch(&tab.page, &self.browser, &self.options, family).await?);
        Ok(tab)
    }

    /// Closes the browser: one this run launched is killed with every process of its group,
    /// and its profile removed once it is gone. A WebDriver session is ended (its server closes
    /// the browser); a browser at a CDP endpoint is only let go: it is not this run's to
    /// close.
    ///
    /// Not `Browser.close`: Chromium's orderly shutdown writes the profile back (cookies,
    /// caches, the session), which is a temporary folder removed right after, and it took
    /// 40-50 ms after its answer before the process exited, at the end of every run
    /// (README.md, "The suite").
    pub async fn close(mut self) {
        if let Some(lease) = self.lease.take() {
            lease.end(Duration::from_secs(5)).await;
        }
        if let Some(pid) = self.pid.take() {
            // The thread that started it reaps it and removes its profile (see
            // `launch::spawn`).
            let files = self.files.take();
            let _ = tokio::task::spawn_blocking(move || {
                launch::put_down(pid, files.as_ref());
            })
            .await;
        }
        self.handler.abort();
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        // `close` takes the pid; reaching here with one means an early exit or a panic.
        if let Some(pid) = self.pid.take() {
            launch::put_down(pid, self.files.as_ref());
        }
        self.handler.abort();
    }
}

/// One tab of a [`Chromium`].
pub struct ChromiumTab {
    pub(super) page: Page,
    pub(super) main_frame: Option<FrameId>,
    pub(super) timeout: Duration,
    chrome: super::setup::Chrome,
    /// JavaScript dialogs answered since the tab opened.
    answered: Arc<AtomicU64>,
    /// How dialogs are answered, and those answered since the last call.
    dialog_book: Arc<super::dialogs::DialogBook>,
    /// The console's errors and warnings, and uncaught errors, since the last call.
    console: super::console::ConsoleBook,
    /// The request that brought each style sheet, by address (see `style_sheet_facts`).
    pub(super) sheets: Arc<Mutex<HashMap<String, RequestId>>>,
    /// Where the last click left the pointer, in a headless browser (in a headed one a
    /// person may have moved it since): `None` before one, or after one failed.
    pub(super) pointer: Mutex<Option<(f64, f64)>>,
    pub(super) headed: bool,
    /// The downloads the page started (see `files.rs`).
    pub(super) downloads: super::files::Downloads,
    /// The tabs it opened, and its own end (see `popups.rs`).
    pub(super) family: Option<Family>,
    /// The network error of the last document that failed to load (see `setup.rs`).
    pub(super) load_error: Arc<Mutex<Option<String>>>,
    /// The browser's websocket address, and the connection and session of waymark's own
    /// that navigate the tab (see `wire.rs`), made at its first navigation.
    pub(super) address: String,
    pub(super) navigator: tokio::sync::OnceCell<(Arc<super::wire::Wire>, String)>,
    /// What answers its routed requests and authentication challenges (see `routes.rs`).
    router: super::routes::Router,
    /// The run's extra headers (`--header`), under a journey's own.
    headers: super::ExtraHeaders,
    /// The run's credentials, and the answers to challenges (see `context_settings.rs`).
    pub(super) challenges: (
        Option<super::Credentials>,
        super::context_settings::Challenges,
    ),
    /// The network its pages see now.
    network: tokio::sync::Mutex<super::NetworkConditions>,
    /// The requests its pages made (see `traffic.rs`).
    traffic: Arc<super::TrafficLog>,
    /// The clock script its new documents get, once a journey installed a clock (see
    /// `clock.rs`).
    pub(super) clock_script: tokio::sync::Mutex<Option<String>>,
    watchers: Vec<JoinHandle<()>>,
    /// The frames of another site under it that it tagged (see `frames.rs`).
    pub(super) far_frames: tokio::sync::Mutex<super::frames::FarFrames>,
    /// What its documents push to the runner (see `pushes.rs`).
    pub(super) pushes: super::pushes::Pushes,
    /// The collector's early part its new documents get (see [`Tab::set_early`]).
    early: super::pushes::Early,
}

impl ChromiumTab {
    pub(super) async fn new(
        (page, address): (Page, String),
        options: &LaunchOptions,
        (context, downloads): (BrowserContextId, std::path::PathBuf),
    ) -> Result<ChromiumTab, BrowserError> {
        let set = super::setup::set_up(&page, options, (context, downloads)).await?;
        let tab = ChromiumTab {
            page,
            main_frame: set.main_frame,
            timeout: options.command_timeout,
            chrome: set.chrome,
            answered: set.answered,
            dialog_book: set.dialog_book,
            console: set.console,
            sheets: set.sheets,
            pointer: Mutex::new(None),
            headed: options.headed,
            downloads: set.downloads,
            family: None,
            load_error: set.load_error,
            address,
            navigator: tokio::sync::OnceCell::new(),
            router: super::routes::Router::default(),
            headers: options.context.headers.clone(),
            challenges: (options.context.credentials.clone(), Default::default()),
            network: tokio::sync::Mutex::new(options.network),
            traffic: set.traffic,
            clock_script: tokio::sync::Mutex::new(None),
            watchers: set.watchers,
            far_frames: tokio::sync::Mutex::default(),
            pushes: super::pushes::Pushes::default(),
            early: super::pushes::Early::default(),
        };
        // The run's credentials answer challenges from the first request on.
        if tab.challenges.0.is_some() {
            tab.route(&Arc::default()).await?;
        }
        Ok(tab)
    }
}

impl ChromiumTab {
    pub(super) fn page_and_timeout(&self) -> (&Page, Duration) {
        (&self.page, self.timeout)
    }

    /// After a gesture other than a click the pointer is not where the last click left it.
    pub(super) fn forget_pointer(&self) {
        if let Ok(mut pointer) = self.pointer.lock() {
            *pointer = None;
        }
    }

    /// The naive per-element read, for the benches' contrast only (see `naive.rs`): the
    /// first `limit` elements matching `selector`, three CDP commands per element.
    pub async fn naive_read(
        &self,
        selector: &str,
        limit: usize,
    ) -> Result<Vec<super::NaiveElement>, BrowserError> {
        super::naive::read(&self.page, selector, limit, self.timeout).await
    }

    /// A handle that takes screenshots of this tab without owning it (for the control
    /// page, while the journey's tools own the tab); once the tab is closed it errors.
    pub fn camera(&self) -> TabCamera {
        TabCamera {
            page: self.page.clone(),
            timeout: self.timeout,
        }
    }
}

impl Drop for ChromiumTab {
    fn drop(&mut self) {
        for watcher in &self.watchers {
            watcher.abort();
        }
    }
}

/// Loading events of one tab, subscribed to before an action (after the read that
/// preceded it, so no event of an earlier load is still on its way).
pub struct LoadWatch {
    started: EventStream<EventFrameStartedLoading>,
    stopped: EventStream<EventFrameStoppedLoading>,
    pub(super) main_frame: Option<FrameId>,
}

impl LoadWatch {
    fn is_main(&self, frame: &FrameId) -> bool {
        self.main_frame.as_ref().is_none_or(|m| m == frame)
    }
}

/// Whether `browser` answers a trivial command (`Browser.getVersion`) within `bound`.
pub(super) async fn answers(browser: &Browser, bound: Duration) -> bool {
    matches!(
        tokio::time::timeout(bound, browser.version()).await,
        Ok(Ok(_))
    )
}

impl ChromiumTab {
    /// `Tab::evaluate`, as a user gesture when `gesture`.
    async fn evaluate_with(
        &self,
        expression: &str,
        timeout: Duration,
        gesture: bool,
    ) -> Result<String, BrowserError> {
        let mut params = EvaluateParams::new(expression);
        params.return_by_value = Some(true);
        params.await_promise = Some(true);
        params.user_gesture = gesture.then_some(true);
        self.while_open(super::commands::evaluate_in(&self.page, params, timeout))
            .await
    }
}

impl Tab for ChromiumTab {
    type LoadWatch = LoadWatch;

    async fn tag_far_frames(&self, bound: Duration) -> Result<usize, BrowserError> {
        ChromiumTab::tag_far_frames(self, bound).await
    }

    async fn evaluate_in_frame(
        &self,
        frame: &str,
        expression: &str,
        timeout: Duration,
        gesture: bool,
    ) -> Result<String, BrowserError> {
        self.evaluate_in_far_frame(frame, expression, timeout, gesture)
            .await
    }

    async fn frame_origin(
        &self,
        frame: &str,
        timeout: Duration,
    ) -> Result<(f64, f64), BrowserError> {
        self.far_frame_origin(frame, timeout).await
    }

    async fn evaluate(&self, expression: &str, timeout: Duration) -> Result<String, BrowserError> {
        self.evaluate_with(expression, timeout, false).await
    }

    async fn evaluate_as_user(
        &self,
        expression: &str,
        timeout: Duration,
    ) -> Result<String, BrowserError> {
        self.evaluate_with(expression, timeout, true).await
    }

    async fn on_new_document(&self, source: &str) -> Result<(), BrowserError> {
        self.page
            .command(
                self.timeout,
                "installing a script for new documents",
                AddScriptToEvaluateOnNewDocumentParams::new(source),
            )
            .await?;
        Ok(())
    }

    async fn set_early(&self, source: &str) -> Result<(), BrowserError> {
        self.early.set(&self.page, source, self.timeout).await
    }

    async fn allow_pushes(&self, name: &str) -> Result<(), BrowserError> {
        self.pushes.allow(&self.page, name, self.timeout).await
    }

    async fn pushed(&self, bound: Duration) -> Option<String> {
        self.pushes.next(bound).await
    }

    async fn pushed_part(&self, prefix: &str, bound: Duration) -> Option<String> {
        self.pushes.part(prefix, bound).await
    }

    async fn navigate(&self, url: &str, timeout: Duration) -> Result<(), BrowserError> {
        // Another fragment of the document on screen (a hash-routed app's next screen) is a
        // same-document navigation: Chromium loads nothing. The page moves itself there, as
        // a click on a link to it would, and answers once its `hashchange` ran.
        let current = bounded(timeout, "reading the tab's address", self.page.url()).await;
        if let Ok(Some(current)) = current
            && super::same_document(&current, url)
        {
            let script = super::fragment_navigation(url)?;
            self.evaluate_with(&script, timeout, false).await?;
            return Ok(());
        }
        // Boxed: the load's state (its events, the connection it may open) would otherwise
        // sit in every future that navigates, on the stack of the thread that polls it.
        self.while_open(Box::pin(self.load(url, timeout))).await
    }

    async fn click(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.left_click(x, y).await
    }

    async fn press_key(&self, key: &str) -> Result<(), BrowserError> {
        self.press_named_key(key).await
    }

    async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        self.while_open(self.page.command(
            self.timeout,
            "inserting text",
            InsertTextParams::new(text),
        ))
        .await?;
        Ok(())
    }

    async fn watch_load(&self) -> Result<LoadWatch, BrowserError> {
        let what = "subscribing to page loads";
        // The end first: each subscription is a trip to the connection's handler, and a
        // load that started and stopped between them (a hash router's first route, just
        // after the load) was seen to start and never to stop: a 15 s wait.
        let stopped = bounded(self.timeout, what, self.page.event_listener()).await?;
        let started = bounded(self.timeout, what, self.page.event_listener()).await?;
        Ok(LoadWatch {
            started,
            stopped,
            main_frame: self.main_frame.clone(),
        })
    }

    async fn navigation_started(&self, watch: &mut LoadWatch) {
        while let Some(event) = watch.started.next().await {
            if watch.is_main(&event.frame_id) {
                return;
            }
        }
        std::future::pending::<()>().await;
    }

    async fn wait_load(&self, mut watch: LoadWatch, timeout: Duration) -> Result<(), BrowserError> {
        let stopped = async {
            while let Some(event) = watch.stopped.next().await {
                if watch.is_main(&event.frame_id) {
                    return Ok(());
                }
            }
            Err(BrowserError::Crashed(
                "the tab closed (the browser went away)".into(),
            ))
        };
        match tokio::time::timeout(timeout, self.while_open(stopped)).await {
            Ok(result) => result,
            Err(_) => Err(BrowserError::Timeout {
                what: "the next page load".into(),
                after: timeout,
            }),
        }
    }

    async fn stop_loading(&self) {
        let stop = chromiumoxide::cdp::browser_protocol::page::StopLoadingParams::default();
        let _ = tokio::time::timeout(self.timeout, self.page.execute(stop)).await;
    }

    async fn close(self) {
        // Closed by the browser (`Target.closeTarget`), not asked of the page (`Page.close`,
        // which waits on its renderer): a tab whose script never returns closes as quickly.
        let target = CloseTargetParams::new(self.page.target_id().clone());
        let _ = self
            .page
            .command(self.timeout, "closing a tab", target)
            .await;
        if let Some(family) = &self.family {
            family.close_context().await;
        }
    }

    async fn emulate_network(
        &self,
        offline: Option<bool>,
        throttle: Option<Option<super::Throttle>>,
    ) -> Result<(), BrowserError> {
        let mut now = self.network.lock().await;
        let mut next = *now;
        if let Some(offline) = offline {
            next.offline = offline;
        }
        if let Some(throttle) = throttle {
            next.throttle = throttle;
        }
        super::network::emulate(&self.page, next, self.timeout).await?;
        *now = next;
        Ok(())
    }

    async fn route(&self, book: &Arc<super::RouteBook>) -> Result<(), BrowserError> {
        self.answer_challenges(book).await?;
        if book.is_empty() && !self.router.started() {
            return Ok(());
        }
        self.router.apply(&self.page, book, self.timeout).await
    }

    async fn change_context(&self, change: &super::ContextChange) -> Result<(), BrowserError> {
        let browser = self.family.as_ref().and_then(Family::browser);
        let context = self.family.as_ref().map(Family::context_id);
        let at = (browser.as_deref(), context);
        super::context_settings::change(&self.page, at, &self.headers, change, self.timeout).await
    }

    async fn record_har(
        &self,
        recorder: &Arc<super::har::HarRecorder>,
    ) -> Result<(), BrowserError> {
        super::har::record(&self.page, recorder, self.timeout).await
    }

    fn traffic(&self) -> Option<Arc<super::TrafficLog>> {
        Some(Arc::clone(&self.traffic))
    }

    async fn body(&self, id: &str, response: bool) -> Result<Option<String>, BrowserError> {
        match response {
            true => super::traffic::response_body(&self.page, id, self.timeout).await,
            false => super::traffic::request_body(&self.page, id, self.timeout).await,
        }
    }

    async fn set_clock(&self, source: &str) -> Result<(), BrowserError> {
        super::clock::set_clock(self, source).await
    }

    async fn accessibility(
        &self,
        elements: &str,
        timeout: Duration,
    ) -> Result<Vec<Option<super::AxView>>, BrowserError> {
        super::accessibility::views(&self.page, elements, timeout).await
    }

    async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        self.camera().screenshot().await
    }

    async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        self.context_cookies().await
    }

    async fn failed_load(&self) -> Result<(Option<String>, Option<String>), BrowserError> {
        ChromiumTab::failed_load(self).await
    }

    fn style_sheet_facts(
        &self,
        urls: &[String],
        program: impl FnOnce(&[(String, String)]) -> String + Send + 'static,
    ) -> impl Future<Output = Option<String>> + Send + 'static {
        super::sheets::facts(self, urls, program)
    }

    async fn hover(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.hover_at(x, y).await
    }

    async fn click_with(&self, x: f64, y: f64, click: &super::Click) -> Result<(), BrowserError> {
        match click.is_plain() {
            true => self.click(x, y).await,
            false => self.click_pressing(x, y, click).await,
        }
    }

    async fn drag(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        html5: bool,
    ) -> Result<(), BrowserError> {
        self.drag_between(from, to, html5).await
    }

    async fn upload(&self, x: f64, y: f64, files: &[PathBuf]) -> Result<bool, BrowserError> {
        self.upload_at(x, y, files).await
    }

    async fn downloads(&self, wait: Duration, asked: bool) -> Vec<super::Download> {
        super::files::take_downloads(&self.downloads, wait, asked).await
    }

    fn dialogs_answered(&self) -> u64 {
        self.answered.load(Ordering::Relaxed)
    }

    fn answer_dialogs(&self, answer: &super::DialogAnswer) {
        if let Ok(mut how) = self.dialog_book.answer.lock() {
            *how = answer.clone();
        }
    }

    fn take_answered(&self) -> Vec<super::AnsweredDialog> {
        self.dialog_book
            .answered
            .lock()
            .map(|mut log| std::mem::take(&mut *log))
            .unwrap_or_default()
    }

    fn take_console(&self) -> super::PageLog {
        self.console.take()
    }

    async fn browser_answers(&self, bound: Duration) -> bool {
        match &self.family {
            Some(family) => family.browser_answers(bound).await,
            None => false,
        }
    }

    fn renderer_crashed(&self) -> bool {
        self.chrome.crashed()
    }

    async fn opened(&self, wait: Duration) -> Vec<super::Opened<ChromiumTab>> {
        match &self.family {
            Some(family) => family.take(wait).await,
            None => Vec::new(),
        }
    }

    async fn describe(&self, timeout: Duration) -> Result<(String, String), BrowserError> {
        super::popups::describe(&self.page, timeout).await
    }

    async fn bring_to_front(&self) -> Result<(), BrowserError> {
        let front = chromiumoxide::cdp::browser_protocol::page::BringToFrontParams::default();
        self.page
            .command(self.timeout, "bringing a tab to the front", front)
            .await?;
        Ok(())
    }

    fn is_closed(&self) -> bool {
        self.family.as_ref().is_some_and(Family::is_closed)
    }

    async fn shut(&self) -> Result<(), BrowserError> {
        // As `close` does, by the browser; the journey's context stays, with its other tabs.
        let target = CloseTargetParams::new(self.page.target_id().clone());
        self.page
            .command(self.timeout, "closing a tab", target)
            .await?;
        if let Some(family) = &self.family {
            tokio::time::timeout(self.timeout, family.gone())
                .await
                .map_err(|_| BrowserError::Timeout {
                    what: "a closed tab to go".into(),
                    after: self.timeout,
                })?;
        }
        Ok(())
    }

    fn take_chrome(&self) -> ChromeEvents {
        self.chrome.take()
    }
}
