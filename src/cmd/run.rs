//! `waymark run [PATH...]`: everything checked (registry, journeys, trace folder, guardrail,
//! profile) before the app and the browser start, then each journey in a fresh tab, a line
//! each, the summary and the exit code.

use std::path::PathBuf;
use std::sync::Arc;

use crate::exit::Exit;
use crate::journey::Outcome;
use crate::report::Reporter;
use crate::run::{agent_journeys, compiled, exit_code, prepare_journeys, run_one, unreferenced};
use crate::session::{RunError, Session};
use crate::settings::Settings;
use crate::snapshot::{SnapshotStore, UpdateMode};
use crate::tools::trace::TraceDir;

/// Runs the journeys under `paths` (default `./journeys`) and returns the exit code.
pub async fn run(paths: &[PathBuf], settings: &Settings) -> Result<Exit, RunError> {
    let builder = Session::builder(settings)?;
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
    let session = builder.start().await?;
    let browser = session.browser().await?;
    let snapshots = Arc::new(SnapshotStore::new(
        settings.snapshot_dir(),
        UpdateMode::from_env(settings.update_snapshots),
    ));
    let reporter = Reporter::new(journeys.len() + agents.len());
    reporter.start(session.base(), browser.version());
    let mut outcomes = Vec::with_capacity(journeys.len());
    for journey in journeys {
        reporter.begin(&journey.name);
        let trace = match (&mut traces, journey.compiled.is_ok()) {
            (Some(traces), true) => Some(traces.path_for(&journey.name)),
            _ => None,
        };
        let (outcome, trace) = run_one(&session, &snapshots, journey, trace).await;
        reporter.finish_traced(&outcome, trace.as_deref());
        outcomes.push(outcome);
    }
    for agent in &agents {
        reporter.begin(&agent.name);
        let outcome = crate::replay::run_one(&session, agent).await;
        reporter.finish(&outcome);
        outcomes.push(outcome);
    }
    session.close().await;
    reporter.summary(&outcomes);
    let mut code = exit_code(&outcomes);
    // Only a full run that passed can say which snapshots nothing references any more.
    if paths.is_empty() && code == Exit::Passed && !unreferenced(&snapshots, settings.unreferenced)
    {
        code = Exit::Failed;
    }
    Ok(code)
}
