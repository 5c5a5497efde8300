//! How a journey ended, and where in its file.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rhai::{Dynamic, EvalAltResult, ParseError, Position};

use serde::{Serialize, Serializer};

use super::{Attribution, ErrorCode};

/// What kind of failure ended a journey; it decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The script does not parse (exit 2).
    Syntax,
    /// The script is wrong at run time: an unknown function, a type mismatch (exit 2).
    Script,
    /// A tool call failed and the script did not catch it (exit 1).
    Tool,
    /// An `expect` did not hold (exit 1).
    Expectation,
    /// The journey ran past its deadline or a resource limit (exit 1).
    Limit,
}

impl FailureKind {
    /// Bad input (the script itself), as opposed to a journey that ran and failed.
    pub fn is_bad_input(self) -> bool {
        matches!(self, FailureKind::Syntax | FailureKind::Script)
    }
}

/// The code of a journey's failure: a tool's, one the runner raises for the journey itself
/// (an expectation, a snapshot, a replay that drifted), or whatever code a script threw
/// itself. Written as the same strings everywhere (`not_on_screen`, `expectation_failed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureCode {
    /// A tool call failed with this code.
    Tool(ErrorCode),
    /// An `expect` did not hold.
    ExpectationFailed,
    /// A screen no longer matches its snapshot.
    SnapshotChanged,
    /// A snapshot had no file yet.
    SnapshotNew,
    /// A snapshot's file could not be written.
    SnapshotUnwritable,
    /// `allow` named a class that does not exist.
    InvalidActionClass,
    /// A replayed transcript no longer matches the app.
    Drifted,
    /// A journey marked to fail on the layout it ran on passed: the mark is stale.
    UnexpectedPass,
    /// A code a script threw itself (`throw #{code: "…"}`), as it threw it.
    Thrown(String),
}

impl FailureCode {
    /// The journey's own codes, beside the tools'.
    const OWN: [FailureCode; 7] = [
        FailureCode::ExpectationFailed,
        FailureCode::SnapshotChanged,
        FailureCode::SnapshotNew,
        FailureCode::SnapshotUnwritable,
        FailureCode::InvalidActionClass,
        FailureCode::Drifted,
        FailureCode::UnexpectedPass,
    ];

    /// The code spelled `code`: a known one, else one a script threw.
    pub fn parse(code: &str) -> FailureCode {
        if let Some(tool) = ErrorCode::parse(code) {
            return FailureCode::Tool(tool);
        }
        FailureCode::OWN
            .into_iter()
            .find(|own| own.as_str() == code)
            .unwrap_or_else(|| FailureCode::Thrown(code.to_string()))
    }

    /// The code as it appears in output.
    pub fn as_str(&self) -> &str {
        match self {
            FailureCode::Tool(code) => code.as_str(),
            FailureCode::ExpectationFailed => "expectation_failed",
            FailureCode::SnapshotChanged => "snapshot_changed",
            FailureCode::SnapshotNew => "snapshot_new",
            FailureCode::SnapshotUnwritable => "snapshot_unwritable",
            FailureCode::InvalidActionClass => "invalid_action_class",
            FailureCode::Drifted => "drifted",
            FailureCode::UnexpectedPass => "unexpected_pass",
            FailureCode::Thrown(code) => code,
        }
    }
}

impl From<ErrorCode> for FailureCode {
    fn from(code: ErrorCode) -> FailureCode {
        FailureCode::Tool(code)
    }
}

impl From<&str> for FailureCode {
    fn from(code: &str) -> FailureCode {
        FailureCode::parse(code)
    }
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// A plain string, as the code always was: a thrown code is kept as the script spelled it,
// which no derived enum representation would write bare.
impl Serialize for FailureCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Why a journey failed, with its place in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The kind.
    pub kind: FailureKind,
    /// A tool's error code (`not_on_screen`), or one of the journey's own
    /// (`expectation_failed`).
    pub code: Option<FailureCode>,
    /// What went wrong.
    pub message: String,
    /// Who is to blame.
    pub attribution: Attribution,
    /// The journey file.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
}

impl Failure {
    /// `file:line:col` (as much as is known).
    pub fn location(&self) -> String {
        let mut s = self.file.display().to_string();
        if let Some(line) = self.line {
            s.push_str(&format!(":{line}"));
            if let Some(col) = self.column {
                s.push_str(&format!(":{col}"));
            }
        }
        s
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            FailureKind::Syntax => "syntax error",
            FailureKind::Script => "script error",
            FailureKind::Tool => "",
            FailureKind::Expectation => "expectation failed",
            FailureKind::Limit => "limit reached",
        };
        // A long message (a snapshot diff) continues below the line that says where.
        let (first, rest) = match self.message.split_once('\n') {
            Some((first, rest)) => (first, Some(rest)),
            None => (self.message.as_str(), None),
        };
        match &self.code {
            // A stale mark is said by its code: it is no expectation of the script's.
            Some(code)
                if self.kind == FailureKind::Tool || *code == FailureCode::UnexpectedPass =>
            {
                write!(f, "{code}: {first} at {}", self.location())?;
            }
            _ => write!(f, "{what}: {first} at {}", self.location())?,
        }
        if let Some(rest) = rest {
            write!(f, "\n{rest}")?;
        }
        Ok(())
    }
}

/// How one journey ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The journey's name.
    pub name: String,
    /// `None` when it passed, or failed as a mark expected it to.
    pub failure: Option<Failure>,
    /// The failure a mark expected on the layout the journey ran on (`failure` is then
    /// `None`: it does not fail the run).
    pub expected_failure: Option<ExpectedFailure>,
    /// Wall time.
    pub elapsed: Duration,
    /// What the script printed.
    pub output: Vec<String>,
}

/// A journey that failed on a layout it is marked to fail on (`// waymark: expect-fail`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedFailure {
    /// The layout it ran on.
    pub layout: String,
    /// Why it is expected to fail there, from the mark.
    pub reason: String,
    /// How it failed.
    pub failure: Failure,
}

fn place(pos: Position) -> (Option<usize>, Option<usize>) {
    (pos.line(), pos.position())
}

pub(crate) fn syntax_failure(file: &Path, _source: &str, e: &ParseError) -> Failure {
    let (line, column) = place(e.position());
    Failure {
        kind: FailureKind::Syntax,
        code: None,
        message: e.err_type().to_string(),
        attribution: Attribution::Journey,
        file: file.to_path_buf(),
        line,
        column,
    }
}

/// Classifies an error that ended a run: a tool error or expectation thrown as a map, a
/// limit, or a mistake in the script. Errors inside script functions are unwrapped to the
/// innermost, most precise place.
pub(crate) fn run_failure(file: &Path, err: &EvalAltResult, deadline: Duration) -> Failure {
    let failure = |kind, code, message, attribution, pos: Position| {
        let (line, column) = place(pos);
        Failure {
            kind,
            code,
            message,
            attribution,
            file: file.to_path_buf(),
            line,
            column,
        }
    };
    match err {
        EvalAltResult::ErrorInFunctionCall(_, _, inner, _)
        | EvalAltResult::ErrorInModule(_, inner, _) => run_failure(file, inner, deadline),
        EvalAltResult::ErrorRuntime(value, pos) => {
            let (code, message, attribution) = thrown(value);
            let kind = match code {
                Some(
                    FailureCode::ExpectationFailed
                    | FailureCode::SnapshotChanged
                    | FailureCode::SnapshotNew,
                ) => FailureKind::Expectation,
                Some(FailureCode::InvalidActionClass) | None => FailureKind::Script,
                Some(_) => FailureKind::Tool,
            };
            failure(kind, code, message, attribution, *pos)
        }
        EvalAltResult::ErrorTerminated(_, pos) => failure(
            FailureKind::Limit,
            None,
            format!(
                "the journey ran past its deadline of {} s",
                deadline.as_secs_f64()
            ),
            Attribution::Journey,
            *pos,
        ),
        EvalAltResult::ErrorTooManyOperations(pos)
        | EvalAltResult::ErrorStackOverflow(pos)
        | EvalAltResult::ErrorDataTooLarge(_, pos)
        | EvalAltResult::ErrorTooManyVariables(pos) => failure(
            FailureKind::Limit,
            None,
            err.to_string()
                .split(" (line")
                .next()
                .unwrap_or_default()
                .to_string(),
            Attribution::Journey,
            *pos,
        ),
        other => failure(
            FailureKind::Script,
            None,
            other
                .to_string()
                .split(" (line")
                .next()
                .unwrap_or_default()
                .to_string(),
            Attribution::Journey,
            other.position(),
        ),
    }
}

/// A thrown value: a map with `code` and `message` (what the tools, `expect` and
/// `snapshot` throw, each message bounded where it is made) or anything else a script
/// threw, cut to a message's length.
fn thrown(value: &Dynamic) -> (Option<FailureCode>, String, Attribution) {
    if let Some(map) = value.read_lock::<rhai::Map>() {
        let text = |k: &str| map.get(k).map(|v| v.to_string());
        if let Some(code) = text("code") {
            let attribution = match text("attribution").as_deref() {
                Some("app") => Attribution::App,
                Some("capture") => Attribution::Capture,
                Some("environment") => Attribution::Environment,
                Some("gate") => Attribution::Gate,
                _ => Attribution::Journey,
            };
            return (
                Some(FailureCode::parse(&code)),
                text("message").unwrap_or_default(),
                attribution,
            );
        }
    }
    (
        None,
        shown(format!("the script threw {value}")),
        Attribution::Journey,
    )
}

/// A message a script made as it is shown: it may hold any page text the script read, so
/// it is cut to [`MESSAGE_CHARS`](super::MESSAGE_CHARS) like a tool's message.
pub(crate) fn shown(message: String) -> String {
    match super::cut_to(&message, super::MESSAGE_CHARS) {
        std::borrow::Cow::Borrowed(_) => message,
        std::borrow::Cow::Owned(cut) => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_code_is_written_as_it_was_spelled() {
        for spelled in [
            "not_on_screen",
            "expectation_failed",
            "snapshot_unwritable",
            "drifted",
            "unexpected_pass",
            "a_code_the_script_made_up",
        ] {
            let code = FailureCode::parse(spelled);
            assert_eq!(code.as_str(), spelled);
            assert_eq!(serde_json::to_value(&code).unwrap(), spelled);
        }
        assert_eq!(
            FailureCode::parse("timeout"),
            FailureCode::Tool(ErrorCode::Timeout)
        );
        assert_eq!(
            FailureCode::parse("made_up"),
            FailureCode::Thrown("made_up".into())
        );
    }
}
