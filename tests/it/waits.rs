//! Actions wait for their target (present, visible, enabled, uncovered), driven by the
//! page's own mutations, up to the action timeout; and `wait_for` and `eventually`.

use std::time::{Duration, Instant};

use waymark::tools::{Condition, ErrorCode, ToolOptions};

use crate::fixtures;
use crate::harness::{block_on, control, failed, ok, open};

#[test]
fn a_button_that_appears_later_is_waited_for_and_pressed() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/waits.html").await;
        ok(&tools.invoke("waits.load", None).await);
        let rt = tools.invoke("waits.late", None).await;
        let screen = ok(&rt);
        assert_eq!(
            control(screen, "waits.status", None).value.as_deref(),
            Some("late pressed")
        );
        assert!(rt.waited_ms >= 1000.0, "waited {} ms", rt.waited_ms);
        assert!(rt.waited_ms < 3000.0, "waited {} ms", rt.waited_ms);
        // A target already there costs no wait.
        let rt = tools.invoke("waits.late", None).await;
        ok(&rt);
        assert_eq!(rt.waited_ms, 0.0);
        tools.close().await;
    });
}

#[test]
fn a_disabled_and_a_hidden_target_are_waited_for_until_the_page_allows_them() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/waits.html").await;
        ok(&tools.invoke("waits.arm", None).await);
        let rt = tools.fill("waits.note", "ready").await;
        let screen = ok(&rt);
        assert!(rt.waited_ms >= 400.0, "waited {} ms", rt.waited_ms);
        assert_eq!(
            control(screen, "waits.note", None).value.as_deref(),
            Some("ready")
        );
        let rt = tools.invoke("waits.submit", None).await;
        let screen = ok(&rt);
        assert_eq!(
            control(screen, "waits.status", None).value.as_deref(),
            Some("submitted")
        );
        tools.close().await;
    });
}

#[test]
fn an_action_timeout_of_zero_answers_at_once_with_todays_code() {
    let tools = fixtures::tools_with(ToolOptions {
        action_timeout: Duration::ZERO,
        ..ToolOptions::default()
    });
    block_on(async {
        open(&tools, "/waits.html").await;
        ok(&tools.invoke("waits.load", None).await);
        let start = Instant::now();
        let rt = tools.invoke("waits.late", None).await;
        // Without a registry a missing anchor is `unknown_anchor`, as before waits.
        failed(&rt, ErrorCode::UnknownAnchor);
        let rt = tools.invoke("waits.submit", None).await;
        let error = failed(&rt, ErrorCode::Disabled);
        assert!(!error.message.contains("waiting"), "{}", error.message);
        assert_eq!(rt.waited_ms, 0.0);
        assert!(
            start.elapsed() < Duration::from_millis(1000),
            "{:?}",
            start.elapsed()
        );
        tools.close().await;
    });
}

#[test]
fn a_timeout_names_how_long_it_waited_and_what_covered_the_target() {
    let tools = fixtures::tools_with(ToolOptions {
        action_timeout: Duration::from_millis(600),
        ..ToolOptions::default()
    });
    block_on(async {
        open(&tools, "/waits.html").await;
        let start = Instant::now();
        let rt = tools.invoke("waits.covered", None).await;
        let error = failed(&rt, ErrorCode::Obscured);
        let waited: f64 = error
            .message
            .strip_prefix("after waiting ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|ms| ms.parse().ok())
            .unwrap_or_else(|| panic!("no wait in: {}", error.message));
        assert!(waited >= 600.0, "{}", error.message);
        assert!(
            error
                .message
                .contains("present but covered by div.modal-backdrop"),
            "{}",
            error.message
        );
        assert!(rt.waited_ms >= 600.0, "waited {} ms", rt.waited_ms);
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        // What waiting cannot cure is immediate: two controls for one anchor.
        open(&tools, "/twins.html").await;
        let rt = tools.invoke("page.twin", None).await;
        failed(&rt, ErrorCode::AmbiguousAnchor);
        assert_eq!(rt.waited_ms, 0.0);
        tools.close().await;
    });
}

#[test]
fn wait_for_text_route_and_gone_return_the_screen_when_they_hold() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/waits.html").await;
        ok(&tools.invoke("waits.arm", None).await);
        let saved = Condition {
            text: Some("Saved".into()),
            ..Condition::default()
        };
        let rt = tools.wait_for(&saved).await;
        let screen = ok(&rt);
        assert_eq!(rt.tool, "wait_for");
        assert!(rt.waited_ms >= 300.0, "waited {} ms", rt.waited_ms);
        assert_eq!(
            control(screen, "waits.status", None).value.as_deref(),
            Some("Saved")
        );
        let gone = Condition {
            anchor: Some("waits.spinner".into()),
            gone: true,
            ..Condition::default()
        };
        let rt = tools.wait_for(&gone).await;
        assert!(ok(&rt).control("waits.spinner", None).is_none());
        ok(&tools.invoke("waits.route", None).await);
        let route = Condition {
            route: Some("/waits-done.html".into()),
            ..Condition::default()
        };
        let rt = tools.wait_for(&route).await;
        assert_eq!(ok(&rt).route, "/waits-done.html");
        tools.close().await;
    });
}

/// A route held in a document still loading holds once it has loaded, as Playwright's
/// `waitForURL` waits for the `load`: held at once, it was read before the page drew what
/// it draws at its load (here 1.5 s later, behind an image). Not loaded in time, the wait
/// fails saying so. Then the same two waits by Playwright itself (tests/playwright/
/// wait-url.mjs): the short one times out, and the other ends with the page drawn.
#[test]
fn a_route_reached_by_a_redirect_holds_once_its_document_has_loaded() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/waits.html").await;
        ok(&tools.invoke("waits.redirect", None).await);
        let route = Condition {
            route: Some("/waits-loaded.html".into()),
            ..Condition::default()
        };
        let short = Condition {
            timeout: Some(Duration::from_millis(600)),
            ..route.clone()
        };
        let rt = tools.wait_for(&short).await;
        let error = failed(&rt, ErrorCode::Timeout);
        assert!(
            error
                .message
                .contains("route /waits-loaded.html (still loading)"),
            "{}",
            error.message
        );
        let rt = tools.wait_for(&route).await;
        let screen = ok(&rt);
        assert_eq!(screen.route, "/waits-loaded.html");
        assert_eq!(
            control(screen, "loaded.ready", None).value.as_deref(),
            Some("Ready")
        );
        tools.close().await;
    });
    let url = fixtures::base().join("waits.html").expect("a URL");
    if let Some(theirs) = crate::harness::playwright_oracle("wait-url.mjs", &[url.as_str()]) {
        assert_eq!(
            theirs,
            serde_json::json!({"short": "timeout", "ready": "Ready"}),
            "Playwright's waitForURL"
        );
    }
}

#[test]
fn wait_for_fails_with_timeout_naming_the_condition_and_what_it_saw() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/waits.html").await;
        let enabled = Condition {
            anchor: Some("waits.submit".into()),
            enabled: Some(true),
            timeout: Some(Duration::from_millis(400)),
            ..Condition::default()
        };
        let start = Instant::now();
        let rt = tools.wait_for(&enabled).await;
        let error = failed(&rt, ErrorCode::Timeout);
        assert!(
            error.message.contains("`waits.submit` shown and enabled"),
            "{}",
            error.message
        );
        assert!(error.message.contains("400 ms"), "{}", error.message);
        assert!(
            error.message.contains("`waits.submit` disabled"),
            "{}",
            error.message
        );
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        tools.close().await;
    });
}

#[test]
fn a_journey_waits_and_asserts_eventually_through_the_binary() {
    let dir = crate::cli::journey(
        "waits.rhai",
        r#"navigate("/waits.html");
invoke("waits.load");
let rt = invoke("waits.late");
expect(rt.waited_ms >= 1000.0, `waited ${rt.waited_ms} ms`);
invoke("waits.arm");
let screen = wait_for(#{text: "Saved"});
expect(screen.tool == "wait_for", "wait_for answers with a round trip");
wait_for(#{anchor: "waits.submit", enabled: true});
wait_for("waits.note");
invoke("waits.count");
eventually(|| {
    let c = read_screen().controls.filter(|c| c.anchor == "waits.counter");
    expect(c[0].value == "5", `the counter reads ${c[0].value}`);
}, #{timeout_ms: 10000});
let code = "";
try {
    wait_for(#{anchor: "waits.spinner", gone: true, timeout_ms: 200});
} catch (e) { code = e.code; }
expect(code == "", "the spinner went when the page was armed");
try {
    eventually(|| {
        let c = read_screen().controls.filter(|c| c.anchor == "waits.counter");
        expect(c[0].value == "9", `the counter reads ${c[0].value}`);
    }, #{timeout_ms: 500});
} catch (e) {
    code = e.code;
    expect(e.message.contains("the counter reads 5"), e.message);
}
expect(code == "expectation_failed", `eventually fails with the closure's error: ${code}`);
// The journey's own action timeout: 0 answers at once, then back to waiting.
navigate("/waits.html");
set_action_timeout(0);
try { invoke("waits.submit"); } catch (e) { code = e.code; expect(!e.message.contains("waiting"), e.message); }
expect(code == "disabled", `at once: ${code}`);
set_action_timeout(5000);
invoke("waits.load");
let late = invoke("waits.late");
expect(late.waited_ms >= 1000.0, `waited again: ${late.waited_ms} ms`);
try { set_action_timeout(-1); } catch (e) { code = e.code; }
expect(code == "invalid_argument", `a negative timeout: ${code}`);
"#,
    );
    let base = fixtures::base().to_string();
    let run = crate::cli::waymark(
        dir.path(),
        ["--base-url", base.as_str(), "run", "waits.rhai"],
        &[],
    );
    run.exits(0).says("1 passed, 0 failed");
}
