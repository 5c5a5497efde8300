//! Marks a journey carries for the runner in the comment lines it starts with:
//!
//! ```text
//! // waymark: expect-fail layout=redesign the redesign drops "Back to claims" (claim.back)
//! ```
//!
//! says the journey is known to fail on that layout of the app, and why. Read at discovery,
//! before anything starts: a `// waymark:` line there that does not parse makes the journey
//! bad input, so a typo never silently unmarks it. On the layout named, a failure is an
//! expected failure (the run does not fail), and a pass fails the run: the mark is stale.
//! On any other layout the mark changes nothing.

use std::path::Path;

use crate::layout::Layout;
use crate::protocol::{Attribution, ExpectedFailure, Failure, FailureCode, FailureKind, Outcome};

/// The directive prefix, after `//`.
const PREFIX: &str = "waymark:";

/// A journey known to fail on one layout of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectFail {
    /// The layout it fails on.
    pub layout: Layout,
    /// Why, in the journey author's words.
    pub reason: String,
    /// The mark's line (1-based).
    pub line: usize,
}

/// The marks in the comment lines `source` starts with (blank lines may separate them);
/// the first `// waymark:` line that does not parse is a syntax failure at its line.
pub(crate) fn parse(path: &Path, source: &str) -> Result<Vec<ExpectFail>, Failure> {
    let mut marks: Vec<ExpectFail> = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let Some(comment) = trimmed.strip_prefix("//") else {
            break;
        };
        let Some(directive) = comment.trim_start().strip_prefix(PREFIX) else {
            continue;
        };
        let bad = |message: String| Failure {
            kind: FailureKind::Syntax,
            code: None,
            message,
            attribution: Attribution::Journey,
            file: path.to_path_buf(),
            line: Some(i + 1),
            column: Some(line.len() - line.trim_start().len() + 1),
        };
        let mark = parse_directive(directive.trim(), i + 1).map_err(bad)?;
        if marks.iter().any(|m| m.layout == mark.layout) {
            return Err(bad(format!(
                "a second `expect-fail` mark for the `{}` layout",
                mark.layout
            )));
        }
        marks.push(mark);
    }
    Ok(marks)
}

fn parse_directive(text: &str, line: usize) -> Result<ExpectFail, String> {
    let layouts = || Layout::ALL.map(|l| format!("`{l}`")).join(", ");
    let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    if word != "expect-fail" {
        return Err(format!(
            "`{word}` is not a waymark mark: the one known is `// waymark: expect-fail layout=NAME REASON`"
        ));
    }
    let rest = rest.trim_start();
    let (setting, reason) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let Some(name) = setting.strip_prefix("layout=") else {
        return Err(format!(
            "`expect-fail` names its layout first: `layout=NAME` ({})",
            layouts()
        ));
    };
    let layout =
        Layout::parse(name).ok_or_else(|| format!("`{name}` is not a layout ({})", layouts()))?;
    let reason = reason.trim().trim_start_matches(['—', '-', ':']).trim();
    if reason.is_empty() {
        return Err(format!(
            "`expect-fail layout={name}` needs a reason after the layout: why it fails there"
        ));
    }
    Ok(ExpectFail {
        layout,
        reason: reason.to_string(),
        line,
    })
}

/// `outcome` as the run counts it on `layout`, given the journey's `marks` (its file is
/// `path`): on a layout a mark names, a failure becomes an expected failure, unless it is
/// bad input or the environment's (a broken script or browser is never what was expected),
/// and a pass becomes a failure at the mark's line.
pub fn judge(outcome: Outcome, marks: &[ExpectFail], layout: Layout, path: &Path) -> Outcome {
    let Some(mark) = marks.iter().find(|m| m.layout == layout) else {
        return outcome;
    };
    match outcome.failure {
        Some(failure)
            if !failure.kind.is_bad_input() && failure.attribution != Attribution::Environment =>
        {
            Outcome {
                failure: None,
                expected_failure: Some(ExpectedFailure {
                    layout: layout.as_str().to_string(),
                    reason: mark.reason.clone(),
                    failure,
                }),
                ..outcome
            }
        }
        Some(_) => outcome,
        None => Outcome {
            failure: Some(Failure {
                kind: FailureKind::Expectation,
                code: Some(FailureCode::UnexpectedPass),
                message: format!(
                    "passed, but is marked to fail on the `{layout}` layout ({}): remove the \
                     mark if that is fixed",
                    mark.reason
                ),
                attribution: Attribution::Journey,
                file: path.to_path_buf(),
                line: Some(mark.line),
                column: None,
            }),
            ..outcome
        },
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::protocol::ErrorCode;

    fn marks(source: &str) -> Result<Vec<ExpectFail>, Failure> {
        parse(Path::new("j.rhai"), source)
    }

    #[test]
    fn a_mark_in_the_opening_comments_is_read_with_its_reason_and_line() {
        let source = "// Review a claim.\n\n// waymark: expect-fail layout=redesign — the \
                      redesign drops claim.back\nnavigate(\"/\");\n";
        assert_eq!(
            marks(source).unwrap(),
            [ExpectFail {
                layout: Layout::Redesign,
                reason: "the redesign drops claim.back".into(),
                line: 3,
            }]
        );
        // Past the first line of code a `// waymark:` comment is only a comment.
        let later = "navigate(\"/\");\n// waymark: expect-fail layout=nope\n";
        assert_eq!(marks(later).unwrap(), []);
        assert_eq!(marks("").unwrap(), []);
    }

    #[test]
    fn a_mark_that_does_not_parse_is_a_syntax_failure_at_its_line() {
        for (source, says) in [
            (
                "// waymark: expect-fial layout=redesign x\n",
                "`expect-fial` is not a waymark mark",
            ),
            (
                "// waymark: expect-fail redesign x\n",
                "names its layout first",
            ),
            (
                "// waymark: expect-fail layout=modern x\n",
                "`modern` is not a layout (`classic`, `redesign`)",
            ),
            (
                "// waymark: expect-fail layout=redesign\n",
                "needs a reason",
            ),
            (
                "// waymark: expect-fail layout=redesign a\n// waymark: expect-fail layout=redesign b\n",
                "a second `expect-fail` mark",
            ),
        ] {
            let failure = marks(source).unwrap_err();
            assert_eq!(failure.kind, FailureKind::Syntax, "{source}");
            assert!(
                failure.message.contains(says),
                "{source}: {}",
                failure.message
            );
            assert!(failure.line.is_some(), "{source}");
        }
        let failure = marks("// ok\n  // waymark: nonsense\n").unwrap_err();
        assert_eq!((failure.line, failure.column), (Some(2), Some(3)));
    }

    fn outcome(failure: Option<Failure>) -> Outcome {
        Outcome {
            name: "j".into(),
            failure,
            expected_failure: None,
            elapsed: Duration::ZERO,
            output: Vec::new(),
        }
    }

    fn failure(kind: FailureKind, attribution: Attribution) -> Failure {
        Failure {
            kind,
            code: Some(ErrorCode::NotOnScreen.into()),
            message: "gone".into(),
            attribution,
            file: "j.rhai".into(),
            line: Some(9),
            column: None,
        }
    }

    #[test]
    fn on_the_layout_marked_a_failure_is_expected_and_a_pass_fails() {
        let marked = [ExpectFail {
            layout: Layout::Redesign,
            reason: "dropped".into(),
            line: 2,
        }];
        let path = Path::new("j.rhai");
        let failed = outcome(Some(failure(FailureKind::Tool, Attribution::Journey)));
        let judged = judge(failed.clone(), &marked, Layout::Redesign, path);
        assert!(judged.failure.is_none());
        let expected = judged.expected_failure.expect("an expected failure");
        assert_eq!(
            (expected.layout.as_str(), expected.reason.as_str()),
            ("redesign", "dropped")
        );
        assert_eq!(expected.failure.line, Some(9));

        let passed = judge(outcome(None), &marked, Layout::Redesign, path);
        let stale = passed.failure.expect("a pass fails");
        assert_eq!(stale.code, Some(FailureCode::UnexpectedPass));
        assert_eq!(stale.line, Some(2));
        assert!(
            stale
                .to_string()
                .starts_with("unexpected_pass: passed, but is marked"),
            "{stale}"
        );

        // Elsewhere the mark changes nothing.
        let classic = judge(failed.clone(), &marked, Layout::Classic, path);
        assert!(classic.failure.is_some() && classic.expected_failure.is_none());
        assert!(
            judge(outcome(None), &marked, Layout::Classic, path)
                .failure
                .is_none()
        );
        assert!(judge(failed, &[], Layout::Redesign, path).failure.is_some());
    }

    #[test]
    fn a_broken_script_or_browser_is_never_the_failure_expected() {
        let marked = [ExpectFail {
            layout: Layout::Redesign,
            reason: "dropped".into(),
            line: 1,
        }];
        for f in [
            failure(FailureKind::Script, Attribution::Journey),
            failure(FailureKind::Tool, Attribution::Environment),
        ] {
            let judged = judge(
                outcome(Some(f)),
                &marked,
                Layout::Redesign,
                Path::new("j.rhai"),
            );
            assert!(judged.failure.is_some() && judged.expected_failure.is_none());
        }
    }
}
