//! The bench every browser test stands on: one runtime, one demo app and one Chromium for
//! the whole test binary (started once, shared for speed), and a fresh tab — in a browser
//! context of its own — for each test.

use std::future::Future;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use tokio::runtime::Runtime;
use url::Url;
use waymark::browser::{
    AxView, BrowserError, ChromeEvents, Chromium, ChromiumTab, RouteBook, Tab, Throttle,
    put_down_launched_browsers,
};
use waymark::registry::Registry;
use waymark::screen::{Control, InferredState};
use waymark::session::Session;
use waymark::settings::Settings;
use waymark::tools::{ErrorCode, RoundTrip, ToolError, ToolOptions, Tools};

/// What every test shares. Statics are never dropped: the browser dies through `atexit`.
pub struct Shared {
    rt: Runtime,
    /// The session `waymark run` builds: the embedded demo app (served on the shared
    /// runtime), `anchors.yaml` of the package, the one browser.
    pub session: Session,
    /// The session's browser, held for the tests' tabs.
    browser: Arc<Chromium>,
}

impl Shared {
    /// The demo app's base URL.
    pub fn base(&self) -> Url {
        self.session.base().clone()
    }

    /// The one browser; each test opens its own tab in it.
    pub fn browser(&self) -> &Chromium {
        &self.browser
    }

    /// `anchors.yaml` of the package.
    pub fn registry(&self) -> &Arc<Registry> {
        self.session.registry()
    }
}

static SHARED: OnceLock<Shared> = OnceLock::new();

/// Kills the shared browser (statics are never dropped) and waits for its profile to be
/// removed: without the wait, each run of the tests left one in the temporary directory.
extern "C" fn kill_browsers_at_exit() {
    put_down_launched_browsers();
}

/// The shared bench, started on first use.
pub fn shared() -> &'static Shared {
    SHARED.get_or_init(|| {
        // SAFETY: registers a plain `extern "C"` function with no arguments, as atexit(3)
        // expects; it only sends SIGKILL to the browsers this process started.
        let registered = unsafe { libc::atexit(kill_browsers_at_exit) };
        assert_eq!(registered, 0, "atexit refused the browser killer");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("build the shared tokio runtime");
        let settings = Settings {
            anchors: Some("anchors.yaml".into()),
            ..Settings::default()
        };
        let builder = Session::builder(&settings)
            .unwrap_or_else(|e| panic!("load anchors.yaml from the package root: {e}"));
        // The demo app's server task and the browser's handler task live on this runtime.
        let (session, browser) = rt.block_on(async {
            let session = builder.start().await.expect("start the demo app");
            let browser = session
                .browser()
                .await
                .unwrap_or_else(|e| panic!("launch Chromium: {e}"));
            (session, browser)
        });
        Shared {
            rt,
            session,
            browser,
        }
    })
}

/// Runs `f` to completion on the shared runtime (several test threads may do so at once).
pub fn block_on<F: Future>(f: F) -> F::Output {
    shared().rt.block_on(f)
}

/// Spawns `f` on the shared runtime: a task a blocking test waits on later.
pub fn spawn<F>(f: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    shared().rt.spawn(f)
}

/// Tools over a fresh tab with the default bounds. Close them at the end of the test.
pub fn tools() -> (Tools<ChromiumTab>, &'static Shared) {
    tools_with(ToolOptions::default())
}

/// Tools over a fresh tab with the given bounds.
pub fn tools_with(options: ToolOptions) -> (Tools<ChromiumTab>, &'static Shared) {
    let shared = shared();
    let tab = block_on(shared.browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    let tools = Tools::new(tab, shared.base(), Arc::clone(shared.registry()), options);
    (tools, shared)
}

/// A tab the tools drive while the test keeps a [`Probe`] on the same page. It notes the
/// kind of every read the collector answers with (see [`Probe::read_kinds`]).
pub struct ProbedTab(Arc<ChromiumTab>, Arc<Mutex<Notes>>);

/// What a [`ProbedTab`] notes of the collector's answers.
#[derive(Default)]
pub struct Notes {
    kinds: Vec<String>,
    gathered: Vec<u64>,
    measured: Vec<u64>,
    vis_checks: Vec<u64>,
    /// Whether each read's whole answer held a character past ASCII.
    past_ascii: Vec<bool>,
    /// Reads the page pushed on its own (a document's first read, see first_read.rs).
    pushed: usize,
    /// Parts of reads' records the page pushed ahead of their answers (see parts.rs).
    parts: usize,
}

/// The test's own eyes on a page the tools drive: plain DOM queries, independent of the
/// collector under test. It holds the tab weakly, so closing the tools closes the tab.
pub struct Probe(Weak<ChromiumTab>, Arc<Mutex<Notes>>);

impl ProbedTab {
    /// Notes the kind of the read `answer` holds, if it holds one, and how many records it
    /// built whole or measured again: its JSON ends at the first newline (see `withRecords` in
    /// collector/js/07-collect.js), and a read in it says `"kind":"full"` or `"kind":"delta"`,
    /// `"gathered":N`, `"measured":N` and `"vis_checks":N`.
    fn note(&self, answer: &Result<String, BrowserError>) {
        let Ok(answer) = answer else { return };
        let json = answer.split('\n').next().unwrap_or_default();
        let mut notes = self.1.lock().expect("the notes");
        for kind in ["full", "delta"] {
            if json.contains(&format!("\"kind\":\"{kind}\"")) {
                notes.kinds.push(kind.to_string());
                notes.past_ascii.push(!answer.is_ascii());
            }
        }
        let count = |field: &str| {
            let (_, after) = json.split_once(&format!("\"{field}\":"))?;
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u64>().ok()
        };
        notes.gathered.extend(count("gathered"));
        notes.measured.extend(count("measured"));
        notes.vis_checks.extend(count("vis_checks"));
    }
}

impl Tab for ProbedTab {
    type LoadWatch = <ChromiumTab as Tab>::LoadWatch;

    async fn evaluate(&self, expression: &str, timeout: Duration) -> Result<String, BrowserError> {
        let answer = self.0.evaluate(expression, timeout).await;
        self.note(&answer);
        answer
    }

    async fn evaluate_as_user(
        &self,
        expression: &str,
        timeout: Duration,
    ) -> Result<String, BrowserError> {
        let answer = self.0.evaluate_as_user(expression, timeout).await;
        self.note(&answer);
        answer
    }

    async fn on_new_document(&self, source: &str) -> Result<(), BrowserError> {
        self.0.on_new_document(source).await
    }

    async fn navigate(&self, url: &str, timeout: Duration) -> Result<(), BrowserError> {
        self.0.navigate(url, timeout).await
    }

    async fn allow_pushes(&self, name: &str) -> Result<(), BrowserError> {
        self.0.allow_pushes(name).await
    }

    async fn set_early(&self, source: &str) -> Result<(), BrowserError> {
        self.0.set_early(source).await
    }

    async fn pushed(&self, bound: Duration) -> Option<String> {
        let pushed = self.0.pushed(bound).await;
        // A document's first read, pushed (`r:doc:answer`): noted as an answer is.
        if let Some((_, answer)) = pushed
            .as_deref()
            .and_then(|p| p.strip_prefix("r:")?.split_once(':'))
        {
            self.note(&Ok(answer.to_string()));
            self.1.lock().expect("the notes").pushed += 1;
        }
        pushed
    }

    async fn pushed_part(&self, prefix: &str, bound: Duration) -> Option<String> {
        let part = self.0.pushed_part(prefix, bound).await;
        if let Some(part) = &part {
            // Its read's answer, noted before its parts came, holds them.
            let mut notes = self.1.lock().expect("the notes");
            notes.parts += 1;
            if let Some(past) = notes.past_ascii.last_mut() {
                *past |= !part.is_ascii();
            }
        }
        part
    }

    async fn route(&self, book: &Arc<RouteBook>) -> Result<(), BrowserError> {
        self.0.route(book).await
    }

    fn traffic(&self) -> Option<Arc<waymark::browser::TrafficLog>> {
        self.0.traffic()
    }

    async fn body(&self, id: &str, response: bool) -> Result<Option<String>, BrowserError> {
        self.0.body(id, response).await
    }

    async fn set_clock(&self, source: &str) -> Result<(), BrowserError> {
        self.0.set_clock(source).await
    }

    async fn emulate_network(
        &self,
        offline: Option<bool>,
        throttle: Option<Option<Throttle>>,
    ) -> Result<(), BrowserError> {
        self.0.emulate_network(offline, throttle).await
    }

    async fn click(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.0.click(x, y).await
    }

    async fn click_with(
        &self,
        x: f64,
        y: f64,
        click: &waymark::browser::Click,
    ) -> Result<(), BrowserError> {
        self.0.click_with(x, y, click).await
    }

    async fn hover(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.0.hover(x, y).await
    }

    async fn press_key(&self, key: &str) -> Result<(), BrowserError> {
        self.0.press_key(key).await
    }

    async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        self.0.insert_text(text).await
    }

    async fn watch_load(&self) -> Result<Self::LoadWatch, BrowserError> {
        self.0.watch_load().await
    }

    async fn navigation_started(&self, watch: &mut Self::LoadWatch) {
        self.0.navigation_started(watch).await
    }

    async fn wait_load(
        &self,
        watch: Self::LoadWatch,
        timeout: Duration,
    ) -> Result<(), BrowserError> {
        self.0.wait_load(watch, timeout).await
    }

    async fn stop_loading(&self) {
        self.0.stop_loading().await
    }

    fn take_chrome(&self) -> ChromeEvents {
        self.0.take_chrome()
    }

    fn take_console(&self) -> waymark::browser::PageLog {
        self.0.take_console()
    }

    async fn browser_answers(&self, bound: Duration) -> bool {
        self.0.browser_answers(bound).await
    }

    fn renderer_crashed(&self) -> bool {
        self.0.renderer_crashed()
    }

    async fn accessibility(
        &self,
        elements: &str,
        timeout: Duration,
    ) -> Result<Vec<Option<AxView>>, BrowserError> {
        self.0.accessibility(elements, timeout).await
    }

    async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        self.0.screenshot().await
    }

    fn style_sheet_facts(
        &self,
        urls: &[String],
        program: impl FnOnce(&[(String, String)]) -> String + Send + 'static,
    ) -> impl std::future::Future<Output = Option<String>> + Send + 'static {
        self.0.style_sheet_facts(urls, program)
    }

    async fn close(self) {
        if let Ok(tab) = Arc::try_unwrap(self.0) {
            tab.close().await;
        }
    }
}

impl Probe {
    /// The kinds of the reads the collector answered with since the last call, in order:
    /// `full` (every record) or `delta` (what changed since the read the runner holds).
    pub fn read_kinds(&self) -> Vec<String> {
        std::mem::take(&mut self.1.lock().expect("the notes").kinds)
    }

    /// The reads the page pushed since the last call: each a document's first read,
    /// sent at the end of its load instead of asked for (see `first_read.rs`).
    pub fn pushed(&self) -> usize {
        std::mem::take(&mut self.1.lock().expect("the notes").pushed)
    }

    /// The parts of reads' records the page pushed ahead of their answers since the last
    /// call (see `src/tools/parts.rs`).
    pub fn parts(&self) -> usize {
        std::mem::take(&mut self.1.lock().expect("the notes").parts)
    }

    /// How many strings the page pushed that wait in the tab untaken: taken now, and not
    /// noted as [`Probe::pushed`] notes those the tools take.
    pub async fn waiting_pushes(&self) -> usize {
        let Some(tab) = self.0.upgrade() else {
            return 0;
        };
        let mut waiting = 0;
        while tab.pushed(Duration::ZERO).await.is_some() {
            waiting += 1;
        }
        waiting
    }

    /// How many records each read since the last call built whole, in order (the rest it
    /// reused, or only took their boxes and visibility again).
    pub fn gathered(&self) -> Vec<u64> {
        std::mem::take(&mut self.1.lock().expect("the notes").gathered)
    }

    /// How many records each read since the last call took the box and visibility of again
    /// (kept otherwise), in order.
    pub fn measured(&self) -> Vec<u64> {
        std::mem::take(&mut self.1.lock().expect("the notes").measured)
    }

    /// How many controls each read since the last call asked the browser whether CSS hides
    /// them (the rest it took as shown by their box alone, or reused), in order.
    pub fn vis_checks(&self) -> Vec<u64> {
        std::mem::take(&mut self.1.lock().expect("the notes").vis_checks)
    }

    /// Whether each read since the last call answered with a character past ASCII anywhere
    /// in it, in order (one such character makes Chromium send all of it at twice the
    /// cost: see `narrow` in src/collector/js/07-collect.js).
    pub fn past_ascii(&self) -> Vec<bool> {
        std::mem::take(&mut self.1.lock().expect("the notes").past_ascii)
    }

    /// Runs `script` (statements) in the page, behind the tools' back.
    pub async fn run(&self, script: &str) {
        let tab = self.0.upgrade().expect("the probed tab is still open");
        let expression = format!("(function () {{ {script}; return 'ok'; }})()");
        tab.evaluate(&expression, Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("run `{script}`: {e}"));
    }

    /// What `expression` evaluates to in the page, behind the tools' back (as JSON).
    pub async fn value(&self, expression: &str) -> serde_json::Value {
        let tab = self.0.upgrade().expect("the probed tab is still open");
        let expression = format!("JSON.stringify({expression})");
        let json = tab
            .evaluate(&expression, Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("evaluate `{expression}`: {e}"));
        serde_json::from_str(&json).expect("the page answers JSON")
    }

    /// The normalized text content of the first element matching `selector` in the top
    /// document (`None` when there is none).
    pub async fn text(&self, selector: &str) -> Option<String> {
        let selector = serde_json::to_string(selector).expect("a selector serializes");
        let text = self
            .value(&format!(
                "(function () {{ var el = document.querySelector({selector}); \
                 return el ? el.textContent.replace(/\\s+/g, ' ').trim() : null; }})()"
            ))
            .await;
        serde_json::from_value(text).expect("the probe answers a string or null")
    }
}

impl Probe {
    /// The page moves to `path` on its own (a redirect, a timer), behind the tools' back;
    /// returns once the new document is there.
    pub async fn page_navigates(&self, path: &str) {
        let tab = self.0.upgrade().expect("the probed tab is still open");
        let path = serde_json::to_string(path).expect("a path serializes");
        let marker = "(function () { window.__probe_old = 1; return '\"ok\"'; })()";
        tab.evaluate(marker, Duration::from_secs(10))
            .await
            .expect("mark the page");
        let go = format!("(function () {{ location.assign({path}); return '\"ok\"'; }})()");
        tab.evaluate(&go, Duration::from_secs(10))
            .await
            .expect("navigate");
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(25)).await;
            let fresh = "JSON.stringify(!window.__probe_old && document.readyState === 'complete')";
            if tab
                .evaluate(fresh, Duration::from_secs(10))
                .await
                .ok()
                .as_deref()
                == Some("true")
            {
                return;
            }
        }
        panic!("the page did not navigate");
    }

    /// A person types `text` into the first element matching `selector`, with trusted
    /// keyboard input from outside the tools (as in a headed browser).
    pub async fn person_types(&self, selector: &str, text: &str) {
        let tab = self.0.upgrade().expect("the probed tab is still open");
        let selector = serde_json::to_string(selector).expect("a selector serializes");
        let focus = format!(
            "(function () {{ document.querySelector({selector}).focus(); return '\"ok\"'; }})()"
        );
        tab.evaluate(&focus, Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("focus {selector}: {e}"));
        tab.insert_text(text)
            .await
            .unwrap_or_else(|e| panic!("type into {selector}: {e}"));
    }
}

/// Tools over a fresh tab, plus a probe on the same page.
pub fn probed_tools() -> (Tools<ProbedTab>, Probe) {
    let shared = shared();
    probed_tools_at(
        shared.base(),
        Arc::clone(shared.registry()),
        ToolOptions::default(),
    )
}

/// Tools over a fresh tab on the app at `base`, plus a probe on the same page.
pub fn probed_tools_at(
    base: Url,
    registry: Arc<Registry>,
    options: ToolOptions,
) -> (Tools<ProbedTab>, Probe) {
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    probed_tools_on(tab, base, registry, options)
}

/// Tools over `tab` (a fresh one, or one set up as a run sets up a tab ahead of its
/// journey), plus a probe on the same page.
pub fn probed_tools_on(
    tab: ChromiumTab,
    base: Url,
    registry: Arc<Registry>,
    options: ToolOptions,
) -> (Tools<ProbedTab>, Probe) {
    let (tab, notes) = (Arc::new(tab), Arc::new(Mutex::new(Notes::default())));
    let probe = Probe(Arc::downgrade(&tab), Arc::clone(&notes));
    let tools = Tools::new(ProbedTab(tab, notes), base, registry, options);
    (tools, probe)
}

/// Fails the test instead of hanging when `f` does not finish within `limit`.
pub async fn bounded<F: Future>(limit: Duration, what: &str, f: F) -> F::Output {
    tokio::time::timeout(limit, f)
        .await
        .unwrap_or_else(|_| panic!("{what} did not return within {} s", limit.as_secs()))
}

/// The round trip succeeded; its screen.
#[track_caller]
pub fn ok(rt: &RoundTrip) -> &InferredState {
    assert!(
        rt.ok && rt.error.is_none(),
        "`{}` {:?} failed: {:?}",
        rt.tool,
        rt.anchor,
        rt.error
    );
    rt.screen
        .as_ref()
        .unwrap_or_else(|| panic!("`{}` succeeded without a screen", rt.tool))
}

/// The round trip failed with `code`; its error.
#[track_caller]
pub fn failed(rt: &RoundTrip, code: ErrorCode) -> &ToolError {
    assert!(
        !rt.ok,
        "`{}` {:?} succeeded, expected `{code}`",
        rt.tool, rt.anchor
    );
    let error = rt
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("`{}` failed without an error", rt.tool));
    assert_eq!(error.code, code, "{}", error.message);
    error
}

/// Navigates and insists it worked.
pub async fn open<T: Tab>(tools: &Tools<T>, route: &str) -> InferredState {
    let rt = tools.navigate(route).await;
    ok(&rt).clone()
}

/// The control `anchor` (with `key`) on `screen`, or a failure listing what is there.
#[track_caller]
/// The value `anchor` shows on `screen` (empty when it shows none).
pub fn value(screen: &InferredState, anchor: &str) -> String {
    control(screen, anchor, None)
        .value
        .as_deref()
        .unwrap_or_default()
        .to_string()
}

pub fn control<'a>(screen: &'a InferredState, anchor: &str, key: Option<&str>) -> &'a Control {
    screen.control(anchor, key).unwrap_or_else(|| {
        let there: Vec<String> = screen.controls.iter().map(|c| c.reference()).collect();
        panic!(
            "`{anchor}` {key:?} is not on {} (controls: {})",
            screen.route,
            there.join(", ")
        )
    })
}

/// `/api/saves` of the shared demo app: `by_form[form]`, 0 when the form never saved.
/// Per form, so tests saving other forms in parallel do not disturb it. A plain blocking
/// request: the demo app is served by the runtime's workers, not by the caller's thread.
pub fn saves_of(form: &str) -> u64 {
    let addr = shared().base().authority().to_string();
    let mut stream = std::net::TcpStream::connect(&addr).expect("connect to the demo app");
    let bound = Some(Duration::from_secs(10));
    stream.set_read_timeout(bound).expect("set a read timeout");
    stream
        .set_write_timeout(bound)
        .expect("set a write timeout");
    let request = format!("GET /api/saves HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .expect("send the request");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read the reply");
    let (head, body) = reply.split_once("\r\n\r\n").expect("a complete reply");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let json = &body[body.find('{').expect("a JSON body")..=body.rfind('}').expect("a JSON body")];
    let saves: serde_json::Value = serde_json::from_str(json).expect("/api/saves is JSON");
    saves["by_form"][form].as_u64().unwrap_or(0)
}

/// Why the Playwright oracle cannot run here (no node, or no playwright-core under
/// target/playwright, which `.ci/run` installs), or `None` when it can.
fn oracle_missing() -> Option<&'static str> {
    let core = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/playwright/node_modules/playwright-core");
    if which::which("node").is_err() {
        Some("no `node` on PATH")
    } else if !core.is_dir() {
        Some("no playwright-core: `npm install --prefix target/playwright playwright-core`")
    } else {
        None
    }
}

/// Runs the oracle script `tests/playwright/NAME` with `args` (playwright-core from npm,
/// under target/playwright; it launches Debian's Chromium, never a download) and reads the
/// JSON it prints: `None`, said, when node or playwright-core is missing outside CI (under
/// `CI=true` their absence fails the test). For a test that checks waymark's own answers
/// first, then Playwright's.
pub fn playwright_oracle(name: &str, args: &[&str]) -> Option<serde_json::Value> {
    if let Some(why) = oracle_missing() {
        oracle_skipped(why);
        return None;
    }
    Some(serde_json::from_slice(&playwright_output(name, args)).expect("the script prints JSON"))
}

/// Says that a Playwright comparison skips, and why (node or playwright-core is missing);
/// under `CI=true` fails instead: CI installs them (`.ci/run`), so a skip there would hide
/// a comparison that did not run.
pub fn oracle_skipped(why: &str) {
    assert!(
        std::env::var("CI").map_or(true, |ci| ci.is_empty() || ci == "false"),
        "CI is set, so the Playwright comparison may not skip: {why}"
    );
    eprintln!("SKIPPED the Playwright comparison: {why}");
}

/// Runs the oracle script `tests/playwright/NAME` with `args`, as [`playwright_oracle`] does,
/// for a test that is the comparison and nothing else: node and playwright-core are
/// required. What the script printed.
pub fn playwright_output(name: &str, args: &[&str]) -> Vec<u8> {
    if let Some(why) = oracle_missing() {
        panic!("Playwright is the oracle here: {why}");
    }
    let out = std::process::Command::new("node")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg(format!("tests/playwright/{name}"))
        .args(args)
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "the Playwright script {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
