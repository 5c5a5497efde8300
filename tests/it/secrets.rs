//! Secrets end to end (issue 40): values planted into secret fields (a password, a
//! `current-password`, a card number, a card's security code, a one-time code) by a
//! scripted run, by an agent over MCP and by a person during a handoff never come out:
//! not on stdout or stderr, not in a trace, a snapshot, a JUnit, JSON or HTML report, a
//! transcript, a consent question or a tool's result. Every file the runs wrote is read.
//! Fixture: `tests/fixtures/secrets/checkout.html`.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use waymark::control::{ConsentPolicy, Hub, JourneyKind, TabGates, TabState};
use waymark::tools::{ErrorCode, ToolOptions};
use waymark::trace::{Trace, TraceHeader};

use crate::harness::{block_on, control, failed, ok, open, shared};

/// What every planted value starts with; the values are unique past it, and one field
/// lower-cases what it is given, so the search ignores case.
const PLANTED: &str = "planted-";

/// Fails naming the place when `text` holds a planted value.
#[track_caller]
fn clean(place: &str, text: &str) {
    let lower = text.to_lowercase();
    if let Some(at) = lower.find(PLANTED) {
        let around: String = lower[..at]
            .chars()
            .rev()
            .take(80)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .chain(lower[at..].chars().take(60))
            .collect();
        panic!("a planted secret leaked into {place}: …{around}…");
    }
}

/// Reads every file under `root` but the journeys (whose source holds the values) and
/// fails on any planted value; the files read, relative to `root`.
fn every_file_clean(root: &Path) -> Vec<String> {
    let mut read = Vec::new();
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.expect("walk the run's folder");
        if !entry.file_type().is_file() || entry.path().extension().is_some_and(|e| e == "rhai") {
            continue;
        }
        let bytes = std::fs::read(entry.path()).expect("read a file the run wrote");
        let relative = entry
            .path()
            .strip_prefix(root)
            .unwrap_or(entry.path())
            .display()
            .to_string();
        clean(&relative, &String::from_utf8_lossy(&bytes));
        read.push(relative);
    }
    read.sort();
    read
}

/// Fills every secret field, one that rewrites what it is given (so the fill does not
/// take), and a plain field; reads, snapshots and submits.
const PAY: &str = r#"navigate("/secrets/checkout.html");
fill("pay.password", "PLANTED-pw-7f3a91");
fill("pay.current", "PLANTED-cur-2b8e44");
fill("pay.card", "PLANTED-cc-5d1c07");
fill("pay.csc", "PLANTED-csc-e9a210");
fill("pay.otp", "PLANTED-otp-44b7c3");
let code = "none";
try { fill("pay.card-lower", "PLANTED-LOWER-8c2d5f"); } catch (e) { code = e.code; }
expect(code == "not_editable", "the field that rewrites its value does not take it");
fill("pay.name", "Agatha Card");
let s = read_screen();
for c in s.controls {
    if c.anchor == "pay.name" { expect(c.value == "Agatha Card", "a plain value is shown"); }
    else if c.anchor != "pay.submit" { expect(c.value == "[redacted]", `${c.anchor} is redacted`); }
}
snapshot("filled");
invoke("pay.submit");
"#;

/// Fills two secret fields and fails afterwards, so the failure's report carries the
/// screen as it was.
const PAY_FAILS: &str = r#"navigate("/secrets/checkout.html");
fill("pay.password", "PLANTED-pw2-a61f0d");
fill("pay.card", "PLANTED-cc2-93e1b8");
let s = read_screen();
expect(false, "this journey fails after filling");
"#;

/// Regression (issue 40): a secret field that did not take a fill said "it holds
/// `[redacted]` instead of `<the secret>`", and the secret went into the console, the
/// trace and every report.
#[test]
fn secrets_filled_by_a_run_appear_in_no_output_trace_snapshot_or_report() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir(dir.path().join("j")).expect("a journeys folder");
    std::fs::write(dir.path().join("j/pay.rhai"), PAY).expect("write a journey");
    std::fs::write(dir.path().join("j/pay_fails.rhai"), PAY_FAILS).expect("write a journey");
    let base = crate::fixtures::base().to_string();
    let run = crate::cli::waymark(
        dir.path(),
        [
            "-vvv",
            "--base-url",
            base.as_str(),
            "run",
            "--update-snapshots",
            "--audit",
            "--trace",
            "traces",
            "--report",
            "junit=out/junit.xml",
            "--report",
            "json=out/report.json",
            "--report",
            "html=out/html",
            "j",
        ],
        &[],
    );
    run.exits(1)
        .says("this journey fails after filling")
        .says("1 passed, 1 failed");
    clean("stdout", &run.stdout);
    clean("stderr", &run.stderr);
    let read = every_file_clean(dir.path());
    for written in [
        "traces/pay.jsonl",
        "traces/pay_fails.jsonl",
        "snapshots/pay__filled.snap",
        "out/junit.xml",
        "out/report.json",
        "out/html/index.html",
    ] {
        assert!(
            read.iter().any(|f| f == written),
            "{written} was not written: {read:?}"
        );
    }
    let trace = std::fs::read_to_string(dir.path().join("traces/pay.jsonl")).expect("the trace");
    assert!(
        trace.contains("did not take the value"),
        "the refused fill is in the trace"
    );
    eprintln!("secrets: {} files read clean: {read:?}", read.len());
}

/// An agent fills the same fields over MCP, with the person approving each fill: the
/// questions, the results (text and structured), the transcript and stderr hold none of
/// the values.
#[test]
fn secrets_filled_by_an_agent_over_mcp_appear_in_no_result_question_or_transcript() {
    use crate::mcp::{Person, Session, failed as mcp_failed, ok as mcp_ok, text};
    let dir = tempfile::tempdir().expect("a temp dir");
    let base = crate::fixtures::base().to_string();
    let transcript = dir.path().join("agent.jsonl");
    let transcript_arg = transcript.display().to_string();
    let mut said = String::new();
    crate::mcp::run(async {
        let args = [
            "--base-url",
            base.as_str(),
            "--audit",
            "--record",
            transcript_arg.as_str(),
        ];
        let (s, stderr) = Session::start_in(
            Person::new(true, true),
            &args,
            Stdio::piped(),
            Some(dir.path()),
        )
        .await;
        let mut stderr = stderr.expect("piped stderr");
        let errors = tokio::spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text).await;
            text
        });
        let mut note = |result: &rmcp::model::CallToolResult| {
            said.push_str(&text(result));
            said.push_str(&serde_json::to_string(result).expect("a result serializes"));
        };
        let nav = s
            .call("navigate", json!({"route": "/secrets/checkout.html"}))
            .await;
        mcp_ok(&nav);
        note(&nav);
        for (anchor, value) in [
            ("pay.password", "PLANTED-mcp-pw-0c4e7b"),
            ("pay.current", "PLANTED-mcp-cur-61d2aa"),
            ("pay.card", "PLANTED-mcp-cc-3f9b12"),
            ("pay.csc", "PLANTED-mcp-csc-7a0e55"),
            ("pay.otp", "PLANTED-mcp-otp-b83c19"),
        ] {
            let filled = s
                .call("fill", json!({"anchor": anchor, "text": value}))
                .await;
            let rt = mcp_ok(&filled);
            assert_eq!(
                crate::mcp::control(rt, anchor)["value"],
                "[redacted]",
                "{rt}"
            );
            note(&filled);
        }
        let refused = s
            .call(
                "fill",
                json!({"anchor": "pay.card-lower", "text": "PLANTED-MCP-LOWER-2d7f40"}),
            )
            .await;
        mcp_failed(&refused, "not_editable");
        note(&refused);
        for (tool, args) in [
            ("read_screen", json!({})),
            ("invoke", json!({"anchor": "pay.submit"})),
            ("handoff", json!({"reason": "confirm the payment"})),
            ("finish", json!({"summary": "paid"})),
        ] {
            let result = s.call(tool, args).await;
            mcp_ok(&result);
            note(&result);
        }
        for question in s.asked() {
            clean("a consent question", &question);
        }
        assert!(
            s.asked().iter().any(|q| q.contains("with a secret value")),
            "{:?}",
            s.asked()
        );
        s.stop().await;
        let errors = tokio::time::timeout(Duration::from_secs(60), errors)
            .await
            .expect("stderr ends with the server")
            .expect("read stderr");
        clean("the server's stderr", &errors);
    });
    clean("the tools' results", &said);
    let read = every_file_clean(dir.path());
    assert!(
        read.iter().any(|f| f == "agent.jsonl"),
        "the transcript was written: {read:?}"
    );
}

/// What a person types during a handoff, into a secret field and a plain one, is theirs:
/// reads after it, the round trips and the trace hold none of it.
#[test]
fn text_a_person_types_during_a_handoff_appears_in_no_read_or_trace() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("handoff.jsonl");
    let header = TraceHeader::new(
        "handoff",
        Path::new("handoff.rhai"),
        shared().browser().version(),
        &ToolOptions::default(),
        None,
    );
    let trace = Arc::new(Trace::create(&path, &header).expect("create the trace"));
    let hub = Arc::new(Hub::new());
    let tab = hub.register("run-a", "test");
    let (tools, probe) = crate::fixtures::probed_tools_with(ToolOptions::default());
    let tools = tools.with_trace(Arc::clone(&trace)).with_control(TabGates {
        hub: Arc::clone(&hub),
        tab,
        run: "run-a".into(),
        kind: JourneyKind::Script,
        consent: ConsentPolicy::Allow,
        terminal: false,
        consent_timeout: Duration::from_secs(20),
        guardrail: None,
        asker: None,
    });
    let mut said = String::new();
    block_on(async {
        open(&tools, "/secrets/checkout.html").await;
        let person = async {
            while hub.tab(tab).map(|t| t.state) != Some(TabState::Handoff) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            probe
                .person_types("[data-anchor=\"pay.otp\"]", "PLANTED-typed-otp-19ce30")
                .await;
            probe
                .person_types("[data-anchor=\"pay.name\"]", "PLANTED-typed-name-5be7d2")
                .await;
            hub.done(tab).expect("the handoff is waiting");
        };
        let (handed, ()) = tokio::join!(tools.handoff("enter the code"), person);
        assert!(handed.ok, "{:?}", handed.error);
        said.push_str(&serde_json::to_string(&handed).expect("a round trip serializes"));
        let read = tools.read_screen().await;
        let screen = ok(&read).clone();
        for anchor in ["pay.otp", "pay.name"] {
            assert_eq!(
                control(&screen, anchor, None).value.as_deref(),
                Some("[redacted]"),
                "{anchor} was typed during the handoff"
            );
        }
        said.push_str(&serde_json::to_string(&read).expect("a round trip serializes"));
        // The agent's own fill of a secret field, refused by the page, after the handoff.
        let refused = tools
            .fill("pay.card-lower", "PLANTED-typed-lower-0a9d6e")
            .await;
        failed(&refused, ErrorCode::NotEditable);
        said.push_str(&serde_json::to_string(&refused).expect("a round trip serializes"));
        let raw = tools.last_observation().expect("a read is held");
        said.push_str(&serde_json::to_string(&raw).expect("the raw layer serializes"));
        tools.close().await;
    });
    trace.end(None, Duration::from_secs(1));
    clean("the round trips", &said);
    let read = every_file_clean(dir.path());
    assert_eq!(read, ["handoff.jsonl"]);
}
