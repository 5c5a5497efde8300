//! `waymark state save FILE`: a person signs in once (handed the tab on the control page,
//! or through a sign-in journey) and the signed-in state is saved for `--state FILE`.
//! Counts and domains are printed, never a value.

use std::path::Path;
use std::sync::Arc;

use crate::cli::StateCommand;
use crate::exit::Exit;
use crate::session::{Open, RunError, Session};
use crate::settings::Settings;
use crate::snapshot::SnapshotStore;

/// Carries out a `state` subcommand; the exit code.
pub async fn state(action: &StateCommand, settings: &Settings) -> Result<Exit, RunError> {
    match action {
        StateCommand::Save {
            file,
            route,
            journey,
        } => save(file, route, journey.as_deref(), settings).await,
    }
}

/// Signs in on `route` (by `journey`, else by the person in a handoff) and saves the state
/// to `file`; the exit code.
async fn save(
    file: &Path,
    route: &str,
    journey: Option<&Path>,
    settings: &Settings,
) -> Result<Exit, RunError> {
    // The journey is checked before anything starts.
    let journey = match journey {
        Some(path) => Some(crate::run::prepare_journeys(&[path.to_path_buf()])?.remove(0)),
        None => None,
    };
    // Without a journey the person signs in through the control page, which the settings
    // serve (`Cli::settings`).
    let session = Session::builder(settings)?.start().await?;
    let surface = match session.open(Open::script("state-save")).await {
        Ok(surface) => surface,
        Err(e) => {
            session.close().await;
            return Err(e.into());
        }
    };
    let tools = surface.backstage();
    let failed = match journey {
        Some(journey) => {
            let env = crate::journey::JourneyEnv {
                gateway: tools.gateway(),
                handle: tokio::runtime::Handle::current(),
                limits: settings.limits.clone(),
                snapshots: Arc::new(SnapshotStore::new(
                    settings.snapshot_dir(),
                    settings.snapshots,
                )),
                vars: Arc::new(settings.vars.clone()),
            };
            let outcome =
                tokio::task::spawn_blocking(move || crate::journey::run_journey(&journey, &env))
                    .await;
            match outcome {
                Ok(outcome) => outcome.failure.map(|f| {
                    let code = if f.kind.is_bad_input() {
                        Exit::BadInput
                    } else {
                        Exit::Failed
                    };
                    (f.to_string(), code)
                }),
                Err(e) => Some((format!("the journey thread failed: {e}"), Exit::Failed)),
            }
        }
        None => {
            let mut rt = tools.navigate(route).await;
            if rt.ok {
                eprintln!("sign in in the browser, then press Done on the control page");
                rt = tools
                    .handoff("sign in; the state is saved when you press Done")
                    .await;
            }
            rt.error.map(|e| (e.to_string(), Exit::Failed))
        }
    };
    let saved = match failed {
        Some((why, code)) => {
            eprintln!("error: no state saved: {why}");
            Ok(code)
        }
        None => match tools.storage_state().await {
            Ok(state) => match state.save(file) {
                Ok(()) => {
                    crate::out::outln!("saved {} to {}", state.summary(), file.display());
                    Ok(Exit::Passed)
                }
                Err(e) => Err(RunError::from(e)),
            },
            Err(e) => {
                eprintln!("error: no state saved: {e}");
                Ok(Exit::Failed)
            }
        },
    };
    drop(tools);
    surface.close().await;
    session.close().await;
    saved
}
