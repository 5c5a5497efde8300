//! Every error code the demo app can provoke, each with a message that names the control,
//! and each leaving the page where it was.

use std::time::Duration;

use waymark::tools::{ErrorCode, ToolOptions};

use crate::harness::{block_on, control, failed, open, probed_tools, tools, tools_with};

#[test]
fn unknown_anchor_is_neither_in_the_registry_nor_on_screen() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.teleport", None).await;
        let error = failed(&rt, ErrorCode::UnknownAnchor);
        assert!(
            error.message.contains("widgets.teleport"),
            "{}",
            error.message
        );
        assert_eq!(rt.route, "/widgets");
        tools.close().await;
    });
}

#[test]
fn not_on_screen_names_where_the_registry_expects_the_anchor() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("claim.approve", None).await;
        let error = failed(&rt, ErrorCode::NotOnScreen);
        assert!(error.message.contains("claim.approve"), "{}", error.message);
        assert!(error.message.contains("claim-detail"), "{}", error.message);
        assert_eq!(rt.route, "/widgets");
        tools.close().await;
    });
}

#[test]
fn not_on_screen_for_a_key_that_is_not_there() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/claims").await;
        let rt = tools.invoke("claims.open", Some("9999")).await;
        let error = failed(&rt, ErrorCode::NotOnScreen);
        assert!(error.message.contains("claims.open"), "{}", error.message);
        assert!(error.message.contains("9999"), "{}", error.message);
        tools.close().await;
    });
}

#[test]
fn not_on_screen_for_a_control_hidden_by_css() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.hidden", None).await;
        let error = failed(&rt, ErrorCode::NotOnScreen);
        assert!(
            error.message.contains("widgets.hidden"),
            "{}",
            error.message
        );
        tools.close().await;
    });
}

#[test]
fn ambiguous_anchor_says_how_many_controls_match() {
    // One anchor on two controls: a fixture page, since no registry promises it.
    let tools = crate::fixtures::tools();
    block_on(async {
        open(&tools, "/twins.html").await;
        let rt = tools.invoke("page.twin", None).await;
        let error = failed(&rt, ErrorCode::AmbiguousAnchor);
        assert!(error.message.contains("page.twin"), "{}", error.message);
        let numbers: Vec<&str> = error
            .message
            .split(|c: char| !c.is_ascii_digit())
            .filter(|n| !n.is_empty())
            .collect();
        assert!(numbers.contains(&"2"), "{}", error.message);
        tools.close().await;
    });
}

#[test]
fn ambiguous_anchor_for_a_row_control_named_without_its_key() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/claims").await;
        let rt = tools.invoke("claims.open", None).await;
        let error = failed(&rt, ErrorCode::AmbiguousAnchor);
        assert!(error.message.contains("claims.open"), "{}", error.message);
        assert!(
            error.message.contains("1042"),
            "the keys are listed: {}",
            error.message
        );
        assert_eq!(rt.route, "/claims");
        tools.close().await;
    });
}

#[test]
fn disabled_names_the_control_in_the_words_on_screen() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.disabled", None).await;
        let error = failed(&rt, ErrorCode::Disabled);
        assert!(
            error.message.contains("widgets.disabled"),
            "{}",
            error.message
        );
        assert!(error.message.contains("Archive"), "{}", error.message);
        assert_eq!(rt.label.as_deref(), Some("Archive"));

        open(&tools, "/claims/1046").await;
        let rt = tools.invoke("claim.escalate", None).await;
        let error = failed(&rt, ErrorCode::Disabled);
        assert!(
            error.message.contains("claim.escalate"),
            "{}",
            error.message
        );
        assert!(error.message.contains("Escalate"), "{}", error.message);
        assert_eq!(rt.route, "/claims/1046");
        tools.close().await;
    });
}

#[test]
fn obscured_names_what_covers_the_control_and_clicks_nothing() {
    let (tools, probe) = probed_tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.covered", None).await;
        let error = failed(&rt, ErrorCode::Obscured);
        assert!(
            error.message.contains("widgets.covered"),
            "{}",
            error.message
        );
        assert!(error.message.contains("#overlay"), "{}", error.message);
        assert_eq!(probe.text("#covered-result").await.as_deref(), Some(""));
        tools.close().await;
    });
}

#[test]
fn not_editable_for_a_read_only_field_and_a_button() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.fill("widgets.readonly", "REF-9999").await;
        let error = failed(&rt, ErrorCode::NotEditable);
        assert!(
            error.message.contains("widgets.readonly"),
            "{}",
            error.message
        );
        let screen = rt
            .screen
            .as_ref()
            .expect("a failed fill still reads the screen");
        assert_eq!(
            control(screen, "widgets.readonly", None).value.as_deref(),
            Some("REF-0001")
        );

        let rt = tools.fill("widgets.counter", "3").await;
        let error = failed(&rt, ErrorCode::NotEditable);
        assert!(
            error.message.contains("widgets.counter"),
            "{}",
            error.message
        );
        let screen = rt
            .screen
            .as_ref()
            .expect("a failed fill still reads the screen");
        assert_eq!(
            control(screen, "widgets.counter", None).label,
            "Clicked 0 times"
        );
        tools.close().await;
    });
}

#[test]
fn off_origin_urls_are_refused_and_the_page_stays() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/claims").await;
        for url in [
            "https://example.com/",
            "//example.com/x",
            "javascript:alert(1)",
            "data:text/html,x",
            "file:///etc/passwd",
        ] {
            let rt = tools.navigate(url).await;
            let error = failed(&rt, ErrorCode::OffOrigin);
            assert!(!error.message.is_empty(), "{url}");
            assert_eq!(rt.route_before, "/claims", "{url}");
            assert_eq!(rt.route, "/claims", "{url}");
            let screen = rt
                .screen
                .as_ref()
                .expect("a refused navigate reads the screen");
            assert_eq!(screen.route, "/claims", "{url}");
            assert_eq!(screen.screen.as_deref(), Some("claims-list"), "{url}");
            assert_eq!(screen.dialog, None, "{url} ran script");
        }
        tools.close().await;
    });
}

#[test]
fn timeout_when_the_page_never_stops_changing() {
    let (tools, _) = tools_with(ToolOptions {
        settle_timeout: Duration::from_millis(500),
        ..ToolOptions::default()
    });
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.busy", None).await;
        let error = failed(&rt, ErrorCode::Timeout);
        assert!(error.message.contains("widgets.busy"), "{}", error.message);
        assert_eq!(rt.route, "/widgets");
        tools.close().await;
    });
}

#[test]
fn a_journey_bounds_the_settle_wait_of_its_following_actions() {
    // Through the binary, against the demo app: `set_settle_timeout` bounds the settle of
    // the actions after it, the timeout names the bound it used, and a page that settles
    // is read as ever once the bound is back.
    let dir = crate::cli::journey(
        "settle.rhai",
        r#"navigate("/widgets");
set_settle_timeout(300);
let code = "";
let message = "";
try { invoke("widgets.busy"); } catch (e) { code = e.code; message = e.message; }
expect(code == "timeout", `a page that never settles: ${code}`);
expect(message.contains("300 ms"), `the message names the bound: ${message}`);
expect(message.contains("widgets.busy"), `the message names the control: ${message}`);
set_settle_timeout(5000);
navigate("/widgets");
let rt = invoke("widgets.counter");
let counter = rt.screen.controls.filter(|c| c.anchor == "widgets.counter");
expect(counter[0].label.contains("Clicked 1"), `the click was read: ${counter[0].label}`);
code = "";
try { set_settle_timeout(-1); } catch (e) { code = e.code; }
expect(code == "invalid_argument", `a negative timeout: ${code}`);
"#,
    );
    crate::cli::run_journey(dir.path(), "settle.rhai", &[])
        .exits(0)
        .says("1 passed, 0 failed");
}

#[test]
fn timeout_when_a_page_does_not_load() {
    let (tools, _) = tools_with(ToolOptions {
        load_timeout: Duration::from_secs(1),
        ..ToolOptions::default()
    });
    block_on(async {
        let rt = tools.navigate("/slow?ms=8000").await;
        let error = failed(&rt, ErrorCode::Timeout);
        assert!(error.message.contains("/slow"), "{}", error.message);
        tools.close().await;
    });
}

#[test]
fn timeout_when_a_link_leads_to_a_page_that_does_not_load() {
    let (tools, _) = tools_with(ToolOptions {
        load_timeout: Duration::from_secs(1),
        ..ToolOptions::default()
    });
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.slow-link", None).await;
        let error = failed(&rt, ErrorCode::Timeout);
        assert!(
            error.message.contains("widgets.slow-link"),
            "{}",
            error.message
        );
        assert_eq!(rt.route_before, "/widgets");
        tools.close().await;
    });
}

#[test]
fn navigation_failed_when_the_app_answers_404() {
    let (tools, _) = tools();
    block_on(async {
        for route in ["/no-such-screen", "/claims/9999"] {
            let rt = tools.navigate(route).await;
            let error = failed(&rt, ErrorCode::NavigationFailed);
            assert!(error.message.contains(route), "{}", error.message);
            assert!(error.message.contains("404"), "{}", error.message);
        }
        tools.close().await;
    });
}

#[test]
fn invalid_argument_for_a_made_up_key_name() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.press("widgets.key-target", "Enterr").await;
        let error = failed(&rt, ErrorCode::InvalidArgument);
        assert!(error.message.contains("Enterr"), "{}", error.message);
        assert_eq!(rt.route, "/widgets");
        tools.close().await;
    });
}
