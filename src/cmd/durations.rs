//! `waymark durations merge [FILE...]`: the durations the shards of a CI matrix measured
//! (each in `.waymark/durations.shard-I-of-N.json`, since a shard never writes the file
//! its split is made from) folded into `.waymark/durations.json`, so the next matrix is
//! balanced by them.

use std::path::PathBuf;

use crate::cli::DurationsCommand;
use crate::exit::Exit;
use crate::suite::History;

/// Carries out a `durations` subcommand; the exit code.
pub fn durations(action: &DurationsCommand) -> Exit {
    match action {
        DurationsCommand::Merge { files } => merge(files),
    }
}

/// Folds `files` (none: the shards' files in `.waymark/`) into `.waymark/durations.json`
/// and says what it did: a line per file, then the result and its SHA-256.
fn merge(files: &[PathBuf]) -> Exit {
    let merged = match History::default().merge(files) {
        Ok(merged) => merged,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::BadInput;
        }
    };
    for (path, journeys) in &merged.folded {
        crate::out::outln!(
            "{}: {journeys} journey{}",
            path.display(),
            plural(*journeys)
        );
    }
    crate::out::outln!(
        "merged {} file{} into `{}`: {} journey{} (sha256 {}){}",
        merged.folded.len(),
        plural(merged.folded.len()),
        merged.path.display(),
        merged.journeys,
        plural(merged.journeys),
        merged.sha256.short(),
        if merged.removed {
            "; the shards' files are removed"
        } else {
            ""
        }
    );
    Exit::Passed
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
