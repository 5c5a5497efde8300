//! The JSON shapes waymark writes (a screen read, round trips, a trace's lines), pinned by
//! insta snapshots: every value is built through the public API from fixed inputs, so a
//! renamed field or a changed enum spelling fails here before it reaches a reader.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use waymark::journey::{Failure, FailureKind};
use waymark::registry::Registry;
use waymark::screen::{
    Chrome, Evidence, Facts, InferredState, JsDialog, RawControl, RawNode, RawObservation, TextRun,
    View, infer,
};
use waymark::tools::{
    Action, AllowedSet, Attribution, Changes, ErrorCode, GateContext, RoundTrip, TabOpened,
    ToolError, ToolOptions, Verb, pass_gates,
};
use waymark::trace::{Trace, TraceHeader};

use crate::harness::{block_on, open, tools_with};

/// One anchored control as the collector reads it, laid out down the page.
fn control(anchor: &str, label: &str, role: &str, region: &str, y: i64) -> RawControl {
    RawControl {
        facts: Facts {
            anchor: anchor.into(),
            key: None,
            label: label.into(),
            role: role.into(),
            disabled: false,
            editable: false,
            value: None,
            checked: None,
            region: region.into(),
            visible: true,
        },
        secret: false,
        focused: false,
        bbox: [10, y, 120, 24],
        view: None,
    }
}

/// A read of a claim form: a focused field with a key and a value, a checked box, a
/// disabled button, a link below the fold, and two controls past the collection cap.
fn observation() -> RawObservation {
    let mut field = control("claim.note", "Note", "textbox", "claim", 40);
    field.key = Some("1042".into());
    field.value = Some("Needs a receipt".into());
    field.editable = true;
    field.focused = true;
    let mut secret = control("claim.pin", "PIN", "textbox", "claim", 80);
    secret.value = Some("[redacted]".into());
    secret.editable = true;
    secret.secret = true;
    let mut urgent = control("claim.urgent", "Urgent", "checkbox", "claim", 120);
    urgent.checked = Some(true);
    let mut approve = control("claim.approve", "Approve", "button", "actions", 160);
    approve.disabled = true;
    let history = control("claim.history", "History", "link", "footer", 2400);
    RawObservation {
        url: "http://127.0.0.1:8080/claims/1042".into(),
        title: "Claim 1042".into(),
        status: Some(200),
        dialog: None,
        controls: vec![field, secret, urgent, approve, history].into(),
        total: 7,
        dropped_by_region: BTreeMap::from([("footer".to_string(), 2)]),
        dropped_by_role: BTreeMap::from([("link".to_string(), 2)]),
        viewport: [1280.0, 800.0],
        scroll: [0.0, 0.0],
        collector_ms: 3.25,
        evidence: Some(Evidence {
            text_runs: vec![TextRun {
                text: "Claim 1042".into(),
                bbox: [10, 8, 200, 20],
                confidence: 1.0,
            }],
            text_runs_capped: false,
            unanchored: vec![RawNode {
                node: 17,
                role: "button".into(),
                label: "Help".into(),
                region: "page".into(),
                disabled: false,
                visible: true,
                bbox: [1200, 8, 60, 24],
            }],
            unanchored_total: 1,
        }),
        chrome: Chrome {
            js_dialogs: vec![JsDialog {
                kind: "alert".into(),
                message: "Saved".into(),
            }],
            beforeunload: false,
            crashed: false,
            error_page: None,
            file_chooser: false,
        },
        audit: None,
        frames_unread: Vec::new(),
    }
}

/// The read shown whole (the collection cut only), with the controls without an anchor.
fn whole() -> InferredState {
    let view = View {
        nodes: true,
        ..View::default()
    };
    infer(
        &observation(),
        "/claims/1042".into(),
        &Registry::empty(),
        4.5,
        &view,
    )
}

/// The read under a description budget that keeps the focused region only.
fn described() -> InferredState {
    let view = View {
        budget: Some(400),
        ..View::default()
    };
    infer(
        &observation(),
        "/claims/1042".into(),
        &Registry::empty(),
        4.5,
        &view,
    )
}

#[test]
fn a_raw_observation_keeps_its_shape() {
    insta::assert_json_snapshot!("raw_observation", &observation());
}

#[test]
fn an_inferred_state_cut_at_collection_keeps_its_shape() {
    insta::assert_json_snapshot!("inferred_collection_cut", &whole());
}

#[test]
fn an_inferred_state_cut_at_description_keeps_its_shape() {
    let state = described();
    assert!(state.truncation.is_some(), "the budget cuts");
    insta::assert_json_snapshot!("inferred_description_cut", &state);
}

#[test]
fn a_successful_round_trip_keeps_its_shape() {
    let rt = RoundTrip {
        tool: "invoke",
        ok: true,
        anchor: Some("claim.urgent".into()),
        label: Some("Urgent".into()),
        route_before: "/claims/1042".into(),
        route: "/claims/1042".into(),
        screen: Some(described()),
        changes: Some(Changes {
            added: vec![],
            removed: vec!["claim.flag".into()],
            changed: vec!["claim.urgent".into()],
        }),
        error: None,
        elapsed_ms: 21.5,
        ..RoundTrip::default()
    };
    insta::assert_json_snapshot!("round_trip_ok", &rt);
}

#[test]
fn a_round_trip_that_opened_and_closed_tabs_keeps_its_shape() {
    let rt = RoundTrip {
        tool: "invoke",
        ok: true,
        anchor: Some("signin.done".into()),
        label: Some("Continue".into()),
        route_before: "/signin".into(),
        route: "/".into(),
        elapsed_ms: 80.0,
        tab: 1,
        opened: Some(TabOpened {
            tab: 3,
            url: "http://127.0.0.1:8080/help".into(),
        }),
        closed: Some(2),
        ..RoundTrip::default()
    };
    insta::assert_json_snapshot!("round_trip_tabs", &rt);
}

#[test]
fn a_failed_round_trip_keeps_its_shape() {
    let error = ToolError::new(ErrorCode::Disabled, "`Approve` (claim.approve) is disabled");
    let rt = RoundTrip {
        tool: "invoke",
        ok: false,
        anchor: Some("claim.approve".into()),
        label: Some("Approve".into()),
        route_before: "/claims/1042".into(),
        route: "/claims/1042".into(),
        screen: Some(described()),
        changes: None,
        error: Some(error.clone()),
        elapsed_ms: 2.0,
        ..RoundTrip::default()
    };
    insta::assert_json_snapshot!("round_trip_failed", &rt);
    let blamed = ToolError::new(ErrorCode::Obscured, "an overlay covers `Approve`")
        .attributed(Attribution::App);
    insta::assert_json_snapshot!("tool_error_attributed", &blamed);
}

#[test]
fn a_refused_action_keeps_its_gate_verdicts_shape() {
    let allowed = AllowedSet::parse(["read"]).expect("a valid set");
    let action = Action::new(Verb::Invoke, Some("claim.approve".into()));
    let passage = pass_gates(&action, &GateContext::new(allowed));
    insta::assert_json_snapshot!("gate_verdicts", &passage.verdicts);
    insta::assert_json_snapshot!("action", &action);
}

/// The lines of a trace file, as written (fields in the order they are written).
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("read the trace")
        .lines()
        .map(str::to_string)
        .collect()
}

fn header() -> TraceHeader {
    TraceHeader::new(
        "shapes",
        Path::new("shapes.rhai"),
        "HeadlessChrome/1.0",
        &ToolOptions::default(),
        None,
    )
}

#[test]
fn a_journey_failure_keeps_its_shape_in_the_trace() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let failed = dir.path().join("failed.jsonl");
    let trace = Trace::create(&failed, &header()).expect("create the trace");
    let failure = Failure {
        kind: FailureKind::Tool,
        code: Some("not_on_screen".into()),
        message: "`claim.approve` is not on this screen".into(),
        attribution: Attribution::Journey,
        file: PathBuf::from("journeys/approve.rhai"),
        line: Some(12),
        column: Some(5),
    };
    trace.end(Some(&failure), Duration::from_millis(1500));
    insta::assert_snapshot!(
        "trace_end_failed",
        lines(&failed).last().expect("an end line")
    );
    insta::assert_snapshot!("failure_display", failure.to_string());
    let expectation = Failure {
        kind: FailureKind::Expectation,
        code: Some("expectation_failed".into()),
        message: "the claim is approved".into(),
        attribution: Attribution::Journey,
        file: PathBuf::from("journeys/approve.rhai"),
        line: Some(20),
        column: None,
    };
    insta::assert_snapshot!("expectation_display", expectation.to_string());
    let passed = dir.path().join("passed.jsonl");
    let trace = Trace::create(&passed, &header()).expect("create the trace");
    trace.end(None, Duration::from_millis(250));
    insta::assert_snapshot!(
        "trace_end_passed",
        lines(&passed).last().expect("an end line")
    );
}

/// A refused step reads nothing, so its line holds no page-dependent values but times.
#[test]
fn a_trace_step_line_keeps_its_shape() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("step.jsonl");
    let trace = Arc::new(Trace::create(&path, &header()).expect("create the trace"));
    let (tools, _) = tools_with(ToolOptions::default());
    let tools = tools.with_trace(trace);
    block_on(async {
        open(&tools, "/widgets").await;
        tools.allow(AllowedSet::parse(["read"]).expect("a valid set"));
        tools.invoke("widgets.counter", None).await;
        tools.close().await;
    });
    let mut step: Value = lines(&path)
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .rfind(|l| l["kind"] == "step")
        .expect("the refused step");
    // Times vary run to run: fixed here, the fields kept (in `Value`'s sorted order).
    for time in ["elapsed_ms", "at_ms"] {
        assert!(step[time].is_number(), "{step}");
        step[time] = Value::from(1.0);
    }
    assert!(step["result"]["elapsed_ms"].is_number(), "{step}");
    step["result"]["elapsed_ms"] = Value::from(1.0);
    // Its phases too, which a phase under 0.05 ms leaves out: a refused step has no other.
    let timing = step["timing"].as_object().expect("timing").clone();
    for (phase, ms) in &timing {
        assert!(
            ["gates_ms", "other_ms"].contains(&phase.as_str()) && ms.is_number(),
            "{step}"
        );
    }
    step["timing"] = serde_json::json!({"gates_ms": 1.0, "other_ms": 1.0});
    insta::assert_json_snapshot!("trace_step_refused", step);
}
