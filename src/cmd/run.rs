//! `waymark run [PATH...]`: everything checked (registry, journeys, trace and report
//! folders, guardrail, profile) before the app and the browser start; then the shard's
//! journeys (those `--last-failed` picks), each in a fresh tab and again while it fails
//! under `--retries`, a line each; the summary, the history in `.waymark/`, the reports,
//! and the exit code.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use crate::exit::Exit;
use crate::report::{Reporter, Reports};
use crate::run::{Heard, Planned, plan, run_many, unreferenced};
use crate::session::{RunError, Session};
use crate::settings::Settings;
use crate::signals::Stop;
use crate::snapshot::SnapshotStore;
use crate::suite::{History, JourneyRun, SuiteRun, select};
use crate::tools::trace::TraceDir;

/// Runs the journeys under `paths` (default `./journeys`) and returns the exit code. When
/// `stop` is asked, the journeys running are dropped and the rest not started; those that
/// finished are reported (console, history, `--report` files) and the others counted as
/// not run.
pub async fn run(paths: &[PathBuf], settings: &Settings, stop: &Stop) -> Result<Exit, RunError> {
    let builder = Session::builder(settings)?.prewarm();
    let options = &settings.suite;
    let planned = plan(paths)?;
    let reports = Reports::prepare(&options.reports)?;
    let history = History::default();
    let ids: Vec<_> = planned.iter().map(Planned::id).collect();
    let selection = select(&ids, options.shard, options.last_failed, &history);
    let (started, clock) = (SystemTime::now(), Instant::now());
    let mut slots: Vec<Option<Planned>> = planned.into_iter().map(Some).collect();
    let chosen: Vec<Planned> = selection
        .run
        .iter()
        .filter_map(|&i| slots[i].take())
        .collect();
    let reporter = Reporter::new(chosen.len());
    selection.notes.iter().for_each(|note| reporter.note(note));
    let allowed = options.retries.saturating_add(1);
    let mut done: Vec<(usize, JourneyRun)> = Vec::with_capacity(ids.len());
    let snapshots = Arc::new(SnapshotStore::new(
        settings.snapshot_dir(),
        settings.snapshots,
    ));
    if !chosen.iter().any(Planned::runnable) {
        // Nothing can run: report the scripts without starting an app or a browser.
        for (&at, planned) in selection.run.iter().zip(&chosen) {
            if let Some(journey) = planned.not_run() {
                reporter.finish(&journey, allowed);
                done.push((at, journey));
            }
        }
    } else {
        let traces = settings
            .trace
            .as_deref()
            .map(TraceDir::create)
            .transpose()?
            .map(std::sync::Mutex::new);
        let session = builder.journeys(chosen.len()).start().await?;
        session.warm_up(options.jobs.min(chosen.len())).await?;
        // Not held past here: `close` closes only the browsers nobody else holds.
        let version = session.browser().await?.version().to_string();
        reporter.start(session.base(), &version);
        let heard = |event: Heard<'_>| match event {
            Heard::Begin(name, n) => reporter.begin(name, n),
            Heard::Retrying(name, attempt, n, of) => reporter.retrying(name, attempt, n, of),
            Heard::End(name) => reporter.end(name),
        };
        let unfinished = run_many(
            &session,
            stop,
            &snapshots,
            &chosen,
            options.jobs,
            options.retries,
            traces.as_ref(),
            &heard,
            |i, journey| {
                reporter.finish(&journey, allowed);
                done.push((selection.run[i], journey));
            },
        )
        .await;
        if let Some(signal) = stop.signal() {
            let names: Vec<String> = unfinished.iter().map(|&i| chosen[i].id().name).collect();
            reporter.note(&format!(
                "{}: {} of {} journeys finished; not run to the end: {}",
                signal.name(),
                chosen.len() - names.len(),
                chosen.len(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ));
            for i in unfinished {
                done.push((
                    selection.run[i],
                    JourneyRun {
                        id: chosen[i].id(),
                        attempts: Vec::new(),
                    },
                ));
            }
        }
        session.close().await;
    }
    for &at in &selection.skipped {
        done.push((
            at,
            JourneyRun {
                id: ids[at].clone(),
                attempts: Vec::new(),
            },
        ));
    }
    done.sort_by_key(|(at, _)| *at);
    let run = SuiteRun {
        started,
        elapsed: clock.elapsed(),
        shard: selection.shard,
        retries: options.retries,
        journeys: done.into_iter().map(|(_, journey)| journey).collect(),
    };
    reporter.slowest(&run.journeys);
    reporter.summary(run.counts());
    history.record(&run);
    reports.write(&run)?;
    let mut code = run.exit();
    // Only a full run that passed can say which snapshots nothing references any more.
    let full = paths.is_empty()
        && selection.shard.is_none()
        && selection.skipped.is_empty()
        && stop.signal().is_none();
    if full && code == Exit::Passed && !unreferenced(&snapshots, settings.unreferenced) {
        code = Exit::Failed;
    }
    Ok(code)
}
