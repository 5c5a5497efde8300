//! Running journeys: finding and compiling them before anything starts, running each in a
//! fresh tab of the session, and the exit code their outcomes make. `waymark run`
//! (`cmd::run`) and the test harness drive journeys through here.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::exit::Exit;
use crate::journey::{self, Journey, JourneyEnv, Outcome};
use crate::session::{Open, RunError, Session};
use crate::snapshot::{SnapshotStore, Unreferenced};
use crate::tools::{Attribution, ErrorCode};

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

/// The agent journeys (`*.agent.jsonl`) under `paths`, read and checked before anything
/// starts.
pub fn agent_journeys(paths: &[PathBuf]) -> Result<Vec<crate::transcript::Transcript>, RunError> {
    crate::transcript::discover(paths)
        .into_iter()
        .map(|(name, path)| Ok(crate::transcript::Transcript::load(&name, &path)?))
        .collect()
}

/// Handles snapshot files no journey referenced; false when that fails the run.
pub fn unreferenced(snapshots: &SnapshotStore, mode: Unreferenced) -> bool {
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

/// The failure of a journey whose browser went away under it (or never gave it a tab).
pub(crate) fn environment_failure(name: &str, file: &std::path::Path, message: String) -> Outcome {
    Outcome {
        name: name.to_string(),
        failure: Some(journey::Failure {
            kind: journey::FailureKind::Tool,
            code: Some(ErrorCode::BrowserCrashed.into()),
            message,
            attribution: Attribution::Environment,
            file: file.to_path_buf(),
            line: None,
            column: None,
        }),
        expected_failure: None,
        elapsed: Duration::ZERO,
        output: Vec::new(),
    }
}

/// Runs one journey in a fresh tab of `session`, traced to `trace` when given; its
/// outcome as the run counts it on the session's layout (see [`journey::mark::judge`]),
/// and the trace written (which records what happened, mark or not).
pub async fn run_one(
    session: &Session,
    snapshots: &Arc<SnapshotStore>,
    journey: Journey,
    trace: Option<PathBuf>,
) -> (Outcome, Option<PathBuf>) {
    let journey = match compiled(journey) {
        Ok(journey) => journey,
        Err(outcome) => return (*outcome, None),
    };
    let name = journey.name.clone();
    let file = journey.path.clone();
    let marks = journey.expect_fail.clone();
    let mut open = Open::script(&journey.name);
    if let Some(path) = trace {
        open = open.traced(path, &journey.path);
    }
    let surface = match session.open(open).await {
        Ok(surface) => surface,
        Err(e) => return (environment_failure(&name, &file, e.to_string()), None),
    };
    let env = JourneyEnv {
        tools: Arc::clone(surface.tools()),
        handle: tokio::runtime::Handle::current(),
        limits: session.settings().limits.clone(),
        snapshots: Arc::clone(snapshots),
    };
    let joined = tokio::task::spawn_blocking(move || journey::run_journey(&journey, &env)).await;
    let trace = surface.close().await;
    let outcome = match joined {
        Ok(outcome) => outcome,
        Err(e) => environment_failure(&name, &file, format!("the journey thread failed: {e}")),
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
    let outcome = journey::mark::judge(outcome, &marks, session.settings().layout, &file);
    (outcome, path)
}

/// The journey when it compiled, else its outcome: failed, not run.
pub fn compiled(journey: Journey) -> Result<Journey, Box<Outcome>> {
    match &journey.compiled {
        Ok(_) => Ok(journey),
        Err(failure) => Err(Box::new(Outcome {
            name: journey.name.clone(),
            failure: Some(failure.clone()),
            expected_failure: None,
            elapsed: Duration::ZERO,
            output: Vec::new(),
        })),
    }
}

/// [`Exit::Passed`] when all passed; [`Exit::BadInput`] when a script was bad input; else
/// [`Exit::Failed`] when any failed.
pub fn exit_code(outcomes: &[Outcome]) -> Exit {
    let failures = outcomes.iter().filter_map(|o| o.failure.as_ref());
    let mut code = Exit::Passed;
    for f in failures {
        if f.kind.is_bad_input() {
            return Exit::BadInput;
        }
        code = Exit::Failed;
    }
    code
}
