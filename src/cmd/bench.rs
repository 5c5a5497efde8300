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

/// [`bench`] as a command: an error of the run (the browser, the app) is the caller's to
/// print; any other is printed here, with its exit code.
pub async fn command(
    routes: &[String],
    settings: &Settings,
    options: &BenchOptions,
) -> Result<Exit, RunError> {
    match bench(routes, settings, options).await {
        Ok(code) => Ok(code),
        Err(BenchError::Run(e)) => Err(e),
        Err(e) => {
            eprintln!("error: {e}");
            Ok(e.exit())
        }
    }
}

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
        let measured = measure(&surface.backstage(), plan, options.runs).await;
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
            Ok(text) => crate::out::outln!("{text}"),
            Err(e) => eprintln!("error: cannot print the report as JSON: {e}"),
        }
    } else {
        crate::out::out!("{}", table(&report));
    }
    // Verdicts go to stdout with the table, to stderr when stdout is JSON.
    let say = |text: &str| {
        if options.json {
            eprint!("{text}");
        } else {
            crate::out::out!("{text}");
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
