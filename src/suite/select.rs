//! Which of the journeys found this run runs: its shard's (`--shard I/N`), then of those,
//! with `--last-failed`, the ones that failed or were flaky in the last run. Sharding comes
//! first so that each journey belongs to one shard whatever the last run did, and each CI
//! machine reruns the failures of the shard it ran.
//!
//! A shard's first note names what its split was made from, `durations.json` and the
//! SHA-256 of its bytes (or that there was none): two machines of one matrix that print
//! different ones split differently, and the logs show it.

use super::shard::{Balance, Sha256, Shard, SplitInput, assign};
use super::{History, JourneyId};

/// The shard a run is, as its reports say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardInfo {
    /// `I/N`.
    pub shard: Shard,
    /// How many journeys all the shards hold together.
    pub of: usize,
    /// How the split was made.
    pub balance: Balance,
    /// The SHA-256 of the durations file the split read; `None` when there was none.
    pub input: Option<Sha256>,
}

/// What a run does with the journeys it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The journeys to run, as indices into the list given, in its order.
    pub run: Vec<usize>,
    /// The journeys of this shard that `--last-failed` leaves out, in the list's order.
    pub skipped: Vec<usize>,
    /// The shard, when the run is one.
    pub shard: Option<ShardInfo>,
    /// What was chosen and why, a line each, for the run's output.
    pub notes: Vec<String>,
}

/// Selects from `ids` (every journey found) the shard's journeys, then with `last_failed`
/// those that failed or were flaky in the last run recorded in `history`. With no record,
/// or nothing of the shard's failed, `--last-failed` runs everything (as pytest's
/// `--last-failed` does by default) and says so.
pub fn select(
    ids: &[JourneyId],
    shard: Option<Shard>,
    last_failed: bool,
    history: &History,
) -> Selection {
    let mut notes = Vec::new();
    let (mine, shard) = match shard {
        None => ((0..ids.len()).collect::<Vec<_>>(), None),
        Some(shard) => {
            let input = history.split_input();
            let (shards, balance) = assign(ids, shard.total, input.durations.as_ref());
            let mine: Vec<usize> = (0..ids.len())
                .filter(|&i| shards[i] == shard.index)
                .collect();
            notes.push(format!(
                "shard {shard}: {} of {} journey{}, {}",
                mine.len(),
                ids.len(),
                plural(ids.len()),
                split_by(balance, &input, history)
            ));
            let info = ShardInfo {
                shard,
                of: ids.len(),
                balance,
                input: input.sha256,
            };
            (mine, Some(info))
        }
    };
    if !last_failed {
        return Selection {
            run: mine,
            skipped: Vec::new(),
            shard,
            notes,
        };
    }
    let all = |why: String| {
        format!(
            "--last-failed: {why}: running all {} journey{}",
            mine.len(),
            plural(mine.len())
        )
    };
    let (run, skipped) = match history.last_run() {
        None => {
            notes.push(all(format!(
                "no record of a last run in `{}`",
                history.last_run_path().display()
            )));
            (mine, Vec::new())
        }
        Some(last) => {
            let failed: std::collections::BTreeSet<&str> = last.failed().collect();
            let (run, skipped): (Vec<usize>, Vec<usize>) = mine
                .iter()
                .partition(|&&i| failed.contains(ids[i].name.as_str()));
            if failed.is_empty() {
                notes.push(all("nothing failed in the last run".into()));
                (mine, Vec::new())
            } else if run.is_empty() {
                notes.push(all(format!(
                    "none of {} failed in the last run",
                    if shard.is_some() {
                        "this shard's journeys"
                    } else {
                        "these journeys"
                    }
                )));
                (mine, Vec::new())
            } else {
                notes.push(format!(
                    "--last-failed: running the {} journey{} that failed or were flaky in the last run; {} skipped",
                    run.len(),
                    plural(run.len()),
                    skipped.len()
                ));
                (run, skipped)
            }
        }
    };
    Selection {
        run,
        skipped,
        shard,
        notes,
    }
}

/// How a split was made and from what, as a shard's first line says it.
fn split_by(balance: Balance, input: &SplitInput, history: &History) -> String {
    let file = format!("`{}`", history.durations_path().display());
    match (balance, input.sha256, &input.durations) {
        (_, None, _) => format!("dealt out in path order (no {file})"),
        (Balance::Durations, Some(sha), _) => {
            format!("balanced by {file} (sha256 {})", sha.short())
        }
        (Balance::RoundRobin, Some(sha), None) => format!(
            "dealt out in path order ({file}, sha256 {}, holds no durations)",
            sha.short()
        ),
        (Balance::RoundRobin, Some(sha), Some(_)) => format!(
            "dealt out in path order ({file}, sha256 {}, has none of these journeys)",
            sha.short()
        ),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::suite::{LastRun, Status};

    fn ids(names: &[&str]) -> Vec<JourneyId> {
        names
            .iter()
            .map(|n| JourneyId {
                name: n.to_string(),
                path: format!("journeys/{n}.rhai").into(),
            })
            .collect()
    }

    fn history_with(last: Option<&[(&str, Status)]>) -> (tempfile::TempDir, History) {
        let dir = tempfile::tempdir().unwrap();
        let history = History::at(dir.path());
        if let Some(last) = last {
            let record = LastRun {
                version: 1,
                journeys: last
                    .iter()
                    .map(|(n, s)| (n.to_string(), *s))
                    .collect::<BTreeMap<_, _>>(),
            };
            std::fs::write(
                history.last_run_path(),
                serde_json::to_string(&record).unwrap(),
            )
            .unwrap();
        }
        (dir, history)
    }

    #[test]
    fn without_options_everything_runs_and_nothing_is_said() {
        let (_dir, history) = history_with(None);
        let s = select(&ids(&["a", "b"]), None, false, &history);
        assert_eq!(s.run, [0, 1]);
        assert!(s.skipped.is_empty() && s.notes.is_empty() && s.shard.is_none());
    }

    #[test]
    fn a_shard_runs_its_part_and_says_how_many_of_how_many() {
        let (_dir, history) = history_with(None);
        let ids = ids(&["a", "b", "c"]);
        let one = select(&ids, Some(Shard { index: 1, total: 2 }), false, &history);
        let two = select(&ids, Some(Shard { index: 2, total: 2 }), false, &history);
        assert_eq!(one.run, [0, 2]);
        assert_eq!(two.run, [1]);
        assert!(
            one.notes[0].starts_with("shard 1/2: 2 of 3 journeys, dealt out in path order"),
            "{:?}",
            one.notes
        );
        assert_eq!(one.shard.unwrap().of, 3);
    }

    #[test]
    fn last_failed_runs_the_failed_and_flaky_and_skips_the_rest() {
        let (_dir, history) = history_with(Some(&[
            ("a", Status::Passed),
            ("b", Status::Failed),
            ("c", Status::Flaky),
            ("gone", Status::Failed),
        ]));
        let s = select(&ids(&["a", "b", "c", "d"]), None, true, &history);
        assert_eq!(s.run, [1, 2]);
        assert_eq!(s.skipped, [0, 3]);
        assert_eq!(
            s.notes,
            [
                "--last-failed: running the 2 journeys that failed or were flaky in the last run; 2 skipped"
            ]
        );
    }

    #[test]
    fn last_failed_without_a_record_or_a_failure_runs_everything_saying_why() {
        let (_dir, history) = history_with(None);
        let s = select(&ids(&["a", "b"]), None, true, &history);
        assert_eq!(s.run, [0, 1]);
        assert!(
            s.notes[0].contains("no record of a last run"),
            "{:?}",
            s.notes
        );
        assert!(
            s.notes[0].ends_with("running all 2 journeys"),
            "{:?}",
            s.notes
        );

        let (_dir, history) = history_with(Some(&[("a", Status::Passed)]));
        let s = select(&ids(&["a", "b"]), None, true, &history);
        assert_eq!(s.run, [0, 1]);
        assert_eq!(
            s.notes,
            ["--last-failed: nothing failed in the last run: running all 2 journeys"]
        );

        let (_dir, history) = history_with(Some(&[("gone", Status::Failed)]));
        let s = select(&ids(&["a"]), None, true, &history);
        assert_eq!(s.run, [0]);
        assert_eq!(
            s.notes,
            ["--last-failed: none of these journeys failed in the last run: running all 1 journey"]
        );
    }

    #[test]
    fn last_failed_chooses_within_the_shard() {
        let (_dir, history) = history_with(Some(&[("b", Status::Failed), ("c", Status::Failed)]));
        let ids = ids(&["a", "b", "c", "d"]);
        // path order: a→1, b→2, c→1, d→2
        let one = select(&ids, Some(Shard { index: 1, total: 2 }), true, &history);
        assert_eq!(one.run, [2]);
        assert_eq!(one.skipped, [0]);
        assert_eq!(one.notes.len(), 2);
    }

    #[test]
    fn a_shards_first_note_names_the_durations_file_and_its_sha256() {
        let (dir, history) = history_with(None);
        let ids = ids(&["a", "b", "c"]);
        let shard = Some(Shard { index: 2, total: 2 });
        let file = format!("`{}`", history.durations_path().display());
        let first = |history: &History| {
            let s = select(&ids, shard, false, history);
            (s.notes[0].clone(), s.shard.unwrap())
        };
        let (note, info) = first(&history);
        assert_eq!(
            note,
            format!("shard 2/2: 1 of 3 journeys, dealt out in path order (no {file})")
        );
        assert_eq!(info.input, None);

        let cases = [
            (
                r#"{"a": 300, "b": 200}"#,
                "balanced by {file} (sha256 {sha})",
            ),
            (
                r#"{"gone": 300}"#,
                "dealt out in path order ({file}, sha256 {sha}, has none of these journeys)",
            ),
            (
                "[1, 2]",
                "dealt out in path order ({file}, sha256 {sha}, holds no durations)",
            ),
        ];
        for (text, how) in cases {
            std::fs::write(dir.path().join("durations.json"), text).unwrap();
            let sha = Sha256::of(text.as_bytes());
            let (note, info) = first(&history);
            let how = how.replace("{file}", &file).replace("{sha}", &sha.short());
            assert_eq!(note.split_once(" of 3 journeys, ").unwrap().1, how);
            assert_eq!(info.input, Some(sha));
        }
    }

    #[test]
    fn what_other_shards_record_moves_no_journey_of_a_last_failed_shard() {
        let (_dir, history) = history_with(Some(&[("b", Status::Failed), ("c", Status::Failed)]));
        let ids = ids(&["a", "b", "c", "d"]);
        let shard = |index| Some(Shard { index, total: 2 });
        let two = select(&ids, shard(2), true, &history);
        // Shard 1 (a, c) runs again and now passes; shard 2 (b, d) is chosen as before.
        let record = LastRun {
            version: 1,
            journeys: [
                ("a", Status::Passed),
                ("b", Status::Failed),
                ("c", Status::Passed),
            ]
            .iter()
            .map(|(n, s)| (n.to_string(), *s))
            .collect(),
        };
        std::fs::write(
            history.last_run_path(),
            serde_json::to_string(&record).unwrap(),
        )
        .unwrap();
        assert_eq!(select(&ids, shard(2), true, &history), two);
        assert_eq!(two.run, [1]);
        assert_eq!(two.skipped, [3]);
    }
}
