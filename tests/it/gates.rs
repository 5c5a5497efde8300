//! The gates a human holds: tab control (take, return, handoff), ownership, consent and the
//! guardrail — enforced in the tools before the page is touched.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use waymark::browser::Tab;
use waymark::control::{ConsentPolicy, Guardrail, Hub, JourneyKind, TabGates, TabState};
use waymark::tools::{ErrorCode, Tools};

use crate::cli::{anchors, journey, run_journey, waymark};
use crate::harness::{block_on, control as control_of, failed, ok, open, probed_tools, tools};

fn gated<T: Tab>(tools: Tools<T>, hub: &Arc<Hub>, consent: ConsentPolicy) -> (Tools<T>, u64) {
    let tab = hub.register("run-a", "test");
    let control = TabGates {
        consent,
        ..script_control(hub, tab, "run-a")
    };
    (tools.with_control(control), tab)
}

/// A scripted journey's gates on `tab` for `run`: consent `allow`, nobody on a terminal,
/// no guardrail, no client to ask.
pub(crate) fn script_control(hub: &Arc<Hub>, tab: u64, run: &str) -> TabGates {
    TabGates {
        hub: Arc::clone(hub),
        tab,
        run: run.into(),
        kind: JourneyKind::Script,
        consent: ConsentPolicy::Allow,
        terminal: false,
        consent_timeout: Duration::from_secs(20),
        guardrail: None,
        asker: None,
    }
}

/// Answers the first question that appears, as a person on the control page would; the
/// question's text comes back.
async fn answer_next(hub: &Hub, approve: bool) -> String {
    for _ in 0..2_000 {
        hub.touch();
        if let Some(q) = hub.questions().first().cloned() {
            hub.answer(q.id, approve).expect("the question is pending");
            return q.text;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("no question was asked");
}

#[test]
fn ask_with_nobody_to_answer_is_consent_unavailable_and_touches_nothing() {
    let hub = Arc::new(Hub::new());
    let (tools, _) = tools();
    let (tools, _) = gated(tools, &hub, ConsentPolicy::Ask);
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.counter", None).await;
        let e = failed(&rt, ErrorCode::ConsentUnavailable);
        assert!(
            e.message
                .contains("Press \"Clicked 0 times\" (widgets.counter) on /widgets?"),
            "{}",
            e.message
        );
        assert!(rt.screen.is_none(), "a refused call reads nothing");
        let screen = ok(&tools.read_screen().await).clone();
        assert_eq!(
            control_of(&screen, "widgets.counter", None).label,
            "Clicked 0 times"
        );
        tools.close().await;
    });
}

#[test]
fn an_approved_question_runs_the_action_and_a_denied_one_does_not() {
    let hub = Arc::new(Hub::new());
    let (tools, _) = tools();
    let (tools, _) = gated(tools, &hub, ConsentPolicy::Ask);
    block_on(async {
        open(&tools, "/widgets").await;
        hub.touch(); // a control page is open
        let (rt, question) = tokio::join!(
            tools.invoke("widgets.counter", None),
            answer_next(&hub, true)
        );
        assert_eq!(
            question,
            "Press \"Clicked 0 times\" (widgets.counter) on /widgets?"
        );
        assert_eq!(
            control_of(ok(&rt), "widgets.counter", None).label,
            "Clicked 1 times"
        );

        let (rt, question) = tokio::join!(
            tools.fill("widgets.key-target", "hello"),
            answer_next(&hub, false)
        );
        assert_eq!(
            question,
            "Fill \"Key target\" (widgets.key-target) with \"hello\" on /widgets?"
        );
        failed(&rt, ErrorCode::ConsentDenied);
        let screen = ok(&tools.read_screen().await).clone();
        assert_eq!(
            control_of(&screen, "widgets.key-target", None)
                .value
                .as_deref(),
            Some("")
        );

        // A secret field's value is never repeated in the question.
        let (rt, question) = tokio::join!(
            tools.fill("widgets.secret", "s3cret!"),
            answer_next(&hub, false)
        );
        failed(&rt, ErrorCode::ConsentDenied);
        assert!(
            question.contains("with a secret value") && !question.contains("s3cret!"),
            "{question}"
        );
        tools.close().await;
    });
}

#[test]
fn the_guardrail_denies_before_anyone_is_asked_and_names_itself() {
    let hub = Arc::new(Hub::new());
    let rail = Guardrail::parse("deny:\n  - anchor: order.submit\n", Path::new("guard.yaml"))
        .expect("a guardrail");
    let (tools, _) = tools();
    let tab = hub.register("run-a", "test");
    let tools = tools.with_control(TabGates {
        guardrail: Some(Arc::new(rail)),
        ..script_control(&hub, tab, "run-a")
    });
    block_on(async {
        open(&tools, "/orders/42").await;
        let rt = tools.invoke("order.submit", None).await;
        let e = failed(&rt, ErrorCode::ConsentDenied);
        assert!(
            e.message.contains("the guardrail `guard.yaml` denies"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("{anchor: order.submit}"),
            "{}",
            e.message
        );
        assert_eq!(rt.route, "/orders/42", "nothing was submitted");
        tools.close().await;
    });
}

#[test]
fn a_taken_tab_pauses_reads_and_actions_until_control_returns_with_what_changed() {
    let hub = Arc::new(Hub::new());
    let (tools, probe) = probed_tools();
    let (tools, tab) = gated(tools, &hub, ConsentPolicy::Allow);
    block_on(async {
        open(&tools, "/widgets").await;
        hub.take(tab).unwrap();
        failed(&tools.read_screen().await, ErrorCode::PausedByUser);
        failed(
            &tools.invoke("widgets.counter", None).await,
            ErrorCode::PausedByUser,
        );
        // The person works in the tab meanwhile.
        probe.person_types("#w-key", "person").await;
        hub.give_back(tab).unwrap();
        let rt = tools.read_screen().await;
        ok(&rt);
        let changes = rt
            .changes
            .as_ref()
            .expect("the first read after return reports changes");
        assert_eq!(changes.changed, ["widgets.key-target"]);
        assert_eq!(rt.route_before, "/widgets");
        // Only the first read after the return reports them.
        assert!(tools.read_screen().await.changes.is_none());
        tools.close().await;
    });
}

#[test]
fn another_run_is_not_the_tab_s_owner() {
    let hub = Arc::new(Hub::new());
    let owned = hub.register("run-a", "first");
    let (tools, _) = tools();
    let tools = tools.with_control(script_control(&hub, owned, "run-b"));
    block_on(async {
        let e = failed(&tools.navigate("/widgets").await, ErrorCode::NotOwner).clone();
        assert!(
            e.message.contains("belongs to run `run-a`"),
            "{}",
            e.message
        );
        failed(&tools.read_screen().await, ErrorCode::NotOwner);
        tools.close().await;
    });
}

#[test]
fn a_handoff_finishes_on_done_and_what_the_person_typed_stays_theirs() {
    let hub = Arc::new(Hub::new());
    let (tools, probe) = probed_tools();
    let (tools, tab) = gated(tools, &hub, ConsentPolicy::Allow);
    block_on(async {
        open(&tools, "/login").await;
        let person = async {
            while hub.tab(tab).map(|t| t.state) != Some(TabState::Handoff) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            assert_eq!(
                hub.tab(tab).unwrap().handoff_reason.as_deref(),
                Some("sign in")
            );
            probe.person_types("#login-username", "agatha.person").await;
            hub.done(tab).unwrap();
        };
        let (rt, ()) = tokio::join!(tools.handoff("sign in"), person);
        assert!(rt.ok, "{:?}", rt.error);
        assert_eq!(rt.route, "/login");
        assert!(
            rt.screen.is_none(),
            "a handoff returns where the page is, nothing more"
        );
        let screen = ok(&tools.read_screen().await).clone();
        assert_eq!(
            control_of(&screen, "login.username", None).value.as_deref(),
            Some("[redacted]"),
            "typed during the handoff"
        );
        let raw = tools.last_observation().expect("a read is held");
        assert!(
            !serde_json::to_string(&raw)
                .unwrap()
                .contains("agatha.person")
        );
        tools.close().await;
    });
}

#[test]
fn a_handoff_nobody_finishes_times_out() {
    let hub = Arc::new(Hub::new());
    let (tools, _) = crate::harness::tools_with(waymark::tools::ToolOptions {
        handoff_timeout: Duration::from_millis(300),
        ..Default::default()
    });
    let (tools, tab) = gated(tools, &hub, ConsentPolicy::Allow);
    block_on(async {
        open(&tools, "/login").await;
        let rt = tools.handoff("2FA code").await;
        failed(&rt, ErrorCode::HandoffTimedOut);
        assert_eq!(
            hub.tab(tab).unwrap().state,
            TabState::Agent,
            "the tab is the run's again"
        );
        tools.close().await;
    });
}

#[test]
fn agents_ask_before_typing_after_untrusted_text_was_read() {
    let hub = Arc::new(Hub::new());
    let (tools, _) = tools();
    let tab = hub.register("run-a", "agent");
    let tools = tools.with_control(TabGates {
        kind: JourneyKind::Agent,
        ..script_control(&hub, tab, "run-a")
    });
    block_on(async {
        open(&tools, "/widgets").await;
        // Pressing is allowed silently; typing after reading the page asks.
        ok(&tools.invoke("widgets.counter", None).await);
        let rt = tools.fill("widgets.key-target", "x").await;
        let e = failed(&rt, ErrorCode::ConsentUnavailable);
        assert!(
            e.message
                .contains("typing after untrusted page text was read"),
            "{}",
            e.message
        );
        tools.close().await;
    });
}

#[test]
fn a_read_only_surface_offers_no_acting_function() {
    let dir = journey(
        "readonly.rhai",
        r#"navigate("/widgets");
let s = read_screen();
invoke("widgets.counter");
"#,
    );
    run_journey(dir.path(), "readonly.rhai", &["--read-only"])
        .exits(1)
        .says("`invoke` is not available on a read-only surface")
        .says("readonly.rhai:3:");
}

#[test]
fn consent_ask_in_a_run_without_a_terminal_or_page_fails_unavailable_and_the_trace_says_so() {
    let dir = journey(
        "ask.rhai",
        r#"navigate("/widgets");
invoke("widgets.counter");
"#,
    );
    let traces = dir.path().join("traces");
    let traces_arg = traces.display().to_string();
    let run = crate::cli::waymark(
        dir.path(),
        [
            "--anchors",
            crate::cli::anchors().as_str(),
            "--consent",
            "ask",
            "run",
            "--trace",
            traces_arg.as_str(),
            "ask.rhai",
        ],
        &[],
    );
    run.exits(1).says("consent_unavailable");
    let trace = std::fs::read_to_string(traces.join("ask.jsonl")).expect("the trace");
    assert!(
        trace.contains(r#""gate":"consent","passed":false"#),
        "{trace}"
    );
}

#[test]
fn a_guardrail_file_that_is_not_one_is_bad_input() {
    let dir = journey("j.rhai", "navigate(\"/widgets\");\n");
    std::fs::write(dir.path().join("guard.yaml"), "deny:\n  - anchr: x\n").unwrap();
    run_journey(dir.path(), "j.rhai", &["--guardrail", "guard.yaml"])
        .exits(2)
        .says("guard.yaml:2:")
        .says("anchr");
}

#[test]
fn bench_presses_nothing_a_journey_could_not() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(
        dir.path().join("guard.yaml"),
        "deny:\n  - anchor: order.submit\n",
    )
    .expect("write the guardrail");
    std::fs::write(dir.path().join("bad.yaml"), "deny:\n  - anchr: x\n").expect("write");
    let anchors = anchors();
    let bench = |gates: &[&str]| {
        let mut args = vec!["--anchors", anchors.as_str()];
        args.extend_from_slice(gates);
        args.extend([
            "bench",
            "/orders/42",
            "--runs",
            "1",
            "--invoke",
            "order.submit",
        ]);
        waymark(dir.path(), args, &[])
    };
    bench(&[]).exits(0).says("order.submit");
    bench(&["--guardrail", "guard.yaml"])
        .exits(1)
        .says("invoke `order.submit` failed: consent_denied")
        .says("the guardrail `guard.yaml` denies");
    bench(&["--consent", "deny"])
        .exits(1)
        .says("invoke `order.submit` failed: consent_denied");
    bench(&["--read-only"])
        .exits(1)
        .says("invoke `order.submit` failed: read_only_surface");
    bench(&["--guardrail", "bad.yaml"])
        .exits(2)
        .says("bad.yaml:2:")
        .says("anchr");
}
