//! `waymark bench --suite`: how fast the journeys run as a suite, with one job and with
//! `--jobs`, and what a fresh tab costs a journey before its first step.

use crate::exit::Exit;
use crate::session::{Open, RunError, Session};
use crate::settings::Settings;

/// How many times each of the two runs is measured: one run of a short suite moves by a
/// tenth from one try to the next on a shared machine, so the rates reported are medians.
const ROUNDS: usize = 3;

/// `waymark bench --suite`: the journeys under `./journeys`, run whole with one job and with
/// `jobs`, [`ROUNDS`] times each in alternating order, each run in a session of its own (the
/// embedded app starts afresh); then what a fresh tab costs: a browser context and its tab
/// opened, and that tab's first read of the app.
pub async fn suite(settings: &Settings, jobs: usize) -> Result<Exit, RunError> {
    use std::time::Instant;

    use super::median;
    use crate::run::{plan, run_many};
    use crate::snapshot::SnapshotStore;

    let planned = plan(&[])?;
    if planned.is_empty() {
        eprintln!("error: no journeys under ./journeys to measure");
        return Ok(Exit::BadInput);
    }
    // Snapshots are compared, never written: a bench changes nothing on disk.
    let snapshots = std::sync::Arc::new(SnapshotStore::new(
        settings.snapshot_dir(),
        settings.snapshots,
    ));
    // Rates by round: [one job, `jobs` jobs].
    let mut rounds: Vec<[f64; 2]> = Vec::new();
    for round in 0..ROUNDS {
        let mut rates = [0.0; 2];
        // Alternating which goes first, so neither always meets a machine the other warmed.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for which in order {
            let n = [1, jobs][which];
            // A session each: the embedded app starts afresh, as for `waymark run`.
            // A browser per worker, as `run` has them, launched side by side as `run`
            // launches them, and the clock started once each worker is ready for its first
            // journey (its browser up, its first tab open): a rate of journeys, not of
            // workers starting, which a suite of hundreds pays once per worker too.
            let mut settings = settings.clone();
            settings.suite.jobs = n;
            let session = Session::builder(&settings)?.prewarm().start().await?;
            session.warm_up(n).await?;
            session.tabs_opened().await;
            let started = Instant::now();
            let mut failed = 0;
            run_many(
                &session,
                &crate::signals::Stop::never(),
                &snapshots,
                &planned,
                n,
                0,
                None,
                &|_| {},
                |_, j| {
                    failed += usize::from(j.status() == crate::suite::Status::Failed);
                },
            )
            .await;
            let seconds = started.elapsed().as_secs_f64();
            rates[which] = planned.len() as f64 / seconds;
            crate::out::outln!(
                "--jobs {n}: {} journeys in {seconds:.2} s, {:.2} journeys/s (round {} of {ROUNDS}){}",
                planned.len(),
                rates[which],
                round + 1,
                if failed > 0 {
                    format!(" ({failed} failed)")
                } else {
                    String::new()
                }
            );
            session.close().await;
        }
        rounds.push(rates);
    }
    let ratios: Vec<f64> = rounds.iter().map(|[one, many]| many / one).collect();
    let rate = |which: usize| median(&rounds.iter().map(|r| r[which]).collect::<Vec<_>>());
    crate::out::outln!(
        "--jobs 1: {:.2} journeys/s, --jobs {jobs}: {:.2} journeys/s, medians of {ROUNDS}",
        rate(0),
        rate(1),
    );
    crate::out::outln!(
        "throughput: {:.2}x with {jobs} jobs, the median of {ROUNDS} rounds ({}; the goal on 2 cores: 1.6x)",
        median(&ratios),
        ratios
            .iter()
            .map(|r| format!("{r:.2}x"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // What a journey pays before its first step: a context and a tab, then the first read.
    let session = Session::builder(settings)?.prewarm().start().await?;
    session.browser().await?;
    let (mut opened, mut first) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        let started = Instant::now();
        let surface = session.open(Open::script("bench-suite")).await?;
        opened.push(started.elapsed().as_secs_f64() * 1000.0);
        let read = surface.backstage().navigate("/").await;
        first.push(started.elapsed().as_secs_f64() * 1000.0);
        surface.close().await;
        if let Some(e) = read.error {
            eprintln!("error: the first read failed: {}: {}", e.code, e.message);
            break;
        }
    }
    crate::out::outln!(
        "a fresh tab: {:.1} ms to a context and its tab (the goal: under 50; each opened ahead while the journey before ran), {:.1} ms to its first read of /, medians of {}",
        median(&opened),
        median(&first),
        opened.len()
    );
    super::waits::waits(&session).await?;
    session.close().await;
    Ok(Exit::Passed)
}
