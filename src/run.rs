//! Running journeys: finding and compiling them before anything starts, running each in a
//! fresh tab of the session (again, under `--retries`, while it fails), and the exit code
//! their outcomes make. `waymark run` (`cmd::run`) and the test harness drive journeys
//! through here.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::journey::{self, Journey, JourneyEnv, Outcome};
use crate::session::{Open, RunError, Session};
use crate::snapshot::{SnapshotStore, Unreferenced};
use crate::suite::{Attempt, JourneyId, JourneyRun};
use crate::tools::trace::TraceDir;
use crate::tools::{Attribution, ErrorCode};
use crate::transcript::Transcript;

pub use crate::suite::exit_code;

/// A journey of either kind, found and checked, waiting for its turn.
pub enum Planned {
    /// A Rhai script (compiled, or why it did not compile).
    Script(Journey),
    /// An agent's recorded tool calls, replayed.
    Agent(Transcript),
}

impl Planned {
    /// Its name and file.
    pub fn id(&self) -> JourneyId {
        let (name, path) = match self {
            Planned::Script(j) => (&j.name, &j.path),
            Planned::Agent(t) => (&t.name, &t.path),
        };
        JourneyId {
            name: name.clone(),
            path: path.clone(),
        }
    }

    /// False for a script that did not compile: it fails without a browser.
    pub fn runnable(&self) -> bool {
        match self {
            Planned::Script(j) => j.compiled.is_ok(),
            Planned::Agent(_) => true,
        }
    }

    /// The outcome of a script that did not compile, as the one attempt it gets.
    pub fn not_run(&self) -> Option<JourneyRun> {
        let Planned::Script(journey) = self else {
            return None;
        };
        let outcome = compiled(journey.clone()).err()?;
        Some(JourneyRun {
            id: self.id(),
            attempts: vec![Attempt {
                outcome: *outcome,
                trace: None,
                started: SystemTime::now(),
            }],
        })
    }
}

/// Every journey under `paths` (default `./journeys`): the scripts, compiled, then the
/// agent journeys (`*.agent.jsonl`), read and checked.
pub fn plan(paths: &[PathBuf]) -> Result<Vec<Planned>, RunError> {
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
    Ok(journeys
        .into_iter()
        .map(Planned::Script)
        .chain(agents.into_iter().map(Planned::Agent))
        .collect())
}

/// What [`run_many`] tells as it goes: a journey's attempt began, or one failed and
/// another follows (its number, of how many).
pub enum Heard<'a> {
    /// `name`'s attempt `n` began.
    Begin(&'a str, u32),
    /// `name`'s attempt failed; attempt `number + 1` of `of` follows.
    Retrying(&'a str, &'a Attempt, u32, u32),
    /// `name` ended (told in order later, with the others before it).
    End(&'a str),
}

/// Runs `journeys` `jobs` at a time (each in a context and tab of its own, its attempts
/// under `retries`), a new one starting as soon as any ends, and hands each result to
/// `finished` with its index, in the journeys' order whatever ends first: lines, reports
/// and history never depend on timing. When `stop` is asked, no journey starts any more,
/// those running are dropped (their tabs close) and those that finished are handed on, in
/// order; it returns the indexes of the journeys that did not finish.
#[allow(clippy::too_many_arguments)]
pub async fn run_many(
    session: &Session,
    stop: &crate::signals::Stop,
    snapshots: &Arc<SnapshotStore>,
    journeys: &[Planned],
    jobs: usize,
    retries: u32,
    traces: Option<&std::sync::Mutex<TraceDir>>,
    heard: &dyn Fn(Heard<'_>),
    mut finished: impl FnMut(usize, JourneyRun),
) -> Vec<usize> {
    use futures::StreamExt;
    // The workers free to take a journey: never empty when one starts, since no more
    // than `jobs` run at once.
    let free = std::sync::Mutex::new((0..jobs.max(1)).rev().collect::<Vec<usize>>());
    let free = &free;
    let names: Vec<String> = journeys.iter().map(|p| p.id().name).collect();
    let durations = crate::suite::History::default().durations();
    let order = start_order(&names, jobs, durations.as_ref());
    let mut running = futures::stream::iter(order.into_iter().map(|i| (i, &journeys[i])))
        .map(|(i, planned)| async move {
            let name = planned.id().name;
            let worker = free.lock().map_or(0, |mut f| f.pop().unwrap_or(0));
            heard(Heard::Begin(&name, 1));
            let attempts =
                run_attempts(session, snapshots, planned, retries, traces, |a, n, of| {
                    heard(Heard::Retrying(&name, a, n, of));
                    heard(Heard::Begin(&name, n + 1));
                });
            let journey = crate::session::as_worker(worker, attempts).await;
            if let Ok(mut f) = free.lock() {
                f.push(worker);
            }
            heard(Heard::End(&name));
            (i, journey)
        })
        // Unordered, so a long journey does not hold a slot others could use (a finished
        // journey waiting for its turn to be told would); told in order below.
        .buffer_unordered(jobs.max(1));
    let mut ready = std::collections::BTreeMap::new();
    let mut next = 0;
    while let Some(Some((i, journey))) = stop.cut(running.next()).await {
        ready.insert(i, journey);
        while let Some(journey) = ready.remove(&next) {
            finished(next, journey);
            next += 1;
        }
    }
    drop(running);
    let unfinished = (0..journeys.len()).filter(|i| !ready.contains_key(i) && *i >= next);
    let unfinished: Vec<usize> = unfinished.collect();
    for (i, journey) in ready {
        finished(i, journey);
    }
    unfinished
}

/// The order in which [`run_many`] starts the journeys named `names`: with more than one
/// job, the longest first by the durations the last runs recorded (`durations.json`), as
/// duration-based schedulers do, so that a long journey does not start last and hold the
/// run after the others ended. A journey with no recorded duration counts as the longest,
/// and equals keep their order: with nothing recorded, the journeys' own order. Only the
/// start order: results are told in the journeys' order whatever it is.
pub fn start_order(
    names: &[String],
    jobs: usize,
    durations: Option<&crate::suite::Durations>,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..names.len()).collect();
    if let (true, Some(durations)) = (jobs > 1, durations) {
        order.sort_by_key(|&i| std::cmp::Reverse(durations.get(&names[i]).unwrap_or(u64::MAX)));
    }
    order
}

/// Runs `planned` in fresh tabs until it passes, up to `retries` more times after a failure
/// (a script that is bad input is never run again), each attempt traced under `traces`
/// (`name.jsonl`, then `name.attempt-2.jsonl`…). `retrying` hears of each failed attempt
/// that will be followed by another, with its number and the number allowed.
pub async fn run_attempts(
    session: &Session,
    snapshots: &Arc<SnapshotStore>,
    planned: &Planned,
    retries: u32,
    traces: Option<&std::sync::Mutex<TraceDir>>,
    mut retrying: impl FnMut(&Attempt, u32, u32),
) -> JourneyRun {
    let allowed = retries.saturating_add(1);
    let id = planned.id();
    let mut first_trace: Option<PathBuf> = None;
    let mut attempts = Vec::new();
    for number in 1..=allowed {
        let started = SystemTime::now();
        let (outcome, trace) = match planned {
            Planned::Script(journey) => {
                let trace = match (traces, journey.compiled.is_ok()) {
                    (Some(traces), true) => {
                        // Journeys running side by side name their traces one at a time.
                        let mut traces = traces.lock().unwrap_or_else(|e| e.into_inner());
                        Some(match &first_trace {
                            None => traces.path_for(&journey.name),
                            Some(first) => traces.attempt_path(first, number),
                        })
                    }
                    _ => None,
                };
                if number == 1 {
                    first_trace.clone_from(&trace);
                }
                run_one(session, snapshots, journey.clone(), trace).await
            }
            Planned::Agent(transcript) => (crate::replay::run_one(session, transcript).await, None),
        };
        let again = number < allowed
            && outcome
                .failure
                .as_ref()
                .is_some_and(|f| !f.kind.is_bad_input());
        let attempt = Attempt {
            outcome,
            trace,
            started,
        };
        if again {
            retrying(&attempt, number, allowed);
        }
        attempts.push(attempt);
        if !again {
            break;
        }
    }
    JourneyRun { id, attempts }
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
pub(crate) fn environment_failure(name: &str, file: &Path, message: String) -> Outcome {
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
        gateway: surface.gateway(),
        handle: tokio::runtime::Handle::current(),
        limits: session.settings().limits.clone(),
        snapshots: Arc::clone(snapshots),
        vars: Arc::new(session.settings().vars.clone()),
    };
    let joined = tokio::task::spawn_blocking(move || journey::run_journey(&journey, &env)).await;
    let mut outcome = match joined {
        Ok(outcome) => outcome,
        Err(e) => environment_failure(&name, &file, format!("the journey thread failed: {e}")),
    };
    // What the pages threw after the journey's last call, which no call listed, fails a
    // journey that passed, under `--fail-on-page-error` (at no line: no call is to blame).
    if outcome.failure.is_none()
        && let Some(e) = surface.backstage().late_page_error().await
    {
        outcome.failure = Some(journey::Failure {
            kind: journey::FailureKind::Tool,
            code: Some(e.code.into()),
            message: e.message,
            attribution: e.attribution,
            file: file.clone(),
            line: None,
            column: None,
        });
    }
    // A browser that stopped answering is killed before anything else waits on it.
    let hung = outcome.failure.is_some() && session.browser_hung().await;
    // The screen the journey failed on, beside its trace, for the reports.
    if outcome.failure.is_some()
        && !hung
        && session.settings().tools.screenshots != crate::tools::Screenshots::Off
        && let Some(trace) = surface.backstage().trace()
        && let Some(png) = surface.backstage().safe_screenshot().await
    {
        trace.failure_screenshot(&png);
    }
    let trace = surface.close().await;
    // The browser went away under the journey (its process killed, or crashed): said in
    // words, since CDP's own is only that a reply will never come.
    let gone = session.launched().is_some_and(|b| !b.is_connected());
    if let Some(failure) = outcome
        .failure
        .as_mut()
        .filter(|f| gone && f.code == Some(ErrorCode::BrowserCrashed.into()))
    {
        failure.attribution = Attribution::Environment;
        failure.message = "the browser process went away during the journey (killed or crashed); \
             the next journey runs in a new browser"
            .to_string();
    } else if hung {
        // The browser stopped answering under the journey (a page's renderer holding its
        // thread answers `page_unresponsive`; here the browser itself does not answer).
        if let Some(failure) = outcome.failure.as_mut() {
            failure.attribution = Attribution::Environment;
            failure.code = Some(ErrorCode::BrowserCrashed.into());
            failure.message = format!(
                "the browser stopped answering during the journey ({}); it was killed and the next journey runs in a new browser",
                failure.message
            );
        }
    }
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

#[cfg(test)]
mod tests {
    use super::start_order;
    use crate::suite::Durations;

    #[test]
    fn journeys_start_longest_first_with_more_than_one_job() {
        let names: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let durations = Durations(
            [("a", 100), ("b", 3000), ("d", 900)]
                .map(|(n, ms)| (n.to_string(), ms))
                .into(),
        );
        // `c` has no duration: it counts as the longest.
        assert_eq!(start_order(&names, 2, Some(&durations)), [2, 1, 3, 0]);
        // One job, or nothing recorded: the journeys' own order.
        assert_eq!(start_order(&names, 1, Some(&durations)), [0, 1, 2, 3]);
        assert_eq!(start_order(&names, 2, None), [0, 1, 2, 3]);
    }
}
