//! `press`: a named key on a focused control, as trusted keyboard input.

use crate::harness::{block_on, control, ok, open, probed_tools, tools};

#[test]
fn press_enter_reaches_the_focused_field() {
    let (tools, probe) = probed_tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.press("widgets.key-target", "Enter").await;
        let screen = ok(&rt);
        assert_eq!(rt.tool, "press");
        assert_eq!(rt.anchor.as_deref(), Some("widgets.key-target"));
        assert_eq!(rt.label.as_deref(), Some("Key target"));
        assert_eq!(rt.route, "/widgets");
        assert_eq!(screen.focus.as_deref(), Some("widgets.key-target"));
        assert_eq!(
            probe.text("#w-key-status").await.as_deref(),
            Some("Last key: Enter")
        );
        tools.close().await;
    });
}

#[test]
fn press_a_letter_types_it() {
    let (tools, probe) = probed_tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let screen = ok(&tools.press("widgets.key-target", "a").await).clone();
        assert_eq!(
            control(&screen, "widgets.key-target", None)
                .value
                .as_deref(),
            Some("a")
        );
        assert_eq!(
            probe.text("#w-key-status").await.as_deref(),
            Some("Last key: a")
        );
        tools.close().await;
    });
}

#[test]
fn press_escape_closes_a_modal() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let opened = tools.invoke("widgets.open-dialog", None).await;
        assert_eq!(ok(&opened).dialog.as_deref(), Some("Rename item"));
        let rt = tools.press("widgets.dialog-name", "Escape").await;
        let screen = ok(&rt);
        assert_eq!(screen.dialog, None);
        assert!(!control(screen, "widgets.dialog-name", None).visible);
        tools.close().await;
    });
}

#[test]
fn press_enter_on_a_link_navigates() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.press("widgets.navigate-link", "Enter").await;
        let screen = ok(&rt);
        assert_eq!(rt.route_before, "/widgets");
        assert_eq!(screen.route, "/claims");
        assert_eq!(screen.screen.as_deref(), Some("claims-list"));
        tools.close().await;
    });
}
