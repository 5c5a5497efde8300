//! The two layers of a read: the raw observation (evidence: text runs, every control with
//! or without an anchor, the browser's chrome) stays with the runner; scripts see only the
//! inferred state.

use waymark::tools::{TargetRef, ToolOptions};

use crate::cli::{journey, run_journey};
use crate::harness::{block_on, ok, open, tools, tools_with};

#[test]
fn evidence_holds_text_runs_and_controls_without_an_anchor() {
    let (tools, _) = tools_with(ToolOptions {
        evidence: true,
        ..ToolOptions::default()
    });
    block_on(async {
        let screen = open(&tools, "/widgets").await;
        let raw = tools.last_observation().expect("a read is held");
        let ev = raw.evidence.as_ref().expect("evidence was asked for");
        let run = ev
            .text_runs
            .iter()
            .find(|r| r.text == "Key target")
            .expect("the label's text is a run");
        assert!(run.bbox[2] > 0 && run.bbox[3] > 0, "{run:?}");
        assert_eq!(run.confidence, 1.0);
        assert!(
            !ev.text_runs
                .iter()
                .any(|r| r.text.contains("Overlay") && r.bbox[2] == 0),
            "only rendered text"
        );
        let plain = ev
            .unanchored
            .iter()
            .find(|n| n.label == "Plain button")
            .expect("a button without an anchor is evidence");
        assert_eq!(plain.role, "button");
        assert!(plain.node > 0 && plain.visible);
        assert_eq!(ev.unanchored_total, ev.unanchored.len());
        // Anchored controls are not repeated as unanchored ones, and the inferred layer
        // shows only anchored controls.
        assert!(!ev.unanchored.iter().any(|n| n.label == "Show alert"));
        assert!(!screen.controls.iter().any(|c| c.label == "Plain button"));
        tools.close().await;
    });
}

#[test]
fn without_evidence_a_read_gathers_only_the_anchored_controls() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let raw = tools.last_observation().expect("a read is held");
        assert!(raw.evidence.is_none());
        assert!(!raw.controls.is_empty());
        tools.close().await;
    });
}

#[test]
fn an_alert_is_a_chrome_flag_and_the_dialog_of_the_state() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.alert", None).await;
        let screen = ok(&rt);
        assert_eq!(screen.dialog.as_deref(), Some("Heads up"));
        let raw = tools.last_observation().expect("a read is held");
        assert_eq!(raw.chrome.js_dialogs.len(), 1, "{:?}", raw.chrome);
        assert_eq!(raw.chrome.js_dialogs[0].kind, "alert");
        assert_eq!(raw.chrome.js_dialogs[0].message, "Heads up");
        assert!(!raw.chrome.beforeunload && !raw.chrome.crashed);
        tools.close().await;
    });
}

#[test]
fn an_error_page_is_a_chrome_flag() {
    let (tools, _) = tools();
    block_on(async {
        let rt = tools.navigate("/no-such-page").await;
        assert!(!rt.ok);
        let raw = tools.last_observation().expect("a read is held");
        assert_eq!(
            raw.chrome.error_page.as_deref(),
            Some("the server answered HTTP 404")
        );
        tools.close().await;
    });
}

#[test]
fn a_script_cannot_reach_the_raw_layer() {
    let dir = journey(
        "layers.rhai",
        r#"navigate("/widgets");
let s = read_screen();
for key in ["evidence", "chrome", "text_runs", "unanchored", "bbox", "viewport", "collector_ms", "js_dialogs"] {
    expect(!(key in s), `the screen has no ${key}`);
    expect(!(key in s.controls[0]), `a control has no ${key}`);
}
let rt = invoke("widgets.counter");
expect(!("raw" in rt) && !("evidence" in rt.screen), "a round trip has no raw layer");
expect(rt.screen.controls.len() > 0, "but it has the inferred controls");
"#,
    );
    run_journey(dir.path(), "layers.rhai", &[]).exits(0);
}

#[test]
fn read_screen_takes_a_budget_and_a_region() {
    let dir = journey(
        "budget.rhai",
        r#"navigate("/dense?n=1000");
let all = read_screen();
expect(all.truncation == (), "1,000 controls fit the default cap");
let cut = read_screen(#{budget: 3000});
expect(cut.truncation.cut_at == "description", "the budget cuts");
expect(cut.truncation.shown + cut.truncation.dropped == 1000, "shown + dropped = total");
expect(cut.controls.len() == cut.truncation.shown, "shown is what is there");
let region = all.controls[all.controls.len() - 1].region;
let part = read_screen(#{region: region});
expect(part.region == region, "a region read says its region");
let n = 0;
for c in all.controls { if c.region == region { n += 1; } }
expect(part.controls.len() == n, "every control of the region");
let code = "";
try { read_screen(#{colour: "red"}); } catch (e) { code = e.code; }
expect(code == "invalid_argument", "an unknown option is refused");
"#,
    );
    run_journey(dir.path(), "budget.rhai", &[]).exits(0);
}

#[test]
fn read_budget_prints_the_report_in_words() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let anchors = crate::cli::anchors();
    let run = crate::cli::waymark(
        dir.path(),
        [
            "--anchors",
            anchors.as_str(),
            "read",
            "/dense?n=1000",
            "--budget",
            "2000",
        ],
        &[],
    );
    run.exits(0)
        .says("truncated (description budget of 2000 characters): shown ")
        .says("of 1000 controls")
        .says("dropped by region: region-")
        .says("dropped by role: ")
        .says("read_screen(#{region: ");
}

#[test]
fn a_file_chooser_is_intercepted_and_flagged() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.upload", None).await;
        let screen = ok(&rt);
        let raw = tools.last_observation().expect("a read is held");
        assert!(raw.chrome.file_chooser, "{:?}", raw.chrome);
        assert!(
            screen
                .confidence_reasons
                .iter()
                .any(|r| r.contains("file chooser")),
            "{:?}",
            screen.confidence_reasons
        );
        // Reported once: the next read has no new chooser.
        ok(&tools.read_screen().await);
        let raw = tools.last_observation().expect("a read is held");
        assert!(!raw.chrome.file_chooser);
        tools.close().await;
    });
}

/// Evidence is gathered again only when something it holds may have changed: a value typed
/// into a field is in no text run and no name, so the evidence of the read before stands (a
/// fill on a 10,000-control page gathered it again, ~40 ms); an input button's value is its
/// label, and setting it sets its attribute, so the evidence is gathered again.
#[test]
fn evidence_stands_through_a_fill_and_not_through_a_button_value() {
    let (tools, probe) = crate::fixtures::probed_tools_with(ToolOptions {
        evidence: true,
        ..ToolOptions::default()
    });
    block_on(async {
        open(&tools, "/evidence.html").await;
        let before = tools.last_observation().expect("a read is held").evidence;
        // A mark on the page's own copy: gone once the evidence is gathered again.
        probe.run("window.__waymark.cache.ev.kept = true").await;
        ok(&tools.fill("evidence.name", "Ada Lovelace").await);
        ok(&tools
            .fill_target(&TargetRef::Node(loose(&tools)), "by the door")
            .await);
        assert_eq!(probe.value("!!window.__waymark.cache.ev.kept").await, true);
        let after = tools.last_observation().expect("a read is held").evidence;
        assert_eq!(after, before);
        // and it is what a read gathering everything again finds
        ok(&tools.read_screen_whole().await);
        let whole = tools.last_observation().expect("a read is held").evidence;
        assert_eq!(whole, before);

        probe.run("window.__waymark.cache.ev.kept = true").await;
        probe
            .run("document.getElementById('plain').value = 'Sent'")
            .await;
        ok(&tools.read_screen().await);
        assert_eq!(probe.value("!!window.__waymark.cache.ev.kept").await, false);
        let ev = tools
            .last_observation()
            .and_then(|raw| raw.evidence)
            .expect("evidence was asked for");
        assert!(
            ev.unanchored.iter().any(|n| n.label == "Sent"),
            "{:?}",
            ev.unanchored
        );
        tools.close().await;
    });
}

/// The node id of the unanchored field labelled "Note" in the last read's evidence.
fn loose<T: waymark::browser::Tab>(tools: &waymark::tools::Tools<T>) -> u64 {
    tools
        .last_observation()
        .and_then(|raw| raw.evidence)
        .and_then(|ev| ev.unanchored.into_iter().find(|n| n.label == "Note"))
        .expect("the unlabelled field is evidence")
        .node
}
