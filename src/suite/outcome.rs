//! A run's results as every report reads them: each journey's attempts (one, or more under
//! `--retries`), its status (passed, failed, flaky, skipped), the run's counts and exit code.
//! The console, the JUnit and the JSON reports and the history all read these same values.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::select::ShardInfo;
use crate::exit::Exit;
use crate::protocol::Outcome;

/// A journey as a run knows it before running it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JourneyId {
    /// The name reports show (the path under the journeys folder, without `.rhai`).
    pub name: String,
    /// The file.
    pub path: PathBuf,
}

/// One run of a journey, in a fresh tab.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// How it ended.
    pub outcome: Outcome,
    /// Its trace file, when one was written.
    pub trace: Option<PathBuf>,
    /// When it began.
    pub started: SystemTime,
}

impl Attempt {
    /// True when it passed.
    pub fn passed(&self) -> bool {
        self.outcome.failure.is_none()
    }
}

/// How a journey ended over all its attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Passed on its first attempt.
    Passed,
    /// Failed on every attempt.
    Failed,
    /// Failed, then passed on a later attempt.
    Flaky,
    /// Not run: `--last-failed` left it out.
    Skipped,
    /// Failed as an expect-fail mark said it would on this layout (see `journey::mark`):
    /// it does not fail the run.
    #[serde(rename = "expected_failure")]
    Expected,
}

/// A journey's attempts.
#[derive(Debug, Clone)]
pub struct JourneyRun {
    /// Which journey.
    pub id: JourneyId,
    /// Its attempts in order; none when it was skipped.
    pub attempts: Vec<Attempt>,
}

impl JourneyRun {
    /// Its status: from the last attempt, and whether an earlier one failed.
    pub fn status(&self) -> Status {
        match self.attempts.last() {
            None => Status::Skipped,
            Some(last) if !last.passed() => Status::Failed,
            Some(last) if last.outcome.expected_failure.is_some() => Status::Expected,
            Some(_) if self.attempts.len() > 1 => Status::Flaky,
            Some(_) => Status::Passed,
        }
    }

    /// The attempt that decides the journey: the last.
    pub fn last(&self) -> Option<&Attempt> {
        self.attempts.last()
    }

    /// The time of all its attempts.
    pub fn elapsed(&self) -> Duration {
        self.attempts.iter().map(|a| a.outcome.elapsed).sum()
    }
}

/// How many journeys ended each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Counts {
    /// Passed on the first attempt.
    pub passed: usize,
    /// Failed on every attempt.
    pub failed: usize,
    /// Passed after failing.
    pub flaky: usize,
    /// Not run.
    pub skipped: usize,
    /// Failed as a mark expected.
    pub expected: usize,
}

/// A whole run: what every report is written from.
#[derive(Debug, Clone)]
pub struct SuiteRun {
    /// When it began.
    pub started: SystemTime,
    /// How long it took.
    pub elapsed: Duration,
    /// The shard, when it was one.
    pub shard: Option<ShardInfo>,
    /// `--retries`.
    pub retries: u32,
    /// Each journey of the run (its shard's), in the order they were found.
    pub journeys: Vec<JourneyRun>,
}

impl SuiteRun {
    /// How many journeys ended each way.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for journey in &self.journeys {
            match journey.status() {
                Status::Passed => counts.passed += 1,
                Status::Failed => counts.failed += 1,
                Status::Flaky => counts.flaky += 1,
                Status::Skipped => counts.skipped += 1,
                Status::Expected => counts.expected += 1,
            }
        }
        counts
    }

    /// The exit code the journeys' last attempts make (a flaky journey passed).
    pub fn exit(&self) -> Exit {
        let last: Vec<Outcome> = self
            .journeys
            .iter()
            .filter_map(|j| j.last().map(|a| a.outcome.clone()))
            .collect();
        exit_code(&last)
    }
}

/// [`Exit::Passed`] when all passed; [`Exit::BadInput`] when a script was bad input; else
/// [`Exit::Failed`] when any failed.
pub fn exit_code(outcomes: &[Outcome]) -> Exit {
    let failures = outcomes.iter().filter_map(|o| o.failure.as_ref());
    let mut code = Exit::Passed;
    for f in failures {
        if f.kind.is_bad_input() {
            return Exit::BadInput;
        }
        code = Exit::Failed;
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Attribution, Failure, FailureKind};

    fn attempt(kind: Option<FailureKind>) -> Attempt {
        Attempt {
            outcome: Outcome {
                name: "j".into(),
                failure: kind.map(|kind| Failure {
                    kind,
                    code: None,
                    message: "no".into(),
                    attribution: Attribution::Journey,
                    file: "j.rhai".into(),
                    line: None,
                    column: None,
                }),
                elapsed: Duration::from_millis(5),
                output: Vec::new(),
                expected_failure: None,
            },
            trace: None,
            started: SystemTime::UNIX_EPOCH,
        }
    }

    fn journey(attempts: Vec<Attempt>) -> JourneyRun {
        JourneyRun {
            id: JourneyId {
                name: "j".into(),
                path: "j.rhai".into(),
            },
            attempts,
        }
    }

    fn run(journeys: Vec<JourneyRun>) -> SuiteRun {
        SuiteRun {
            started: SystemTime::UNIX_EPOCH,
            elapsed: Duration::ZERO,
            shard: None,
            retries: 2,
            journeys,
        }
    }

    const FAIL: Option<FailureKind> = Some(FailureKind::Expectation);

    #[test]
    fn a_journey_that_failed_then_passed_is_flaky_and_the_run_passes() {
        let flaky = journey(vec![attempt(FAIL), attempt(None)]);
        assert_eq!(flaky.status(), Status::Flaky);
        assert_eq!(flaky.elapsed(), Duration::from_millis(10));
        let run = run(vec![flaky, journey(vec![attempt(None)]), journey(vec![])]);
        assert_eq!(
            run.counts(),
            Counts {
                passed: 1,
                failed: 0,
                flaky: 1,
                skipped: 1,
                expected: 0,
            }
        );
        assert_eq!(run.exit(), Exit::Passed);
    }

    #[test]
    fn failing_every_attempt_fails_and_bad_input_wins() {
        let failed = journey(vec![attempt(FAIL), attempt(FAIL)]);
        assert_eq!(failed.status(), Status::Failed);
        assert_eq!(run(vec![failed.clone()]).exit(), Exit::Failed);
        let broken = journey(vec![attempt(Some(FailureKind::Syntax))]);
        assert_eq!(run(vec![failed, broken]).exit(), Exit::BadInput);
    }
}
