//! Suites at scale: `--retries` and flaky journeys, `--shard I/N`, `--last-failed`, and the
//! JUnit and JSON reports (`--report`), through the binary against the embedded demo app
//! in real Chromium. The flaky journey is flaky for a real reason: its first attempt
//! approves a claim in the demo app (server-side state, kept for the whole run), which the
//! next attempt finds approved.

use std::path::Path;

use serde_json::Value;

use crate::cli::{Run, anchors, project, waymark};

/// Fails on its first attempt, which approves claim 1043; passes on the next, which finds
/// the claim approved (the app is the same for every attempt of a run).
const FLAKY: &str = r#"navigate("/claims/1043");
let approve = read_screen().controls.filter(|c| c.anchor == "claim.approve")[0];
if !approve.disabled {
    invoke("claim.approve");
    expect(false, "claim 1043 was still open: approved it");
}
"#;

const PASS: &str = "navigate(\"/claims\");\n";

const FAIL: &str = "navigate(\"/claims\");\nexpect(false, \"the list never shows 99 claims\");\n";

/// `waymark --anchors … run ARGS…` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Run {
    let anchors = anchors();
    let mut all = vec!["--anchors", anchors.as_str(), "run"];
    all.extend_from_slice(args);
    waymark(dir, all, &[])
}

fn last_line(run: &Run) -> &str {
    run.stdout.lines().last().map(str::trim).unwrap_or_default()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{} is JSON: {e}", path.display()))
}

/// The journey named `name` in a JSON report.
fn journey<'r>(report: &'r Value, name: &str) -> &'r Value {
    report["journeys"]
        .as_array()
        .and_then(|all| all.iter().find(|j| j["name"] == name))
        .unwrap_or_else(|| panic!("no journey `{name}` in {report:#}"))
}

/// The names of a JSON report's journeys, in its order.
fn names(report: &Value) -> Vec<String> {
    report["journeys"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|j| j["name"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The `<testcase name="NAME" …>…</testcase>` element of a JUnit report.
fn testcase(xml: &str, name: &str) -> String {
    let start = xml
        .find(&format!("<testcase name=\"{name}\""))
        .unwrap_or_else(|| panic!("no testcase `{name}` in {xml}"));
    let rest = &xml[start..];
    let end = rest
        .find("</testcase>")
        .map_or(rest.len(), |e| e + "</testcase>".len());
    rest[..end].to_string()
}

/// Checks `value` against the checked-in `report.schema.json`: the parts of JSON Schema
/// that schemars writes (`$ref`, `type`, `const`, `enum`, `properties`, `required`,
/// `items`, `anyOf`, `oneOf`, `minimum`).
fn assert_matches_the_report_schema(value: &Value) {
    let schema: Value = json(&Path::new(env!("CARGO_MANIFEST_DIR")).join("report.schema.json"));
    let mut problems = Vec::new();
    check(&schema, &schema, value, "$", &mut problems);
    assert!(
        problems.is_empty(),
        "the report does not match report.schema.json: {problems:#?}\n{value:#}"
    );
}

fn check(root: &Value, schema: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/$defs/");
        return check(root, &root["$defs"][name], value, at, problems);
    }
    let fits = |s: &Value| {
        let mut found = Vec::new();
        check(root, s, value, at, &mut found);
        found.is_empty()
    };
    if let Some(any) = schema["anyOf"].as_array()
        && !any.iter().any(fits)
    {
        problems.push(format!("{at}: matches none of anyOf"));
    }
    if let Some(one) = schema["oneOf"].as_array() {
        let n = one.iter().filter(|s| fits(s)).count();
        if n != 1 {
            problems.push(format!("{at}: matches {n} of oneOf"));
        }
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        problems.push(format!("{at}: {value} is not {constant}"));
    }
    if let Some(options) = schema["enum"].as_array()
        && !options.contains(value)
    {
        problems.push(format!("{at}: {value} is not one of {options:?}"));
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let is = |t: &str| match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|t| is(t)) {
        problems.push(format!("{at}: {value} is not {types:?}"));
        return;
    }
    if let (Some(min), Some(n)) = (schema["minimum"].as_f64(), value.as_f64())
        && n < min
    {
        problems.push(format!("{at}: {n} < {min}"));
    }
    if let Some(object) = value.as_object() {
        for required in schema["required"].as_array().into_iter().flatten() {
            let key = required.as_str().unwrap_or_default();
            if !object.contains_key(key) {
                problems.push(format!("{at}: lacks `{key}`"));
            }
        }
        if let Some(properties) = schema["properties"].as_object() {
            for (key, sub) in properties {
                if let Some(v) = object.get(key) {
                    check(root, sub, v, &format!("{at}.{key}"), problems);
                }
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, v) in array.iter().enumerate() {
            check(root, items, v, &format!("{at}[{i}]"), problems);
        }
    }
}

#[test]
fn the_schema_check_finds_a_report_that_breaks_it() {
    let mut bad = serde_json::json!({"version": 1, "waymark": "0", "started_at": "x",
        "duration_ms": 1.0, "shard": null, "retries": 0,
        "summary": {"passed": 0, "failed": 0, "flaky": 0, "skipped": 0, "expected": 0},
        "journeys": [{"name": "a", "path": "a.rhai", "status": "passed", "duration_ms": 1.0,
                      "attempts": []}]});
    assert_matches_the_report_schema(&bad);
    bad["journeys"][0]["status"] = "great".into();
    let schema: Value = json(&Path::new(env!("CARGO_MANIFEST_DIR")).join("report.schema.json"));
    let mut problems = Vec::new();
    check(&schema, &schema, &bad, "$", &mut problems);
    assert!(!problems.is_empty(), "an unknown status passed the schema");
}

#[test]
fn a_journey_that_fails_then_passes_is_flaky_in_its_line_the_summary_and_junit_and_exits_0() {
    let dir = project(&[("flaky.rhai", FLAKY), ("pass.rhai", PASS)]);
    let out = run(
        dir.path(),
        &[
            "--retries",
            "2",
            "--trace",
            "traces",
            "--report",
            "junit=out/junit.xml",
            "--report",
            "json=out/run.json",
        ],
    );
    out.exits(0)
        .says("attempt 1 of 3 failed, retrying")
        .says("flaky: passed on attempt 2 of 3")
        .says("claim 1043 was still open");
    assert!(out.stdout.contains("⚠ flaky"), "{}", out.all());
    assert!(out.stdout.contains("✓ pass"), "{}", out.all());
    assert_eq!(
        last_line(&out),
        "1 passed, 0 failed, 1 flaky",
        "{}",
        out.all()
    );

    // Each attempt has its own trace.
    let first = read(&dir.path().join("traces/flaky.jsonl"));
    let second = read(&dir.path().join("traces/flaky.attempt-2.jsonl"));
    assert!(
        first
            .lines()
            .last()
            .unwrap_or_default()
            .contains("\"outcome\":\"failed\""),
        "{first}"
    );
    assert!(
        second
            .lines()
            .last()
            .unwrap_or_default()
            .contains("\"outcome\":\"passed\""),
        "{second}"
    );

    let xml = read(&dir.path().join("out/junit.xml"));
    assert!(
        xml.contains(
            r#"<testsuite name="waymark run" tests="2" skipped="0" errors="0" failures="0""#
        ),
        "{xml}"
    );
    let flaky = testcase(&xml, "flaky");
    assert_eq!(flaky.matches("<flakyFailure").count(), 1, "{flaky}");
    assert!(
        !flaky.contains("<failure"),
        "a flaky journey passed: {flaky}"
    );
    assert!(flaky.contains(r#"type="expectation_failed""#), "{flaky}");
    assert!(flaky.contains("attribution: journey"), "{flaky}");
    assert!(flaky.contains("trace: traces/flaky.jsonl"), "{flaky}");
    assert!(flaky.contains(r#"classname="journeys""#), "{flaky}");
    assert!(!testcase(&xml, "pass").contains("Failure"), "{xml}");

    let report = json(&dir.path().join("out/run.json"));
    assert_matches_the_report_schema(&report);
    assert_eq!(names(&report), ["flaky", "pass"]);
    assert_eq!(report["summary"]["flaky"], 1);
    assert_eq!(report["retries"], 2);
    let flaky = journey(&report, "flaky");
    assert_eq!(flaky["status"], "flaky");
    assert_eq!(flaky["path"], "journeys/flaky.rhai");
    let attempts = flaky["attempts"].as_array().expect("attempts");
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["outcome"], "failed");
    assert_eq!(attempts[0]["error"]["code"], "expectation_failed");
    assert_eq!(attempts[0]["error"]["attribution"], "journey");
    assert_eq!(attempts[0]["error"]["line"], 5);
    assert_eq!(attempts[0]["trace"], "traces/flaky.jsonl");
    assert_eq!(attempts[1]["outcome"], "passed");
    assert_eq!(attempts[1]["trace"], "traces/flaky.attempt-2.jsonl");
    assert_eq!(journey(&report, "pass")["status"], "passed");
}

#[test]
fn a_journey_failing_every_attempt_has_rerun_failures_and_a_bad_script_is_never_retried() {
    let dir = project(&[("fail.rhai", FAIL), ("broken.rhai", "let x = ;\n")]);
    let out = run(
        dir.path(),
        &[
            "--retries",
            "1",
            "--no-trace",
            "--report",
            "junit=junit.xml",
            "--report",
            "json=run.json",
        ],
    );
    out.exits(2)
        .says("failed all 2 attempts")
        .says("attempt 2: the same failure");
    assert!(
        !out.stdout.contains("↻ broken"),
        "a syntax error is not retried: {}",
        out.all()
    );
    assert_eq!(last_line(&out), "0 passed, 2 failed", "{}", out.all());

    let xml = read(&dir.path().join("junit.xml"));
    let fail = testcase(&xml, "fail");
    assert_eq!(fail.matches("<failure ").count(), 1, "{fail}");
    assert_eq!(fail.matches("<rerunFailure").count(), 1, "{fail}");
    assert!(fail.contains("the list never shows 99 claims"), "{fail}");
    let broken = testcase(&xml, "broken");
    assert!(broken.contains(r#"type="syntax_error""#), "{broken}");
    assert!(!broken.contains("rerunFailure"), "{broken}");

    let report = json(&dir.path().join("run.json"));
    assert_matches_the_report_schema(&report);
    let fail = journey(&report, "fail");
    assert_eq!(fail["status"], "failed");
    assert_eq!(fail["attempts"].as_array().map(Vec::len), Some(2));
    assert_eq!(fail["attempts"][1]["trace"], Value::Null, "--no-trace");
    let broken = journey(&report, "broken");
    assert_eq!(broken["attempts"].as_array().map(Vec::len), Some(1));
    assert_eq!(broken["attempts"][0]["error"]["kind"], "syntax");
}

/// The names each of `--shard 1/2` and `--shard 2/2` ran, each in a fresh copy of the
/// project with `durations` (if any) as `.waymark/durations.json`: as two CI machines
/// would, from the same checkout and the same restored durations.
fn two_shards(durations: Option<&str>) -> [Vec<String>; 2] {
    let files: Vec<(String, &str)> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|n| (format!("{n}.rhai"), "navigate(\"/\");\n"))
        .collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    ["1/2", "2/2"].map(|shard| {
        let dir = project(&files);
        if let Some(durations) = durations {
            std::fs::create_dir_all(dir.path().join(".waymark")).expect("make .waymark");
            std::fs::write(dir.path().join(".waymark/durations.json"), durations)
                .expect("write the durations");
        }
        let out = run(
            dir.path(),
            &["--shard", shard, "--no-trace", "--report", "json=run.json"],
        );
        out.exits(0);
        let report = json(&dir.path().join("run.json"));
        assert_matches_the_report_schema(&report);
        let held = names(&report);
        out.says(&format!("shard {shard}: {} of 5 journeys", held.len()));
        assert_eq!(report["shard"]["of"], 5);
        assert_eq!(report["shard"]["journeys"], held.len());
        let recorded = json(&dir.path().join(format!(
            ".waymark/durations.shard-{}.json",
            shard.replace('/', "-of-")
        )));
        for name in &held {
            assert!(
                recorded[name].is_u64(),
                "{name} has no duration in {recorded}"
            );
        }
        if durations.is_some() {
            out.says("balanced by `.waymark/durations.json` (sha256 ");
            assert_eq!(report["shard"]["balance"], "durations");
        } else {
            out.says("dealt out in path order");
            assert_eq!(report["shard"]["balance"], "round-robin");
        }
        held
    })
}

/// Issue 49: `--shard 1/2` rewrote `.waymark/durations.json`, so `--shard 2/2` run after
/// it in the same folder split differently: two journeys ran twice, two never, and both
/// said "4 passed". Shards `1/3` … `3/3` one after another in one folder, with no
/// durations and with durations far from what the runs measure, run each journey once.
#[test]
fn shards_run_one_after_another_in_one_folder_run_each_journey_exactly_once() {
    let all = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let files: Vec<(String, &str)> = all.iter().map(|n| (format!("{n}.rhai"), PASS)).collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let prior = r#"{"a": 9000, "b": 7000, "c": 5000, "d": 3000, "e": 1000}"#;
    for durations in [None, Some(prior)] {
        let dir = project(&files);
        let state = dir.path().join(".waymark");
        let file = state.join("durations.json");
        let how = match durations {
            None => "dealt out in path order (no `.waymark/durations.json`)".to_string(),
            Some(text) => {
                std::fs::create_dir_all(&state).expect("make .waymark");
                std::fs::write(&file, text).expect("write the durations");
                let sha = waymark::suite::Sha256::of(text.as_bytes());
                format!(
                    "balanced by `.waymark/durations.json` (sha256 {})",
                    sha.short()
                )
            }
        };
        let mut ran = Vec::new();
        for shard in ["1/3", "2/3", "3/3"] {
            let out = run(
                dir.path(),
                &["--shard", shard, "--no-trace", "--report", "json=run.json"],
            );
            out.exits(0);
            let first = out.stdout.lines().next().unwrap_or_default();
            assert!(
                first.starts_with(&format!("shard {shard}: ")) && first.ends_with(&how),
                "the first line names the split's input: {first}"
            );
            let report = json(&dir.path().join("run.json"));
            let sha = durations.map(|text| waymark::suite::Sha256::of(text.as_bytes()).to_string());
            assert_eq!(report["shard"]["durations_sha256"], serde_json::json!(sha));
            ran.extend(names(&report));
            assert_eq!(
                std::fs::read_to_string(&file).ok().as_deref(),
                durations,
                "a shard never writes the file its split is made from"
            );
            let mine = format!("durations.shard-{}.json", shard.replace('/', "-of-"));
            assert!(state.join(mine).exists(), "{}", out.all());
        }
        ran.sort();
        assert_eq!(ran, all, "with durations {durations:?}");

        // Once the matrix is done, its durations are folded in for the next one.
        let merged = waymark(dir.path(), ["durations", "merge"], &[]);
        merged
            .exits(0)
            .says("merged 3 files into `.waymark/durations.json`: 8 journeys");
        let sha = waymark::suite::Sha256::of(read(&file).as_bytes());
        merged.says(&format!("(sha256 {})", sha.short()));
        let recorded = json(&file);
        assert!(all.iter().all(|n| recorded[n].is_u64()), "{recorded}");
        assert!(
            !read(&file).contains("9000"),
            "the shards' measures replace the old ones: {recorded}"
        );
        let left: Vec<_> = std::fs::read_dir(&state)
            .expect("read .waymark")
            .map(|e| e.expect("an entry").file_name())
            .filter(|n| n.to_string_lossy().starts_with("durations.shard-"))
            .collect();
        assert!(left.is_empty(), "the shards' files are removed: {left:?}");
        let next = run(dir.path(), &["--shard", "1/3", "--no-trace"]);
        next.exits(0).says(&format!(
            "balanced by `.waymark/durations.json` (sha256 {})",
            sha.short()
        ));
    }
}

/// `waymark durations merge` with nothing to merge, or a file that is not durations, is
/// bad input and writes nothing.
#[test]
fn durations_merge_without_shards_files_or_with_a_bad_file_exits_2() {
    let dir = project(&[]);
    waymark(dir.path(), ["durations", "merge"], &[])
        .exits(2)
        .says("no durations to merge: `.waymark` holds no `durations.shard-I-of-N.json`");
    std::fs::write(dir.path().join("bad.json"), "[1]").expect("write");
    waymark(dir.path(), ["durations", "merge", "bad.json"], &[])
        .exits(2)
        .says("`bad.json` is not a durations file");
    assert!(!dir.path().join(".waymark/durations.json").exists());
}

fn each_exactly_once(shards: &[Vec<String>; 2]) {
    let mut all: Vec<&String> = shards.iter().flatten().collect();
    all.sort();
    assert_eq!(all, ["a", "b", "c", "d", "e"], "{shards:?}");
}

#[test]
fn shards_one_and_two_of_two_run_each_journey_exactly_once_dealt_in_path_order() {
    let shards = two_shards(None);
    each_exactly_once(&shards);
    assert_eq!(shards, [vec!["a", "c", "e"], vec!["b", "d"]]);
}

#[test]
fn shards_one_and_two_of_two_run_each_journey_exactly_once_balanced_by_durations() {
    let shards = two_shards(Some(
        r#"{"a": 5000, "b": 4000, "c": 3000, "d": 1000, "e": 1000}"#,
    ));
    each_exactly_once(&shards);
    // Longest first onto the least-loaded shard: a→1, b→2, c→2, d→1, e→1 (7 s each).
    assert_eq!(shards, [vec!["a", "d", "e"], vec!["b", "c"]]);
}

#[test]
fn bad_shard_and_report_values_exit_2_naming_the_value() {
    let dir = project(&[("pass.rhai", PASS)]);
    for bad in ["0/2", "3/2", "1/0", "two", "1-2", "/2"] {
        run(dir.path(), &["--shard", bad])
            .exits(2)
            .says(&format!("`{bad}`"));
    }
    run(dir.path(), &["--shard", "3/2"]).says("between 1 and 2");
    run(dir.path(), &["--report", "xml=out.xml"])
        .exits(2)
        .says("`xml=out.xml`")
        .says("junit, json");
    std::fs::write(dir.path().join("blocker"), "a file, not a folder").expect("write");
    let out = run(dir.path(), &["--report", "junit=blocker/sub/junit.xml"]);
    out.exits(2)
        .says("cannot create the folder of the report `blocker/sub/junit.xml`");
    assert!(
        !out.stdout.contains("running"),
        "nothing ran: {}",
        out.all()
    );
}

#[test]
fn last_failed_reruns_what_failed_and_without_a_record_or_a_failure_runs_everything() {
    let dir = project(&[("fail.rhai", FAIL), ("pass.rhai", PASS)]);
    let first = run(dir.path(), &["--last-failed", "--no-trace"]);
    first
        .exits(1)
        .says("--last-failed: no record of a last run in `.waymark/last-run.json`: running all 2 journeys");
    assert_eq!(last_line(&first), "1 passed, 1 failed");
    let record = json(&dir.path().join(".waymark/last-run.json"));
    assert_eq!(record["journeys"]["fail"], "failed");
    assert_eq!(record["journeys"]["pass"], "passed");

    let second = run(
        dir.path(),
        &["--last-failed", "--no-trace", "--report", "json=run.json"],
    );
    second
        .exits(1)
        .says("running the 1 journey that failed or were flaky in the last run; 1 skipped");
    assert!(!second.stdout.contains("✓ pass"), "{}", second.all());
    assert_eq!(last_line(&second), "0 passed, 1 failed, 1 skipped");
    let report = json(&dir.path().join("run.json"));
    assert_matches_the_report_schema(&report);
    assert_eq!(journey(&report, "pass")["status"], "skipped");
    assert_eq!(journey(&report, "pass")["attempts"], serde_json::json!([]));

    // Fixed: it passes, and the record keeps `pass` as it was.
    std::fs::write(dir.path().join("journeys/fail.rhai"), PASS).expect("fix the journey");
    let third = run(dir.path(), &["--last-failed", "--no-trace"]);
    third.exits(0);
    assert_eq!(last_line(&third), "1 passed, 0 failed, 1 skipped");

    let fourth = run(dir.path(), &["--last-failed", "--no-trace"]);
    fourth
        .exits(0)
        .says("--last-failed: nothing failed in the last run: running all 2 journeys");
    assert_eq!(last_line(&fourth), "2 passed, 0 failed");
}

/// The HTML report shows the failing step: read back with waymark itself, from the page
/// served on 127.0.0.1, the failure and the step are there with their words.
#[test]
fn the_html_report_shows_the_failing_step_to_a_reader() {
    let broken = "navigate(\"/claims\");\ninvoke(\"claims.open\", \"9999\");\n";
    let dir = project(&[("pass.rhai", PASS), ("broken.rhai", broken)]);
    let out = dir.path().join("out/html");
    let report = format!("html={}", out.display());
    run(dir.path(), &["--report", &report]).exits(1);
    let page = read(&out.join("index.html"));
    // Self-contained: its one script inline, nothing fetched.
    assert_eq!(page.matches("<script").count(), 1, "one inline script");
    assert!(
        !page.contains("<script src") && !page.contains("<link") && !page.contains("src=\"http"),
        "the report fetches nothing"
    );
    // Serve the folder and read it as any page.
    let base = crate::harness::block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("an address");
        let app = axum::Router::new().route(
            "/index.html",
            axum::routing::get(move || async move { axum::response::Html(page) }),
        );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}")
    });
    let empty = tempfile::tempdir().expect("a temp dir");
    let read = waymark(
        empty.path(),
        ["read", "/index.html", "--json", "--base-url", base.as_str()],
        &[],
    );
    read.exits(0);
    let screen: Value = serde_json::from_str(&read.stdout).expect("the read is JSON");
    let control = |anchor: &str, key: &str| {
        screen["controls"]
            .as_array()
            .expect("controls")
            .iter()
            .find(|c| {
                c["anchor"] == anchor && (c["key"] == key || (key.is_empty() && c["key"].is_null()))
            })
            .unwrap_or_else(|| panic!("no {anchor}[{key}] in {:#}", screen["controls"]))
            .clone()
    };
    let failure = control("report.failure", "broken");
    let text = failure["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("not_on_screen") && text.contains("9999"),
        "{text}"
    );
    let step = control("report.step", "broken #2");
    assert!(
        step["value"]
            .as_str()
            .unwrap_or_default()
            .contains("invoke"),
        "{step:#}"
    );
    assert_eq!(control("report.summary", "")["value"], "1 passed, 1 failed");
    // By default (`--screenshots failure`) the screen the journey failed on is kept beside
    // its trace and shown; a journey that passed has none.
    assert_eq!(control("report.screenshot", "broken")["role"], "img");
    assert!(
        !screen["controls"]
            .as_array()
            .expect("controls")
            .iter()
            .any(|c| c["anchor"] == "report.screenshot" && c["key"] == "pass"),
        "a passing journey has no screenshot"
    );
}

/// `--screenshots on` keeps the screen after each acting step, beside the trace (a PNG the
/// step names), and shows it in the HTML report; never of a page showing a secret field
/// holding a value (the steps after a password is typed, and the failure there, have none);
/// `off` keeps none.
#[test]
fn screenshots_follow_acting_steps_and_never_show_a_typed_secret() {
    let journey = "navigate(\"/login\");\nfill(\"login.username\", \"ada\");\n\
        fill(\"login.password\", \"PLANTED-pw-4b1e\");\nread_screen();\n\
        expect(false, \"stops here\");\n";
    let dir = project(&[("login.rhai", journey)]);
    let out = dir.path().join("out/html");
    let traces = dir.path().join("traces");
    let report = format!("html={}", out.display());
    let trace_arg = traces.display().to_string();
    run(
        dir.path(),
        &[
            "--screenshots",
            "on",
            "--trace",
            &trace_arg,
            "--report",
            &report,
        ],
    )
    .exits(1);
    let trace = read(&traces.join("login.jsonl"));
    let steps: Vec<Value> = trace
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["kind"] == "step" || v["kind"] == "end")
        .collect();
    let shot = |v: &Value| v["screenshot"].as_str().map(str::to_string);
    // navigate and the username's fill: kept; the password's fill, the read and the end:
    // a secret field holds a value, so none.
    let kept: Vec<Option<String>> = steps.iter().map(shot).collect();
    assert_eq!(
        kept,
        [
            Some("login.raw/1.png".to_string()),
            Some("login.raw/2.png".to_string()),
            None,
            None,
            None
        ],
        "{trace}"
    );
    for file in ["login.raw/1.png", "login.raw/2.png"] {
        let png = std::fs::read(traces.join(file)).expect("the screenshot");
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{file} is a PNG");
    }
    let page = read(&out.join("index.html"));
    assert_eq!(page.matches("data-anchor=\"report.screenshot\"").count(), 2);
    assert!(page.contains("data-anchor-key=\"login #1\""));

    // `off`: none at all, not even of the failure.
    let dir = project(&[(
        "broken.rhai",
        "navigate(\"/claims\");\nexpect(false, \"no\");\n",
    )]);
    let traces = dir.path().join("traces");
    let trace_arg = traces.display().to_string();
    run(dir.path(), &["--screenshots", "off", "--trace", &trace_arg]).exits(1);
    assert!(!read(&traces.join("broken.jsonl")).contains("screenshot"));
    assert!(!traces.join("broken.raw").exists());
}

/// `--jobs 2` runs the same journeys to the same results, printed in the same order, as
/// `--jobs 1`.
#[test]
fn two_jobs_give_the_same_results_in_the_same_order_as_one() {
    let other = "navigate(\"/orders\");\nlet s = read_screen();\nexpect(s.screen == \"orders-list\", s.screen);\n";
    let files = [
        ("a_pass.rhai", PASS),
        ("b_fail.rhai", FAIL),
        ("c_other.rhai", other),
        ("d_pass.rhai", PASS),
    ];
    let lines = |jobs: &str| -> (Vec<String>, Value) {
        let dir = project(&files);
        let report = dir.path().join("run.json");
        let report_arg = format!("json={}", report.display());
        let run = run(dir.path(), &["--jobs", jobs, "--report", &report_arg]);
        run.exits(1);
        // Each journey's line without its duration.
        let marks = run
            .stdout
            .lines()
            .filter(|l| l.starts_with(['✓', '✗']))
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .collect();
        let report = json(&report);
        (marks, report["summary"].clone())
    };
    let (one, one_summary) = lines("1");
    let (two, two_summary) = lines("2");
    assert_eq!(
        one,
        ["✓ a_pass", "✗ b_fail", "✓ c_other", "✓ d_pass"],
        "--jobs 1"
    );
    assert_eq!(two, one, "--jobs 2");
    assert_eq!(two_summary, one_summary);
}

/// Each worker's browser is closed and its profile directory removed when the run ends:
/// nothing of a run is left in the temporary directory.
#[test]
fn a_run_leaves_no_browser_profile_behind() {
    let dir = project(&[("a.rhai", PASS), ("b.rhai", FAIL)]);
    let tmp = tempfile::tempdir().expect("a temp dir");
    let anchors = anchors();
    waymark(
        dir.path(),
        ["--anchors", anchors.as_str(), "run", "--jobs", "2"],
        &[("TMPDIR", tmp.path().as_os_str())],
    )
    .exits(1);
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("the temp dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("waymark-profile-"))
        .collect();
    assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
}

/// `bench --suite` runs the journeys with one job and with `--jobs`, three rounds of each,
/// and says what each rate (and their medians) and a fresh tab were, and what waiting for a
/// target costs.
#[test]
fn bench_suite_reports_both_rates_and_a_fresh_tab() {
    let dir = project(&[("a.rhai", PASS), ("b.rhai", PASS), ("c.rhai", PASS)]);
    let anchors = anchors();
    let run = waymark(
        dir.path(),
        [
            "--anchors",
            anchors.as_str(),
            "bench",
            "--suite",
            "--jobs",
            "2",
        ],
        &[],
    );
    run.exits(0)
        .says("--jobs 1: 3 journeys in ")
        .says("--jobs 2: 3 journeys in ")
        .says("(round 3 of 3)")
        .says("journeys/s, medians of 3")
        .says("throughput: ")
        .says("the median of 3 rounds")
        .says("a fresh tab: ")
        .says("an invoke of a control already there: ")
        .says("medians of 20")
        .says("a control appearing 100 ms after the action before: pressed ")
        .says("median of 10");
    assert!(!run.all().contains("error:"), "{}", run.all());
    // Each run's journeys passed, the first in the tab its worker had opened before the
    // clock started.
    assert!(!run.stdout.contains("failed)"), "{}", run.stdout);
}
