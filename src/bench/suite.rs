//! `waymark bench --suite`: how fast the journeys run as a suite, with one job and with
//! `--jobs`, and what a fresh tab costs a journey before its first step.

use crate::exit::Exit;
use crate::session::{Open, RunError, Session};
use crate::settings::Settings;

/// `waymark bench --suite`: the journeys under `./journeys`, run whole with one job and then
/// with `jobs`, each run in a session of its own (the embedded app starts afresh); then what a fresh tab costs: a browser context
/// and its tab opened, and that tab's first read of the app.
pub async fn suite(settings: &Settings, jobs: usize) -> Result<Exit, RunError> {
    use std::time::Instant;

    use crate::run::{plan, run_many};
    use crate::snapshot::{SnapshotStore, UpdateMode};

    let planned = plan(&[])?;
    if planned.is_empty() {
        eprintln!("error: no journeys under ./journeys to measure");
        return Ok(Exit::BadInput);
    }
    // Snapshots are compared, never written: a bench changes nothing on disk.
    let snapshots = std::sync::Arc::new(SnapshotStore::new(
        settings.snapshot_dir(),
        UpdateMode::from_env(false),
    ));
    let mut rates = Vec::new();
    for n in [1, jobs] {
        // A session each: the embedded app starts afresh, as for `waymark run`.
        // A browser per worker, as `run` has them, launched (each with its first tab
        // opening) before the clock starts, as `run` does before its first journey.
        let mut settings = settings.clone();
        settings.suite.jobs = n;
        let session = Session::builder(&settings)?.prewarm().start().await?;
        session.warm_up(n).await?;
        let started = Instant::now();
        let mut failed = 0;
        run_many(
            &session,
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
        let rate = planned.len() as f64 / seconds;
        println!(
            "--jobs {n}: {} journeys in {seconds:.2} s, {rate:.2} journeys/s{}",
            planned.len(),
            if failed > 0 {
                format!(" ({failed} failed)")
            } else {
                String::new()
            }
        );
        rates.push(rate);
        session.close().await;
    }
    if let [one, many] = rates[..] {
        println!(
            "throughput: {:.2}x with {jobs} jobs (the goal on 2 cores: 1.6x)",
            many / one
        );
    }
    // What a journey pays before its first step: a context and a tab, then the first read.
    let session = Session::builder(settings)?.prewarm().start().await?;
    session.browser().await?;
    let (mut opened, mut first) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        let started = Instant::now();
        let surface = session.open(Open::script("bench-suite")).await?;
        opened.push(started.elapsed().as_secs_f64() * 1000.0);
        let read = surface.tools().navigate("/").await;
        first.push(started.elapsed().as_secs_f64() * 1000.0);
        surface.close().await;
        if let Some(e) = read.error {
            eprintln!("error: the first read failed: {}: {}", e.code, e.message);
            break;
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!(
        "a fresh tab: {:.1} ms to a context and its tab (the goal: under 50; each opened ahead while the journey before ran), {:.1} ms to its first read of /, medians of {}",
        median(&mut opened),
        median(&mut first),
        opened.len()
    );
    super::waits::waits(&session).await?;
    session.close().await;
    Ok(Exit::Passed)
}
