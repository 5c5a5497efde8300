//! The demo app's two layouts from the command line: journeys marked `expect-fail` on a
//! layout (an expected failure does not fail the run, an unexpected pass does), and the
//! shipped journeys run on the redesign.

use std::path::PathBuf;

use crate::cli::{journey, run_journey, waymark};

/// Fails on either layout: the claim list has ten claims, not 99.
const FAILS: &str = "navigate(\"/claims\");\nlet s = read_screen();\n\
                     expect(s.controls.len() == 99, \"99 controls\");\n";

#[test]
fn a_failure_on_the_layout_a_mark_names_is_expected_and_passes_the_run() {
    let source = format!(
        "// Counts claims.\n// waymark: expect-fail layout=redesign the count is wrong\n{FAILS}"
    );
    let dir = journey("count.rhai", &source);
    run_journey(dir.path(), "count.rhai", &["--layout", "redesign"])
        .exits(0)
        .says("⊘ count")
        .says("expected failure on the `redesign` layout: the count is wrong")
        .says("expectation failed: 99 controls at count.rhai:5")
        .says("0 passed, 0 failed, 1 expected to fail");
    // On another layout the mark changes nothing.
    run_journey(dir.path(), "count.rhai", &[])
        .exits(1)
        .says("✗ count")
        .says("0 passed, 1 failed");
}

#[test]
fn a_pass_on_the_layout_a_mark_names_fails_the_run_at_the_mark() {
    let dir = journey(
        "list.rhai",
        "// waymark: expect-fail layout=classic the list is empty\nnavigate(\"/claims\");\n",
    );
    let run = run_journey(dir.path(), "list.rhai", &[]);
    run.exits(1)
        .says("unexpected pass")
        .says("unexpected_pass: passed, but is marked to fail on the `classic` layout (the list is empty)")
        .says("list.rhai:1")
        .says("0 passed, 1 failed");
    let first = run
        .stdout
        .lines()
        .find(|l| l.contains("list"))
        .unwrap_or_default();
    assert!(
        first.starts_with("✗ list") && first.ends_with("unexpected pass"),
        "{first}"
    );
}

#[test]
fn a_mark_that_does_not_parse_is_bad_input() {
    let dir = journey(
        "typo.rhai",
        "// waymark: expect-fail layout=redesing the list\nnavigate(\"/claims\");\n",
    );
    run_journey(dir.path(), "typo.rhai", &[])
        .exits(2)
        .says("`redesing` is not a layout (`classic`, `redesign`)")
        .says("typo.rhai:1");
}

#[test]
fn the_shipped_journeys_pass_on_the_redesign_but_the_one_marked_to_fail_there() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let run = waymark(&root, ["--layout", "redesign", "run", "--no-trace"], &[]);
    run.exits(0)
        .says("⊘ read_only_review")
        .says("expected failure on the `redesign` layout: the redesign drops \"Back to claims\" (claim.back)")
        // It waited for the control first, as every action does, and says so.
        .says("not_on_screen: after waiting ")
        .says("`claim.back` is not on /claims/1044")
        .says("✓ return_reason")
        .says("✓ error_codes")
        .says("7 passed, 0 failed, 1 expected to fail");
}
