//! `snapshot(name)` in journeys: insta's files and rules — a changed screen fails with a
//! diff and a `.snap.new`, `--update-snapshots` accepts, CI accepts nothing, redactions
//! keep volatile values from churning, unreferenced snapshots are reported, and a secret
//! never reaches a file.

use std::ffi::OsStr;
use std::path::Path;

use crate::cli::{Run, anchors, waymark};

/// A project folder: `journeys/<name>.rhai` with `source`, run from its root.
fn project(name: &str, source: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir(dir.path().join("journeys")).expect("journeys/");
    write_journey(dir.path(), name, source);
    dir
}

fn write_journey(root: &Path, name: &str, source: &str) {
    std::fs::write(root.join("journeys").join(format!("{name}.rhai")), source)
        .expect("write the journey");
}

fn run(root: &Path, extra: &[&str], env: &[(&str, &OsStr)]) -> Run {
    let anchors = anchors();
    let mut args = vec!["--anchors", anchors.as_str(), "run"];
    args.extend_from_slice(extra);
    waymark(root, args, env)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

const COUNTER: &str = r#"navigate("/widgets");
invoke("widgets.counter");
snapshot("counter", #{region: "states"});
"#;

#[test]
fn a_new_snapshot_fails_and_waits_for_review_in_a_snap_new() {
    let dir = project("count", COUNTER);
    let root = dir.path();
    run(root, &[], &[])
        .exits(1)
        .says("snapshot `counter` is new")
        .says("cargo insta review");
    let pending = root.join("snapshots/count__counter.snap.new");
    let text = read(&pending);
    assert!(
        text.starts_with(
            "---\nsource: journeys/count.rhai\nexpression: snapshot(\"counter\")\n---\n"
        ),
        "{text}"
    );
    assert!(text.contains("label: Clicked 1 times"), "{text}");
    assert!(!root.join("snapshots/count__counter.snap").exists());
}

#[test]
fn a_changed_screen_fails_with_its_diff_by_control_then_update_snapshots_accepts_it() {
    let dir = project("count", COUNTER);
    let root = dir.path();
    run(root, &["--update-snapshots"], &[]).exits(0);
    let accepted = root.join("snapshots/count__counter.snap");
    assert!(read(&accepted).contains("label: Clicked 1 times"));
    run(root, &[], &[]).exits(0);

    // The screen changes: two clicks instead of one.
    write_journey(
        root,
        "count",
        &COUNTER.replace(
            "invoke(\"widgets.counter\");",
            "invoke(\"widgets.counter\");\ninvoke(\"widgets.counter\");",
        ),
    );
    run(root, &[], &[])
        .exits(1)
        .says("snapshot `counter` does not match")
        // Said by control: the one field that changed, not the screen's 60 lines.
        .says("0 controls added, 0 controls removed, 1 part changed")
        .says("~ widgets.counter label: \"Clicked 1 times\" → \"Clicked 2 times\"");
    let pending = root.join("snapshots/count__counter.snap.new");
    assert!(read(&pending).contains("label: Clicked 2 times"));
    assert!(
        read(&accepted).contains("label: Clicked 1 times"),
        "review first"
    );

    run(root, &["--update-snapshots"], &[]).exits(0);
    assert!(read(&accepted).contains("label: Clicked 2 times"));
    assert!(!pending.exists(), "accepting removes the pending review");
}

#[test]
fn in_ci_nothing_is_written_or_accepted() {
    let dir = project("count", COUNTER);
    let root = dir.path();
    run(root, &[], &[("CI", OsStr::new("true"))])
        .exits(1)
        .says("nothing written");
    assert!(!root.join("snapshots/count__counter.snap").exists());
    assert!(!root.join("snapshots/count__counter.snap.new").exists());
}

#[test]
fn insta_update_always_accepts_like_the_flag() {
    let dir = project("count", COUNTER);
    let root = dir.path();
    run(root, &[], &[("INSTA_UPDATE", OsStr::new("always"))]).exits(0);
    assert!(root.join("snapshots/count__counter.snap").exists());
}

#[test]
fn a_redacted_field_does_not_churn() {
    let journey = |text: &str| {
        format!(
            r#"navigate("/widgets");
fill("widgets.placeholder", "{text}");
snapshot("typed", #{{region: "labels", redact: ["widgets.placeholder", "widgets.mirror"]}});
"#
        )
    };
    let dir = project("typed", &journey("first run at 10:41"));
    let root = dir.path();
    run(root, &["--update-snapshots"], &[]).exits(0);
    let accepted = read(&root.join("snapshots/typed__typed.snap"));
    assert!(accepted.contains("value: '[redacted]'"), "{accepted}");
    assert!(!accepted.contains("10:41"), "{accepted}");

    write_journey(root, "typed", &journey("second run at 17:02"));
    run(root, &[], &[]).exits(0);
    assert_eq!(read(&root.join("snapshots/typed__typed.snap")), accepted);
}

#[test]
fn a_bad_redaction_is_a_clear_error() {
    let dir = project(
        "bad",
        r#"navigate("/widgets");
snapshot("x", #{redact: ["@colour"]});
"#,
    );
    run(dir.path(), &[], &[])
        .exits(1)
        .says("`@colour` is not a redaction")
        .says("bad.rhai:2");
}

#[test]
fn unreferenced_snapshots_are_reported_after_a_full_run() {
    let dir = project("count", COUNTER);
    let root = dir.path();
    run(root, &["--update-snapshots"], &[]).exits(0);
    let stale = root.join("snapshots/gone__old.snap");
    std::fs::write(
        &stale,
        "---\nsource: journeys/gone.rhai\nexpression: x\n---\nroute: /\n",
    )
    .expect("write a stale snapshot");

    run(root, &["--unreferenced-snapshots=warn"], &[])
        .exits(0)
        .says("unreferenced snapshot: snapshots/gone__old.snap");
    run(root, &["--unreferenced-snapshots=reject"], &[])
        .exits(1)
        .says("snapshots/gone__old.snap");
    assert!(stale.exists());
    run(root, &["--unreferenced-snapshots=delete"], &[]).exits(0);
    assert!(!stale.exists());
    assert!(root.join("snapshots/count__counter.snap").exists());
}

#[test]
fn a_password_value_never_reaches_a_snapshot() {
    let dir = project(
        "secret",
        r#"navigate("/widgets");
fill("widgets.secret", "s3cr3t-typed-value");
snapshot("secret", #{region: "states"});
navigate("/login");
fill("login.password", "another-s3cr3t");
snapshot("login");
"#,
    );
    let root = dir.path();
    run(root, &["--update-snapshots"], &[]).exits(0);
    for name in ["secret__secret.snap", "secret__login.snap"] {
        let text = read(&root.join("snapshots").join(name));
        for secret in ["hunter2", "s3cr3t-typed-value", "another-s3cr3t"] {
            assert!(!text.contains(secret), "{secret} in {name}:\n{text}");
        }
        assert!(text.contains("[redacted]"), "{name}:\n{text}");
    }
}
