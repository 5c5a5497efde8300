//! The page's console and its uncaught errors (issue 51, item 7): each round trip lists the
//! console's errors and warnings and the page's uncaught exceptions and unhandled
//! rejections since the call before; the trace and the report keep them; with
//! `--fail-on-page-error` the call that lists one fails with `page_error`, the app's. On
//! `tests/fixtures/audit/console.html`, and beside Playwright's own `console` and
//! `pageerror` events on the same page and the same Chromium.

use serde_json::{Value, json};
use waymark::browser::{ConsoleMessage, PageError};
use waymark::tools::{ErrorCode, RoundTrip};

use crate::cli::waymark;
use crate::fixtures::{base, tools, tools_with};
use crate::harness::{block_on, failed, ok, value};

fn message(level: &str, text: &str) -> ConsoleMessage {
    ConsoleMessage {
        level: level.into(),
        text: text.into(),
    }
}

fn messages(rt: &RoundTrip) -> Vec<String> {
    rt.page_errors.iter().map(|e| e.message.clone()).collect()
}

#[test]
fn each_round_trip_lists_the_console_errors_and_warnings_and_the_uncaught_errors_since_the_last() {
    let tools = tools();
    block_on(async {
        let rt = tools.navigate("/console.html").await;
        ok(&rt);
        assert_eq!(
            rt.console,
            [
                message("warning", "low stock 3"),
                message("error", "failed to load {code: 42, retry: true}")
            ],
            "the load's warnings and errors, not its log"
        );
        assert!(rt.page_errors.is_empty(), "{:?}", rt.page_errors);

        let rt = tools.invoke("console.log", None).await;
        assert_eq!(value(ok(&rt), "console.result"), "logged");
        assert_eq!(
            rt.console,
            [
                message("error", "save failed: [1, 2] null undefined 1.5"),
                message("assert", "totals differ")
            ],
            "info and debug are not listed; each message once"
        );

        let rt = tools.invoke("console.throw", None).await;
        assert_eq!(value(ok(&rt), "console.result"), "threw");
        assert_eq!(
            messages(&rt),
            ["TypeError: Cannot set properties of null (setting 'total')"]
        );
        let source = &rt.page_errors[0].source;
        assert!(
            source.starts_with(base().join("console.html").unwrap().as_str())
                && source.ends_with(":31:17"),
            "where it was thrown: {source}"
        );
        assert!(rt.console.is_empty(), "{:?}", rt.console);

        let rt = tools.invoke("console.reject", None).await;
        ok(&rt);
        // Chromium tells of both rejections in one task after the click's, which the
        // action's settle waits behind; the call takes them after a round trip that lets the
        // connection hand them over (`page_log` in src/tools/console.rs), however busy the
        // machine: the click's, both, and nothing of them told again.
        assert_eq!(messages(&rt), ["Error: payment declined", "plain reason"]);

        let rt = tools.invoke("console.quiet", None).await;
        ok(&rt);
        assert!(rt.console.is_empty() && rt.page_errors.is_empty());
        let json = serde_json::to_value(&rt).expect("the round trip as JSON");
        assert!(
            json.get("console").is_none() && json.get("page_errors").is_none(),
            "empty lists are left out of JSON: {json}"
        );
    });
    block_on(tools.close());
}

#[test]
fn failing_on_page_errors_fails_the_call_that_lists_one_with_page_error_the_apps() {
    let tools = tools_with(waymark::tools::ToolOptions {
        fail_on_page_error: true,
        ..waymark::tools::ToolOptions::default()
    });
    block_on(async {
        ok(&tools.navigate("/console.html").await);
        // Console errors alone fail nothing.
        ok(&tools.invoke("console.log", None).await);
        let rt = tools.invoke("console.throw", None).await;
        let error = failed(&rt, ErrorCode::PageError);
        assert_eq!(error.attribution, waymark::tools::Attribution::App);
        assert!(
            error.message.contains(
                "`TypeError: Cannot set properties of null (setting 'total')` at `http://"
            ),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("`invoke` `console.throw`"),
            "{}",
            error.message
        );
        assert!(rt.screen.is_some(), "the call acted and read: {rt:?}");
        assert_eq!(rt.page_errors.len(), 1);
        // Once reported, it fails nothing more.
        ok(&tools.invoke("console.quiet", None).await);
        let rt = tools.invoke("console.reject", None).await;
        let error = failed(&rt, ErrorCode::PageError);
        assert!(error.message.contains("(and 1 more)"), "{}", error.message);
    });
    block_on(tools.close());
}

/// A journey sees the lists in its round trips (always there, empty or not), a caught
/// `page_error` under `--fail-on-page-error`, and fails on an uncaught one; the trace and
/// the HTML report keep what the page said.
#[test]
fn a_journey_fails_on_a_page_error_when_asked_and_the_trace_and_report_keep_the_console() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
let r = navigate("/console.html");
expect(r.console.len() == 2 && r.console[0].level == "warning", `${r.console}`);
expect(r.page_errors.len() == 0, `${r.page_errors}`);
let r = invoke("console.log");
expect(r.console[1] == #{level: "assert", text: "totals differ"}, `${r.console}`);
try {
    invoke("console.throw");
    throw "the page's error was not reported";
} catch (e) {
    expect(e.code == "page_error" && e.attribution == "app", `${e}`);
}
let r = invoke("console.quiet");
expect(r.console.len() == 0 && r.page_errors.len() == 0, "nothing since");
invoke("console.reject");
// On a loaded machine Chromium may report the rejection after the call that caused it has
// ended: the next call then lists it, and fails.
invoke("console.quiet");
"#;
    std::fs::write(dir.path().join("console.rhai"), source).expect("write the journey");
    let url = base().to_string();
    let args = |fail: bool| {
        let mut args = vec!["--base-url", url.as_str(), "run", "console.rhai"];
        args.extend(["--report", "html=out"]);
        if fail {
            args.insert(0, "--fail-on-page-error");
        }
        args
    };
    let run = waymark(dir.path(), args(true), &[]);
    run.exits(1)
        .says("page_error")
        .says("Error: payment declined");
    assert!(run.all().contains("app"), "{}", run.all());

    let trace = std::fs::read_to_string(dir.path().join("target/waymark/traces/console.jsonl"))
        .expect("the journey's trace");
    let steps: Vec<Value> = trace
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .filter(|l: &Value| l["kind"] == "step")
        .collect();
    assert_eq!(
        steps[0]["result"]["console"][1],
        json!({"level": "error", "text": "failed to load {code: 42, retry: true}"})
    );
    assert_eq!(
        steps[2]["result"]["page_errors"][0]["message"],
        "TypeError: Cannot set properties of null (setting 'total')"
    );
    assert_eq!(steps[2]["result"]["error"]["code"], "page_error");
    assert!(steps[3]["result"].get("console").is_none(), "{}", steps[3]);
    let report = std::fs::read_to_string(dir.path().join("out/index.html")).expect("the report");
    assert!(
        report.contains(
            "console: warning “low stock 3”; error “failed to load {code: 42, retry: true}”"
        ),
        "the report's step lists the console"
    );
    assert!(
        report.contains("page errors: “TypeError: Cannot set properties of null (setting &#39;total&#39;)” at http://")
            || report.contains("page errors: “TypeError: Cannot set properties of null (setting &#x27;total&#x27;)” at http://")
            || report.contains("page errors: “TypeError: Cannot set properties of null (setting 'total')” at http://"),
        "the report's step lists the page error"
    );

    // Without the flag a page error is listed, and fails nothing.
    let lenient = "let r = navigate(\"/console.html\");\nlet r = invoke(\"console.throw\");\n\
                   expect(r.page_errors.len() == 1, `${r.page_errors}`);\n";
    std::fs::write(dir.path().join("console.rhai"), lenient).expect("write the journey");
    waymark(dir.path(), args(false), &[])
        .exits(0)
        .says("1 passed");
}

/// An error the page throws after the journey's last call, which no call lists, fails the
/// journey with `page_error` as it ends, under `--fail-on-page-error`; without the flag the
/// journey passes.
#[test]
fn a_page_error_after_the_last_call_fails_the_journey_as_it_ends() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // The page throws 300 ms after the click, long after the call's quiet window; the journey
    // works on past it, calling nothing.
    let source = r#"
navigate("/console.html");
let r = invoke("console.later");
expect(r.page_errors.len() == 0, `${r.page_errors}`);
let t = timestamp();
while t.elapsed < 1.0 {}
"#;
    std::fs::write(dir.path().join("late.rhai"), source).expect("write the journey");
    let url = base().to_string();
    waymark(
        dir.path(),
        ["--fail-on-page-error", "--base-url", &url, "run", "late.rhai"],
        &[],
    )
    .exits(1)
    .says("page_error: the page threw an error it did not catch after the journey's last call: `Error: report failed later`")
    .says("[app]");
    waymark(dir.path(), ["--base-url", &url, "run", "late.rhai"], &[])
        .exits(0)
        .says("1 passed");
}

/// Playwright's `console` (of the types waymark lists) and `pageerror` on the same page,
/// loaded and clicked the same way, in the same Chromium: the same messages, the same text,
/// the same errors, thrown at the same places.
#[test]
fn the_console_and_page_errors_are_those_playwright_reports() {
    let url = base().join("console.html").expect("a URL");
    let tools = tools();
    let mut seen = RoundTrip::default();
    block_on(async {
        for rt in [
            tools.navigate("/console.html").await,
            tools.invoke("console.log", None).await,
            tools.invoke("console.throw", None).await,
            tools.invoke("console.reject", None).await,
            tools.invoke("console.quiet", None).await,
        ] {
            ok(&rt);
            seen.console.extend(rt.console);
            seen.page_errors.extend(rt.page_errors);
        }
    });
    block_on(tools.close());
    let oracle = playwright(url.as_str());
    let console: Vec<ConsoleMessage> = oracle["console"]
        .as_array()
        .expect("console")
        .iter()
        .map(|m| message(m["level"].as_str().unwrap(), m["text"].as_str().unwrap()))
        .collect();
    assert_eq!(seen.console, console, "Playwright's console messages");
    let errors: Vec<PageError> = oracle["page_errors"]
        .as_array()
        .expect("page errors")
        .iter()
        .map(|e| PageError {
            message: e["message"].as_str().unwrap().into(),
            source: e["source"].as_str().unwrap().into(),
        })
        .collect();
    assert_eq!(
        seen.page_errors.len(),
        errors.len(),
        "{:?} / {errors:?}",
        seen.page_errors
    );
    for (ours, theirs) in seen.page_errors.iter().zip(&errors) {
        assert_eq!(ours.message, theirs.message, "String(error) of pageerror");
        // Playwright has no place for a rejected value that is not an Error (no stack).
        if !theirs.source.is_empty() {
            assert_eq!(ours.source, theirs.source, "the top of the error's stack");
        }
    }
}

/// Runs tests/playwright/console.mjs (see `harness::playwright_output`).
fn playwright(url: &str) -> Value {
    let out = crate::harness::playwright_output("console.mjs", &[url]);
    serde_json::from_slice(&out).expect("the script prints JSON")
}
