//! A run: validated input (registry loaded, journeys compiled, target known) before any
//! browser starts, then the journeys one by one, each in a fresh browser context.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use url::Url;

use crate::browser::{BrowserError, Chromium, LaunchOptions};
use crate::control::cookies::{Cookie, CookieError, Profile};
use crate::control::page::{self, ControlPage};
use crate::control::{ConsentPolicy, Control, Guardrail, GuardrailError, Hub, JourneyKind};
use crate::demo::{DemoApp, DemoError};
use crate::journey::{self, DiscoverError, Journey, JourneyEnv, Limits, Outcome};
use crate::registry::{Registry, RegistryError};
use crate::report::Reporter;
use crate::snapshot::{SnapshotStore, Unreferenced, UpdateMode};
use crate::tools::{ToolOptions, Tools};
use crate::trace::{Header, Trace, TraceDir, TraceError};

/// Exit codes (DESIGN.md).
pub mod exit {
    /// Every journey passed.
    pub const PASSED: u8 = 0;
    /// A journey failed.
    pub const FAILED: u8 = 1;
    /// Bad input: usage, configuration, a script error.
    pub const BAD_INPUT: u8 = 2;
    /// Environment: the browser or the app could not be reached.
    pub const ENVIRONMENT: u8 = 3;
}

/// Everything a run or a read needs to know, from flags, environment and defaults.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The app; `None` serves the embedded demo app.
    pub base_url: Option<String>,
    /// The registry; `None` uses `./anchors.yaml` when it exists.
    pub anchors: Option<PathBuf>,
    /// How to start the browser.
    pub launch: LaunchOptions,
    /// Tool bounds and caps.
    pub tools: ToolOptions,
    /// Journey limits.
    pub limits: Limits,
    /// Accept new and changed snapshots (`--update-snapshots`).
    pub update_snapshots: bool,
    /// What to do with snapshot files no journey referenced in a full, passing run.
    pub unreferenced: Unreferenced,
    /// Where each journey's trace is written; `None` writes none.
    pub trace: Option<PathBuf>,
    /// The consent policy; `None`: the journey kind's default (`allow` for scripts).
    pub consent: Option<ConsentPolicy>,
    /// How long a consent question waits for its answer.
    pub consent_timeout: Duration,
    /// The guardrail file, a second gate beside consent.
    pub guardrail: Option<PathBuf>,
    /// Serve the control page (the person's side of every gate) and print its URL.
    pub control_page: bool,
    /// The profile whose cookies each journey's browser context starts with.
    pub profile: Option<String>,
}

/// Where snapshots live: `snapshots/` in the current directory.
pub const SNAPSHOT_DIR: &str = "snapshots";

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The registry is missing or invalid.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// Journeys could not be found or read.
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    /// No journeys were found.
    #[error("no journeys found under {0} (journeys are `*.rhai` files)")]
    NoJourneys(String),
    /// The guardrail file cannot be used.
    #[error(transparent)]
    Guardrail(#[from] GuardrailError),
    /// The profile cannot be loaded.
    #[error(transparent)]
    Profile(#[from] CookieError),
    /// The control page could not be served.
    #[error("cannot serve the control page: {0}")]
    ControlPage(std::io::Error),
    /// `--base-url` is not a usable URL.
    #[error("invalid `--base-url` `{url}`: {why}")]
    BaseUrl {
        /// As given.
        url: String,
        /// Why.
        why: String,
    },
    /// The app at `--base-url` did not answer.
    #[error("the app at `{url}` could not be reached: {why}")]
    Unreachable {
        /// As given.
        url: String,
        /// Why.
        why: String,
    },
    /// The browser could not be found or started.
    #[error(transparent)]
    Browser(#[from] BrowserError),
    /// The embedded demo app could not start.
    #[error(transparent)]
    Demo(#[from] DemoError),
    /// The trace folder cannot be created.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A transcript cannot be written (`mcp --record`) or read (an agent journey).
    #[error(transparent)]
    Transcript(#[from] crate::transcript::TranscriptError),
    /// The MCP session could not start or broke down.
    #[error("the MCP session failed: {0}")]
    Mcp(String),
}

impl RunError {
    /// The documented exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Registry(_)
            | RunError::Discover(_)
            | RunError::NoJourneys(_)
            | RunError::BaseUrl { .. }
            | RunError::Trace(_)
            | RunError::Transcript(_)
            | RunError::Guardrail(_) => exit::BAD_INPUT,
            RunError::Unreachable { .. }
            | RunError::Browser(_)
            | RunError::Demo(_)
            | RunError::ControlPage(_)
            | RunError::Mcp(_) => exit::ENVIRONMENT,
            RunError::Profile(e) => e.exit_code(),
        }
    }
}

/// The registry the settings name: `--anchors FILE` (which must exist), else
/// `./anchors.yaml` when present, else an empty registry (pages carry `data-anchor`).
pub fn load_registry(explicit: Option<&Path>) -> Result<Registry, RegistryError> {
    match explicit {
        Some(path) => Registry::load(path),
        None if Path::new("anchors.yaml").is_file() => Registry::load(Path::new("anchors.yaml")),
        None => Ok(Registry::empty()),
    }
}

/// The app under test: the given base URL (checked reachable) or the embedded demo app,
/// kept alive as long as this value.
pub struct Target {
    /// Base URL of the app.
    pub base: Url,
    _demo: Option<DemoApp>,
}

impl Target {
    /// Parses and checks `base_url`, or starts the demo app.
    pub async fn start(base_url: Option<&str>) -> Result<Target, RunError> {
        let Some(given) = base_url else {
            let demo = DemoApp::start().await?;
            let base = Url::parse(demo.base_url()).map_err(|e| RunError::BaseUrl {
                url: demo.base_url().to_string(),
                why: e.to_string(),
            })?;
            return Ok(Target {
                base,
                _demo: Some(demo),
            });
        };
        let bad = |why: String| RunError::BaseUrl {
            url: given.to_string(),
            why,
        };
        let base = Url::parse(given).map_err(|e| bad(e.to_string()))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(bad("only http and https apps can be driven".into()));
        }
        let host = base
            .host_str()
            .ok_or_else(|| bad("it has no host".into()))?;
        let port = base
            .port_or_known_default()
            .ok_or_else(|| bad("it has no port".into()))?;
        let unreachable = |why: String| RunError::Unreachable {
            url: given.to_string(),
            why,
        };
        match tokio::time::timeout(
            Duration::from_secs(5),
            tokio::net::TcpStream::connect((host, port)),
        )
        .await
        {
            Ok(Ok(_)) => Ok(Target { base, _demo: None }),
            Ok(Err(e)) => Err(unreachable(e.to_string())),
            Err(_) => Err(unreachable("no answer within 5 s".into())),
        }
    }
}

/// The journeys under `paths` (default `./journeys`), compiled.
pub fn prepare_journeys(paths: &[PathBuf]) -> Result<Vec<Journey>, RunError> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from("journeys")]
    } else {
        paths.to_vec()
    };
    let found = journey::discover(&paths)?;
    if found.is_empty() {
        let list = paths
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(RunError::NoJourneys(list));
    }
    Ok(journey::compile_all(found)?)
}

/// Runs journeys end to end: validates everything, then starts the app and the browser,
/// runs each journey in a fresh browser context, and returns the exit code.
pub async fn run(paths: &[PathBuf], settings: &Settings) -> Result<u8, RunError> {
    let registry = Arc::new(load_registry(settings.anchors.as_deref())?);
    let agents = agent_journeys(paths)?;
    let scripts: Vec<PathBuf> = paths
        .iter()
        .filter(|p| !crate::transcript::is_agent_journey(p))
        .cloned()
        .collect();
    // Only agent journeys were named, or only they were found.
    let journeys = if !paths.is_empty() && scripts.is_empty() {
        Vec::new()
    } else {
        match prepare_journeys(&scripts) {
            Err(RunError::NoJourneys(_)) if !agents.is_empty() => Vec::new(),
            other => other?,
        }
    };
    if agents.is_empty() && journeys.iter().all(|j| j.compiled.is_err()) {
        // Nothing can run: report the scripts without starting an app or a browser.
        let reporter = Reporter::new(journeys.len());
        let outcomes: Vec<Outcome> = journeys
            .into_iter()
            .filter_map(|j| compiled(j).err().map(|o| *o))
            .collect();
        outcomes.iter().for_each(|o| reporter.finish(o));
        reporter.summary(&outcomes);
        return Ok(exit_code(&outcomes));
    }
    let mut traces = settings
        .trace
        .as_deref()
        .map(TraceDir::create)
        .transpose()?;
    let (guardrail, cookies) = guardrail_and_cookies(settings)?;
    let hub = Arc::new(Hub::new());
    let _page = control_page(&hub, settings.control_page).await?;
    let target = Target::start(settings.base_url.as_deref()).await?;
    let browser = Chromium::launch(settings.launch.clone()).await?;
    let snapshots = Arc::new(SnapshotStore::new(
        SNAPSHOT_DIR,
        UpdateMode::from_env(settings.update_snapshots),
    ));
    let reporter = Reporter::new(journeys.len() + agents.len());
    reporter.start(&target.base, browser.version());
    let mut outcomes = Vec::with_capacity(journeys.len());
    let run = Run {
        browser: &browser,
        target: &target,
        registry: &registry,
        snapshots: &snapshots,
        settings,
        hub: &hub,
        guardrail: guardrail.as_ref(),
        id: run_id(),
        cookies: &cookies,
    };
    for journey in journeys {
        reporter.begin(&journey.name);
        let trace = match (&mut traces, journey.compiled.is_ok()) {
            (Some(traces), true) => Some(traces.path_for(&journey.name)),
            _ => None,
        };
        let (outcome, trace) = run_one(&run, journey, trace).await;
        reporter.finish_traced(&outcome, trace.as_deref());
        outcomes.push(outcome);
    }
    for agent in &agents {
        reporter.begin(&agent.name);
        let outcome = crate::transcript::replay::run_one(&run, agent).await;
        reporter.finish(&outcome);
        outcomes.push(outcome);
    }
    browser.close().await;
    reporter.summary(&outcomes);
    let mut code = exit_code(&outcomes);
    // Only a full run that passed can say which snapshots nothing references any more.
    if paths.is_empty() && code == exit::PASSED && !unreferenced(&snapshots, settings.unreferenced)
    {
        code = exit::FAILED;
    }
    Ok(code)
}

/// The agent journeys (`*.agent.jsonl`) under `paths`, read and checked before anything
/// starts.
fn agent_journeys(paths: &[PathBuf]) -> Result<Vec<crate::transcript::Transcript>, RunError> {
    crate::transcript::discover(paths)
        .into_iter()
        .map(|(name, path)| Ok(crate::transcript::Transcript::load(&name, &path)?))
        .collect()
}

/// The control page, when asked for: served for the run's lifetime, its URL printed.
pub(crate) async fn control_page(
    hub: &Arc<Hub>,
    wanted: bool,
) -> Result<Option<ControlPage>, RunError> {
    if !wanted {
        return Ok(None);
    }
    let page = page::serve(Arc::clone(hub))
        .await
        .map_err(RunError::ControlPage)?;
    // On stderr, beside the progress: stdout is the report.
    eprintln!("control page: {}", page.url());
    Ok(Some(page))
}

/// What every session of a run shares besides the app and the browser: the guardrail
/// (checked before anything starts) and the profile's cookies.
pub(crate) fn guardrail_and_cookies(
    settings: &Settings,
) -> Result<(Option<Arc<Guardrail>>, Vec<Cookie>), RunError> {
    let guardrail = settings
        .guardrail
        .as_deref()
        .map(Guardrail::load)
        .transpose()?
        .map(Arc::new);
    Ok((guardrail, profile_cookies(settings)?))
}

/// The cookies of `--profile`, none without one: what every tab of a command starts with.
pub(crate) fn profile_cookies(settings: &Settings) -> Result<Vec<Cookie>, RunError> {
    Ok(match &settings.profile {
        Some(name) => Profile::named(name)?.cookies()?,
        None => Vec::new(),
    })
}

/// Handles snapshot files no journey referenced; false when that fails the run.
fn unreferenced(snapshots: &SnapshotStore, mode: Unreferenced) -> bool {
    let left = snapshots.unreferenced();
    if left.is_empty() || mode == Unreferenced::Ignore {
        return true;
    }
    for path in &left {
        match mode {
            Unreferenced::Delete => match std::fs::remove_file(path) {
                Ok(()) => eprintln!("deleted unreferenced snapshot {}", path.display()),
                Err(e) => eprintln!(
                    "cannot delete unreferenced snapshot {}: {e}",
                    path.display()
                ),
            },
            _ => eprintln!("unreferenced snapshot: {}", path.display()),
        }
    }
    if mode == Unreferenced::Reject {
        eprintln!(
            "{} unreferenced snapshot(s): delete them or run with `--unreferenced-snapshots=delete`",
            left.len()
        );
        return false;
    }
    true
}

/// What every journey of a run shares.
pub(crate) struct Run<'a> {
    pub(crate) browser: &'a Chromium,
    pub(crate) target: &'a Target,
    pub(crate) registry: &'a Arc<Registry>,
    snapshots: &'a Arc<SnapshotStore>,
    pub(crate) settings: &'a Settings,
    pub(crate) hub: &'a Arc<Hub>,
    guardrail: Option<&'a Arc<Guardrail>>,
    /// Names this run as the owner of its tabs.
    id: String,
    /// The profile's cookies, set in each journey's fresh browser context.
    pub(crate) cookies: &'a [Cookie],
}

/// A name for this run, unique on the machine for its lifetime.
pub(crate) fn run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!("run-{}-{nanos:08x}", std::process::id())
}

/// The gates of one journey's tools: see [`script_control`].
pub(crate) fn control_of(run: &Run<'_>, journey: &str) -> Control {
    script_control(run.hub, &run.id, journey, run.settings, run.guardrail)
}

/// The gates of a scripted session's tools (a journey's, a bench route's): its tab, named
/// `name`, in the hub of `run`; the consent policy (a script's default is `allow`); who can
/// answer; the guardrail.
pub(crate) fn script_control(
    hub: &Arc<Hub>,
    run: &str,
    name: &str,
    settings: &Settings,
    guardrail: Option<&Arc<Guardrail>>,
) -> Control {
    use std::io::IsTerminal;
    let kind = JourneyKind::Script;
    Control {
        hub: Arc::clone(hub),
        tab: hub.register(run, name),
        run: run.to_string(),
        kind,
        consent: settings.consent.unwrap_or(kind.default_consent()),
        terminal: std::io::stdin().is_terminal(),
        consent_timeout: settings.consent_timeout,
        guardrail: guardrail.cloned(),
        asker: None,
    }
}

/// Runs one journey, traced to `trace` when given; its outcome, and the trace written.
async fn run_one(
    run: &Run<'_>,
    journey: Journey,
    trace: Option<PathBuf>,
) -> (Outcome, Option<PathBuf>) {
    let journey = match compiled(journey) {
        Ok(journey) => journey,
        Err(outcome) => return (*outcome, None),
    };
    let Run {
        browser,
        target,
        registry,
        snapshots,
        settings,
        ..
    } = *run;
    let name = journey.name.clone();
    let file = journey.path.clone();
    let environment_failure = |message: String| Outcome {
        name: name.clone(),
        failure: Some(journey::Failure {
            kind: journey::FailureKind::Tool,
            code: Some(crate::tools::ErrorCode::BrowserCrashed.into()),
            message,
            attribution: crate::tools::Attribution::Environment,
            file: file.clone(),
            line: None,
            column: None,
        }),
        elapsed: Duration::ZERO,
        output: Vec::new(),
    };
    let tab = match browser.new_tab_with_cookies(run.cookies).await {
        Ok(tab) => tab,
        Err(e) => return (environment_failure(e.to_string()), None),
    };
    let camera = tab.camera();
    // A traced journey keeps evidence: each step's raw layer carries the text runs and the
    // controls without an anchor, not only the anchored ones.
    let mut options = settings.tools.clone();
    options.evidence |= trace.is_some();
    let mut tools = Tools::new(tab, target.base.clone(), Arc::clone(registry), options);
    let trace = match trace {
        Some(path) => start_trace(&tools, &path, &journey, browser.version()).await,
        None => None,
    };
    if let Some(trace) = &trace {
        tools = tools.with_trace(Arc::clone(trace));
    }
    let control = control_of(run, &journey.name);
    let tab_id = control.tab;
    run.hub.set_screenshot(tab_id, page::camera_source(camera));
    tools = tools.with_control(control);
    let tools = Arc::new(tools);
    let env = JourneyEnv {
        tools: Arc::clone(&tools),
        handle: tokio::runtime::Handle::current(),
        limits: settings.limits.clone(),
        snapshots: Arc::clone(snapshots),
    };
    let joined = tokio::task::spawn_blocking(move || journey::run_journey(&journey, &env)).await;
    run.hub.unregister(tab_id);
    if let Ok(tools) = Arc::try_unwrap(tools) {
        tools.close().await;
    }
    let outcome = match joined {
        Ok(outcome) => outcome,
        Err(e) => environment_failure(format!("the journey thread failed: {e}")),
    };
    let path = trace.map(|trace| {
        trace.end(outcome.failure.as_ref(), outcome.elapsed);
        if let Some(e) = trace.error() {
            eprintln!(
                "warning: the trace `{}` is incomplete: {e}",
                trace.path().display()
            );
        }
        trace.path().to_path_buf()
    });
    (outcome, path)
}

/// Opens the journey's trace and writes its header. A trace that cannot be written is a
/// warning, not a failed journey.
async fn start_trace<T: crate::browser::Tab>(
    tools: &Tools<T>,
    path: &Path,
    journey: &Journey,
    browser: &str,
) -> Option<Arc<Trace>> {
    let header = Header::new(
        &journey.name,
        &journey.path,
        browser,
        tools.options(),
        tools.viewport().await,
    );
    match Trace::create(path, &header) {
        Ok(trace) => Some(Arc::new(trace)),
        Err(e) => {
            eprintln!("warning: {e}; `{}` runs untraced", journey.name);
            None
        }
    }
}

/// The journey when it compiled, else its outcome: failed, not run.
fn compiled(journey: Journey) -> Result<Journey, Box<Outcome>> {
    match &journey.compiled {
        Ok(_) => Ok(journey),
        Err(failure) => Err(Box::new(Outcome {
            name: journey.name.clone(),
            failure: Some(failure.clone()),
            elapsed: Duration::ZERO,
            output: Vec::new(),
        })),
    }
}

/// 0 when all passed; 2 when a script was bad input; else 1 when any failed.
pub fn exit_code(outcomes: &[Outcome]) -> u8 {
    let failures = outcomes.iter().filter_map(|o| o.failure.as_ref());
    let mut code = exit::PASSED;
    for f in failures {
        if f.kind.is_bad_input() {
            return exit::BAD_INPUT;
        }
        code = exit::FAILED;
    }
    code
}
