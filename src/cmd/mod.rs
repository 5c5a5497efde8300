//! The commands: each subcommand's entry point in a file of its own, and the one place that
//! turns the parsed command line into a process exit code (the async runtime, Ctrl-C, a
//! panic, an error printed once with its source spans).

mod bench;
mod check;
mod demo;
mod mcp;
mod profile;
mod read;
mod run;
mod state;
mod suggest;

use std::time::Duration;

use crate::bench::{BenchError, BenchOptions};
use crate::browser::kill_launched_browsers;
use crate::cli::{Cli, Command, ProfileCommand};
use crate::exit::Exit;
use crate::session::RunError;

/// Runs the parsed command line and returns the process exit code. Errors are printed here.
pub fn main(cli: Cli) -> Exit {
    crate::logging::init(cli.verbose);
    install_panic_hook();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return Exit::Environment;
        }
    };
    let code = runtime.block_on(async {
        let code = tokio::select! {
            result = execute(&cli) => match result {
                Ok(code) => code,
                Err(e) => report_error(e),
            },
            _ = tokio::signal::ctrl_c() => {
                kill_launched_browsers();
                eprintln!("interrupted");
                Exit::Interrupted
            }
        };
        // WebDriver sessions still held (an interrupted run, a browser dropped on an error
        // path): ended, so the Grid frees their slots.
        crate::browser::end_leases(Duration::from_secs(5)).await;
        code
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    kill_launched_browsers();
    code
}

async fn execute(cli: &Cli) -> Result<Exit, RunError> {
    let settings = cli.settings();
    match &cli.command {
        Command::Run { paths, .. } => run::run(paths, &settings).await,
        Command::Read {
            route,
            json,
            region,
        } => read::read(route, &settings, *json, region.as_deref()).await,
        Command::Bench {
            suite: true, jobs, ..
        } => {
            let jobs = jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |n| n as usize,
            );
            crate::bench::suite(&settings, jobs).await
        }
        Command::Bench {
            routes,
            runs,
            invoke,
            fill,
            json,
            baseline,
            threshold,
            ceilings,
            ..
        } => {
            let options = BenchOptions {
                runs: *runs as usize,
                invoke: invoke.clone(),
                fill: fill.clone(),
                json: *json,
                baseline: baseline.clone(),
                threshold_pct: *threshold,
                ceilings: ceilings.clone(),
            };
            match bench::bench(routes, &settings, &options).await {
                Ok(code) => Ok(code),
                Err(BenchError::Run(e)) => Err(e),
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(e.exit())
                }
            }
        }
        Command::Check {
            against,
            json,
            journeys,
        } => check::check(&settings, against.as_deref(), *json, journeys).await,
        Command::Mcp { record } => mcp::serve(&settings, record.as_deref()).await,
        Command::Profile {
            action: ProfileCommand::ImportCookies { domain, from },
        } => Ok(profile::import_cookies(
            cli.profile.as_deref().unwrap_or("default"),
            domain,
            from,
        )),
        Command::State { action } => state::state(action, &settings).await,
        Command::Suggest { route } => suggest::suggest(route, &settings).await,
        Command::Demo => demo::serve(&settings).await,
    }
}

fn report_error(e: RunError) -> Exit {
    let code = e.exit();
    match e {
        // Registry errors carry source spans: show them with the offending line.
        RunError::Registry(registry) => eprintln!("{}", registry.report()),
        other => eprintln!("error: {other}"),
    }
    code
}

/// A panic anywhere must not leave a browser behind.
fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        kill_launched_browsers();
        default(info);
    }));
}
