//! The command line: flags (with `WAYMARK_*` environment fallbacks) turned into validated
//! [`Settings`], and the commands `run`, `read`, `bench`, `mcp`, `demo`, `profile`,
//! `state` and `durations`, which `cmd` carries out.
//!
//! Precedence: compiled-in defaults < `WAYMARK_*` environment < flags.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

mod context;
mod device;
mod har;

use crate::browser::LaunchOptions;
use crate::control::ConsentPolicy;
use crate::journey::Limits;
use crate::layout::Layout;
use crate::session::RunError;
use crate::settings::{Environment, Settings, TRACE_DIR, app_url};
use crate::snapshot::{Unreferenced, UpdateMode};
use crate::suite::{ReportTarget, Shard, SuiteOptions};
use crate::tools::{Screenshots, ToolOptions};

/// waymark runs journeys through a web application in a real headless Chromium.
#[derive(Debug, Parser)]
#[command(name = "waymark", version, about, max_term_width = 100)]
pub struct Cli {
    /// The app to drive; default: start the embedded demo app on a free 127.0.0.1 port.
    #[arg(long, global = true, env = "WAYMARK_BASE_URL", value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// The layout of the app under test: the one the embedded demo app serves, or (with
    /// `--base-url`) the one the app there is known to serve. Journeys marked
    /// `expect-fail layout=…` and the snapshot folder follow it.
    #[arg(long, global = true, env = "WAYMARK_LAYOUT", value_enum, default_value_t = Layout::Classic,
          value_name = "LAYOUT")]
    layout: Layout,
    /// The anchor registry; default: ./anchors.yaml when it exists.
    #[arg(long, global = true, env = "WAYMARK_ANCHORS", value_name = "FILE")]
    anchors: Option<PathBuf>,
    /// The browser executable; default: chromium-headless-shell when headless, then
    /// chromium, chromium-browser, google-chrome… on PATH.
    #[arg(long, global = true, env = "WAYMARK_BROWSER", value_name = "PATH")]
    browser: Option<PathBuf>,
    /// Show the browser window instead of running headless.
    #[arg(long, global = true)]
    headed: bool,
    /// Use the running browser at this CDP endpoint instead of launching one:
    /// `http://host:port` (its debugging port, resolved through /json/version) or its
    /// `ws://…/devtools/browser/…` URL. Journeys get contexts of their own in it; it is
    /// not closed at the end.
    #[arg(long, global = true, env = "WAYMARK_CDP_ENDPOINT", value_name = "URL",
          value_parser = crate::browser::Remote::cdp, conflicts_with_all = ["webdriver_url", "browser"])]
    cdp_endpoint: Option<crate::browser::Remote>,
    /// Ask this W3C WebDriver server (Selenium Grid 4) for a Chrome session per worker
    /// (`POST /session`), drive it over the CDP websocket it returns (`se:cdp`), and end
    /// it (`DELETE /session/{id}`) when done, failed or interrupted.
    #[arg(long, global = true, env = "WAYMARK_WEBDRIVER_URL", value_name = "URL",
          value_parser = crate::browser::Remote::webdriver, conflicts_with = "browser")]
    webdriver_url: Option<crate::browser::Remote>,
    /// At most this many controls are gathered by one read; the rest is reported as dropped.
    #[arg(long, global = true, env = "WAYMARK_MAX_CONTROLS", default_value_t = 5000, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    max_controls: u32,
    /// A variable the journeys read with `var("NAME")`, as NAME=VALUE (given as often as
    /// needed; over `WAYMARK_VAR_NAME`).
    #[arg(long = "var", global = true, value_name = "NAME=VALUE", value_parser = crate::journey::parse_var)]
    vars: Vec<(String, String)>,
    /// A variable as `--var` gives one, whose value is redacted wherever a secret field's
    /// value is: the trace, the reports, what a journey prints.
    #[arg(long = "secret-var", global = true, value_name = "NAME=VALUE", value_parser = crate::journey::parse_var)]
    secret_vars: Vec<(String, String)>,
    /// Description budget: at most this many characters of controls are shown to a script,
    /// an agent or a person per read; the rest is reported as dropped, by region and role.
    #[arg(long, global = true, env = "WAYMARK_BUDGET", value_name = "CHARS",
          value_parser = clap::value_parser!(u64).range(1..))]
    budget: Option<u64>,
    /// Audit every read against Chromium's accessibility tree; faults lower the screen's
    /// confidence (and `read` exits 1 on any fault or suppression).
    #[arg(long, global = true, env = "WAYMARK_AUDIT",
          value_parser = clap::builder::BoolishValueParser::new())]
    audit: bool,
    /// Fail a journey at the call whose round trip lists a page error (an exception the
    /// page did not catch, a promise rejection it did not handle): code `page_error`,
    /// attributed to the app.
    #[arg(long, global = true, env = "WAYMARK_FAIL_ON_PAGE_ERROR",
          value_parser = clap::builder::BoolishValueParser::new())]
    fail_on_page_error: bool,
    /// Consent before acting calls (invoke, press, fill): ask the person, allow, or deny.
    /// Default: `allow` for scripted journeys (their author decided), `ask` for agents.
    #[arg(
        long,
        global = true,
        env = "WAYMARK_CONSENT",
        value_enum,
        value_name = "POLICY"
    )]
    consent: Option<ConsentPolicy>,
    /// How long a consent question waits for its answer, in seconds.
    #[arg(long, global = true, env = "WAYMARK_CONSENT_TIMEOUT", default_value_t = 300, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..))]
    consent_timeout: u64,
    /// A guardrail file (YAML): deny or require asking by anchor pattern, class, route.
    #[arg(long, global = true, env = "WAYMARK_GUARDRAIL", value_name = "FILE")]
    guardrail: Option<PathBuf>,
    /// The surface cannot act: invoke, press, fill and handoff are not offered at all.
    #[arg(long, global = true, env = "WAYMARK_READ_ONLY")]
    read_only: bool,
    /// Serve the control page (take/return control, answer consent, finish handoffs) on
    /// 127.0.0.1 and print its URL.
    #[arg(long, global = true, env = "WAYMARK_CONTROL_PAGE")]
    control_page: bool,
    /// How long a handoff waits for the person to finish, in seconds.
    #[arg(long, global = true, env = "WAYMARK_HANDOFF_TIMEOUT", default_value_t = 300, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..))]
    handoff_timeout: u64,
    /// Longest wait for a page to load after a navigation (or an action that leads to
    /// one), in seconds. A 50,000-control page takes Chromium 11-14 s to load on a 2-core
    /// machine. At most 600: a larger figure is taken for milliseconds written by mistake
    /// (`5000` would wait 83 minutes) and refused.
    #[arg(long, global = true, env = "WAYMARK_LOAD_TIMEOUT", default_value_t = 15, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=600))]
    load_timeout: u64,
    /// Longest wait of an action (invoke, press, fill) for its target to be present,
    /// visible, enabled and uncovered, in milliseconds; `0` answers at once. At most
    /// 600000 (ten minutes).
    #[arg(
        long,
        global = true,
        env = "WAYMARK_ACTION_TIMEOUT",
        default_value_t = 5000,
        value_name = "MS",
        value_parser = clap::value_parser!(u64).range(0..=600_000)
    )]
    action_timeout: u64,
    /// Deadline of each journey, in seconds.
    #[arg(long, global = true, env = "WAYMARK_JOURNEY_TIMEOUT", default_value_t = 120, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..))]
    journey_timeout: u64,
    /// Start each tab signed in: cookies, localStorage and sessionStorage from a state
    /// file (`waymark state save`, or Playwright's `storageState` JSON).
    #[arg(long, global = true, env = "WAYMARK_STATE", value_name = "FILE")]
    state: Option<PathBuf>,
    /// The browser profile: `run` starts each journey with its cookies, `read` and `bench`
    /// their tabs, `mcp` its tab; `profile import-cookies` writes them [default for the
    /// import: `default`].
    #[arg(long, global = true, env = "WAYMARK_PROFILE", value_name = "NAME")]
    pub(crate) profile: Option<String>,
    /// Log diagnostics to stderr: `-v` info, `-vv` debug, `-vvv` trace (`RUST_LOG` filters
    /// too).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
    #[command(flatten)]
    device: device::DeviceFlags,
    #[command(flatten)]
    context: context::ContextFlags,
    #[command(flatten)]
    har: har::HarFlags,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run journeys (default: ./journeys) against the app.
    Run {
        /// Journey files or folders of `*.rhai` files.
        paths: Vec<PathBuf>,
        /// Accept new and changed snapshots (like `INSTA_UPDATE=always`).
        #[arg(long)]
        update_snapshots: bool,
        /// Snapshot files no journey referenced, after a full run that passed.
        #[arg(long, value_enum, default_value_t = Unreferenced::Ignore, value_name = "MODE")]
        unreferenced_snapshots: Unreferenced,
        /// Write each journey's trace (JSON lines) to DIR/<journey>.jsonl, overwriting the
        /// last run's [default: target/waymark/traces]
        #[arg(long, env = "WAYMARK_TRACE", value_name = "DIR")]
        trace: Option<PathBuf>,
        /// Write no traces (overrides `--trace` and `WAYMARK_TRACE`).
        #[arg(long, env = "WAYMARK_NO_TRACE")]
        no_trace: bool,
        /// Run a failing journey again, in a fresh tab, up to N more times; one that then
        /// passes is flaky (exit 0 unless every attempt failed). A script that is bad input
        /// is never retried.
        #[arg(long, env = "WAYMARK_RETRIES", default_value_t = 0, value_name = "N",
              value_parser = clap::value_parser!(u32).range(0..=100))]
        retries: u32,
        /// Run N journeys at a time, each in a browser context and tab of its own, in a
        /// browser of each worker's own (a WebDriver session each with `--webdriver-url`;
        /// one browser at `--cdp-endpoint`); lines stay in the journeys' order [default:
        /// the number of cores].
        #[arg(long, env = "WAYMARK_JOBS", value_name = "N",
              value_parser = clap::value_parser!(u32).range(1..=64))]
        jobs: Option<u32>,
        /// Run shard I of N (from 1), for a CI matrix: shards 1..N together run each
        /// journey once, balanced by .waymark/durations.json when it has their durations,
        /// else dealt out in path order. A shard only reads that file: its own durations
        /// go to .waymark/durations.shard-I-of-N.json, which the next run without
        /// `--shard`, or `waymark durations merge`, folds in.
        #[arg(long, value_name = "I/N", value_parser = clap::value_parser!(Shard))]
        shard: Option<Shard>,
        /// Run only the journeys that failed or were flaky in the last run
        /// (.waymark/last-run.json); with no record, or nothing failed, run them all.
        #[arg(long)]
        last_failed: bool,
        /// Write a report when the run ends: junit=PATH (JUnit XML), json=PATH (the run
        /// as data, see report.schema.json) or html=DIR (DIR/index.html: a page with each
        /// journey's steps and the failure highlighted). May be given more than once.
        #[arg(long, value_name = "FORMAT=PATH", value_parser = clap::value_parser!(ReportTarget))]
        report: Vec<ReportTarget>,
        /// Screenshots beside the traces, shown in the HTML report: `failure` (the screen a
        /// journey failed on), `on` (also after each navigate, invoke, press and fill) or
        /// `off`. Never while the person has the tab, never of a page showing a secret field
        /// holding a value.
        #[arg(long, env = "WAYMARK_SCREENSHOTS", value_enum, default_value_t = Screenshots::Failure,
              value_name = "WHEN")]
        screenshots: Screenshots,
    },
    /// Read one screen and print its controls.
    Read {
        /// App-relative route, e.g. /claims/1042.
        route: String,
        /// Print the inferred screen as JSON.
        #[arg(long)]
        json: bool,
        /// Read only this region, in full (within the budget).
        #[arg(long, value_name = "NAME")]
        region: Option<String>,
    },
    /// Measure reads, invokes and fills on routes; optionally fail on a regression.
    ///
    /// Each route: a fresh tab, `navigate` (the cold first read), warm reads, whole reads
    /// (the loaded page gathered again, nothing reused), reads after a small change, then
    /// `--invoke`/`--fill` round trips, each with the floor it is divided by (the
    /// collector's in-page time for a read, a trivial round trip for an action). The page
    /// floor (the page's own time to find the anchored controls and take their boxes) also
    /// divides a whole read's in-page time and each action, so the collector getting slower,
    /// or an action doing work per control, shows in a ratio too.
    Bench {
        /// App-relative routes, e.g. '/dense?n=10000'.
        #[arg(required_unless_present = "suite")]
        routes: Vec<String>,
        /// Measure the journeys instead (./journeys): run them all with one job and with
        /// `--jobs`, and report journeys per second and what a fresh tab costs.
        #[arg(long, conflicts_with_all = ["invoke", "fill", "baseline", "ceilings"])]
        suite: bool,
        /// With `--suite`: the jobs to compare with one [default: the number of cores].
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
        jobs: Option<u32>,
        /// Warm reads (and whole reads, invokes, fills) per route.
        #[arg(long, default_value_t = 10, value_name = "N",
              value_parser = clap::value_parser!(u32).range(1..=10_000))]
        runs: u32,
        /// Invoke this anchor on each route; `auto`: the page's `bench-click-target` meta.
        #[arg(long, value_name = "ANCHOR")]
        invoke: Option<String>,
        /// Fill this anchor on each route; `auto`: the page's `bench-fill-target` meta.
        #[arg(long, value_name = "ANCHOR")]
        fill: Option<String>,
        /// Print the report as JSON (the shape `--baseline` reads).
        #[arg(long)]
        json: bool,
        /// A saved `waymark bench --json` report; exit 1 when a median regressed.
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// How much slower than the baseline a median may be, in percent.
        #[arg(long, default_value_t = 20.0, value_name = "PCT", value_parser = percent)]
        threshold: f64,
        /// Ceilings on the ratios (JSON; see `bench/ceilings.json`); exit 1 over one.
        #[arg(long, value_name = "FILE")]
        ceilings: Option<PathBuf>,
    },
    /// Check that a build of the app keeps the registry's promises; with `--against`, what a
    /// second build (a redesign) changed.
    ///
    /// Visits every screen anchors.yaml declares (a route with parameters through its
    /// `example:` values) and reports each anchor declared there: found (its role, region,
    /// label, state), missing, or ambiguous. Exit 1 when a declared anchor is missing or
    /// ambiguous on a build checked.
    Check {
        /// A second build to compare with, e.g. a redesign's preview: the same screens,
        /// anchor by anchor (removed, added, relabelled, role changed, moved region), with
        /// the journeys that use each.
        #[arg(long, value_name = "URL")]
        against: Option<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Journeys whose uses of the anchors are reported [default: ./journeys].
        #[arg(long = "journeys", value_name = "PATH")]
        journeys: Vec<PathBuf>,
    },
    /// Propose registry entries for the controls a screen offers without an anchor.
    ///
    /// Reads ROUTE and prints, as YAML to paste into anchors.yaml, an entry per control
    /// without an anchor: an id, a description, the screen, and the most robust matcher
    /// (role and name, label, placeholder, test id, text, CSS last) that finds that control
    /// and nothing else on the page. A report only: nothing is written.
    Suggest {
        /// The screen to read, e.g. `/` or `/claims/1042`.
        route: String,
    },
    /// Serve the embedded demo app (in `--layout`) and print its URL (until Ctrl-C).
    Demo,
    /// Step through a journey's trace in the browser: serve the trace viewer on 127.0.0.1
    /// and print its URL (until Ctrl-C).
    ///
    /// TRACE is a trace (`target/waymark/traces/NAME.jsonl`) or a folder of them (a run's
    /// traces, or the same downloaded from CI): each step with its timing, and for the step
    /// chosen its action, gates, result, the screen read by region, what changed and the
    /// screenshot kept. ↑ ↓ (or j k) move between the steps.
    Show {
        /// A trace file or a folder of traces [default: target/waymark/traces].
        #[arg(value_name = "TRACE|DIR")]
        path: Option<PathBuf>,
        /// Open the URL in the system's browser too.
        #[arg(long)]
        open: bool,
        /// Serve on this port of 127.0.0.1 [default: a free one].
        #[arg(long, default_value_t = 0, value_name = "N")]
        port: u16,
        /// Serve nothing: print where the steps' time went, phase by phase (the page's own
        /// work, waymark's waits and trips), over every step and by verb.
        #[arg(long, conflicts_with_all = ["open", "port"])]
        timing: bool,
    },
    /// Serve the tools to an agent over MCP (stdio): navigate, read_screen, invoke, press,
    /// fill, handoff, finish. Acting calls ask the person first (consent `ask` by default),
    /// through the client when it can show a question. With `--read-only` the acting tools
    /// are not offered.
    Mcp {
        /// Record every tool call and its result to FILE (JSON lines, secrets redacted);
        /// name it `journeys/<name>.agent.jsonl` and `waymark run` replays it.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
    },
    /// Browser profiles: what a person brings from their own browser.
    Profile {
        #[command(subcommand)]
        action: ProfileCommand,
    },
    /// Signed-in state (cookies, localStorage, sessionStorage) in Playwright's
    /// `storageState` format: saved once after a sign-in, then `--state FILE`.
    State {
        #[command(subcommand)]
        action: StateCommand,
    },
    /// The journeys' recorded durations (.waymark/durations.json), which balance `--shard`.
    Durations {
        #[command(subcommand)]
        action: DurationsCommand,
    },
}

/// What to do with recorded durations.
#[derive(Debug, Subcommand)]
pub(crate) enum DurationsCommand {
    /// Fold the durations shards measured into .waymark/durations.json, which the next
    /// `--shard` split is balanced by: after every shard of a CI matrix has run.
    ///
    /// With no FILE, folds and then removes .waymark/durations.shard-I-of-N.json (what
    /// `waymark run --shard I/N` writes), oldest first; with FILEs, folds those in the
    /// order given and leaves them. A later file's duration of a journey wins. Prints each
    /// file and the SHA-256 the next shards will name; nothing is written unless every
    /// file is durations.
    Merge {
        /// Durations files to fold in (e.g. the shards' CI artifacts).
        files: Vec<PathBuf>,
    },
}

/// What to do with signed-in state.
#[derive(Debug, Subcommand)]
pub(crate) enum StateCommand {
    /// Sign in once and save the state to FILE (0600; Playwright's `storageState` JSON):
    /// the browser context's cookies and the storage of the app's origin.
    ///
    /// Without `--journey`, opens ROUTE and hands the tab to you (the control page prints
    /// its URL): sign in, press Done, and the state is saved. With `--journey`, runs that
    /// journey (a scripted sign-in, or one with `handoff`) in the tab first. Prints counts
    /// and domains, never a value.
    Save {
        /// Where to write the state.
        file: PathBuf,
        /// The screen to sign in on.
        #[arg(long, default_value = "/", value_name = "ROUTE")]
        route: String,
        /// A journey that signs in, run in the tab before the state is saved.
        #[arg(long, value_name = "FILE")]
        journey: Option<PathBuf>,
    },
}

/// What to do with a profile.
#[derive(Debug, Subcommand)]
pub(crate) enum ProfileCommand {
    /// Import the cookies of one domain (and its subdomains) from your own browser's export
    /// into a profile (`--profile`, default `default`).
    ///
    /// Reads a Netscape `cookies.txt` (curl, wget, browser extensions) or a JSON array
    /// (cookie-export extensions). Prints the file name and counts per domain, never a
    /// value. For a person at a terminal: no journey or agent can call it.
    ImportCookies {
        /// Keep only cookies of this domain and its subdomains, e.g. `example.com`.
        #[arg(long, value_name = "DOMAIN")]
        domain: String,
        /// The export to read.
        #[arg(long, value_name = "PATH")]
        from: PathBuf,
    },
}

fn percent(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        _ => Err(format!(
            "`{text}` is not a percentage (a number, 0 or more)"
        )),
    }
}

/// `--jobs N`, else the number of cores.
fn jobs(flag: Option<u32>) -> usize {
    flag.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |n| n as usize,
    )
}

/// `given` (`--base-url`, `check --against`) as a checked app URL, or bad input.
fn app(given: &str) -> Result<url::Url, RunError> {
    app_url(given).map_err(|why| RunError::BaseUrl {
        url: given.to_string(),
        why,
    })
}

impl Cli {
    /// The settings the flags, the environment and the defaults make: resolved here, once.
    pub(crate) fn settings(&self) -> Result<Settings, RunError> {
        self.settings_in(&Environment::read())
    }

    /// The settings the flags and `env` make (clap has read the `WAYMARK_*` fallbacks).
    pub(crate) fn settings_in(&self, env: &Environment) -> Result<Settings, RunError> {
        let (update_snapshots, unreferenced, trace, suite) = match &self.command {
            Command::Run {
                update_snapshots,
                unreferenced_snapshots,
                trace,
                no_trace,
                retries,
                jobs: flag,
                shard,
                last_failed,
                report,
                ..
            } => (
                *update_snapshots,
                *unreferenced_snapshots,
                (!no_trace).then(|| trace.clone().unwrap_or_else(|| TRACE_DIR.into())),
                SuiteOptions {
                    retries: *retries,
                    jobs: jobs(*flag),
                    shard: *shard,
                    last_failed: *last_failed,
                    reports: report.clone(),
                },
            ),
            // The jobs `bench --suite` compares with one.
            Command::Bench {
                suite: true,
                jobs: flag,
                ..
            } => (
                false,
                Unreferenced::Ignore,
                None,
                SuiteOptions {
                    jobs: jobs(*flag),
                    ..SuiteOptions::default()
                },
            ),
            _ => (false, Unreferenced::Ignore, None, SuiteOptions::default()),
        };
        // An agent reads within a budget unless told otherwise: a screen's whole description
        // would crowd its context out.
        let budget = match (self.budget, &self.command) {
            (Some(chars), _) => Some(usize::try_from(chars).unwrap_or(usize::MAX)),
            (None, Command::Mcp { .. }) => Some(crate::mcp::DEFAULT_BUDGET),
            (None, _) => None,
        };
        let against = match &self.command {
            Command::Check {
                against: Some(url), ..
            } => Some(app(url)?),
            _ => None,
        };
        let mut launch = LaunchOptions {
            executable: self.browser.clone(),
            headed: self.headed,
            remote: self
                .cdp_endpoint
                .clone()
                .or_else(|| self.webdriver_url.clone()),
            ..LaunchOptions::default()
        };
        self.device.apply(&mut launch);
        launch.context = self.context.settings();
        let (snapshots, control_page) = match &self.command {
            // A state save writes no snapshots; with no journey to sign in, the person
            // signs in through the control page.
            Command::State {
                action: StateCommand::Save { journey, .. },
            } => (UpdateMode::No, self.control_page || journey.is_none()),
            _ => (env.snapshot_mode(update_snapshots), self.control_page),
        };
        Ok(Settings {
            suite,
            snapshots,
            unreferenced,
            trace,
            base_url: match self.command {
                // Commands that drive no app: a stray `WAYMARK_BASE_URL` is not theirs.
                Command::Demo | Command::Profile { .. } | Command::Durations { .. } => None,
                _ => self.base_url.as_deref().map(app).transpose()?,
            },
            against,
            layout: self.layout,
            anchors: self.anchors.clone(),
            launch,
            tools: ToolOptions {
                max_controls: self.max_controls as usize,
                budget,
                audit: self.audit,
                fail_on_page_error: self.fail_on_page_error,
                read_only: self.read_only,
                handoff_timeout: Duration::from_secs(self.handoff_timeout),
                load_timeout: Duration::from_secs(self.load_timeout),
                action_timeout: Duration::from_millis(self.action_timeout),
                screenshots: match &self.command {
                    Command::Run { screenshots, .. } => *screenshots,
                    _ => Screenshots::Off,
                },
                ..ToolOptions::default()
            },
            state: self.state.clone(),
            consent: self.consent,
            consent_timeout: Duration::from_secs(self.consent_timeout),
            guardrail: self.guardrail.clone(),
            control_page,
            profile: self.profile.clone(),
            home: env.profiles_home(),
            limits: Limits {
                deadline: Duration::from_secs(self.journey_timeout),
                ..Limits::default()
            },
            vars: crate::journey::Vars::resolve(&env.vars, &self.vars, &self.secret_vars),
            har: self.har.mode(),
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Cli;
    use crate::settings::Environment;
    use crate::snapshot::UpdateMode;

    fn settings(args: &[&str], env: &Environment) -> crate::settings::Settings {
        let cli = Cli::try_parse_from(std::iter::once("waymark").chain(args.iter().copied()))
            .expect("the arguments parse");
        cli.settings_in(env).expect("the settings resolve")
    }

    #[test]
    fn the_budget_is_the_flag_else_the_agent_default_for_mcp_only() {
        let env = Environment::default();
        assert_eq!(
            settings(&["mcp"], &env).tools.budget,
            Some(crate::mcp::DEFAULT_BUDGET)
        );
        assert_eq!(
            settings(&["--budget", "10", "mcp"], &env).tools.budget,
            Some(10)
        );
        assert_eq!(settings(&["read", "/"], &env).tools.budget, None);
    }

    #[test]
    fn variables_come_from_the_flags_over_the_environment_and_secrets_are_known() {
        let env = Environment {
            vars: [("USER", "env"), ("REGION", "eu")]
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .into(),
            ..Environment::default()
        };
        let args = ["--var", "USER=ada", "--secret-var", "TOKEN=t0k", "run"];
        let vars = settings(&args, &env).vars;
        assert_eq!(vars.get("USER"), Some("ada"));
        assert_eq!(vars.get("REGION"), Some("eu"));
        assert_eq!(vars.secret_values(), ["t0k"]);
        let bad = Cli::try_parse_from(["waymark", "--var", "no-equals", "run"]);
        assert!(bad.is_err());
    }

    #[test]
    fn failing_on_page_errors_is_the_flag_or_its_variable() {
        let env = Environment::default();
        assert!(!settings(&["run"], &env).tools.fail_on_page_error);
        assert!(
            settings(&["--fail-on-page-error", "run"], &env)
                .tools
                .fail_on_page_error
        );
    }

    #[test]
    fn jobs_and_the_snapshot_mode_are_resolved_once() {
        let ci = Environment {
            ci: Some("true".into()),
            ..Environment::default()
        };
        let run = settings(&["run", "--jobs", "3"], &ci);
        assert_eq!((run.suite.jobs, run.snapshots), (3, UpdateMode::No));
        let update = settings(&["run", "--update-snapshots"], &ci);
        assert_eq!(update.snapshots, UpdateMode::Always);
        let bench = settings(
            &["bench", "--suite", "--jobs", "2"],
            &Environment::default(),
        );
        assert_eq!((bench.suite.jobs, bench.snapshots), (2, UpdateMode::New));
    }

    #[test]
    fn a_state_save_writes_no_snapshots_and_without_a_journey_serves_the_control_page() {
        let env = Environment {
            insta_update: Some("always".into()),
            ..Environment::default()
        };
        let by_hand = settings(&["state", "save", "s.json"], &env);
        assert_eq!(
            (by_hand.snapshots, by_hand.control_page),
            (UpdateMode::No, true)
        );
        let scripted = settings(&["state", "save", "s.json", "--journey", "j.rhai"], &env);
        assert_eq!(
            (scripted.snapshots, scripted.control_page),
            (UpdateMode::No, false)
        );
        assert!(!settings(&["read", "/"], &env).control_page);
    }

    #[test]
    fn app_urls_are_parsed_and_checked_when_the_command_line_is_read() {
        let env = Environment::default();
        let check = settings(
            &[
                "--base-url",
                "http://127.0.0.1:9",
                "check",
                "--against",
                "http://h:8/",
            ],
            &env,
        );
        assert_eq!(
            check.base_url.map(String::from).as_deref(),
            Some("http://127.0.0.1:9/")
        );
        assert_eq!(
            check.against.map(String::from).as_deref(),
            Some("http://h:8/")
        );
        let bad = Cli::try_parse_from(["waymark", "--base-url", "ftp://h", "read", "/"])
            .expect("the arguments parse")
            .settings_in(&env)
            .unwrap_err();
        assert_eq!(
            bad.to_string(),
            "invalid `--base-url` `ftp://h`: only http and https apps can be driven"
        );
        assert_eq!(bad.exit(), crate::exit::Exit::BadInput);
        let tls = Cli::try_parse_from(["waymark", "--cdp-endpoint", "wss://h:1/x", "read", "/"])
            .unwrap_err();
        assert_eq!(tls.exit_code(), 2);
        assert!(tls.to_string().contains("speaks no TLS"), "{tls}");
    }
}
