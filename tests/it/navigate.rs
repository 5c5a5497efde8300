//! `navigate`: opening a route lands on it, names the screen from the registry and reads
//! the controls there, in one round trip.

use crate::harness::{block_on, control, ok, open, probed_tools, tools};

#[test]
fn navigate_to_a_claim_names_its_screen_and_reads_its_controls() {
    let (tools, _) = tools();
    block_on(async {
        let rt = tools.navigate("/claims/1040").await;
        let screen = ok(&rt);
        assert_eq!(rt.tool, "navigate");
        assert_eq!(rt.anchor, None);
        assert_eq!(rt.route, "/claims/1040");
        assert_eq!(screen.route, "/claims/1040");
        assert_eq!(screen.app, "demo");
        assert_eq!(screen.screen.as_deref(), Some("claim-detail"));
        assert_eq!(screen.status, Some(200));
        assert!(screen.title.contains("Claim 1040"), "{}", screen.title);
        assert!(screen.untrusted, "page text is always marked untrusted");
        assert_eq!(screen.dialog, None);
        assert!(rt.elapsed_ms > 0.0);
        for anchor in [
            "claim.note",
            "claim.approve",
            "claim.reject",
            "claim.escalate",
            "claim.back",
            "nav.claims",
        ] {
            control(screen, anchor, None);
        }
        assert_eq!(control(screen, "claim.approve", None).label, "Approve");
        assert_eq!(control(screen, "claim.approve", None).region, "actions");
        tools.close().await;
    });
}

#[test]
fn navigate_reports_the_route_it_came_from() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/claims").await;
        let rt = tools.navigate("/widgets").await;
        let screen = ok(&rt);
        assert_eq!(rt.route_before, "/claims");
        assert_eq!(rt.route, "/widgets");
        assert_eq!(screen.screen.as_deref(), Some("widgets"));
        tools.close().await;
    });
}

#[test]
fn navigate_keeps_the_query_in_the_route() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/dispatch?day=tomorrow").await;
        assert_eq!(screen.route, "/dispatch?day=tomorrow");
        assert_eq!(screen.screen.as_deref(), Some("dispatch-board"));
        control(&screen, "dispatch.day", None);
        tools.close().await;
    });
}

#[test]
fn navigate_accepts_an_absolute_url_on_the_apps_origin() {
    let (tools, shared) = tools();
    block_on(async {
        let url = shared.base().join("/orders").expect("join a route");
        let screen = open(&tools, url.as_str()).await;
        assert_eq!(screen.route, "/orders");
        assert_eq!(screen.screen.as_deref(), Some("orders-list"));
        assert_eq!(
            screen
                .controls
                .iter()
                .filter(|c| c.anchor == "orders.open")
                .count(),
            3,
            "the three seeded orders"
        );
        tools.close().await;
    });
}

/// The app sees the device waymark drives, a mouse and a keyboard: no touch screen, which
/// chromiumoxide's tab setup emulates by default (and an app would lay itself out for).
#[test]
fn the_app_sees_no_touch_screen() {
    let (tools, probe) = probed_tools();
    block_on(async {
        open(&tools, "/claims/1040").await;
        for (what, expected) in [
            ("navigator.maxTouchPoints", serde_json::json!(0)),
            ("'ontouchstart' in window", serde_json::json!(false)),
            (
                "matchMedia('(any-pointer: coarse)').matches",
                serde_json::json!(false),
            ),
        ] {
            assert_eq!(probe.value(what).await, expected, "{what}");
        }
        tools.close().await;
    });
}
