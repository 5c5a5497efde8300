//! Issue 51, items 2 and 3: the pointer and the keys as a hand uses them, on pages of ours
//! (`tests/fixtures/audit/clicks.html`, `exit-intent.html`): right, middle, double and
//! modified clicks fire the events Playwright's own clicks fire (playwright-core, on the
//! same Debian Chromium, is the oracle); `nth` picks the control Playwright's
//! `locator.nth` picks, and past the last says how many there are; key chords
//! (`Control+A`, `Shift+Tab`) on a control and on the focus; `move_pointer` out of the
//! page opens an exit-intent popup; `scroll` and `scroll_to`.

use std::sync::Arc;

use waymark::registry::Registry;
use waymark::tools::{Call, Gateway, ToolOptions, Tools, Verb};

use crate::fixtures;
use crate::harness::{Probe, ProbedTab, block_on, control, failed, ok, probed_tools_at, value};
use waymark::tools::ErrorCode;

fn tools() -> (Tools<ProbedTab>, Probe) {
    probed_tools_at(
        fixtures::base(),
        Arc::new(Registry::empty()),
        ToolOptions::default(),
    )
}

/// A journey's call, read from its Rhai map as a journey writes it.
fn call(verb: Verb, fields: serde_json::Value) -> Call {
    let map: rhai::Map = rhai::serde::to_dynamic(fields)
        .expect("the fields convert")
        .cast();
    Call::from_rhai(verb, map).unwrap_or_else(|e| panic!("{e}"))
}

/// `call` through `gateway`, its future on the heap (a gateway call's future is large in a
/// debug build).
async fn through(gateway: &Gateway<ProbedTab>, call: &Call) -> waymark::tools::RoundTrip {
    Box::pin(gateway.call(call)).await.expect("a round trip")
}

/// Runs `f` on a thread with room for a gateway call's future on its stack (large in a
/// debug build; a test thread's 2 MB is not enough for every call).
fn roomy<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(32 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The page's event log (`window.log`).
async fn log(probe: &Probe) -> Vec<String> {
    serde_json::from_value(probe.value("window.log").await).expect("the log is strings")
}

/// tests/playwright/pointer.mjs's answers on the clicks page.
fn playwright() -> Option<serde_json::Value> {
    let url = fixtures::base().join("clicks.html").expect("a URL");
    crate::harness::playwright_oracle("pointer.mjs", &[url.as_str()])
}

#[test]
fn right_double_middle_and_modified_clicks_fire_what_playwrights_fire() {
    roomy(right_double_middle_and_modified_clicks_fire_what_playwrights_fire_);
}

fn right_double_middle_and_modified_clicks_fire_what_playwrights_fire_() {
    let (tools, probe) = tools();
    let gateway = Gateway::new(Arc::new(tools));
    let clicks = [
        ("right", serde_json::json!({"button": "right"})),
        ("double", serde_json::json!({"clicks": 2})),
        ("middle", serde_json::json!({"button": "middle"})),
        (
            "modified",
            serde_json::json!({"modifiers": ["Control", "Shift"]}),
        ),
    ];
    let mut ours = serde_json::Map::new();
    block_on(async {
        for (name, how) in clicks {
            let go = call(Verb::Navigate, serde_json::json!({"route": "/clicks.html"}));
            ok(&through(&gateway, &go).await);
            let mut fields = how.clone();
            fields["anchor"] = "clicks.pad".into();
            let rt = through(&gateway, &call(Verb::Invoke, fields)).await;
            let screen = ok(&rt);
            assert_eq!(
                rt.anchor.as_deref(),
                Some("clicks.pad"),
                "the control alone"
            );
            match name {
                // The page's own context menu, opened by the right click.
                "right" => assert!(control(screen, "clicks.menu.copy", None).visible),
                "double" => assert_eq!(value(screen, "clicks.status"), "double"),
                _ => {}
            }
            ours.insert(name.to_string(), serde_json::json!(log(&probe).await));
        }
    });
    let ours = serde_json::Value::Object(ours);
    assert_eq!(
        ours["right"],
        serde_json::json!(["mousedown 2 1 ", "contextmenu 2 0 "])
    );
    if let Some(theirs) = playwright() {
        assert_eq!(ours, theirs["logs"], "Playwright's clicks on the same page");
    }
}

#[test]
fn nth_picks_the_control_playwrights_nth_picks_and_past_the_last_says_how_many() {
    roomy(nth_picks_the_control_playwrights_nth_picks_and_past_the_last_says_how_many_);
}

fn nth_picks_the_control_playwrights_nth_picks_and_past_the_last_says_how_many_() {
    let (tools, _probe) = tools();
    let gateway = Gateway::new(Arc::new(tools));
    block_on(async {
        let go = call(Verb::Navigate, serde_json::json!({"route": "/clicks.html"}));
        ok(&through(&gateway, &go).await);
        // Three Delete buttons, no key: the anchor alone is ambiguous.
        let plain = call(Verb::Invoke, serde_json::json!({"anchor": "row.delete"}));
        let rt = through(&gateway, &plain).await;
        failed(&rt, ErrorCode::AmbiguousAnchor);
        let second = call(
            Verb::Invoke,
            serde_json::json!({"anchor": "row.delete", "nth": 1}),
        );
        let rt = through(&gateway, &second).await;
        let status = value(ok(&rt), "clicks.status");
        assert_eq!(status, "deleted beta");
        if let Some(theirs) = playwright() {
            assert_eq!(status, theirs["nth"], "Playwright's locator.nth(1)");
        }
        // Past the last: not on screen, with how many there are.
        gateway.set_action_timeout(Some(std::time::Duration::from_millis(300)));
        let past = call(
            Verb::Invoke,
            serde_json::json!({"anchor": "row.delete", "nth": 3}),
        );
        let rt = through(&gateway, &past).await;
        let error = failed(&rt, ErrorCode::NotOnScreen);
        assert!(error.message.contains("there are 3"), "{}", error.message);
        // wait_for and hover take it too; over MCP as well.
        let wait = call(
            Verb::WaitFor,
            serde_json::json!({"anchor": "row.delete", "nth": 2}),
        );
        ok(&through(&gateway, &wait).await);
        let wait = call(
            Verb::WaitFor,
            serde_json::json!({"anchor": "row.delete", "nth": 5, "timeout_ms": 200}),
        );
        let rt = through(&gateway, &wait).await;
        let error = failed(&rt, ErrorCode::Timeout);
        assert!(error.message.contains("nth 5 of 3"), "{}", error.message);
        let agent = Call::parse(
            "invoke",
            serde_json::json!({"anchor": "row.delete", "nth": 2}),
        )
        .expect("an agent may name nth");
        let rt = through(&gateway, &agent).await;
        assert_eq!(value(ok(&rt), "clicks.status"), "deleted gamma");
    });
}

#[test]
fn chords_press_together_on_a_control_and_on_the_focus() {
    roomy(chords_press_together_on_a_control_and_on_the_focus_);
}

fn chords_press_together_on_a_control_and_on_the_focus_() {
    let (tools, probe) = tools();
    block_on(async {
        ok(&tools.navigate("/clicks.html").await);
        ok(&tools.fill("form.first", "Ada Lovelace").await);
        // Control+A selects the field's text; a key then replaces it.
        ok(&tools.press("form.first", "Control+A").await);
        let selected = probe
            .value("(function(){var f=document.getElementById('first');return [f.selectionStart,f.selectionEnd];})()")
            .await;
        assert_eq!(selected, serde_json::json!([0, 12]));
        let screen = ok(&tools.press("form.first", "Shift+KeyX").await).clone();
        assert_eq!(value(&screen, "form.first"), "X");
        // Tab to the next field, Shift+Tab back, on whatever has the focus.
        let gateway = Gateway::new(Arc::new(tools));
        let tab = call(Verb::Press, serde_json::json!({"key_name": "Tab"}));
        let screen = ok(&through(&gateway, &tab).await).clone();
        assert_eq!(screen.focus.as_deref(), Some("form.note"));
        let back = call(Verb::Press, serde_json::json!({"key_name": "Shift+Tab"}));
        let rt = through(&gateway, &back).await;
        assert_eq!(ok(&rt).focus.as_deref(), Some("form.first"));
        // A chord of something that is no key is refused before anything is pressed.
        let bad = call(Verb::Press, serde_json::json!({"key_name": "Control+Nope"}));
        let rt = through(&gateway, &bad).await;
        failed(&rt, ErrorCode::InvalidArgument);
    });
}

#[test]
fn the_pointer_leaving_through_the_top_opens_the_exit_intent_popup() {
    roomy(the_pointer_leaving_through_the_top_opens_the_exit_intent_popup_);
}

fn the_pointer_leaving_through_the_top_opens_the_exit_intent_popup_() {
    let (tools, probe) = tools();
    block_on(async {
        let screen = ok(&tools.navigate("/exit-intent.html").await).clone();
        assert!(!control(&screen, "offer.claim", None).visible);
        ok(&tools.move_pointer(200.0, 150.0).await);
        // Out through the side: no offer.
        let rt = tools.move_pointer(-1.0, 150.0).await;
        assert!(!control(ok(&rt), "offer.claim", None).visible);
        ok(&tools.move_pointer(200.0, 150.0).await);
        // Out through the top: the offer, as a person heading for the tabs gets it.
        let rt = tools.move_pointer(200.0, -1.0).await;
        let screen = ok(&rt);
        assert!(control(screen, "offer.claim", None).visible);
        let changes = rt.changes.as_ref().expect("what changed");
        assert!(
            changes
                .changed
                .iter()
                .chain(changes.added.iter())
                .any(|c| c.to_string().contains("offer.claim")),
            "{changes:?}"
        );
        let left: Vec<String> =
            serde_json::from_value(probe.value("window.left").await).expect("strings");
        assert!(left.iter().any(|l| l.starts_with("mouseleave")), "{left:?}");
        assert!(left.iter().any(|l| l.starts_with("mouseout")), "{left:?}");
        // The popup's button is a control like any other; hovering a point works too.
        let gateway = Gateway::new(Arc::new(tools));
        let hover = call(Verb::Hover, serde_json::json!({"x": 20.0, "y": 20.0}));
        ok(&through(&gateway, &hover).await);
    });
}

#[test]
fn scroll_moves_the_page_and_scroll_to_brings_a_control_into_view() {
    let (tools, probe) = tools();
    block_on(async {
        let screen = ok(&tools.navigate("/clicks.html").await).clone();
        assert!(!control(&screen, "float.top", None).visible);
        let rt = tools
            .scroll(&waymark::tools::ScrollArgs {
                x: None,
                y: Some(900.0),
            })
            .await;
        // The floating menu the page shows once scrolled past 600 px, in the viewport; the
        // form scrolled out of it.
        let screen = ok(&rt);
        let controls = &screen.controls;
        assert!(controls.in_viewport(control(screen, "float.top", None)));
        assert!(!controls.in_viewport(control(screen, "form.first", None)));
        let json = serde_json::to_value(screen).expect("a screen serializes");
        let shown = |anchor: &str| {
            json["controls"]
                .as_array()
                .and_then(|cs| cs.iter().find(|c| c["anchor"] == anchor))
                .map(|c| c["in_viewport"].clone())
        };
        assert_eq!(shown("float.top"), Some(serde_json::json!(true)));
        assert_eq!(shown("form.first"), Some(serde_json::json!(false)));
        assert_eq!(probe.value("scrollY").await, serde_json::json!(900));
        ok(&tools.scroll_to("form.first", None).await);
        let y = probe.value("scrollY").await.as_f64().expect("a number");
        assert!(y < 100.0, "scrolled back to the form: {y}");
        ok(&tools.scroll_to("foot.more", None).await);
        let y = probe.value("scrollY").await.as_f64().expect("a number");
        assert!(y > 1500.0, "scrolled to the foot: {y}");
        let rt = tools.scroll(&waymark::tools::ScrollArgs::default()).await;
        failed(&rt, ErrorCode::InvalidArgument);
    });
}

/// Every new form, in Rhai, run by the CLI with a trace: each step is recorded with its
/// verb, target and time (`elapsed_ms`), which the note of issue 51 quotes.
#[test]
fn a_journey_clicks_chords_scrolls_and_leaves_the_page_in_rhai_with_a_trace() {
    let dir = crate::cli::journey(
        "pointer.rhai",
        r#"let shown = |screen, anchor| screen.controls.filter(|c| c.anchor == anchor && c.visible).len() > 0;
let value = |screen, anchor| screen.controls.filter(|c| c.anchor == anchor)[0].value;
navigate("/clicks.html");
let r = invoke("clicks.pad", #{button: "right"});
expect(shown.call(r.screen, "clicks.menu.copy"), "the context menu");
// The menu lies over the pad now, as a real one would: a fresh page for the next click.
navigate("/clicks.html");
let r = invoke("clicks.pad", #{clicks: 2, modifiers: ["Shift"]});
expect(value.call(r.screen, "clicks.status") == "double", "a double click");
navigate("/clicks.html");
let r = invoke(#{x: 120, y: 50, clicks: 2});
expect(value.call(r.screen, "clicks.status") == "double", "a double click on a point");
let r = invoke(#{anchor: "row.delete", nth: 1});
expect(value.call(r.screen, "clicks.status") == "deleted beta", "the second Delete");
set_action_timeout(200);
let code = "";
try { invoke(#{anchor: "row.delete", nth: 3}); } catch (e) { code = e.code; }
expect(code == "not_on_screen", `past the last: ${code}`);
set_action_timeout(5000);
wait_for(#{anchor: "row.delete", nth: 2});
fill(#{anchor: "form.first", nth: 0}, "Ada");
press("form.first", "Control+A");
let r = press("Shift+KeyX");
expect(value.call(r.screen, "form.first") == "X", "Shift+KeyX on the focus");
let r = press("Tab");
expect(r.screen.focus == "form.note", `Tab: ${r.screen.focus}`);
let r = press("Shift+Tab");
expect(r.screen.focus == "form.first", `Shift+Tab: ${r.screen.focus}`);
let r = scroll(#{y: 900});
expect(shown.call(r.screen, "float.top"), "the floating menu");
let float = r.screen.controls.filter(|c| c.anchor == "float.top")[0];
expect(float.in_viewport, "the floating menu is in the viewport");
let first = r.screen.controls.filter(|c| c.anchor == "form.first")[0];
expect(!first.in_viewport, "the form scrolled out of the viewport");
scroll_to("foot.more");
hover(#{x: 10, y: 10});
navigate("/exit-intent.html");
move_pointer(#{x: 200, y: 150});
let r = move_pointer(#{x: 200, y: -1});
expect(shown.call(r.screen, "offer.claim"), "the exit-intent offer");
"#,
    );
    let base = fixtures::base();
    let run = crate::cli::waymark(
        dir.path(),
        [
            "--base-url",
            base.as_str(),
            "run",
            "--trace",
            "traces",
            "pointer.rhai",
        ],
        &[],
    );
    run.exits(0).says("1 passed");
    let trace = std::fs::read_to_string(dir.path().join("traces/pointer.jsonl"))
        .expect("the journey's trace");
    let steps: Vec<serde_json::Value> = trace
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v.get("action").is_some())
        .collect();
    let mut seen = std::collections::BTreeMap::new();
    for step in &steps {
        let verb = step["action"]["verb"].as_str().unwrap_or("?").to_string();
        let target = step["action"]["target"].to_string();
        let ms = step["elapsed_ms"].as_f64().unwrap_or(-1.0);
        eprintln!("step {verb} {target}: {ms:.1} ms");
        seen.insert(verb, ms);
    }
    for verb in [
        "invoke",
        "press",
        "move_pointer",
        "scroll",
        "scroll_to",
        "hover",
        "wait_for",
    ] {
        assert!(
            seen.contains_key(verb),
            "no `{verb}` step in the trace: {trace}"
        );
    }
    assert!(
        trace.contains("clicks.pad (Right-click)") && trace.contains("row.delete (nth 1)"),
        "the trace names the click and the nth: {trace}"
    );
}

/// Under consent `ask` with nobody to answer, a right click and a press of the n-th
/// control are refused in words that name them as the person sees them; the pointer's
/// reads (`move_pointer`, `scroll`, `scroll_to`) are never asked.
#[test]
fn a_right_click_is_asked_in_its_own_words_and_the_pointers_reads_are_not_asked() {
    use waymark::control::{ConsentPolicy, Hub};
    let hub = Arc::new(Hub::new());
    let (tools, _probe) = tools();
    let tab = hub.register("run-a", "test");
    let gates = waymark::control::TabGates {
        consent: ConsentPolicy::Ask,
        ..crate::gates::script_control(&hub, tab, "run-a")
    };
    let tools = tools.with_control(gates);
    let right = waymark::browser::Click {
        button: waymark::browser::Button::Right,
        count: 1,
        modifiers: vec![],
    };
    block_on(async {
        ok(&tools.navigate("/clicks.html").await);
        let rt = tools.click("clicks.pad", None, &right).await;
        let e = failed(&rt, ErrorCode::ConsentUnavailable);
        assert!(
            e.message
                .contains("Right-click \"Pad\" (clicks.pad) on /clicks.html?"),
            "{}",
            e.message
        );
        let nth = waymark::tools::TargetRef::Nth(
            waymark::anchor::AnchorRef::parse("row.delete").expect("an anchor"),
            1,
        );
        let rt = tools.invoke_target(&nth).await;
        let e = failed(&rt, ErrorCode::ConsentUnavailable);
        assert!(
            e.message
                .contains("Press \"Delete\" (row.delete (nth 1)) on /clicks.html?"),
            "{}",
            e.message
        );
        ok(&tools.move_pointer(10.0, 10.0).await);
        ok(&tools
            .scroll(&waymark::tools::ScrollArgs {
                x: None,
                y: Some(100.0),
            })
            .await);
        ok(&tools.scroll_to("foot.more", None).await);
        tools.close().await;
    });
}

/// Over MCP an agent double-clicks (asked first, in the click's words), presses the n-th
/// of identical controls, moves the pointer out of the page and scrolls (reads: never
/// asked), through the `waymark mcp` binary.
#[test]
fn an_agent_clicks_picks_the_nth_and_leaves_the_page_over_mcp() {
    use crate::mcp::{Person, Session, ok as mcp_ok, run};
    let base = fixtures::base();
    run(async move {
        let s = Session::start(Person::new(true, true), &["--base-url", base.as_str()]).await;
        mcp_ok(
            &s.call("navigate", serde_json::json!({"route": "/clicks.html"}))
                .await,
        );
        let rt = s
            .call(
                "invoke",
                serde_json::json!({"anchor": "clicks.pad", "clicks": 2}),
            )
            .await;
        let value = mcp_ok(&rt);
        let status = value["screen"]["controls"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["anchor"] == "clicks.status"))
            .map(|c| c["value"].clone());
        assert_eq!(status, Some(serde_json::json!("double")), "{value}");
        let rt = s
            .call(
                "invoke",
                serde_json::json!({"anchor": "row.delete", "nth": 2}),
            )
            .await;
        mcp_ok(&rt);
        let asked = s.asked();
        assert!(
            asked.iter().any(|q| q.starts_with("Double-click \"Pad\"")),
            "{asked:?}"
        );
        assert!(
            asked.iter().any(|q| q.contains("(row.delete (nth 2))")),
            "{asked:?}"
        );
        let before = s.asked().len();
        mcp_ok(&s.call("scroll", serde_json::json!({"y": 900})).await);
        mcp_ok(
            &s.call("scroll_to", serde_json::json!({"anchor": "form.first"}))
                .await,
        );
        mcp_ok(
            &s.call("move_pointer", serde_json::json!({"x": 5, "y": -1}))
                .await,
        );
        assert_eq!(s.asked().len(), before, "the pointer's reads are not asked");
        s.stop().await;
    });
}
