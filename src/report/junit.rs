//! `--report junit=PATH`: the run as JUnit XML through quick-junit, the way cargo-nextest
//! writes it, so CI systems that read nextest's reports read these the same. One testsuite
//! for the run; a testcase per journey. A flaky journey is a passing testcase with a
//! `flakyFailure` per failed attempt; one that failed every attempt carries its first
//! failure as `failure` and each later attempt as `rerunFailure`; one `--last-failed` left
//! out is `skipped`.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestRerun, TestSuite};

use super::{attribution_of, code_of, timestamp};
use crate::suite::{Attempt, JourneyRun, Status, SuiteRun};

/// The JUnit report of `run`.
pub fn junit_report(run: &SuiteRun) -> Report {
    let name = match &run.shard {
        Some(info) => format!("waymark run (shard {})", info.shard),
        None => "waymark run".to_string(),
    };
    let mut suite = TestSuite::new(name.as_str());
    suite
        .set_timestamp(timestamp(run.started))
        .set_time(run.elapsed);
    suite.add_property(("retries", run.retries.to_string().as_str()));
    if let Some(info) = &run.shard {
        suite.add_property(("shard", info.shard.to_string().as_str()));
    }
    suite.add_test_cases(run.journeys.iter().map(test_case));
    let mut report = Report::new("waymark");
    report
        .set_timestamp(timestamp(run.started))
        .set_time(run.elapsed)
        .add_test_suite(suite);
    report
}

/// A journey's folder under the journeys root, else `journeys`.
fn classname(name: &str) -> &str {
    match name.rsplit_once('/') {
        Some((folder, _)) if !folder.is_empty() => folder,
        _ => "journeys",
    }
}

fn test_case(journey: &JourneyRun) -> TestCase {
    let attempts = &journey.attempts;
    let (status, main) = match journey.status() {
        Status::Skipped => {
            let mut status = TestCaseStatus::skipped();
            status.set_message("not run: it passed in the last run (--last-failed)");
            (status, None)
        }
        Status::Passed => (TestCaseStatus::success(), attempts.last()),
        // As pytest writes an xfail: skipped, with the mark's reason.
        Status::Expected => {
            let mut status = TestCaseStatus::skipped();
            let why = attempts
                .last()
                .and_then(|a| a.outcome.expected_failure.as_ref())
                .map(|x| {
                    format!(
                        "expected failure on the `{}` layout: {}",
                        x.layout, x.reason
                    )
                })
                .unwrap_or_else(|| "expected failure".into());
            status.set_message(why);
            (status, attempts.last())
        }
        Status::Flaky => {
            let mut status = TestCaseStatus::success();
            let (last, earlier) = attempts
                .split_last()
                .map_or((None, &[][..]), |(l, e)| (Some(l), e));
            status.add_reruns(earlier.iter().map(rerun));
            (status, last)
        }
        Status::Failed => {
            let (first, later) = attempts
                .split_first()
                .map_or((None, &[][..]), |(f, l)| (Some(f), l));
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            if let Some(first) = first
                && let Some(f) = &first.outcome.failure
            {
                status
                    .set_type(code_of(f))
                    .set_message(f.message.as_str())
                    .set_description(description(first));
            }
            status.add_reruns(later.iter().map(rerun));
            (status, first)
        }
    };
    let mut case = TestCase::new(journey.id.name.as_str(), status);
    case.set_classname(classname(&journey.id.name));
    case.add_property(("path", journey.id.path.display().to_string().as_str()));
    if let Some(main) = main {
        case.set_timestamp(timestamp(main.started))
            .set_time(main.outcome.elapsed);
        if !main.outcome.output.is_empty() {
            case.set_system_out(main.outcome.output.join("\n"));
        }
        if let Some(trace) = &main.trace {
            case.add_property(("trace", trace.display().to_string().as_str()));
        }
    }
    case
}

/// A failed attempt other than the one the testcase stands for.
fn rerun(attempt: &Attempt) -> TestRerun {
    let mut rerun = TestRerun::new(NonSuccessKind::Failure);
    rerun
        .set_timestamp(timestamp(attempt.started))
        .set_time(attempt.outcome.elapsed);
    if let Some(f) = &attempt.outcome.failure {
        rerun
            .set_type(code_of(f))
            .set_message(f.message.as_str())
            .set_description(description(attempt));
    }
    if !attempt.outcome.output.is_empty() {
        rerun.set_system_out(attempt.outcome.output.join("\n"));
    }
    rerun
}

/// The failure as the console says it, with its attribution and trace file.
fn description(attempt: &Attempt) -> String {
    let Some(f) = &attempt.outcome.failure else {
        return String::new();
    };
    let mut text = format!("{f}\nattribution: {}", attribution_of(f));
    if let Some(trace) = &attempt.trace {
        text.push_str(&format!("\ntrace: {}", trace.display()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    fn xml() -> String {
        junit_report(&fixture::run()).to_string().unwrap()
    }

    /// The element `<testcase name="NAME" …>…</testcase>` (or self-closed).
    fn case(xml: &str, name: &str) -> String {
        let start = xml
            .find(&format!("<testcase name=\"{name}\""))
            .unwrap_or_else(|| panic!("no testcase {name} in {xml}"));
        let rest = &xml[start..];
        let end = rest
            .find("</testcase>")
            .map(|e| e + "</testcase>".len())
            .unwrap_or(rest.find("/>").unwrap() + 2);
        rest[..end].to_string()
    }

    #[test]
    fn one_suite_with_a_case_per_journey_counted_as_ci_reads_them() {
        let xml = xml();
        assert_eq!(xml.matches("<testsuite ").count(), 1, "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), 5, "{xml}");
        assert!(
            xml.contains(
                r#"<testsuite name="waymark run" tests="5" skipped="1" errors="0" failures="2""#
            ),
            "{xml}"
        );
        assert!(case(&xml, "ok").contains(r#"classname="journeys""#));
        assert!(case(&xml, "ok").contains(r#"time="0.100""#), "{xml}");
        assert!(case(&xml, "sub/flaky").contains(r#"classname="sub""#));
    }

    #[test]
    fn a_flaky_journey_passes_with_a_flaky_failure_per_failed_attempt() {
        let flaky = case(&xml(), "sub/flaky");
        assert_eq!(flaky.matches("<flakyFailure").count(), 1, "{flaky}");
        assert!(!flaky.contains("<failure"), "{flaky}");
        assert!(flaky.contains(r#"type="expectation_failed""#), "{flaky}");
        assert!(
            flaky.contains(r#"message="the claim is still open""#),
            "{flaky}"
        );
        assert!(flaky.contains("attribution: journey"), "{flaky}");
        assert!(flaky.contains("trace: traces/sub/flaky.jsonl"), "{flaky}");
        assert!(
            flaky.contains(r#"time="0.150""#),
            "the passing attempt's: {flaky}"
        );
    }

    #[test]
    fn a_journey_failing_every_attempt_has_its_failure_and_a_rerun_failure_each() {
        let xml = xml();
        let broken = case(&xml, "broken");
        assert_eq!(broken.matches("<failure ").count(), 1, "{broken}");
        assert_eq!(broken.matches("<rerunFailure").count(), 1, "{broken}");
        assert!(broken.contains("journeys/broken.rhai:4:1"), "{broken}");
        let bad = case(&xml, "bad");
        assert!(bad.contains(r#"type="syntax_error""#), "{bad}");
        assert!(!bad.contains("rerunFailure"), "{bad}");
        let later = case(&xml, "later");
        assert!(later.contains("<skipped"), "{later}");
    }
}
