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
use waymark::journey::Journey;
use waymark::session::Session;
use waymark::settings::{Environment, Settings};
use waymark::snapshot::SnapshotStore;

/// The session (the demo app, the browser, the registry and the gates), started on first
/// use by whichever journey runs first: the same one `waymark run` builds.
struct Shared {
    rt: Runtime,
    session: Session,
    snapshots: Arc<SnapshotStore>,
}

static SHARED: OnceLock<Result<Shared, String>> = OnceLock::new();

fn shared() -> Result<&'static Shared, Failed> {
    let started = SHARED.get_or_init(|| {
        let settings = Settings {
            anchors: Some("anchors.yaml".into()),
            ..Settings::default()
        };
        let builder = Session::builder(&settings).map_err(|e| e.to_string())?;
        let rt = Runtime::new().map_err(|e| format!("cannot start a runtime: {e}"))?;
        let session = rt.block_on(async {
            let session = builder.start().await.map_err(|e| e.to_string())?;
            session.browser().await.map_err(|e| e.to_string())?;
            Ok::<_, String>(session)
        })?;
        Ok(Shared {
            rt,
            session,
            snapshots: Arc::new(SnapshotStore::new(
                settings.snapshot_dir(),
                Environment::read().snapshot_mode(false),
            )),
        })
    });
    started.as_ref().map_err(|e| Failed::from(e.as_str()))
}

fn run(journey: Journey) -> Result<(), Failed> {
    let shared = shared()?;
    let (outcome, _) = shared.rt.block_on(waymark::run::run_one(
        &shared.session,
        &shared.snapshots,
        journey,
        None,
    ));
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
            Trial::test(name, move || run(journey)).with_kind("journey")
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    // Statics are never dropped: the browser must not outlive the process, nor its
    // profile (each run of the tests left one in the temporary directory).
    waymark::browser::put_down_launched_browsers();
    conclusion.exit();
}
