//! Every journey under `journeys/` as its own named test, against the embedded demo app,
//! sharing one Chromium: `cargo test --test journeys approve_claim` runs one, `cargo nextest
//! run` filters and reports per journey. Snapshots follow insta's rules (`INSTA_UPDATE`,
//! `CI`): locally a changed screen leaves a `.snap.new` for `cargo insta review`.
//!
//! Journeys run one at a time unless `--test-threads` says otherwise: like `waymark run`,
//! they share the demo app's state (a journey proving that nothing was saved counts every
//! save in the app).

use std::sync::{Arc, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};
use tokio::runtime::Runtime;
use url::Url;
use waymark::browser::{Chromium, LaunchOptions};
use waymark::demo::DemoApp;
use waymark::journey::{self, Journey, JourneyEnv, Limits};
use waymark::registry::Registry;
use waymark::run::SNAPSHOT_DIR;
use waymark::snapshot::{SnapshotStore, UpdateMode};
use waymark::tools::{ToolOptions, Tools};

/// The demo app and the browser, started on first use by whichever journey runs first.
struct Shared {
    rt: Runtime,
    demo: DemoApp,
    browser: Chromium,
    registry: Arc<Registry>,
    snapshots: Arc<SnapshotStore>,
}

static SHARED: OnceLock<Result<Shared, String>> = OnceLock::new();

fn shared() -> Result<&'static Shared, Failed> {
    let started = SHARED.get_or_init(|| {
        let registry = Registry::load("anchors.yaml".as_ref()).map_err(|e| e.to_string())?;
        let rt = Runtime::new().map_err(|e| format!("cannot start a runtime: {e}"))?;
        let (demo, browser) = rt.block_on(async {
            let demo = DemoApp::start().await.map_err(|e| e.to_string())?;
            let browser = Chromium::launch(LaunchOptions::default())
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>((demo, browser))
        })?;
        Ok(Shared {
            rt,
            demo,
            browser,
            registry: Arc::new(registry),
            snapshots: Arc::new(SnapshotStore::new(
                SNAPSHOT_DIR,
                UpdateMode::from_env(false),
            )),
        })
    });
    started.as_ref().map_err(|e| Failed::from(e.as_str()))
}

fn run(journey: &Journey) -> Result<(), Failed> {
    let shared = shared()?;
    let tab = shared
        .rt
        .block_on(shared.browser.new_tab())
        .map_err(|e| Failed::from(e.to_string()))?;
    let base = Url::parse(shared.demo.base_url()).map_err(|e| Failed::from(e.to_string()))?;
    let tools = Arc::new(Tools::new(
        tab,
        base,
        Arc::clone(&shared.registry),
        ToolOptions::default(),
    ));
    let env = JourneyEnv {
        tools: Arc::clone(&tools),
        handle: shared.rt.handle().clone(),
        limits: Limits::default(),
        snapshots: Arc::clone(&shared.snapshots),
    };
    let outcome = journey::run_journey(journey, &env);
    drop(env);
    if let Ok(tools) = Arc::try_unwrap(tools) {
        shared.rt.block_on(tools.close());
    }
    match outcome.failure {
        None => Ok(()),
        Some(failure) => {
            let mut text = failure.to_string();
            for line in &outcome.output {
                text.push_str("\n| ");
                text.push_str(line);
            }
            Err(Failed::from(text))
        }
    }
}

fn main() {
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        args.test_threads = Some(1);
    }
    let journeys = match waymark::run::prepare_journeys(&[]) {
        Ok(journeys) => journeys,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let trials = journeys
        .into_iter()
        .map(|journey| {
            let name = journey.name.clone();
            Trial::test(name, move || run(&journey)).with_kind("journey")
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    // Statics are never dropped: the browser must not outlive the process.
    waymark::browser::kill_launched_browsers();
    conclusion.exit();
}
