//! A session: what one command puts together before a journey, a read, a bench route or an
//! agent touches a page, and the tabs it opens on it.
//!
//! Every surface (`run`, `read`, `bench`, `mcp`, a replayed transcript, the test harness)
//! builds its run here, in the same order: the registry ([`Session::builder`], before
//! anything else can fail), then ([`SessionBuilder::start`]) the guardrail, the profile's
//! cookies, the hub and its control page, the app; the browser on the first
//! [`Session::browser`] or [`Session::open`]. Each [`Session::open`] is a fresh tab in its
//! own browser context with the profile's cookies, wired to the run's gates (tab control,
//! consent, guardrail), its screenshots on the control page, and its trace when asked: a
//! ready tool surface. A new source of browsers, or a new gate, is added here once.

mod app;
mod error;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

pub use app::App;
pub use error::RunError;

use crate::browser::Tab as _;
use crate::browser::har::{HarRecorder, HarReplay};
use crate::browser::{BrowserError, Chromium, ChromiumTab};
use crate::control::cookies::state::StorageState;
use crate::control::cookies::{Cookie, Profile};
use crate::control::page::{self, ControlPage};
use crate::control::{Asker, Guardrail, Hub, JourneyKind, TabGates, TabId};
use crate::registry::{Registry, RegistryError};
use crate::settings::HarMode;
use crate::settings::Settings;
use crate::tools::trace::{Trace, TraceHeader};
use crate::tools::{Backstage, Gateway, ToolOptions, Tools};

/// One command's run: the app, the browser (once asked for), the registry and the gates
/// every tab it opens shares. Close it with [`Session::close`].
pub struct Session {
    settings: Settings,
    registry: Arc<Registry>,
    guardrail: Option<Arc<Guardrail>>,
    cookies: Vec<Cookie>,
    hub: Arc<Hub>,
    /// Names this run as the owner of its tabs.
    run: String,
    gated: bool,
    app: App,
    _page: Option<ControlPage>,
    /// The script that puts a saved state's storage back (`--state`), if it has any.
    storage: Option<String>,
    /// Each worker's tab opened ahead for its next journey (see [`SessionBuilder::prewarm`]),
    /// with the browser it is in.
    spares: Vec<tokio::sync::Mutex<Option<Spare>>>,
    prewarm: bool,
    /// Whether the journey opened last is traced (at first, whether the run traces): a tab
    /// opened ahead is set up for a journey like it (see [`Session::ahead_options`]).
    traced: std::sync::atomic::AtomicBool,
    /// Each worker's browser once launched (see [`as_worker`]); started again when it went
    /// away (killed, crashed). One for all at a CDP endpoint.
    browsers: Vec<tokio::sync::Mutex<Option<Arc<Chromium>>>>,
    /// The HAR answering every journey's requests (`--har replay`), read once.
    har_replay: Option<Arc<HarReplay>>,
    /// How many journeys the run has: with more than one, `--har record` writes a file
    /// for each (see [`crate::settings::har_file`]).
    journeys: usize,
}

/// `tab` with `storage` (a saved state's, `--state`) put back in every document it loads,
/// before the document's own scripts, and, for a tab opened ahead (`ahead`: the registry
/// and options its journey will most likely have), what the journey's first `navigate`
/// would set up first (`tools/first_read.rs`); closed when any of it fails.
async fn set_up(
    tab: ChromiumTab,
    storage: Option<&str>,
    ahead: Option<(&Registry, &ToolOptions)>,
) -> Result<ChromiumTab, BrowserError> {
    let done = async {
        if let Some(script) = storage {
            tab.on_new_document(script).await?;
        }
        match ahead {
            Some((registry, options)) => crate::tools::prepare_tab(&tab, registry, options).await,
            None => Ok(()),
        }
    };
    match done.await {
        Ok(()) => Ok(tab),
        Err(e) => {
            tab.close().await;
            Err(e)
        }
    }
}

/// A tab being opened ahead, in the browser it is of.
struct Spare {
    browser: Arc<Chromium>,
    /// Starts the opening at once, when it still waits for the journey's first load.
    go: Arc<tokio::sync::Notify>,
    opening: tokio::task::JoinHandle<Result<ChromiumTab, BrowserError>>,
}

impl Spare {
    /// The tab, once open (at once, when it waited to begin).
    async fn opened(self) -> Option<Result<ChromiumTab, BrowserError>> {
        self.go.notify_one();
        self.opening.await.ok()
    }
}

/// How long a tab opened ahead waits for the first load of the journey that runs meanwhile
/// before it opens all the same (see [`Session::open_ahead`]).
const AHEAD_AFTER_MOST: std::time::Duration = std::time::Duration::from_millis(500);

/// How long a browser has to answer `Browser.getVersion` before it counts as gone (killed,
/// crashed or stopped): it answers in well under a millisecond when it is there.
const ANSWER_BOUND: std::time::Duration = std::time::Duration::from_secs(2);

tokio::task_local! {
    /// The worker a journey runs as (see [`as_worker`]); 0 outside one.
    static WORKER: usize;
}

/// Runs `work` as worker `worker` of the session: the tabs it opens are in that worker's
/// browser, so a browser that dies takes only its worker's journey with it.
pub async fn as_worker<F: std::future::Future>(worker: usize, work: F) -> F::Output {
    WORKER.scope(worker, work).await
}

/// A session whose input is checked (the registry loaded) and that starts nothing yet.
pub struct SessionBuilder {
    settings: Settings,
    registry: Arc<Registry>,
    gated: bool,
    run: Option<String>,
    prewarm: bool,
    journeys: usize,
}

/// What a tab is opened for: who drives it, under which name, traced where.
pub struct Open {
    name: String,
    kind: JourneyKind,
    asker: Option<Asker>,
    trace: Option<(PathBuf, PathBuf)>,
    registry: Option<Arc<Registry>>,
}

/// One tab of a session: its tools, ready for every tool call, and what ends with it.
pub struct Surface {
    tools: Arc<Tools<ChromiumTab>>,
    tab: Option<TabId>,
    hub: Arc<Hub>,
    trace: Option<Arc<Trace>>,
    /// What records the tab's traffic, the HAR file it goes to, the values redacted in it.
    har: Option<(Arc<HarRecorder>, PathBuf, Vec<String>)>,
}

impl Session {
    /// The values every trace writes `[redacted]`: the secret variables', the run's
    /// password and header values.
    fn secrets(&self) -> Vec<String> {
        let mut secrets = self.settings.vars.secret_values();
        secrets.extend(self.settings.launch.context.secret_values());
        secrets
    }

    /// Checks the registry the settings name (`--anchors FILE`, which must exist, else
    /// `./anchors.yaml` when present, else none: pages carry `data-anchor` themselves).
    pub fn builder(settings: &Settings) -> Result<SessionBuilder, RegistryError> {
        Ok(SessionBuilder {
            registry: Arc::new(load_registry(settings.anchors.as_deref())?),
            settings: settings.clone(),
            gated: true,
            run: None,
            prewarm: false,
            journeys: 1,
        })
    }

    /// The settings the session was built from.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The app's base URL.
    pub fn base(&self) -> &url::Url {
        &self.app.base
    }

    /// The registry every tab resolves anchors against.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The hub the session's tabs are registered in (the person's side of the gates).
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// The profile's cookies, set in every tab's browser context.
    pub fn cookies(&self) -> &[Cookie] {
        &self.cookies
    }

    /// The browser, launched on the first call, and launched again on a call after it went
    /// away (its process killed or crashed): a run goes on in a new one, each journey in a
    /// fresh tab as before.
    pub async fn browser(&self) -> Result<Arc<Chromium>, BrowserError> {
        let mut slot = self.slot().lock().await;
        if let Some(browser) = slot.as_ref().filter(|b| b.is_connected()) {
            return Ok(Arc::clone(browser));
        }
        // Dropped, not closed: there is nobody to ask to close (its drop kills what is
        // left of the process and forgets it); a tab still held keeps it until dropped.
        if slot.take().is_some() {
            eprintln!("the browser went away; starting a new one");
        }
        let launched = match Chromium::launch(self.settings.launch.clone()).await {
            // Killed while it started (not one that cannot start): once more.
            Err(BrowserError::Crashed(why)) => {
                eprintln!("{why}; starting another");
                Chromium::launch(self.settings.launch.clone()).await?
            }
            launched => launched?,
        };
        let browser = Arc::new(launched);
        *slot = Some(Arc::clone(&browser));
        Ok(browser)
    }

    /// Drops `browser` from the session when it is still the session's, so the next
    /// [`Session::browser`] launches a new one.
    async fn forget(&self, browser: &Arc<Chromium>) {
        let mut slot = self.slot().lock().await;
        if slot.as_ref().is_some_and(|b| Arc::ptr_eq(b, browser)) {
            eprintln!("the browser went away; starting a new one");
            *slot = None;
        }
    }

    /// After a journey failed: whether the current worker's browser stopped answering (a
    /// stuck or stopped process keeps its connection and answers nothing). Such a browser
    /// is killed and forgotten, so the next journey runs in a new one.
    pub async fn browser_hung(&self) -> bool {
        let Some(browser) = self.launched().filter(|b| b.is_connected()) else {
            return false;
        };
        if browser.answers(ANSWER_BOUND).await {
            return false;
        }
        browser.kill();
        eprintln!("the browser stopped answering; it was killed");
        self.forget(&browser).await;
        true
    }

    /// The browser, if it was launched (and whether or not it is still there).
    pub fn launched(&self) -> Option<Arc<Chromium>> {
        self.slot().try_lock().ok().and_then(|b| b.clone())
    }

    /// The current worker's browser slot (see [`as_worker`]).
    fn slot(&self) -> &tokio::sync::Mutex<Option<Arc<Chromium>>> {
        &self.browsers[worker() % self.browsers.len()]
    }

    /// A fresh tab in `browser` with the profile's cookies and the saved state's storage:
    /// the one opened ahead for the current worker when there is one (awaited if it is
    /// still opening), else a new one; then, with prewarming on, the next is opened ahead
    /// while the journey runs.
    async fn fresh_tab(&self, browser: &Arc<Chromium>) -> Result<ChromiumTab, BrowserError> {
        let slot = &self.spares[worker() % self.spares.len()];
        let spare = slot.lock().await.take();
        let ahead = match spare {
            Some(spare) if Arc::ptr_eq(&spare.browser, browser) => match spare.opened().await {
                Some(Ok(tab)) => Some(tab),
                _ => None,
            },
            Some(spare) => {
                spare.opening.abort();
                None
            }
            None => None,
        };
        let tab = match ahead {
            Some(tab) => tab,
            None => {
                let tab = browser.new_tab_with_cookies(&self.cookies).await?;
                set_up(tab, self.storage.as_deref(), None).await?
            }
        };
        if self.prewarm {
            let loaded = tab.next_load().await;
            self.open_ahead(browser, Some(loaded)).await;
        }
        Ok(tab)
    }

    /// Starts opening the current worker's next tab in `browser`, unless one is (one per
    /// slot: workers sharing one browser, at a CDP endpoint, open no more): once `after`
    /// (the first load of the journey's tab), or the next journey asks for it, or
    /// [`AHEAD_AFTER_MOST`] passed. Opened beside the journey's first load, it slowed that
    /// load by 20-50 ms on 2 cores (a context, a renderer and the collector set up while
    /// the browser loads the journey's page), as much as the journey's first `navigate`
    /// then saved (README.md, "The suite").
    async fn open_ahead(
        &self,
        browser: &Arc<Chromium>,
        after: Option<futures::future::BoxFuture<'static, ()>>,
    ) {
        let mut ahead = self.spares[worker() % self.spares.len()].lock().await;
        if ahead.is_none() {
            let go = Arc::new(tokio::sync::Notify::new());
            let asked = Arc::clone(&go);
            let (next, cookies) = (Arc::clone(browser), self.cookies.clone());
            let (storage, registry) = (self.storage.clone(), Arc::clone(&self.registry));
            let options = self.ahead_options();
            let opening = tokio::spawn(async move {
                if let Some(after) = after {
                    tokio::select! {
                        () = after => {}
                        () = asked.notified() => {}
                        () = tokio::time::sleep(AHEAD_AFTER_MOST) => {}
                    }
                }
                let tab = next.new_tab_with_cookies(&cookies).await?;
                // The journey's tools set the tab up again only when they ask for another
                // collector (another registry, evidence kept or not).
                set_up(tab, storage.as_deref(), Some((&registry, &options))).await
            });
            *ahead = Some(Spare {
                browser: Arc::clone(browser),
                go,
                opening,
            });
        }
    }

    /// The tools' options a tab opened ahead is set up for: the run's, keeping evidence
    /// when the last journey was traced.
    fn ahead_options(&self) -> ToolOptions {
        let mut options = self.settings.tools.clone();
        options.evidence |= self.traced.load(Ordering::Relaxed);
        options
    }

    /// Starts `workers` browsers side by side, each with its first tab opening ahead (a
    /// prewarming session): the run's first journeys start in parallel, none waiting for
    /// its worker's browser to launch. The first error, if any.
    pub async fn warm_up(&self, workers: usize) -> Result<(), BrowserError> {
        let starting = (0..workers.min(self.browsers.len()).max(1)).map(|w| {
            as_worker(w, async move {
                let browser = self.browser().await?;
                if self.prewarm {
                    self.open_ahead(&browser, None).await;
                }
                Ok::<_, BrowserError>(())
            })
        });
        futures::future::join_all(starting)
            .await
            .into_iter()
            .collect()
    }

    /// Waits until each worker's tab opened ahead (see [`Session::warm_up`]) is open, or
    /// failed to open: a worker is then ready for its first journey, which `bench --suite`
    /// starts its clock at.
    pub async fn tabs_opened(&self) {
        for slot in &self.spares {
            let mut slot = slot.lock().await;
            if let Some(spare) = slot.take() {
                // Kept as a task already done, for `fresh_tab` to take as it takes any.
                let (browser, go) = (Arc::clone(&spare.browser), Arc::clone(&spare.go));
                *slot = spare.opened().await.map(|opened| Spare {
                    browser,
                    go,
                    opening: tokio::spawn(std::future::ready(opened)),
                });
            }
        }
    }

    /// A fresh tab (in a browser context of its own, with the profile's cookies) and its
    /// tools, wired to the session's gates and traced when `open` asks.
    pub async fn open(&self, open: Open) -> Result<Surface, BrowserError> {
        let mut browser = self.browser().await?;
        // Killed or stopped since the last journey (its connection may not have said so
        // yet): gone before this journey begins, so that only a journey running when a
        // browser dies can fail for it. One round trip, a fraction of a millisecond.
        if !browser.answers(ANSWER_BOUND).await {
            browser.kill();
            self.forget(&browser).await;
            browser = self.browser().await?;
        }
        // Before the next tab is opened ahead (in fresh_tab): it is set up like this one.
        self.traced.store(open.trace.is_some(), Ordering::Relaxed);
        let tab = match self.fresh_tab(&browser).await {
            // Gone in a way not seen yet (the connection's end still on its way): once more,
            // in a new browser.
            Err(BrowserError::Crashed(_)) => {
                self.forget(&browser).await;
                browser = self.browser().await?;
                self.fresh_tab(&browser).await?
            }
            other => other?,
        };
        let camera = tab.camera();
        // A traced journey keeps evidence: each step's raw layer carries the text runs and
        // the controls without an anchor, not only the anchored ones.
        let mut options = self.settings.tools.clone();
        options.evidence |= open.trace.is_some();
        let mut tools = Tools::new(
            tab,
            self.app.base.clone(),
            open.registry
                .clone()
                .unwrap_or_else(|| Arc::clone(&self.registry)),
            options,
        );
        let trace = match &open.trace {
            Some((path, journey)) => {
                let device = self.settings.launch.device.clone();
                start_trace(
                    &tools,
                    path,
                    &open.name,
                    journey,
                    (browser.version(), device),
                    self.secrets(),
                )
                .await
            }
            None => None,
        };
        if let Some(trace) = &trace {
            tools = tools.with_trace(Arc::clone(trace));
        }
        let har = self.har(&tools, &open.name).await?;
        let mut tab = None;
        if self.gated {
            let control = self.control(&open);
            self.hub
                .set_screenshot(control.tab, crate::browser::camera_source(camera));
            tab = Some(control.tab);
            tools = tools.with_control(control);
        }
        Ok(Surface {
            tools: Arc::new(tools),
            tab,
            hub: Arc::clone(&self.hub),
            trace,
            har,
        })
    }

    /// Sets `tools` up for `--har` before their first navigation: a replay answers their
    /// requests; a recording watches them, for the file of the journey `name`.
    async fn har(
        &self,
        tools: &Tools<ChromiumTab>,
        name: &str,
    ) -> Result<Option<(Arc<HarRecorder>, PathBuf, Vec<String>)>, BrowserError> {
        let failed =
            |e: crate::tools::ToolError| BrowserError::Protocol(format!("--har: {}", e.message));
        if let Some(replay) = &self.har_replay {
            tools.replay_har(Arc::clone(replay)).await.map_err(failed)?;
        }
        let Some(HarMode::Record(file)) = &self.settings.har else {
            return Ok(None);
        };
        let recorder = Arc::new(HarRecorder::default());
        tools
            .record_har(Arc::clone(&recorder))
            .await
            .map_err(failed)?;
        let path = crate::settings::har_file(file, name, self.journeys > 1);
        Ok(Some((recorder, path, self.settings.vars.secret_values())))
    }

    /// The gates of a tab opened for `open`: its place in the hub, the consent policy (the
    /// journey kind's default unless `--consent` says), who can answer, the guardrail.
    fn control(&self, open: &Open) -> TabGates {
        use std::io::IsTerminal;
        TabGates {
            hub: Arc::clone(&self.hub),
            tab: self.hub.register(&self.run, &open.name),
            run: self.run.clone(),
            kind: open.kind,
            consent: self.settings.consent.unwrap_or(open.kind.default_consent()),
            // An agent's stdin carries its protocol: the terminal cannot be asked there.
            terminal: open.kind == JourneyKind::Script && std::io::stdin().is_terminal(),
            consent_timeout: self.settings.consent_timeout,
            guardrail: self.guardrail.clone(),
            asker: open.asker.clone(),
        }
    }

    /// Closes the browsers that were started; the app and the control page stop with them.
    pub async fn close(self) {
        // The tabs opened ahead first: each holds its browser. One in a browser this run
        // launched goes with it, and one still opening (for a journey that never came) is
        // given up: waiting for it kept the end of a run 15-40 ms.
        for slot in self.spares {
            let Some(spare) = slot.into_inner() else {
                continue;
            };
            if spare.browser.pid().is_some() {
                spare.opening.abort();
                // Ended (dropped, its browser with it) before the browser is closed.
                let _ = spare.opening.await;
            } else if let Some(Ok(tab)) = spare.opened().await {
                tab.close().await;
            }
        }
        let closing = self
            .browsers
            .into_iter()
            .filter_map(|slot| slot.into_inner().map(Arc::try_unwrap))
            .filter_map(Result::ok)
            .map(Chromium::close);
        futures::future::join_all(closing).await;
    }
}

impl SessionBuilder {
    /// The registry the session will resolve anchors against.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Each worker opens its next tab ahead, while its journey runs: a run of many
    /// journeys (`run`, `bench --suite`) starts each in a tab already there.
    pub fn prewarm(mut self) -> SessionBuilder {
        self.prewarm = true;
        self
    }

    /// A session with no gates: no guardrail, no control page, tabs nobody can take (a
    /// one-shot `read`).
    pub fn ungated(mut self) -> SessionBuilder {
        self.gated = false;
        self
    }

    /// The run has `n` journeys: with more than one, `--har record=FILE` writes a file
    /// for each, named by the journey.
    pub fn journeys(mut self, n: usize) -> SessionBuilder {
        self.journeys = n;
        self
    }

    /// Names the run that owns the session's tabs (default: `run-PID-NANOS`, unique on the
    /// machine while it lives).
    pub fn run_id(mut self, id: String) -> SessionBuilder {
        self.run = Some(id);
        self
    }

    /// Loads what every tab shares (the guardrail, the profile's cookies), serves the
    /// control page when asked, and starts (or checks) the app. No browser yet.
    pub async fn start(self) -> Result<Session, RunError> {
        let settings = self.settings;
        let guardrail = match (&settings.guardrail, self.gated) {
            (Some(path), true) => Some(Arc::new(Guardrail::load(path)?)),
            _ => None,
        };
        // A screen behind a sign-in is met with the profile's cookies, as a journey meets it.
        let mut cookies = match &settings.profile {
            Some(name) => Profile::named(settings.home.as_deref(), name)?.cookies()?,
            None => Vec::new(),
        };
        // A saved state's cookies come after the profile's (the same cookie: the state's
        // wins), its storage through a script each new document runs first.
        let storage = match &settings.state {
            Some(path) => {
                let state = StorageState::load(path)?;
                cookies.extend(state.cookies.iter().cloned());
                state.storage_script()
            }
            None => None,
        };
        let hub = Arc::new(Hub::new());
        let page = match settings.control_page && self.gated {
            true => Some(control_page(&hub).await?),
            false => None,
        };
        let har_replay = match &settings.har {
            Some(HarMode::Replay(file, missing)) => Some(Arc::new(
                HarReplay::load(file, *missing).map_err(RunError::Har)?,
            )),
            _ => None,
        };
        let app = App::start(settings.base_url.as_ref(), settings.layout).await?;
        Ok(Session {
            registry: self.registry,
            guardrail,
            cookies,
            hub,
            run: self.run.unwrap_or_else(run_id),
            gated: self.gated,
            app,
            _page: page,
            storage,
            spares: (0..workers(&settings))
                .map(|_| tokio::sync::Mutex::new(None))
                .collect(),
            prewarm: self.prewarm,
            traced: settings.trace.is_some().into(),
            har_replay,
            journeys: self.journeys,
            browsers: (0..workers(&settings))
                .map(|_| tokio::sync::Mutex::new(None))
                .collect(),
            settings,
        })
    }
}

impl Open {
    /// A tab for a scripted journey (or a bench route) named `name`: consent `allow`
    /// unless `--consent` says, asked on the terminal when there is one.
    pub fn script(name: &str) -> Open {
        Open {
            name: name.to_string(),
            kind: JourneyKind::Script,
            asker: None,
            trace: None,
            registry: None,
        }
    }

    /// A tab for an agent named `name`: consent `ask` unless `--consent` says, asked
    /// through `asker` first.
    pub fn agent(name: &str, asker: Asker) -> Open {
        Open {
            name: name.to_string(),
            kind: JourneyKind::Agent,
            asker: Some(asker),
            trace: None,
            registry: None,
        }
    }

    /// Traces the tab's calls to `path`, naming the journey file `journey` in its header.
    pub fn traced(mut self, path: PathBuf, journey: &Path) -> Open {
        self.trace = Some((path, journey.to_path_buf()));
        self
    }

    /// Resolves anchors against `registry` in this tab instead of the session's (a page
    /// that names its own, as the bench's matcher pages do).
    pub fn with_registry(mut self, registry: Arc<Registry>) -> Open {
        self.registry = Some(registry);
        self
    }
}

impl Surface {
    /// The tab's gateway, for a journey: every call through the gates.
    pub fn gateway(&self) -> Gateway<ChromiumTab> {
        Gateway::new(Arc::clone(&self.tools))
    }

    /// The tab's backstage, for what the product asks beside journeys (the bench's floors,
    /// `suggest`, `state save`, the screenshot after a failure).
    pub fn backstage(&self) -> Backstage<ChromiumTab> {
        Backstage::new(Arc::clone(&self.tools))
    }

    /// The tab's place in the hub, when the session is gated.
    pub fn tab(&self) -> Option<TabId> {
        self.tab
    }

    /// Takes the tab out of the hub and closes it (once nobody else holds its tools); the
    /// trace, for its caller to end.
    pub async fn close(self) -> Option<Arc<Trace>> {
        if let Some(tab) = self.tab {
            self.hub.unregister(tab);
        }
        // The HAR while the tab is open: the bodies still being read are read from it.
        if let Some((recorder, path, secrets)) = &self.har {
            let har = crate::tools::finish_har(recorder).await;
            if let Err(e) = crate::tools::write_har(path, &har, secrets) {
                eprintln!("warning: cannot write the HAR `{}`: {e}", path.display());
            }
        }
        if let Ok(tools) = Arc::try_unwrap(self.tools) {
            tools.close().await;
        }
        self.trace
    }
}

/// The registry at `explicit` (which must exist), else `./anchors.yaml` when present, else
/// an empty registry (pages carry `data-anchor`).
pub fn load_registry(explicit: Option<&Path>) -> Result<Registry, RegistryError> {
    match explicit {
        Some(path) => Registry::load(path),
        None if Path::new("anchors.yaml").is_file() => Registry::load(Path::new("anchors.yaml")),
        None => Ok(Registry::empty()),
    }
}

/// The control page: served for the session's lifetime, its URL printed.
async fn control_page(hub: &Arc<Hub>) -> Result<ControlPage, RunError> {
    let page = page::serve(Arc::clone(hub))
        .await
        .map_err(RunError::ControlPage)?;
    // On stderr, beside the progress: stdout is the report.
    eprintln!("control page: {}", page.url());
    Ok(page)
}

/// The worker the current task runs as (see [`as_worker`]).
fn worker() -> usize {
    WORKER.try_with(|w| *w).unwrap_or(0)
}

/// How many browsers the session's workers use: one each (`--jobs`), or one for all at a
/// CDP endpoint (a browser's connections are not worth multiplying).
fn workers(settings: &Settings) -> usize {
    match settings.launch.remote {
        Some(crate::browser::Remote::Cdp(_)) => 1,
        _ => settings.suite.jobs.max(1),
    }
}

/// A name for this run, unique on the machine for its lifetime.
fn run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!("run-{}-{nanos:08x}", std::process::id())
}

/// Opens a journey's trace, redacting `secrets`, and writes its header. A trace that cannot be written is a
/// warning, not a failed journey.
async fn start_trace(
    tools: &Tools<ChromiumTab>,
    path: &Path,
    name: &str,
    journey: &Path,
    (browser, device): (&str, Option<String>),
    secrets: Vec<String>,
) -> Option<Arc<Trace>> {
    let mut header = TraceHeader::new(
        name,
        journey,
        browser,
        tools.options(),
        tools.viewport().await,
    );
    header.device = device;
    match Trace::create(path, &header) {
        Ok(trace) => Some(Arc::new(trace.redacting(secrets))),
        Err(e) => {
            eprintln!("warning: {e}; `{name}` runs untraced");
            None
        }
    }
}
