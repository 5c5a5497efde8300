//! What a run reports: the console as it goes ([`Reporter`]), and the files `--report`
//! names, written at the end from the same [`SuiteRun`]: JUnit XML (through quick-junit,
//! as cargo-nextest writes it, flaky reruns included), JSON (`report.schema.json`) and a
//! self-contained HTML page with each journey's steps from its trace.
//!
//! Every report's folder is created before the run starts, so a path that cannot be
//! written fails the run before a browser is launched, naming the path.

mod console;
mod html;
mod json;
mod junit;

use std::path::Path;
use std::time::SystemTime;

pub use console::{Reporter, duration, summary_line};
pub use html::html_report;
pub(crate) use html::{THEME, esc, outcome_of, reference, target_of};
pub use json::{JsonReport, json_report, json_schema};
pub use junit::junit_report;

use crate::protocol::{Failure, FailureKind};
use crate::suite::{ReportError, ReportFormat, ReportTarget, SuiteRun};

/// The reports a run writes at its end, their folders made.
#[derive(Debug, Default)]
pub struct Reports {
    targets: Vec<ReportTarget>,
}

impl Reports {
    /// Creates the folder of every report in `targets` (nothing is written yet).
    pub fn prepare(targets: &[ReportTarget]) -> Result<Reports, ReportError> {
        for target in targets {
            // An HTML report is a folder of its own (`index.html` in it).
            let folder = match target.format {
                ReportFormat::Html => Some(target.path.as_path()),
                _ => target.path.parent(),
            };
            if let Some(folder) = folder.filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(folder).map_err(|source| ReportError::Folder {
                    path: target.path.clone(),
                    source,
                })?;
            }
        }
        Ok(Reports {
            targets: targets.to_vec(),
        })
    }

    /// Writes every report of `run`; the first that fails is the error, after the others
    /// were tried.
    pub fn write(&self, run: &SuiteRun) -> Result<(), ReportError> {
        let mut first = None;
        for target in &self.targets {
            let path = match target.format {
                ReportFormat::Html => target.path.join("index.html"),
                _ => target.path.clone(),
            };
            let written = match target.format {
                ReportFormat::Html => Ok(html_report(run)),
                ReportFormat::Junit => junit_report(run).to_string().map_err(|e| e.to_string()),
                ReportFormat::Json => serde_json::to_string_pretty(&json_report(run))
                    .map(|mut text| {
                        text.push('\n');
                        text
                    })
                    .map_err(|e| e.to_string()),
            }
            .and_then(|text| write_file(&path, &text).map_err(|e| e.to_string()));
            if let Err(why) = written {
                first.get_or_insert(ReportError::Write {
                    path: target.path.clone(),
                    why,
                });
            }
        }
        first.map_or(Ok(()), Err)
    }
}

fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)?;
    }
    std::fs::write(path, text)
}

/// The failure's code as reports write it: its own, else its kind's
/// (`syntax_error`, `script_error`, `limit_reached`).
fn code_of(f: &Failure) -> String {
    match &f.code {
        Some(code) => code.as_str().to_string(),
        None => format!(
            "{}_{}",
            kind_of(f.kind),
            match f.kind {
                FailureKind::Limit => "reached",
                FailureKind::Expectation => "failed",
                _ => "error",
            }
        ),
    }
}

/// The kind of a failure in one word.
fn kind_of(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Syntax => "syntax",
        FailureKind::Script => "script",
        FailureKind::Tool => "tool",
        FailureKind::Expectation => "expectation",
        FailureKind::Limit => "limit",
    }
}

/// The failure's attribution as its JSON word (`journey`, `environment`…).
fn attribution_of(f: &Failure) -> String {
    serde_json::to_value(f.attribution)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// RFC 3339 in UTC, to the millisecond.
fn timestamp(at: SystemTime) -> chrono::DateTime<chrono::FixedOffset> {
    chrono::DateTime::<chrono::Utc>::from(at).fixed_offset()
}

fn rfc3339(at: SystemTime) -> String {
    timestamp(at).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
pub(crate) mod fixture {
    //! A run with one journey of each status, for the reports' tests.

    use std::time::{Duration, SystemTime};

    use crate::protocol::{Attribution, Failure, FailureKind, Outcome};
    use crate::suite::{Attempt, JourneyId, JourneyRun, SuiteRun};

    fn attempt(name: &str, failed: Option<FailureKind>, ms: u64) -> Attempt {
        Attempt {
            outcome: Outcome {
                name: name.into(),
                failure: failed.map(|kind| Failure {
                    kind,
                    code: (kind == FailureKind::Expectation).then(|| "expectation_failed".into()),
                    message: "the claim is still open".into(),
                    attribution: Attribution::Journey,
                    file: format!("journeys/{name}.rhai").into(),
                    line: Some(4),
                    column: Some(1),
                }),
                elapsed: Duration::from_millis(ms),
                output: vec!["printed".into()],
                expected_failure: None,
            },
            trace: Some(format!("traces/{name}.jsonl").into()),
            started: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
        }
    }

    fn journey(name: &str, attempts: Vec<Attempt>) -> JourneyRun {
        JourneyRun {
            id: JourneyId {
                name: name.into(),
                path: format!("journeys/{name}.rhai").into(),
            },
            attempts,
        }
    }

    /// `ok` passed, `sub/flaky` failed then passed, `broken` failed twice, `bad` does not
    /// parse, `later` was skipped.
    pub(crate) fn run() -> SuiteRun {
        let fail = Some(FailureKind::Expectation);
        SuiteRun {
            started: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            elapsed: Duration::from_millis(2500),
            shard: None,
            retries: 1,
            journeys: vec![
                journey("ok", vec![attempt("ok", None, 100)]),
                journey(
                    "sub/flaky",
                    vec![
                        attempt("sub/flaky", fail, 200),
                        attempt("sub/flaky", None, 150),
                    ],
                ),
                journey(
                    "broken",
                    vec![attempt("broken", fail, 300), attempt("broken", fail, 310)],
                ),
                journey("bad", vec![attempt("bad", Some(FailureKind::Syntax), 0)]),
                journey("later", vec![]),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_whose_folder_cannot_be_made_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "").unwrap();
        let path = dir.path().join("file/sub/junit.xml");
        let err = Reports::prepare(&[ReportTarget {
            format: ReportFormat::Junit,
            path: path.clone(),
        }])
        .unwrap_err();
        assert!(
            err.to_string().contains(&format!("`{}`", path.display())),
            "{err}"
        );
    }

    #[test]
    fn every_report_given_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let targets = [
            ReportTarget {
                format: ReportFormat::Junit,
                path: dir.path().join("a/junit.xml"),
            },
            ReportTarget {
                format: ReportFormat::Json,
                path: dir.path().join("b/c/run.json"),
            },
        ];
        Reports::prepare(&targets)
            .unwrap()
            .write(&fixture::run())
            .unwrap();
        let xml = std::fs::read_to_string(&targets[0].path).unwrap();
        assert!(xml.starts_with("<?xml"), "{xml}");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&targets[1].path).unwrap()).unwrap();
        assert_eq!(json["journeys"].as_array().map(Vec::len), Some(5));
    }

    #[test]
    fn a_failure_without_a_code_gets_its_kinds() {
        let run = fixture::run();
        let bad = run.journeys[3].attempts[0]
            .outcome
            .failure
            .as_ref()
            .unwrap();
        assert_eq!(code_of(bad), "syntax_error");
        let broken = run.journeys[2].attempts[0]
            .outcome
            .failure
            .as_ref()
            .unwrap();
        assert_eq!(code_of(broken), "expectation_failed");
        assert_eq!(attribution_of(broken), "journey");
        assert_eq!(rfc3339(run.started), "2023-11-14T22:13:20.000Z");
    }
}
