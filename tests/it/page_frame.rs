//! An action reports the page's own frame after its input: from the input reaching the page
//! to the end of the first frame rendered after it. That is the app's part of the round
//! trip, so it must hold the work the app does in its handlers and in that frame, whoever
//! types, and must never be a figure left over from an earlier action.

use std::time::Duration;

use waymark::browser::ChromiumTab;
use waymark::tools::{ErrorCode, ToolOptions, Tools};

use crate::fixtures;
use crate::harness::{block_on, control, failed, ok, open};

/// What each control of `frame-cost.html` makes the page spin for, in milliseconds.
const SPIN_MS: f64 = 40.0;

/// The last action's frame held the `SPIN_MS` the page spun in answer to `what`.
#[track_caller]
fn holds_the_spin(tools: &Tools<ChromiumTab>, what: &str) {
    let frame = tools.last_frame_ms();
    assert!(
        frame.is_some_and(|ms| ms >= SPIN_MS),
        "{what}: the page spun {SPIN_MS} ms, the frame reads {frame:?}"
    );
}

#[test]
fn an_invoke_reports_the_pages_handlers_and_the_frame_after_its_click() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/frame-cost.html").await;
        // Work in the click's handler, in the frame after it, and on the pointer's press
        // before the click: all the page's answer to the one action.
        for (anchor, out) in [
            ("cost.handler", "handled"),
            ("cost.frame", "framed"),
            ("cost.pressed", "pressed"),
        ] {
            let rt = tools.invoke(anchor, None).await;
            assert_eq!(
                control(ok(&rt), "cost.out", None).value.as_deref(),
                Some(out)
            );
            holds_the_spin(&tools, anchor);
            assert!(
                rt.elapsed_ms >= SPIN_MS,
                "{anchor}: the round trip ({} ms) waited for the page's answer",
                rt.elapsed_ms
            );
        }
        ok(&tools.invoke("cost.quick", None).await);
        assert!(
            tools.last_frame_ms().is_some_and(|ms| ms > 0.0),
            "a quick answer has a frame too"
        );
        tools.close().await;
    });
}

#[test]
fn a_fill_reports_the_frame_after_its_typing_whoever_types() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/frame-cost.html").await;
        // Typed in the page; then from outside, as the field has a focus handler of its own.
        for anchor in ["cost.note", "cost.heard-note"] {
            let rt = tools.fill(anchor, "slow").await;
            assert_eq!(
                control(ok(&rt), anchor, None).value.as_deref(),
                Some("slow")
            );
            holds_the_spin(&tools, anchor);
        }
        tools.close().await;
    });
}

#[test]
fn a_key_press_reports_the_page_from_the_keys_press_to_the_frame_after_its_release() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/frame-cost.html").await;
        let rt = tools.press("cost.keyed-note", "a").await;
        assert_eq!(
            control(ok(&rt), "cost.out", None).value.as_deref(),
            Some("keyed")
        );
        holds_the_spin(&tools, "the key's press");
        tools.close().await;
    });
}

#[test]
fn an_action_that_does_not_settle_in_the_page_reports_no_frame() {
    let tools = fixtures::tools();
    block_on(async {
        open(&tools, "/frame-cost.html").await;
        ok(&tools.invoke("cost.handler", None).await);
        assert!(tools.last_frame_ms().is_some());
        // Failed before any input: the last action's frame is not this one's.
        failed(
            &tools.invoke("cost.nowhere", None).await,
            ErrorCode::UnknownAnchor,
        );
        assert_eq!(tools.last_frame_ms(), None);
        ok(&tools.invoke("cost.handler", None).await);
        // Left the document: its frames are gone with it.
        let rt = tools.invoke("cost.leave", None).await;
        assert_eq!(ok(&rt).route, "/members.html");
        assert_eq!(tools.last_frame_ms(), None);
        tools.close().await;
    });
    // Never settled: the page rendered frames, but no answer.
    let tools = fixtures::tools_with(ToolOptions {
        settle_timeout: Duration::from_millis(300),
        ..ToolOptions::default()
    });
    block_on(async {
        open(&tools, "/frame-cost.html").await;
        failed(
            &tools.invoke("cost.restless", None).await,
            ErrorCode::Timeout,
        );
        assert_eq!(tools.last_frame_ms(), None);
        tools.close().await;
    });
}
