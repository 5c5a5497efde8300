//! What a run leaves for the next one, in `.waymark/` under the current directory: each
//! journey's duration (`durations.json`, which balances `--shard`) and how each journey
//! ended (`last-run.json`, which `--last-failed` reads). Both are merged with what was
//! there, so a shard or a `--last-failed` run keeps what it did not run.
//!
//! Neither file is worth failing a run over: one that cannot be read counts as absent and
//! one that cannot be written is a warning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Status, SuiteRun};

/// The folder, relative to the current directory.
pub const STATE_DIR: &str = ".waymark";

/// Each journey's name → its duration in milliseconds (the last attempt of its last run).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Durations(pub BTreeMap<String, u64>);

impl Durations {
    /// The recorded duration of the journey `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.get(name).copied()
    }
}

/// How each journey ended in the runs so far, the latest run of each winning.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LastRun {
    /// The file's format.
    pub version: u32,
    /// Each journey's name → `passed`, `failed` or `flaky`.
    pub journeys: BTreeMap<String, Status>,
}

impl LastRun {
    /// The journeys recorded as failed or flaky.
    pub fn failed(&self) -> impl Iterator<Item = &str> {
        self.journeys
            .iter()
            .filter(|(_, s)| matches!(s, Status::Failed | Status::Flaky))
            .map(|(n, _)| n.as_str())
    }
}

/// The files of one folder (`.waymark/` unless a test says otherwise).
#[derive(Debug, Clone)]
pub struct History {
    dir: PathBuf,
}

impl Default for History {
    fn default() -> Self {
        History::at(STATE_DIR)
    }
}

impl History {
    /// The history kept in `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> History {
        History { dir: dir.into() }
    }

    /// `durations.json`.
    pub fn durations_path(&self) -> PathBuf {
        self.dir.join("durations.json")
    }

    /// `last-run.json`.
    pub fn last_run_path(&self) -> PathBuf {
        self.dir.join("last-run.json")
    }

    /// The recorded durations, when there are any.
    pub fn durations(&self) -> Option<Durations> {
        read(&self.durations_path())
    }

    /// The last run's record, when there is one.
    pub fn last_run(&self) -> Option<LastRun> {
        read(&self.last_run_path())
    }

    /// Merges what `run` did into both files: the durations of the journeys it ran, the
    /// status of each journey it ran or found broken (a skipped one keeps its last).
    pub fn record(&self, run: &SuiteRun) {
        let mut durations = self.durations().unwrap_or_default();
        let mut last = self.last_run().unwrap_or_default();
        last.version = 1;
        for journey in &run.journeys {
            if let Some(attempt) = journey.attempts.last()
                && !attempt.outcome.elapsed.is_zero()
            {
                let ms = attempt.outcome.elapsed.as_millis();
                durations.0.insert(
                    journey.id.name.clone(),
                    u64::try_from(ms).unwrap_or(u64::MAX),
                );
            }
            if journey.status() != Status::Skipped {
                last.journeys
                    .insert(journey.id.name.clone(), journey.status());
            }
        }
        for (path, value) in [
            (self.durations_path(), serde_json::to_value(&durations)),
            (self.last_run_path(), serde_json::to_value(&last)),
        ] {
            if let Err(e) = value
                .map_err(std::io::Error::other)
                .and_then(|v| write(&path, &v))
            {
                eprintln!("warning: cannot write `{}`: {e}", path.display());
            }
        }
    }
}

fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            eprintln!(
                "warning: cannot read `{}`: {e}; ignoring it",
                path.display()
            );
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(value) => Some(value),
        Err(e) => {
            eprintln!(
                "warning: `{}` is not what waymark wrote ({e}); ignoring it",
                path.display()
            );
            None
        }
    }
}

/// Writes beside the file and renames, so a reader never sees half a file.
fn write(path: &Path, value: &serde_json::Value) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    text.push('\n');
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::protocol::{Attribution, Failure, FailureKind, Outcome};
    use crate::suite::{Attempt, JourneyId, JourneyRun};

    fn outcome(ms: u64, failed: bool) -> Outcome {
        Outcome {
            name: "x".into(),
            failure: failed.then(|| Failure {
                kind: FailureKind::Expectation,
                code: Some("expectation_failed".into()),
                message: "no".into(),
                attribution: Attribution::Journey,
                file: "x.rhai".into(),
                line: Some(1),
                column: None,
            }),
            elapsed: Duration::from_millis(ms),
            output: Vec::new(),
            expected_failure: None,
        }
    }

    fn journey(name: &str, attempts: &[(u64, bool)]) -> JourneyRun {
        JourneyRun {
            id: JourneyId {
                name: name.into(),
                path: format!("{name}.rhai").into(),
            },
            attempts: attempts
                .iter()
                .map(|(ms, failed)| Attempt {
                    outcome: outcome(*ms, *failed),
                    trace: None,
                    started: SystemTime::UNIX_EPOCH,
                })
                .collect(),
        }
    }

    fn run(journeys: Vec<JourneyRun>) -> SuiteRun {
        SuiteRun {
            started: SystemTime::UNIX_EPOCH,
            elapsed: Duration::ZERO,
            shard: None,
            retries: 1,
            journeys,
        }
    }

    #[test]
    fn a_run_is_merged_into_what_was_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::at(dir.path().join(".waymark"));
        assert_eq!(history.durations(), None);
        assert_eq!(history.last_run(), None);
        history.record(&run(vec![
            journey("pass", &[(120, false)]),
            journey("fail", &[(300, true), (200, true)]),
            journey("skipped", &[]),
        ]));
        history.record(&run(vec![
            journey("flaky", &[(50, true), (70, false)]),
            journey("fail", &[(250, false)]),
        ]));
        let durations = history.durations().unwrap();
        assert_eq!(durations.get("pass"), Some(120));
        assert_eq!(durations.get("fail"), Some(250), "the latest run's");
        assert_eq!(durations.get("flaky"), Some(70), "its last attempt's");
        assert_eq!(durations.get("skipped"), None);
        let last = history.last_run().unwrap();
        assert_eq!(last.version, 1);
        assert_eq!(last.journeys["pass"], Status::Passed);
        assert_eq!(last.journeys["fail"], Status::Passed);
        assert_eq!(last.journeys["flaky"], Status::Flaky);
        assert!(!last.journeys.contains_key("skipped"));
        assert_eq!(last.failed().collect::<Vec<_>>(), ["flaky"]);
    }

    #[test]
    fn a_file_waymark_did_not_write_counts_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::at(dir.path());
        std::fs::write(history.last_run_path(), "{not json").unwrap();
        std::fs::write(history.durations_path(), "[1, 2]").unwrap();
        assert_eq!(history.last_run(), None);
        assert_eq!(history.durations(), None);
        history.record(&run(vec![journey("pass", &[(10, false)])]));
        assert_eq!(history.durations().unwrap().get("pass"), Some(10));
    }
}
