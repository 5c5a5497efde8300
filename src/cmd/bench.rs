//! `waymark bench ROUTE...`: each route measured in a fresh tab of one session (see
//! [`crate::bench`] for what is measured), the report printed, and the checks against a
//! saved baseline and the ceilings that make it a CI gate.

use crate::bench::{
    BenchError, BenchOptions, BenchReport, Ceilings, compare, load_baseline, measure,
    pair_anchored, plan, table,
};
use crate::exit::Exit;
use crate::session::{Open, RunError, Session};
use crate::settings::Settings;
use crate::tools::Attribution;

/// Measures `routes` and prints the report; returns the exit code: 0 measured (and within
/// the baseline and the ceilings), 1 a route failed or a check did, 2 bad input, 3 the
/// browser or the app could not be reached.
pub async fn bench(
    routes: &[String],
    settings: &Settings,
    options: &BenchOptions,
) -> Result<Exit, BenchError> {
    // Every input is checked before anything starts.
    let baseline = options.baseline.as_deref().map(load_baseline).transpose()?;
    let ceilings = options
        .ceilings
        .as_deref()
        .map(Ceilings::load)
        .transpose()?;
    // A route is measured as a scripted journey would meet it: with the profile's cookies
    // (a dense screen is most often behind a sign-in) and through the same gates.
    let session = Session::builder(settings)
        .map_err(RunError::from)?
        .start()
        .await?;
    let mut plans = Vec::with_capacity(routes.len());
    for route in routes {
        plans.push(plan(route, session.base(), options, session.cookies()).await?);
    }
    session.browser().await.map_err(RunError::from)?;

    let mut report = BenchReport { routes: Vec::new() };
    let mut failures = Vec::new();
    for plan in &plans {
        eprintln!("bench: {} ({} runs)", plan.route, options.runs);
        let open = match &plan.registry {
            Some(registry) => Open::script(&plan.route).with_registry(registry.clone()),
            None => Open::script(&plan.route),
        };
        let surface = match session.open(open).await {
            Ok(surface) => surface,
            Err(e) => {
                session.close().await;
                return Err(RunError::from(e).into());
            }
        };
        let measured = measure(surface.tools(), plan, options.runs).await;
        surface.close().await;
        match measured {
            Ok(route) => report.routes.push(route),
            Err(failure) => {
                let gone = failure.error.attribution == Attribution::Environment;
                failures.push(failure);
                if gone {
                    break; // the browser is gone: the routes left would only fail the same way
                }
            }
        }
    }
    session.close().await;
    pair_anchored(&mut report);

    let mut code = Exit::Passed;
    if options.json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("error: cannot print the report as JSON: {e}"),
        }
    } else {
        print!("{}", table(&report));
    }
    // Verdicts go to stdout with the table, to stderr when stdout is JSON.
    let say = |text: &str| {
        if options.json {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    };
    for f in &failures {
        eprintln!(
            "error: {} could not be measured: {} failed: {}: {}",
            f.route, f.doing, f.error.code, f.error.message
        );
        code = code.max(match f.error.attribution {
            Attribution::Environment => Exit::Environment,
            _ => Exit::Failed,
        });
    }
    if let Some((path, baseline)) = &baseline {
        let verdict = compare(baseline, &report, options.threshold_pct);
        say(&verdict.render(&format!("baseline `{}`", path.display())));
        if verdict.compared == 0 {
            eprintln!(
                "error: baseline `{}` has none of the routes measured",
                path.display()
            );
            code = code.max(Exit::BadInput);
        } else if !verdict.passed() {
            code = code.max(Exit::Failed);
        }
    }
    if let Some(ceilings) = &ceilings {
        let verdict = ceilings.check(&report);
        say(&verdict.render("ceilings"));
        if !verdict.passed() {
            code = code.max(Exit::Failed);
        }
    }
    Ok(code)
}

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
        let session = Session::builder(settings)?.start().await?;
        session.browser().await?;
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
    let session = Session::builder(settings)?.start().await?;
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
        "a fresh tab: {:.1} ms to a context and its tab (the goal: under 50), {:.1} ms to its first read of /, medians of {}",
        median(&mut opened),
        median(&mut first),
        opened.len()
    );
    session.close().await;
    Ok(Exit::Passed)
}
