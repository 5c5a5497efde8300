//! The allowed set and the trace: an action outside `allow([...])` is refused before it
//! touches the page and recorded as an `unauthorized_action`; every run writes a JSON-lines
//! trace per journey whose header names the environment, with one step line per call.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use waymark::screen::View;
use waymark::tools::{AllowedSet, Attribution, Condition, ErrorCode, ToolOptions};
use waymark::trace::{Trace, TraceHeader};

use crate::cli::{anchors, waymark};
use crate::harness::{block_on, control, failed, ok, open, probed_tools, shared, tools_with};

/// The lines of a trace file, parsed.
fn lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read the trace {}: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a JSON line ({e}): {l}")))
        .collect()
}

fn of_kind<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["kind"] == kind).collect()
}

fn header(journey: &str) -> TraceHeader {
    let shared = shared();
    TraceHeader::new(
        journey,
        Path::new("t.rhai"),
        shared.browser().version(),
        &ToolOptions::default(),
        None,
    )
}

#[test]
fn an_action_outside_the_allowed_set_is_refused_and_the_page_is_not_touched() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("refused.jsonl");
    let trace = Arc::new(Trace::create(&path, &header("refused")).expect("create the trace"));
    let (tools, probe) = probed_tools();
    let tools = tools.with_trace(Arc::clone(&trace));
    block_on(async {
        open(&tools, "/widgets").await;
        tools.allow(AllowedSet::parse(["read"]).expect("a valid set"));
        let rt = tools.invoke("widgets.counter", None).await;
        let error = failed(&rt, ErrorCode::NotAllowed);
        assert_eq!(error.attribution, Attribution::Gate);
        assert!(
            error.message.contains("`invoke`")
                && error.message.contains("class act")
                && error.message.contains("[read]"),
            "{}",
            error.message
        );
        assert!(rt.screen.is_none(), "a refused call reads nothing");
        assert_eq!(rt.route, "/widgets");
        assert_eq!(
            probe
                .text("[data-anchor='widgets.counter']")
                .await
                .as_deref(),
            Some("Clicked 0 times"),
            "the refused press never reached the page"
        );
        // Reads are still allowed; the counter is untouched in the tools' own read too.
        let screen = ok(&tools.read_screen().await).clone();
        assert_eq!(
            control(&screen, "widgets.counter", None).label,
            "Clicked 0 times"
        );
        // A refused read does not read either.
        tools.allow(AllowedSet::parse(["act"]).expect("a valid set"));
        let refused_read = tools.read_screen().await;
        failed(&refused_read, ErrorCode::NotAllowed);
        assert!(refused_read.screen.is_none());
        tools.close().await;
    });
    let lines = lines(&path);
    let events = of_kind(&lines, "event");
    let unauthorized: Vec<&&Value> = events
        .iter()
        .filter(|e| e["event"] == "unauthorized_action")
        .collect();
    assert_eq!(unauthorized.len(), 2, "{events:?}");
    assert_eq!(unauthorized[0]["action"]["verb"], "invoke");
    assert_eq!(unauthorized[0]["action"]["target"], "widgets.counter");
    assert_eq!(unauthorized[0]["action"]["class"], "act");
    assert_eq!(unauthorized[0]["allowed"], serde_json::json!(["read"]));
    let steps = of_kind(&lines, "step");
    assert_eq!(steps.len(), 4, "one step per call");
    let refused = steps
        .iter()
        .find(|s| s["n"] == unauthorized[0]["n"])
        .expect("the refused step");
    assert_eq!(refused["gates"][0]["gate"], "control");
    assert_eq!(refused["gates"][1]["gate"], "allowed");
    assert_eq!(refused["gates"][1]["passed"], false);
    assert_eq!(refused["raw"], Value::Null);
    assert_eq!(refused["result"]["error"]["code"], "not_allowed");
    assert_eq!(refused["result"]["error"]["attribution"], "gate");
}

#[test]
fn every_call_is_a_step_with_its_gates_and_both_read_layers() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("steps.jsonl");
    let trace = Arc::new(Trace::create(&path, &header("steps")).expect("create the trace"));
    let (tools, _) = tools_with(ToolOptions::default());
    let tools = tools.with_trace(trace);
    block_on(async {
        open(&tools, "/widgets").await;
        ok(&tools.invoke("widgets.counter", None).await);
        ok(&tools.read_screen().await);
        let region = View {
            region: Some("states".into()),
            ..View::default()
        };
        ok(&tools.read_screen_with(region).await);
        tools.close().await;
    });
    let lines = lines(&path);
    assert_eq!(lines[0]["kind"], "header");
    let steps = of_kind(&lines, "step");
    let verbs: Vec<&str> = steps
        .iter()
        .map(|s| s["action"]["verb"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(verbs, ["navigate", "invoke", "read", "read"]);
    assert_eq!(steps[0]["action"]["target"], "/widgets");
    assert_eq!(steps[1]["action"]["class"], "act");
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step["n"], i + 1);
        let gates: Vec<&str> = step["gates"]
            .as_array()
            .expect("gates")
            .iter()
            .map(|g| g["gate"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(
            gates,
            ["control", "allowed", "guardrail", "consent"],
            "{step}"
        );
        assert!(step["gates"][1]["passed"].as_bool().unwrap_or(false));
        assert!(step["raw"]["controls"].is_array(), "raw layer: {step}");
        assert_eq!(
            step["raw"]["url"].as_str().map(|u| u.ends_with("/widgets")),
            Some(true)
        );
        assert_eq!(step["inferred"]["route"], "/widgets");
        assert_eq!(step["result"]["ok"], true);
        assert!(
            step["result"].get("screen").is_none(),
            "the screen is `inferred`"
        );
        assert!(step["elapsed_ms"].is_number() && step["at_ms"].is_number());
    }
    assert_eq!(steps[1]["result"]["label"], "Clicked 0 times");
    // A region read is not held for deltas; its own raw layer is still its step's.
    let whole = steps[2]["raw"]["controls"].as_array().map(Vec::len);
    let region = steps[3]["raw"]["controls"].as_array().map(Vec::len);
    assert!(
        region < whole && region > Some(0),
        "{region:?} of {whole:?}"
    );
    assert_eq!(
        steps[3]["raw"]["controls"]
            .as_array()
            .map(|c| c.iter().all(|c| c["region"] == "states")),
        Some(true)
    );
}

/// Each step says where its time went, phase by phase, and the phases add up to the step:
/// the page's own answer (a timer 12 ms after the click) apart from waymark's quiet window
/// after it, a wait for a condition as a target's wait, a navigation as its load, and a
/// click's as well.
#[test]
fn each_step_says_where_its_time_went() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("timing.jsonl");
    let trace = Arc::new(Trace::create(&path, &header("timing")).expect("create the trace"));
    let (tools, _) = tools_with(ToolOptions::default());
    let quiet_ms = ToolOptions::default().quiet.as_secs_f64() * 1000.0;
    let tools = tools.with_trace(trace);
    block_on(async {
        open(&tools, "/widgets/later").await;
        ok(&tools.invoke("later.button", None).await);
        open(&tools, "/widgets/appear").await;
        ok(&tools.invoke("appear.arm", None).await);
        // A condition that never comes: the whole wait is the wait for it.
        let never = Condition {
            text: Some("Never shown".into()),
            timeout: Some(std::time::Duration::from_millis(150)),
            ..Condition::default()
        };
        failed(&tools.wait_for(&never).await, ErrorCode::Timeout);
        // A click that loads another document.
        open(&tools, "/claims").await;
        ok(&tools.invoke("claims.open", Some("1042")).await);
        tools.close().await;
    });
    let lines = lines(&path);
    let steps = of_kind(&lines, "step");
    let ms = |step: &Value, phase: &str| {
        step["timing"][format!("{phase}_ms")]
            .as_f64()
            .unwrap_or(0.0)
    };
    for step in &steps {
        let parts: f64 = [
            "gates", "setup", "target", "input", "page", "quiet", "load", "collect", "infer",
            "other",
        ]
        .iter()
        .map(|p| ms(step, p))
        .inspect(|ms| assert!(*ms >= 0.0, "{step}"))
        .sum();
        let elapsed = step["elapsed_ms"].as_f64().expect("elapsed_ms");
        assert!(
            (parts - elapsed).abs() < 1.0,
            "{parts} of {elapsed}: {step}"
        );
    }
    let [navigate, later, _, _, late, _, opened] = steps[..] else {
        panic!("seven steps: {steps:?}");
    };
    assert!(ms(navigate, "load") > 0.0, "{navigate}");
    assert!(
        ms(navigate, "setup") > 0.0,
        "the tab's first navigation: {navigate}"
    );
    // The page answered 12 ms after the click: its time, not waymark's. Part of those
    // 12 ms may pass before the click's input call returns (on a loaded machine the
    // press's acknowledgement comes late), and is the input's: together at least 12 ms,
    // never the quiet window's. (It asserted `page >= 5`: 3.1 ms with a 21.7 ms input
    // failed a CI run whose machine was busy.)
    assert!(ms(later, "page") > 0.0, "{later}");
    assert!(ms(later, "page") + ms(later, "input") >= 11.0, "{later}");
    assert!(ms(later, "quiet") >= quiet_ms - 1.0, "{later}");
    assert!(
        ms(later, "input") > 0.0 && ms(later, "target") > 0.0,
        "{later}"
    );
    // 150 ms waited for a condition: as a target is waited for.
    assert!(ms(late, "target") >= 140.0, "{late}");
    // The document the click loaded is read at its load, as `navigate` reads one, with the
    // read it sent then: no quiet window waited in it, no read asked of it.
    assert_eq!(opened["inferred"]["route"], "/claims/1042", "{opened}");
    assert!(ms(opened, "load") > 0.0, "{opened}");
    assert_eq!(ms(opened, "quiet"), 0.0, "{opened}");
    assert_eq!(ms(opened, "collect"), 0.0, "{opened}");
}

#[test]
fn a_large_raw_layer_is_stored_beside_the_trace() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("dense.jsonl");
    let trace = Arc::new(Trace::create(&path, &header("dense")).expect("create the trace"));
    let (tools, _) = tools_with(ToolOptions {
        max_controls: 20_000,
        ..ToolOptions::default()
    });
    let tools = tools.with_trace(trace);
    block_on(async {
        let screen = open(&tools, "/dense?n=10000").await;
        assert_eq!(screen.controls.len(), 10_000);
        tools.close().await;
    });
    let lines = lines(&path);
    let step = of_kind(&lines, "step")[0];
    let reference = step["raw"]["ref"]
        .as_str()
        .expect("the raw layer by reference");
    assert_eq!(reference, "dense.raw/1.json");
    let side = std::fs::read_to_string(dir.path().join(reference)).expect("the side file");
    assert_eq!(step["raw"]["bytes"].as_u64(), Some(side.len() as u64));
    assert!(side.len() > 256 * 1024, "{} bytes", side.len());
    let raw: Value = serde_json::from_str(&side).expect("the side file is JSON");
    assert_eq!(raw["controls"].as_array().map(Vec::len), Some(10_000));
    assert_eq!(
        step["inferred"]["controls"].as_array().map(Vec::len),
        Some(10_000),
        "the inferred layer stays inline"
    );
}

/// A temp dir holding one journey file.
fn journey(name: &str, source: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join(name), source).expect("write the journey");
    dir
}

#[test]
fn a_run_refused_by_the_allowed_set_fails_with_gate_and_a_trace_naming_the_browser() {
    let dir = journey(
        "read_only.rhai",
        "navigate(\"/claims/1042\");\nallow([\"read\"]);\nread_screen();\ninvoke(\"claim.approve\");\n",
    );
    let anchors = anchors();
    let run = waymark(
        dir.path(),
        [
            "--anchors",
            anchors.as_str(),
            "run",
            "--trace",
            "traces",
            "read_only.rhai",
        ],
        &[],
    );
    let path = dir.path().join("traces/read_only.jsonl");
    run.exits(1)
        .says("not_allowed")
        .says("read_only.rhai:4")
        .says("[gate]")
        .says(&format!(
            "trace: {}",
            Path::new("traces/read_only.jsonl").display()
        ));
    let lines = lines(&path);
    let header = &lines[0];
    assert_eq!(header["kind"], "header");
    let reported = shared().browser().version();
    let named = format!(
        "{}/{}",
        header["browser"]["product"].as_str().unwrap_or_default(),
        header["browser"]["version"].as_str().unwrap_or_default()
    );
    assert_eq!(named, reported, "the header names the browser's version");
    assert_eq!(header["journey"], "read_only");
    assert!(
        header["viewport"][0].as_f64().unwrap_or(0.0) > 0.0,
        "{header}"
    );
    assert!(
        header["device_scale"].as_f64().unwrap_or(0.0) > 0.0,
        "{header}"
    );
    assert_eq!(header["retry_budget"]["context_lost"], 1);
    let steps = of_kind(&lines, "step");
    assert_eq!(steps.len(), 3, "navigate, read, the refused invoke");
    assert!(
        lines.iter().any(
            |l| l["event"] == "unauthorized_action" && l["action"]["target"] == "claim.approve"
        ),
        "no unauthorized_action in {lines:?}"
    );
    let end = lines.last().expect("an end line");
    assert_eq!(end["kind"], "end");
    assert_eq!(end["outcome"], "failed");
    assert_eq!(end["failure"]["code"], "not_allowed");
    assert_eq!(end["failure"]["attribution"], "gate");
    assert_eq!(end["failure"]["line"], 4);
}

#[test]
fn an_unknown_class_in_allow_exits_2_naming_it() {
    let dir = journey(
        "typo.rhai",
        "navigate(\"/claims\");\nallow([\"read\", \"click\"]);\n",
    );
    let anchors = anchors();
    waymark(
        dir.path(),
        [
            "--anchors",
            anchors.as_str(),
            "run",
            "--no-trace",
            "typo.rhai",
        ],
        &[],
    )
    .exits(2)
    .says("`click` is not an action class")
    .says("read, navigate, act, type, pause, end")
    .says("typo.rhai:2");
    assert!(
        !dir.path().join("target/waymark").exists(),
        "`--no-trace` writes nothing"
    );
}

#[test]
fn traces_go_under_target_waymark_by_default() {
    let dir = journey(
        "passes.rhai",
        "allow([\"navigate\"]);\nnavigate(\"/claims\");\n",
    );
    let anchors = anchors();
    waymark(
        dir.path(),
        ["--anchors", anchors.as_str(), "run", "passes.rhai"],
        &[],
    )
    .exits(0);
    let lines = lines(&dir.path().join("target/waymark/traces/passes.jsonl"));
    assert!(
        lines
            .iter()
            .any(|l| l["event"] == "allowed_set" && l["allowed"] == serde_json::json!(["navigate"])),
        "{lines:?}"
    );
    let end = lines.last().expect("an end line");
    assert_eq!(end["outcome"], "passed");
    assert_eq!(end["failure"], Value::Null);
}
