//! The commands: each subcommand's entry point in a file of its own, and the one place that
//! turns the parsed command line into a process exit code (the async runtime, Ctrl-C, a
//! panic, an error printed once with its source spans).

mod bench;
mod check;
mod demo;
mod durations;
mod mcp;
mod profile;
mod read;
mod run;
mod show;
mod state;
mod suggest;

use std::time::Duration;

use crate::bench::BenchOptions;
use crate::browser::kill_launched_browsers;
use crate::cli::{Cli, Command, ProfileCommand};
use crate::exit::Exit;
use crate::session::RunError;
use crate::signals::{Signals, Stop};

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
        let code = match Signals::listen() {
            Ok(signals) => {
                let work = |stop: Stop| async move {
                    execute(&cli, &stop).await.unwrap_or_else(report_error)
                };
                signals.stop_on(work, kill_launched_browsers).await
            }
            Err(e) => {
                eprintln!("error: cannot listen for SIGINT and SIGTERM: {e}");
                Exit::Environment
            }
        };
        // WebDriver sessions still held (an interrupted run, a browser dropped on an error
        // path): ended, so the Grid frees their slots.
        crate::browser::end_leases(Duration::from_secs(5)).await;
        code
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    crate::browser::put_down_launched_browsers();
    code
}

/// The command. `run` stops in order when `stop` is asked (the reports of what finished
/// are written); every other command is dropped then, which closes its browsers.
async fn execute(cli: &Cli, stop: &Stop) -> Result<Exit, RunError> {
    let settings = cli.settings()?;
    let work = async {
        match &cli.command {
            Command::Run { paths, .. } => run::run(paths, &settings, stop).await,
            Command::Read {
                route,
                json,
                region,
            } => read::read(route, &settings, *json, region.as_deref()).await,
            Command::Bench { suite: true, .. } => {
                crate::bench::suite(&settings, settings.suite.jobs).await
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
                bench::command(routes, &settings, &options).await
            }
            Command::Check { json, journeys, .. } => check::check(&settings, *json, journeys).await,
            Command::Mcp { record } => mcp::serve(&settings, record.as_deref()).await,
            Command::Profile {
                action: ProfileCommand::ImportCookies { domain, from },
            } => Ok(profile::import_cookies(
                settings.home.as_deref(),
                cli.profile.as_deref().unwrap_or("default"),
                domain,
                from,
            )),
            Command::State { action } => state::state(action, &settings).await,
            Command::Durations { action } => Ok(durations::durations(action)),
            Command::Suggest { route } => suggest::suggest(route, &settings).await,
            Command::Demo => demo::serve(&settings).await,
            Command::Show {
                path,
                open,
                port,
                timing,
            } => show::show(path.as_deref(), *open, *port, *timing).await,
        }
    };
    match cli.command {
        Command::Run { .. } => work.await,
        // Dropped when stopped: the code is the signal's (see `until_signalled`).
        _ => stop.cut(work).await.unwrap_or(Ok(Exit::Interrupted)),
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
