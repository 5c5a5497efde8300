//! The perception audit: each anchored control's reading against Chromium's accessibility
//! tree. Known-answer pages must read exactly as expected *and* audit clean; a page hidden
//! from accessibility is suppressed, never clean; a real disagreement is a fault with both
//! values, attributed to capture, in the screen's confidence.

use serde_json::json;
use waymark::audit::Property;
use waymark::screen::{InferredState, View};
use waymark::tools::{Attribution, ToolOptions};

use crate::cli::waymark;
use crate::fixtures::{audited_tools, audited_tools_with, base, expected};
use crate::harness::{block_on, ok, open, tools, tools_with};

/// What the known-answer files hold of each control.
fn answers(screen: &InferredState) -> serde_json::Value {
    let controls = screen.controls.iter().map(|c| {
        let mut e =
            json!({"anchor": c.anchor, "label": c.label, "role": c.role, "disabled": c.disabled});
        if let Some(k) = &c.key {
            e["key"] = json!(k);
        }
        e
    });
    serde_json::Value::Array(controls.collect())
}

fn known_answer(name: &str) {
    let tools = audited_tools();
    block_on(async {
        let screen = open(&tools, &format!("/{name}.html")).await;
        let want = expected(name);
        let got = answers(&screen);
        if got != want {
            let (got, want) = (got.as_array().unwrap(), want.as_array().unwrap());
            for (g, w) in got.iter().zip(want) {
                assert_eq!(g, w, "{name}: the first control that reads differently");
            }
            panic!(
                "{name}: {} controls read, {} expected",
                got.len(),
                want.len()
            );
        }
        let audit = tools
            .last_audit()
            .expect("an audited read carries its audit");
        assert!(audit.is_clean(), "{name}: {audit:#?}");
        assert_eq!(audit.checked, screen.controls.len(), "{name}");
        assert_eq!(
            screen.confidence, 1.0,
            "{name}: {:?}",
            screen.confidence_reasons
        );
        tools.close().await;
    });
}

#[test]
fn labels_page_reads_its_known_answers_and_audits_clean() {
    known_answer("labels");
}

#[test]
fn states_page_reads_its_known_answers_and_audits_clean() {
    known_answer("states");
}

#[test]
fn roles_page_reads_its_known_answers_and_audits_clean() {
    known_answer("roles");
}

#[test]
fn an_aria_hidden_app_root_is_accessibility_suppressed_not_clean() {
    let tools = audited_tools();
    block_on(async {
        let screen = open(&tools, "/suppressed.html").await;
        let audit = tools
            .last_audit()
            .expect("an audited read carries its audit");
        assert!(!audit.is_clean());
        assert!(audit.faults.is_empty(), "{:?}", audit.faults);
        assert_eq!(audit.checked, 0, "nothing could be checked");
        assert_eq!(audit.suppressed.len(), 1, "{:?}", audit.suppressed);
        assert_eq!(audit.suppressed[0].scope, "page");
        assert_eq!(audit.suppressed[0].controls, 2);
        assert!(screen.confidence < 1.0);
        assert!(
            screen.confidence_reasons[0].starts_with("accessibility_suppressed: page"),
            "{:?}",
            screen.confidence_reasons
        );
        tools.close().await;
    });
}

/// The button's title says Save; the words on screen are CSS generated content saying
/// Delete, which Chromium names it by and the collector does not read.
#[test]
fn a_mislabelled_control_is_a_perception_fault_with_both_values() {
    let tools = audited_tools();
    block_on(async {
        let screen = open(&tools, "/mislabelled.html").await;
        let audit = tools
            .last_audit()
            .expect("an audited read carries its audit");
        assert_eq!(audit.faults.len(), 1, "{audit:#?}");
        let fault = &audit.faults[0];
        assert_eq!(fault.anchor, "mislabelled.action");
        assert_eq!(fault.property, Property::Name);
        assert_eq!(fault.collector, "Save");
        assert_eq!(fault.accessibility, "Delete");
        assert_eq!(fault.attribution, Attribution::Capture);
        assert!(screen.confidence <= 0.6, "{}", screen.confidence);
        let reason = &screen.confidence_reasons[0];
        assert!(
            reason.contains("mislabelled.action")
                && reason.contains("Save")
                && reason.contains("Delete"),
            "{reason}"
        );
        // The read after an action is audited too.
        let rt = tools.invoke("mislabelled.fine", None).await;
        let after = ok(&rt);
        assert!(after.confidence <= 0.6, "{:?}", after.confidence_reasons);
        tools.close().await;
    });
}

/// A region read (and a read cut at collection) audits exactly the controls it gathered,
/// though the page's cached read does not hold their elements.
#[test]
fn a_region_read_beyond_the_collection_cut_is_audited() {
    let tools = audited_tools_with(ToolOptions {
        max_controls: 3,
        ..ToolOptions::default()
    });
    block_on(async {
        let screen = open(&tools, "/labels.html").await;
        assert_eq!(screen.controls.len(), 3);
        let audit = tools
            .last_audit()
            .expect("an audited read carries its audit");
        assert!(audit.is_clean(), "{audit:#?}");
        assert_eq!(audit.checked, 3);
        let rt = tools
            .read_screen_with(View {
                budget: None,
                region: Some("hidden-labels".into()),
                ..View::default()
            })
            .await;
        let region = ok(&rt);
        assert!(region.controls.iter().all(|c| c.region == "hidden-labels"));
        assert_eq!(region.controls[0].anchor, "labels.hidden-referenced");
        let audit = tools
            .last_audit()
            .expect("an audited read carries its audit");
        assert!(audit.is_clean(), "{audit:#?}");
        assert_eq!(audit.checked, region.controls.len());
        tools.close().await;
    });
}

#[test]
fn reads_are_not_audited_unless_asked() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/widgets").await;
        assert!(tools.last_audit().is_none());
        assert_eq!(screen.confidence, 1.0, "{:?}", screen.confidence_reasons);
        tools.close().await;
    });
}

#[test]
fn the_demo_widgets_audit_clean() {
    let (tools, _) = tools_with(ToolOptions {
        audit: true,
        ..ToolOptions::default()
    });
    block_on(async {
        let screen = open(&tools, "/widgets").await;
        let audit = tools
            .last_audit()
            .expect("an audited read carries its audit");
        assert!(audit.is_clean(), "{audit:#?}");
        assert_eq!(audit.checked, screen.controls.len());
        assert_eq!(screen.confidence, 1.0, "{:?}", screen.confidence_reasons);
        tools.close().await;
    });
}

#[test]
fn read_audit_exits_1_on_a_fault_or_suppression_and_0_when_clean() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let fixtures = base().to_string();
    let fixtures = fixtures.trim_end_matches('/');
    waymark(&root, ["read", "/widgets", "--audit"], &[])
        .exits(0)
        .says("0 fault(s)");
    waymark(
        &root,
        [
            "--base-url",
            fixtures,
            "read",
            "/mislabelled.html",
            "--audit",
        ],
        &[],
    )
    .exits(1)
    .says("`mislabelled.action` name: collector \"Save\", accessibility \"Delete\"");
    waymark(
        &root,
        [
            "--base-url",
            fixtures,
            "read",
            "/suppressed.html",
            "--audit",
        ],
        &[],
    )
    .exits(1)
    .says("accessibility_suppressed: page");
    let run = waymark(
        &root,
        [
            "--base-url",
            fixtures,
            "read",
            "/mislabelled.html",
            "--json",
        ],
        &[("WAYMARK_AUDIT", std::ffi::OsStr::new("1"))],
    );
    run.exits(1);
    let screen: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", run.stdout));
    assert_eq!(screen["audit"]["faults"][0]["property"], "name");
    assert_eq!(screen["audit"]["faults"][0]["attribution"], "capture");
    assert_eq!(screen["route"], "/mislabelled.html");
    // Without --audit, the same page is just a read.
    waymark(
        &root,
        ["--base-url", fixtures, "read", "/mislabelled.html"],
        &[],
    )
    .exits(0);
}

#[test]
fn run_audit_puts_faults_in_the_journeys_screens() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"navigate("/mislabelled.html");
let s = read_screen();
expect(s.confidence <= 0.6, "the fault lowers confidence");
expect(s.confidence_reasons[0].contains("mislabelled.action"), "the reason names the control");
"#;
    std::fs::write(dir.path().join("audited.rhai"), source).expect("write the journey");
    let fixtures = base().to_string();
    let fixtures = fixtures.trim_end_matches('/');
    waymark(
        dir.path(),
        ["--base-url", fixtures, "--audit", "run", "audited.rhai"],
        &[],
    )
    .exits(0)
    .says("1 passed");
    // Without the flag the same journey fails: nothing lowered the confidence.
    waymark(
        dir.path(),
        ["--base-url", fixtures, "run", "audited.rhai"],
        &[],
    )
    .exits(1);
}
