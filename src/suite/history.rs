//! What a run leaves for the next one, in `.waymark/` under the current directory: each
//! journey's duration (`durations.json`, which balances `--shard`) and how each journey
//! ended (`last-run.json`, which `--last-failed` reads). Both are merged with what was
//! there, so a shard or a `--last-failed` run keeps what it did not run.
//!
//! A sharded run never writes `durations.json`: it is the input of the split, and a shard
//! that changed it would move journeys between the shards still to run (some run twice,
//! some never). A shard's durations go beside it, to `durations.shard-I-of-N.json`; the
//! next run without `--shard`, or `waymark durations merge` (once a CI matrix is done),
//! folds them in and removes them. `last-run.json` is merged journey by journey whatever
//! the run: a shard's statuses touch only its own journeys, and `--last-failed` chooses
//! within a shard after the split.
//!
//! Runs that end together in one folder (the shards of a CI job on one machine) take turns:
//! each reads, merges and writes under the folder's `.lock`.
//!
//! Neither file is worth failing a run over: one that cannot be read counts as absent and
//! one that cannot be written is a warning. `waymark durations merge`, which is asked for,
//! is strict instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::shard::{Sha256, SplitInput};
use super::{Shard, Status, SuiteRun};

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

    /// Takes `newer`'s duration of each journey it holds.
    fn fold(&mut self, newer: Durations) {
        self.0.extend(newer.0);
    }

    /// The duration of each journey `run` ran (its last attempt's).
    fn of(run: &SuiteRun) -> Durations {
        Durations(
            run.journeys
                .iter()
                .filter_map(|journey| {
                    let elapsed = journey.attempts.last()?.outcome.elapsed;
                    let ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
                    (!elapsed.is_zero()).then(|| (journey.id.name.clone(), ms))
                })
                .collect(),
        )
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

/// What `waymark durations merge` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// Each file folded in, in the order folded (a later one's duration of a journey wins),
    /// with how many journeys it held.
    pub folded: Vec<(PathBuf, usize)>,
    /// `durations.json`, as written.
    pub path: PathBuf,
    /// How many journeys it now holds.
    pub journeys: usize,
    /// Its SHA-256: what the next `--shard` run names on its first line.
    pub sha256: Sha256,
    /// Whether the files folded were removed (those found in the folder are; files named
    /// on the command line are left as they are).
    pub removed: bool,
}

/// Why `waymark durations merge` could not merge.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// No file was named and the folder holds no shard's durations.
    #[error(
        "no durations to merge: `{}` holds no `durations.shard-I-of-N.json` (what `waymark run --shard I/N` writes)",
        dir.display()
    )]
    Nothing {
        /// The folder looked in.
        dir: PathBuf,
    },
    /// A file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file is not durations as waymark writes them.
    #[error("`{}` is not a durations file (a JSON object of journey names and milliseconds): {why}", path.display())]
    NotDurations {
        /// The file.
        path: PathBuf,
        /// What the JSON parser said.
        why: String,
    },
    /// `durations.json` could not be written.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
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

    /// `durations.json`: what balances `--shard`, written only by runs without it.
    pub fn durations_path(&self) -> PathBuf {
        self.dir.join("durations.json")
    }

    /// `durations.shard-I-of-N.json`: what the runs of `shard` measured, until merged.
    pub fn shard_durations_path(&self, shard: Shard) -> PathBuf {
        self.dir.join(format!(
            "durations.shard-{}-of-{}.json",
            shard.index, shard.total
        ))
    }

    /// `last-run.json`.
    pub fn last_run_path(&self) -> PathBuf {
        self.dir.join("last-run.json")
    }

    /// The recorded durations, when there are any.
    pub fn durations(&self) -> Option<Durations> {
        read(&self.durations_path())
    }

    /// `durations.json` as a shard's split reads it: its digest and its durations, from
    /// one read of its bytes.
    pub fn split_input(&self) -> SplitInput {
        let path = self.durations_path();
        let Some(bytes) = read_bytes(&path) else {
            return SplitInput::default();
        };
        SplitInput {
            sha256: Some(Sha256::of(&bytes)),
            durations: parse(&path, &bytes),
        }
    }

    /// The last run's record, when there is one.
    pub fn last_run(&self) -> Option<LastRun> {
        read(&self.last_run_path())
    }

    /// The shards' durations waiting in the folder to be merged, oldest first (by when
    /// they were written, then by name), so that a newer measure of a journey wins.
    pub fn shard_durations(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<(std::time::SystemTime, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|entry| is_shard_durations(&entry.file_name().to_string_lossy()))
            .map(|entry| {
                let written = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::SystemTime::UNIX_EPOCH);
                (written, entry.path())
            })
            .collect();
        found.sort();
        found.into_iter().map(|(_, path)| path).collect()
    }

    /// Merges what `run` did: the status of each journey it ran or found broken into
    /// `last-run.json` (a skipped one keeps its last); the durations of those it ran into
    /// its shard's file when it is a shard, else into `durations.json` with the shards'
    /// files waiting there (which are then removed).
    pub fn record(&self, run: &SuiteRun) {
        // Shards of one CI job often run side by side in one folder and end together: each
        // reads, merges and writes under the folder's lock, or one shard's statuses are lost.
        let _lock = self.lock();
        let mut last = self.last_run().unwrap_or_default();
        last.version = 1;
        for journey in &run.journeys {
            if journey.status() != Status::Skipped {
                last.journeys
                    .insert(journey.id.name.clone(), journey.status());
            }
        }
        let path = self.last_run_path();
        written(&path, write(&path, &last));
        let measured = Durations::of(run);
        if let Some(info) = run.shard {
            let path = self.shard_durations_path(info.shard);
            let mut durations: Durations = read(&path).unwrap_or_default();
            durations.fold(measured);
            written(&path, write(&path, &durations));
            return;
        }
        let mut durations = self.durations().unwrap_or_default();
        let mut folded = Vec::new();
        for path in self.shard_durations() {
            // One that cannot be read is left for a person to look at (it was warned of).
            if let Some(shard) = read(&path) {
                durations.fold(shard);
                folded.push(path);
            }
        }
        durations.fold(measured);
        let path = self.durations_path();
        if written(&path, write(&path, &durations)) {
            remove(&folded);
        }
    }

    /// `waymark durations merge`: folds `files` (none named: the shards' files in the
    /// folder, which are then removed) into `durations.json`, in order, a later file's
    /// duration of a journey winning. Nothing is written unless every file is durations.
    pub fn merge(&self, files: &[PathBuf]) -> Result<Merged, MergeError> {
        let named = !files.is_empty();
        let files = if named {
            files.to_vec()
        } else {
            self.shard_durations()
        };
        if files.is_empty() {
            return Err(MergeError::Nothing {
                dir: self.dir.clone(),
            });
        }
        let _lock = self.lock();
        let mut durations = self.durations().unwrap_or_default();
        let mut folded = Vec::with_capacity(files.len());
        for path in files {
            let bytes = std::fs::read(&path).map_err(|source| MergeError::Read {
                path: path.clone(),
                source,
            })?;
            let shard: Durations =
                serde_json::from_slice(&bytes).map_err(|e| MergeError::NotDurations {
                    path: path.clone(),
                    why: e.to_string(),
                })?;
            folded.push((path, shard.0.len()));
            durations.fold(shard);
        }
        let path = self.durations_path();
        let bytes = write(&path, &durations).map_err(|source| MergeError::Write {
            path: path.clone(),
            source,
        })?;
        if !named {
            remove(folded.iter().map(|(p, _)| p));
        }
        Ok(Merged {
            folded,
            path,
            journeys: durations.0.len(),
            sha256: Sha256::of(&bytes),
            removed: !named,
        })
    }
}

/// Whether `name` is a shard's durations file (`durations.shard-I-of-N.json`).
fn is_shard_durations(name: &str) -> bool {
    let number = |digits: &str| {
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u32>().ok())
            .flatten()
    };
    name.strip_prefix("durations.shard-")
        .and_then(|rest| rest.strip_suffix(".json"))
        .and_then(|rest| rest.split_once("-of-"))
        .and_then(|(i, n)| Some((number(i)?, number(n)?)))
        .is_some_and(|(i, n)| 1 <= i && i <= n)
}

fn remove<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) {
    for path in paths {
        let path = path.as_ref();
        if let Err(e) = std::fs::remove_file(path) {
            eprintln!("warning: cannot remove `{}`: {e}", path.display());
        }
    }
}

/// Whether `result` wrote `path`; a warning when it did not.
impl History {
    /// How long `record` waits for another waymark in the same folder to finish writing.
    const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

    /// The folder's `.lock`, held (an advisory lock: `flock(2)`) until the guard is dropped;
    /// released by the system when a holder dies. `None`, with a warning, when it cannot be
    /// taken within `LOCK_WAIT`: the files are then merged without it, as before there was
    /// one, rather than a run failing or hanging over its history.
    fn lock(&self) -> Option<std::fs::File> {
        let path = self.dir.join(".lock");
        let file = std::fs::create_dir_all(&self.dir).and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
        });
        let file = match file {
            Ok(file) => file,
            Err(e) => {
                eprintln!("warning: cannot open `{}`: {e}", path.display());
                return None;
            }
        };
        let start = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Some(file),
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < Self::LOCK_WAIT => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => {
                    eprintln!(
                        "warning: cannot lock `{}` ({e}); writing without it",
                        path.display()
                    );
                    return None;
                }
            }
        }
    }
}

fn written<T>(path: &Path, result: std::io::Result<T>) -> bool {
    if let Err(e) = &result {
        eprintln!("warning: cannot write `{}`: {e}", path.display());
    }
    result.is_ok()
}

fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    parse(path, &read_bytes(path)?)
}

/// The file's bytes; `None`, with a warning unless it is absent, when it cannot be read.
fn read_bytes(path: &Path) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            eprintln!(
                "warning: cannot read `{}`: {e}; ignoring it",
                path.display()
            );
            None
        }
    }
}

fn parse<T: for<'de> Deserialize<'de>>(path: &Path, bytes: &[u8]) -> Option<T> {
    match serde_json::from_slice(bytes) {
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

/// Writes beside the file and renames, so a reader never sees half a file; the bytes
/// written.
fn write(path: &Path, value: &impl Serialize) -> std::io::Result<Vec<u8>> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    text.push('\n');
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(text.into_bytes())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::protocol::{Attribution, Failure, FailureKind, Outcome};
    use crate::suite::{Attempt, Balance, JourneyId, JourneyRun, ShardInfo, select};

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

    fn shard_run(shard: &str, journeys: Vec<JourneyRun>) -> SuiteRun {
        let shard: Shard = shard.parse().unwrap();
        SuiteRun {
            shard: Some(ShardInfo {
                shard,
                of: 9,
                balance: Balance::RoundRobin,
                input: None,
            }),
            ..run(journeys)
        }
    }

    fn durations(pairs: &[(&str, u64)]) -> Durations {
        Durations(pairs.iter().map(|(n, ms)| (n.to_string(), *ms)).collect())
    }

    fn put(path: &Path, durations: &Durations) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string(durations).unwrap()).unwrap();
    }

    fn file_names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            // The folder's lock, not a record.
            .filter(|name| name != ".lock")
            .collect();
        names.sort();
        names
    }

    /// Shards ending together in one folder: every journey's status is kept.
    #[test]
    fn runs_recorded_together_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join(".waymark");
        std::thread::scope(|scope| {
            for shard in 0..8 {
                let state = &state;
                scope.spawn(move || {
                    let names: Vec<String> = (0..20).map(|j| format!("s{shard}-j{j}")).collect();
                    let journeys = names.iter().map(|n| journey(n, &[(10, false)])).collect();
                    History::at(state).record(&shard_run(&format!("{}/8", shard + 1), journeys));
                });
            }
        });
        let last = History::at(&state).last_run().unwrap();
        assert_eq!(last.journeys.len(), 8 * 20);
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

    #[test]
    fn a_shard_records_its_durations_beside_the_file_its_split_reads_never_in_it() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::at(dir.path());
        put(&history.durations_path(), &durations(&[("a", 500)]));
        let before = std::fs::read(history.durations_path()).unwrap();
        history.record(&shard_run("2/3", vec![journey("a", &[(120, false)])]));
        history.record(&shard_run(
            "2/3",
            vec![journey("b", &[(80, true)]), journey("c", &[])],
        ));
        assert_eq!(std::fs::read(history.durations_path()).unwrap(), before);
        let path = history.shard_durations_path("2/3".parse().unwrap());
        assert!(path.ends_with("durations.shard-2-of-3.json"), "{path:?}");
        let mine: Durations = read(&path).unwrap();
        assert_eq!(
            mine,
            durations(&[("a", 120), ("b", 80)]),
            "merged per journey"
        );
        let last = history.last_run().unwrap();
        assert_eq!(last.journeys["a"], Status::Passed);
        assert_eq!(last.journeys["b"], Status::Failed);
    }

    #[test]
    fn a_run_without_a_shard_folds_the_shards_durations_in_and_removes_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::at(dir.path());
        put(&history.durations_path(), &durations(&[("a", 1), ("z", 9)]));
        let one = history.shard_durations_path("1/2".parse().unwrap());
        let two = history.shard_durations_path("2/2".parse().unwrap());
        put(&one, &durations(&[("a", 10), ("b", 20)]));
        put(&two, &durations(&[("c", 30), ("d", 40)]));
        let broken = dir.path().join("durations.shard-1-of-3.json");
        std::fs::write(&broken, "{not json").unwrap();
        history.record(&run(vec![journey("d", &[(44, false)])]));
        assert_eq!(
            history.durations().unwrap(),
            durations(&[("a", 10), ("b", 20), ("c", 30), ("d", 44), ("z", 9)]),
            "the shards' over what was there, this run's over the shards'"
        );
        assert_eq!(
            file_names(dir.path()),
            [
                "durations.json",
                "durations.shard-1-of-3.json",
                "last-run.json"
            ],
            "one that cannot be read is left for a person to look at"
        );
        assert!(broken.exists());
    }

    #[test]
    fn merge_folds_the_shards_files_oldest_first_and_removes_them() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::at(dir.path());
        put(&history.durations_path(), &durations(&[("a", 1), ("z", 9)]));
        let old = history.shard_durations_path("1/2".parse().unwrap());
        let new = history.shard_durations_path("2/3".parse().unwrap());
        put(&old, &durations(&[("a", 10), ("b", 20)]));
        put(&new, &durations(&[("b", 25), ("c", 30)]));
        let past = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(past)
            .unwrap();
        std::fs::write(dir.path().join("durations.shard-3-of-2.json"), "{}").unwrap();
        let merged = history.merge(&[]).unwrap();
        assert_eq!(merged.folded, [(old, 2), (new, 2)]);
        assert!(merged.removed);
        assert_eq!(merged.journeys, 4);
        assert_eq!(
            history.durations().unwrap(),
            durations(&[("a", 10), ("b", 25), ("c", 30), ("z", 9)])
        );
        assert_eq!(
            merged.sha256,
            Sha256::of(&std::fs::read(history.durations_path()).unwrap()),
            "the digest the next shard names"
        );
        assert_eq!(
            file_names(dir.path()),
            ["durations.json", "durations.shard-3-of-2.json"],
            "not a shard's name: not a shard's file"
        );
        assert!(matches!(
            history.merge(&[]),
            Err(MergeError::Nothing { .. })
        ));
    }

    #[test]
    fn merge_of_named_files_leaves_them_and_writes_nothing_unless_all_are_durations() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::at(dir.path().join(".waymark"));
        let (one, two) = (dir.path().join("one.json"), dir.path().join("two.json"));
        put(&one, &durations(&[("a", 10)]));
        put(&two, &durations(&[("a", 12), ("b", 5)]));
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "[1, 2]").unwrap();
        let err = history
            .merge(&[one.clone(), bad.clone()])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("bad.json") && err.contains("not a durations file"),
            "{err}"
        );
        let err = history
            .merge(&[dir.path().join("gone.json")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cannot read") && err.contains("gone.json"),
            "{err}"
        );
        assert_eq!(history.durations(), None, "nothing written");
        let merged = history.merge(&[two.clone(), one.clone()]).unwrap();
        assert!(!merged.removed && one.exists() && two.exists());
        assert_eq!(
            history.durations().unwrap(),
            durations(&[("a", 10), ("b", 5)]),
            "a later file wins"
        );
    }

    #[test]
    fn only_durations_shard_i_of_n_names_are_shards_files() {
        for good in [
            "durations.shard-1-of-1.json",
            "durations.shard-12-of-40.json",
        ] {
            assert!(is_shard_durations(good), "{good}");
        }
        for bad in [
            "durations.json",
            "durations.shard-0-of-2.json",
            "durations.shard-3-of-2.json",
            "durations.shard-1-of-2.json.tmp",
            "durations.shard-+1-of-2.json",
            "durations.shard--of-2.json",
            "durations.shard-1-2.json",
        ] {
            assert!(!is_shard_durations(bad), "{bad}");
        }
    }

    /// Issue 49: shard 1/2 rewrote `durations.json`, so 2/2, run after it in the same
    /// folder, split differently: two journeys ran twice and two never.
    #[test]
    fn shards_run_one_after_another_in_one_folder_run_each_journey_exactly_once() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let ids: Vec<JourneyId> = names
            .iter()
            .map(|n| JourneyId {
                name: n.to_string(),
                path: format!("journeys/{n}.rhai").into(),
            })
            .collect();
        let before = durations(&[("a", 900), ("c", 50), ("h", 400)]);
        for prior in [None, Some(&before)] {
            for total in [2, 3] {
                let dir = tempfile::tempdir().unwrap();
                let history = History::at(dir.path());
                if let Some(prior) = prior {
                    put(&history.durations_path(), prior);
                }
                let mut ran = Vec::new();
                for index in 1..=total {
                    let shard = Shard { index, total };
                    let selection = select(&ids, Some(shard), false, &history);
                    // Each measured far from what was recorded, as a first run is.
                    let journeys = selection
                        .run
                        .iter()
                        .map(|&i| journey(&ids[i].name, &[(7000 - 700 * i as u64, false)]))
                        .collect();
                    history.record(&SuiteRun {
                        shard: selection.shard,
                        ..run(journeys)
                    });
                    ran.extend(selection.run.iter().map(|&i| names[i]));
                }
                ran.sort();
                assert_eq!(ran, names, "{total} shards, durations {prior:?}");
            }
        }
    }
}
