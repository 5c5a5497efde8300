//! `waymark show [TRACE|DIR]`: the trace viewer, served on 127.0.0.1 until Ctrl-C. Its URL
//! is the one line on stdout (a test or a script reads it); the rest goes to stderr. With
//! `--timing`, where the steps' time went, printed, and nothing served.

use std::path::Path;

use crate::exit::Exit;
use crate::session::RunError;
use crate::settings::TRACE_DIR;
use crate::show::{Breakdown, ShowError, Traces, Viewer, open_in_browser};

/// Serves the traces at `path` (default: the run's traces folder); returns only on an
/// error (a path without a trace is bad input, exit 2), which it prints.
pub async fn show(
    path: Option<&Path>,
    open: bool,
    port: u16,
    timing: bool,
) -> Result<Exit, RunError> {
    let path = path.unwrap_or(Path::new(TRACE_DIR));
    if timing {
        return Ok(match Traces::find(path) {
            Ok(traces) => {
                crate::out::out!("{}", Breakdown::of(&traces).table());
                Exit::Passed
            }
            Err(e) => {
                eprintln!("error: {e}");
                Exit::BadInput
            }
        });
    }
    let viewer = match Traces::find(path) {
        Ok(traces) => {
            let count = traces.files().len();
            Viewer::start(traces, port).await.map(|v| (v, count))
        }
        Err(e) => Err(e),
    };
    let (viewer, count) = match viewer {
        Ok(started) => started,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(match e {
                ShowError::Bind(_) => Exit::Environment,
                _ => Exit::BadInput,
            });
        }
    };
    crate::out::outln!("{}", viewer.url());
    eprintln!(
        "serving the trace viewer for `{}` ({count} trace{}); Ctrl-C stops it",
        path.display(),
        if count == 1 { "" } else { "s" }
    );
    if open && let Err(why) = open_in_browser(viewer.url()) {
        eprintln!("cannot open a browser here ({why}): open the URL above yourself");
    }
    std::future::pending::<()>().await;
    Ok(Exit::Passed)
}
