//! `--report json=PATH`: the run as data. Its shape is [`JsonReport`]; `report.schema.json`
//! is its JSON Schema, generated from these types (a test keeps the checked-in file
//! current). Fields may be added in later versions, never renamed: readers should ignore
//! what they do not know.

use schemars::JsonSchema;
use serde::Serialize;

use super::{code_of, rfc3339};
use crate::protocol::{Attribution, FailureKind};
use crate::suite::{Attempt, Balance, Counts, JourneyRun, Status, SuiteRun};

/// The format's version: `1`.
pub const VERSION: u32 = 1;

/// A `waymark run`, as `--report json=PATH` writes it.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "waymark run report (--report json=PATH)")]
pub struct JsonReport {
    /// The format's version (1).
    pub version: u32,
    /// The waymark that ran it.
    pub waymark: String,
    /// When the run began, RFC 3339 in UTC.
    pub started_at: String,
    /// How long the run took, in milliseconds.
    pub duration_ms: f64,
    /// The shard the run was (`--shard I/N`), or null.
    pub shard: Option<JsonShard>,
    /// `--retries`: the attempts a failing journey had beyond its first.
    pub retries: u32,
    /// How many journeys ended each way (flaky ones are not counted as passed).
    pub summary: Counts,
    /// Every journey of the run (its shard's), in the order they were found.
    pub journeys: Vec<JsonJourney>,
}

/// `--shard I/N`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonShard {
    /// I, from 1.
    pub index: u32,
    /// N.
    pub total: u32,
    /// How many journeys this shard holds.
    pub journeys: usize,
    /// How many journeys all the shards hold together.
    pub of: usize,
    /// How the journeys were split.
    pub balance: JsonBalance,
    /// The SHA-256 (hex) of `.waymark/durations.json` as the split read it, or null when
    /// there was none: shards of one matrix with different values split differently.
    pub durations_sha256: Option<String>,
}

/// How a shard split was made.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum JsonBalance {
    /// By the durations in `.waymark/durations.json`, longest first onto the least-loaded shard.
    Durations,
    /// Round-robin in path order.
    RoundRobin,
}

/// A journey and its attempts.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonJourney {
    /// Its name (the path under the journeys folder, without `.rhai`).
    pub name: String,
    /// Its file.
    pub path: String,
    /// `passed` (first attempt), `flaky` (failed, then passed), `failed` (every attempt),
    /// `skipped` (not run: `--last-failed` left it out).
    pub status: Status,
    /// The time of all its attempts, in milliseconds.
    pub duration_ms: f64,
    /// Its attempts in order; empty when skipped.
    pub attempts: Vec<JsonAttempt>,
}

/// One attempt of a journey, in a fresh tab.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonAttempt {
    /// Which attempt, from 1.
    pub attempt: u32,
    /// When it began, RFC 3339 in UTC.
    pub started_at: String,
    /// How long it took, in milliseconds.
    pub duration_ms: f64,
    /// How it ended.
    pub outcome: JsonOutcome,
    /// Why it failed, or null.
    pub error: Option<JsonError>,
    /// Its trace file (JSON lines), or null when none was written.
    pub trace: Option<String>,
    /// What the script printed.
    pub output: Vec<String>,
}

/// How an attempt ended.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JsonOutcome {
    /// It passed.
    Passed,
    /// It failed.
    Failed,
}

/// Why an attempt failed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonError {
    /// The code: a tool's (`not_on_screen`), the journey's own (`expectation_failed`), one
    /// the script threw, or the kind's (`syntax_error`, `script_error`, `limit_reached`).
    pub code: String,
    /// What kind of failure: `syntax` and `script` are bad input (exit 2, never retried).
    pub kind: JsonFailureKind,
    /// What went wrong.
    pub message: String,
    /// Who is to blame.
    pub attribution: Attribution,
    /// The journey file.
    pub file: String,
    /// 1-based line, or null.
    pub line: Option<usize>,
    /// 1-based column, or null.
    pub column: Option<usize>,
}

/// A failure's kind.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JsonFailureKind {
    /// The script does not parse.
    Syntax,
    /// The script is wrong at run time.
    Script,
    /// A tool call failed and the script did not catch it.
    Tool,
    /// An `expect` (or a snapshot) did not hold.
    Expectation,
    /// A deadline or resource limit.
    Limit,
}

/// The JSON report of `run`.
pub fn json_report(run: &SuiteRun) -> JsonReport {
    JsonReport {
        version: VERSION,
        waymark: env!("CARGO_PKG_VERSION").to_string(),
        started_at: rfc3339(run.started),
        duration_ms: ms(run.elapsed),
        shard: run.shard.map(|info| JsonShard {
            index: info.shard.index,
            total: info.shard.total,
            journeys: run.journeys.len(),
            of: info.of,
            balance: match info.balance {
                Balance::Durations => JsonBalance::Durations,
                Balance::RoundRobin => JsonBalance::RoundRobin,
            },
            durations_sha256: info.input.map(|sha| sha.to_string()),
        }),
        retries: run.retries,
        summary: run.counts(),
        journeys: run.journeys.iter().map(journey).collect(),
    }
}

fn journey(journey: &JourneyRun) -> JsonJourney {
    JsonJourney {
        name: journey.id.name.clone(),
        path: journey.id.path.display().to_string(),
        status: journey.status(),
        duration_ms: ms(journey.elapsed()),
        attempts: journey
            .attempts
            .iter()
            .zip(1..)
            .map(|(a, n)| attempt(a, n))
            .collect(),
    }
}

fn attempt(attempt: &Attempt, number: u32) -> JsonAttempt {
    let error = attempt.outcome.failure.as_ref().map(|f| JsonError {
        code: code_of(f),
        kind: match f.kind {
            FailureKind::Syntax => JsonFailureKind::Syntax,
            FailureKind::Script => JsonFailureKind::Script,
            FailureKind::Tool => JsonFailureKind::Tool,
            FailureKind::Expectation => JsonFailureKind::Expectation,
            FailureKind::Limit => JsonFailureKind::Limit,
        },
        message: f.message.clone(),
        attribution: f.attribution,
        file: f.file.display().to_string(),
        line: f.line,
        column: f.column,
    });
    JsonAttempt {
        attempt: number,
        started_at: rfc3339(attempt.started),
        duration_ms: ms(attempt.outcome.elapsed),
        outcome: if error.is_some() {
            JsonOutcome::Failed
        } else {
            JsonOutcome::Passed
        },
        error,
        trace: attempt.trace.as_ref().map(|p| p.display().to_string()),
        output: attempt.outcome.output.clone(),
    }
}

fn ms(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

/// The JSON Schema of the JSON report: what `report.schema.json` holds. It describes what
/// waymark writes (serde's serialize side), so every field, null or not, is required.
pub fn json_schema() -> String {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<JsonReport>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::report::fixture;

    /// `report.schema.json` is what the report's types say; `WAYMARK_UPDATE_SCHEMA=1`
    /// rewrites it after a change to them.
    #[test]
    fn the_checked_in_report_schema_is_the_one_the_types_generate() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("report.schema.json");
        let generated = json_schema();
        if std::env::var_os("WAYMARK_UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).expect("write report.schema.json");
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "report.schema.json is stale: run `WAYMARK_UPDATE_SCHEMA=1 cargo test --lib schema`"
        );
        for field in [
            "\"started_at\"",
            "\"attempts\"",
            "\"flaky\"",
            "\"attribution\"",
            "\"trace\"",
        ] {
            assert!(generated.contains(field), "the schema lacks {field}");
        }
    }

    #[test]
    fn each_journey_is_its_status_and_attempts() {
        let report = serde_json::to_value(json_report(&fixture::run())).unwrap();
        assert_eq!(report["version"], 1);
        assert_eq!(report["started_at"], "2023-11-14T22:13:20.000Z");
        assert_eq!(report["shard"], serde_json::Value::Null);
        assert_eq!(
            report["summary"],
            json!({"passed": 1, "failed": 2, "flaky": 1, "skipped": 1, "expected": 0})
        );
        let statuses: Vec<&str> = report["journeys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["passed", "flaky", "failed", "failed", "skipped"]);
        let flaky = &report["journeys"][1];
        assert_eq!(flaky["duration_ms"], 350.0);
        assert_eq!(flaky["attempts"][0]["outcome"], "failed");
        assert_eq!(
            flaky["attempts"][0]["error"],
            json!({"code": "expectation_failed", "kind": "expectation",
                   "message": "the claim is still open", "attribution": "journey",
                   "file": "journeys/sub/flaky.rhai", "line": 4, "column": 1})
        );
        assert_eq!(flaky["attempts"][0]["trace"], "traces/sub/flaky.jsonl");
        assert_eq!(flaky["attempts"][1]["attempt"], 2);
        assert_eq!(flaky["attempts"][1]["error"], serde_json::Value::Null);
        assert_eq!(
            report["journeys"][3]["attempts"][0]["error"]["code"],
            "syntax_error"
        );
        assert_eq!(report["journeys"][4]["attempts"], json!([]));
    }
}
