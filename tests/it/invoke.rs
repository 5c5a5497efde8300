//! `invoke`: pressing a control with trusted input. A press that navigates returns the new
//! route and screen; one that does not returns what changed on the screen.

use std::time::Duration;

use crate::fixtures;
use waymark::tools::RoundTrip;

use crate::harness::{block_on, bounded, control, ok, open, tools};

#[test]
fn invoke_that_navigates_returns_the_new_route_and_screen() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/claims").await;
        let rt = tools.invoke("claims.open", Some("1042")).await;
        let screen = ok(&rt);
        assert_eq!(rt.tool, "invoke");
        assert_eq!(rt.anchor.as_deref(), Some("claims.open[1042]"));
        assert_eq!(rt.label.as_deref(), Some("Claim 1042"));
        assert_eq!(rt.route_before, "/claims");
        assert_eq!(rt.route, "/claims/1042");
        assert_eq!(screen.route, "/claims/1042");
        assert_eq!(screen.screen.as_deref(), Some("claim-detail"));
        assert!(screen.title.contains("Claim 1042"), "{}", screen.title);
        control(screen, "claim.approve", None);
        tools.close().await;
    });
}

#[test]
fn invoke_accepts_the_key_inside_the_reference() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/claims").await;
        let rt = tools.invoke("claims.open[1047]", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.anchor.as_deref(), Some("claims.open[1047]"));
        assert_eq!(screen.route, "/claims/1047");
        assert_eq!(screen.screen.as_deref(), Some("claim-detail"));
        tools.close().await;
    });
}

#[test]
fn invoke_that_stays_returns_the_changed_control() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.counter", None).await;
        let screen = ok(&rt);
        assert_eq!(
            rt.label.as_deref(),
            Some("Clicked 0 times"),
            "the label pressed"
        );
        assert_eq!(rt.route_before, "/widgets");
        assert_eq!(rt.route, "/widgets");
        assert_eq!(
            control(screen, "widgets.counter", None).label,
            "Clicked 1 times"
        );
        let changes = rt
            .changes
            .as_ref()
            .expect("a press that stays reports changes");
        assert!(
            changes.changed.iter().any(|c| c == "widgets.counter"),
            "{changes:?}"
        );
        assert!(changes.added.is_empty(), "{changes:?}");
        assert!(changes.removed.is_empty(), "{changes:?}");

        let again = tools.invoke("widgets.counter", None).await;
        assert_eq!(
            control(ok(&again), "widgets.counter", None).label,
            "Clicked 2 times"
        );
        tools.close().await;
    });
}

#[test]
fn invoke_follows_a_link_to_another_screen() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.navigate-link", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.route_before, "/widgets");
        assert_eq!(screen.route, "/claims");
        assert_eq!(screen.screen.as_deref(), Some("claims-list"));
        assert_eq!(
            rt.changes, None,
            "changes are only reported on the same route"
        );
        tools.close().await;
    });
}

#[test]
fn invoke_submits_a_form_and_lands_on_what_it_created() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/returns/new").await;
        ok(&tools.fill("return.order-number", "41").await);
        ok(&tools.fill("return.reason", "Damaged in transit").await);
        ok(&tools.invoke("return.condition", Some("opened")).await);
        let rt = tools.invoke("return.submit", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.route_before, "/returns/new");
        assert!(screen.route.starts_with("/returns/5"), "{}", screen.route);
        assert_eq!(screen.screen.as_deref(), Some("return-detail"));
        control(screen, "return.another", None);
        tools.close().await;
    });
}

/// A control the page changes from a timer it set in answer to the input (12 ms, within the
/// 15 ms window) is waited for: the first window, armed in the page when the input arrives
/// (the click, the key's release, the typing), is a whole window from there.
#[test]
fn a_timer_the_page_sets_in_answer_to_an_action_is_waited_for() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets/later").await;
        let rt = tools.invoke("later.button", None).await;
        let screen = ok(&rt);
        assert_eq!(control(screen, "later.button", None).label, "Answered");
        let changes = rt
            .changes
            .as_ref()
            .expect("a press that stays reports changes");
        assert_eq!(changes.changed, ["later.button"]);
        let rt = tools.fill("later.field", "echoed").await;
        let screen = ok(&rt);
        assert_eq!(
            control(screen, "later.echo", None).value.as_deref(),
            Some("echoed")
        );
        let changes = rt.changes.as_ref().expect("a fill reports changes");
        assert_eq!(changes.changed, ["later.field", "later.echo"]);
        // A key's window is armed by its release, after the press the page answered.
        let rt = tools.press("later.field", "Enter").await;
        let screen = ok(&rt);
        assert_eq!(
            control(screen, "later.echo", None).value.as_deref(),
            Some("pressed Enter")
        );
        tools.close().await;
    });
}

/// What `answers.html` shows as the answer to its last click, as the round trip read it.
fn answer(rt: &RoundTrip) -> Option<&str> {
    control(ok(rt), "answers.later", None).value.as_deref()
}

/// The window armed by the click still waits out the page's answer when the page's handler
/// holds the click's task longer than the window, also when it stops the click where it
/// lands (the document never sees it bubble); and it is armed by the browser's click, not
/// by a click the page's script sends while the button is pressed.
#[test]
fn a_click_the_page_stops_or_precedes_with_its_own_is_still_waited_for() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/answers.html").await;
        let rt = tools.invoke("answers.slow", None).await;
        assert_eq!(answer(&rt), Some("slow later"));
        let rt = tools.invoke("answers.stopped", None).await;
        assert_eq!(answer(&rt), Some("stopped later"));
        let rt = tools.invoke("answers.relay", None).await;
        assert_eq!(answer(&rt), Some("relayed 1"));
        tools.close().await;
    });
}

/// A click answered in an animation frame (the next one, or the one after: a callback
/// that asks for another), or by a resize observer in the frame that lays its change out,
/// is waited for; an animation loop that changes nothing in the DOM does not keep the page
/// from being quiet.
#[test]
fn a_click_answered_in_an_animation_frame_is_waited_for() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/answers.html").await;
        for _ in 0..5 {
            for (button, wanted) in [
                ("answers.framed", "framed"),
                ("answers.framed_twice", "framed twice"),
            ] {
                let rt = tools.invoke(button, None).await;
                assert_eq!(answer(&rt), Some(wanted), "{button}");
            }
        }
        for width in [20, 30, 40] {
            let rt = tools.invoke("answers.resized", None).await;
            assert_eq!(answer(&rt), Some(format!("resized {width}").as_str()));
        }
        let rt = bounded(
            Duration::from_secs(4),
            "the invoke",
            tools.invoke("answers.spinning", None),
        )
        .await;
        assert_eq!(answer(&rt), Some("spinning"));
        tools.close().await;
    });
}

/// A page that keeps its main thread from ever idling (a message loop) but no longer
/// changes is quiet: settle's last look waits behind the page's ready tasks, and when the
/// page starves the background task it waits in, it goes behind them at the page's own
/// priority instead.
#[test]
fn a_page_that_never_idles_but_stops_changing_is_quiet() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/answers.html").await;
        let rt = bounded(
            Duration::from_secs(4),
            "the invoke",
            tools.invoke("answers.loop", None),
        )
        .await;
        assert_eq!(answer(&rt), Some("looping"));
        tools.close().await;
    });
}

/// A target wholly in view is acted on where it is: the page does not move. One out of view
/// (below the page's fold, or below a scroller's) is centred first; one in view but under a
/// sticky header is centred and pressed there.
#[test]
fn only_a_target_out_of_view_is_scrolled_to() {
    let (tools, probe) = fixtures::probed_tools_with(waymark::tools::ToolOptions::default());
    block_on(async {
        open(&tools, "/scrolling.html").await;
        ok(&tools.invoke("scrolling.near", None).await);
        ok(&tools.fill("scrolling.near-field", "typed in place").await);
        assert_eq!(probe.value("scrollY").await, 0);

        let far = tools.invoke("scrolling.far", None).await;
        let at = probe.value("scrollY").await.as_f64().expect("a number");
        assert!(at > 2000.0, "scrolled to the far button: {at}");
        assert_eq!(
            control(ok(&far), "scrolling.pressed", None)
                .value
                .as_deref(),
            Some("near far")
        );

        // Wholly in the viewport, but under the sticky header.
        probe
            .run("window.scrollTo(0, document.getElementById('covered').offsetTop - 20)")
            .await;
        let covered = tools.invoke("scrolling.covered", None).await;
        assert_eq!(
            control(ok(&covered), "scrolling.pressed", None)
                .value
                .as_deref(),
            Some("near far covered")
        );

        // In the viewport's box, but below the panel's own fold.
        probe.run("window.scrollTo(0, 0)").await;
        ok(&tools
            .fill("scrolling.panel-field", "scrolled into the panel")
            .await);
        let panel = probe
            .value("document.getElementById('panel').scrollTop")
            .await
            .as_f64()
            .expect("a number");
        assert!(panel > 0.0, "the panel scrolled: {panel}");
        tools.close().await;
    });
}

/// A press moves the pointer to its point first, as a hand would, and a press in the spot
/// the pointer already holds does not move it again (a move waits for the browser's next
/// frame); another control's press moves it there, and the control sees it come in.
#[test]
fn the_pointer_moves_to_a_control_unless_it_is_there_already() {
    let (tools, probe) = fixtures::probed_tools_with(waymark::tools::ToolOptions::default());
    block_on(async {
        open(&tools, "/pointer.html").await;
        ok(&tools.invoke("pointer.one", None).await);
        let moved = probe.value("window.moves").await;
        assert!(moved.as_u64().is_some_and(|n| n >= 1), "{moved}");
        assert_eq!(
            probe.value("window.entered").await,
            serde_json::json!(["pointer.one"])
        );
        ok(&tools.invoke("pointer.one", None).await);
        assert_eq!(probe.value("window.presses").await, 2);
        assert_eq!(probe.value("window.moves").await, moved, "no move in place");
        ok(&tools.invoke("pointer.two", None).await);
        assert_eq!(probe.value("window.presses").await, 3);
        let now = probe.value("window.moves").await;
        assert!(now.as_u64() > moved.as_u64(), "{now} after {moved}");
        assert_eq!(
            probe.value("window.entered").await,
            serde_json::json!(["pointer.one", "pointer.two"])
        );
        tools.close().await;
    });
}
