//! How a journey ended, and where in its file.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rhai::{Dynamic, EvalAltResult, ParseError, Position};

use crate::tools::Attribution;

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

/// Why a journey failed, with its place in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The kind.
    pub kind: FailureKind,
    /// A tool's error code (`not_on_screen`), or `expectation_failed`.
    pub code: Option<String>,
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
            Some(code) if self.kind == FailureKind::Tool => {
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
    /// `None` when it passed.
    pub failure: Option<Failure>,
    /// Wall time.
    pub elapsed: Duration,
    /// What the script printed.
    pub output: Vec<String>,
}

/// The code thrown by `allow` with a class that does not exist: the script is wrong.
pub(super) const INVALID_ACTION_CLASS: &str = "invalid_action_class";

fn place(pos: Position) -> (Option<usize>, Option<usize>) {
    (pos.line(), pos.position())
}

pub(super) fn syntax_failure(file: &Path, _source: &str, e: &ParseError) -> Failure {
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
pub(super) fn run_failure(file: &Path, err: &EvalAltResult, deadline: Duration) -> Failure {
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
            let kind = match code.as_deref() {
                Some("expectation_failed" | "snapshot_changed" | "snapshot_new") => {
                    FailureKind::Expectation
                }
                Some(INVALID_ACTION_CLASS) | None => FailureKind::Script,
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

/// A thrown value: a map with `code` and `message` (what the tools and `expect` throw) or
/// anything else a script threw.
fn thrown(value: &Dynamic) -> (Option<String>, String, Attribution) {
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
            return (Some(code), text("message").unwrap_or_default(), attribution);
        }
    }
    (
        None,
        format!("the script threw {value}"),
        Attribution::Journey,
    )
}
