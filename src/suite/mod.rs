//! Suites at scale: what a run of many journeys adds to running one. `--retries` gives a
//! failing journey more attempts (one that then passes is **flaky**), `--shard I/N` splits
//! the journeys for a CI matrix, `--last-failed` reruns what failed, and `--report` names
//! the files (JUnit XML, JSON) that `report` writes from the same results the console
//! prints. What one run leaves for the next (durations, statuses) is kept in `.waymark/`;
//! a shard never writes what the split is made from (see `history`).
//!
//! Everything here is synchronous and pure but for the two small files of [`History`]:
//! the runner (`run`) fills a [`SuiteRun`], the reports read it.

mod history;
mod outcome;
mod select;
mod shard;

use std::path::PathBuf;
use std::str::FromStr;

pub use history::{Durations, History, LastRun, MergeError, Merged, STATE_DIR};
pub use outcome::{Attempt, Counts, JourneyId, JourneyRun, Status, SuiteRun, exit_code};
pub use select::{Selection, ShardInfo, select};
pub use shard::{Balance, Sha256, Shard, SplitInput, assign};

/// What `waymark run` was asked to do with its journeys as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuiteOptions {
    /// More attempts for a journey that failed (not for a script that is bad input).
    pub retries: u32,
    /// How many journeys run at a time (0 is taken as 1).
    pub jobs: usize,
    /// Run one shard of the journeys.
    pub shard: Option<Shard>,
    /// Run only what failed or was flaky in the last run.
    pub last_failed: bool,
    /// The reports to write, in the order given.
    pub reports: Vec<ReportTarget>,
}

/// A report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// JUnit XML (quick-junit), as CI systems read it.
    Junit,
    /// The run as JSON (`report.schema.json`).
    Json,
    /// The run as one self-contained page, `DIR/index.html`.
    Html,
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The report's folder could not be created.
    #[error("cannot create the folder of the report `{path}`: {source}")]
    Folder {
        /// The report's path, as given.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The report could not be written.
    #[error("cannot write the report `{path}`: {why}")]
    Write {
        /// The report's path, as given.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

/// `--report FORMAT=PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTarget {
    /// Its format.
    pub format: ReportFormat,
    /// Where it is written.
    pub path: PathBuf,
}

impl FromStr for ReportTarget {
    type Err = String;

    fn from_str(text: &str) -> Result<ReportTarget, String> {
        let why = |reason: &str| format!("`{text}` is not a report: {reason}");
        let (format, path) = text
            .split_once('=')
            .ok_or_else(|| why("write junit=PATH, json=PATH or html=DIR"))?;
        let format = match format.trim() {
            "junit" => ReportFormat::Junit,
            "json" => ReportFormat::Json,
            "html" => ReportFormat::Html,
            other => {
                return Err(why(&format!(
                    "`{other}` is not a report format (junit, json, html)"
                )));
            }
        };
        if path.is_empty() {
            return Err(why("the path is empty"));
        }
        Ok(ReportTarget {
            format,
            path: PathBuf::from(path),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_a_format_and_a_path() {
        assert_eq!(
            "junit=out/junit.xml".parse(),
            Ok(ReportTarget {
                format: ReportFormat::Junit,
                path: "out/junit.xml".into()
            })
        );
        assert_eq!(
            "json=r=1.json".parse::<ReportTarget>().map(|r| r.path),
            Ok(PathBuf::from("r=1.json"))
        );
        for bad in ["junit", "xml=a.xml", "json=", "=a.json"] {
            let err = bad.parse::<ReportTarget>().unwrap_err();
            assert!(err.contains(&format!("`{bad}`")), "{err}");
        }
    }
}
