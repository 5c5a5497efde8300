//! Dialogs: a JavaScript alert never hangs a journey and is reported on the screen; a
//! modal dialog is named in the read and its controls can be used.

use std::time::Duration;

use crate::harness::{block_on, bounded, control, ok, open, probed_tools, saves_of, tools};

#[test]
fn a_javascript_alert_does_not_hang_and_is_reported() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let limit = Duration::from_secs(60);
        let rt = bounded(
            limit,
            "invoking `widgets.alert`",
            tools.invoke("widgets.alert", None),
        )
        .await;
        let screen = ok(&rt);
        let dialog = screen.dialog.as_deref().expect("the alert is reported");
        assert!(dialog.contains("Heads up"), "{dialog}");
        assert!(
            screen.confidence < 1.0,
            "an answered alert lowers confidence"
        );

        // the page is not blocked: it still reads and reacts
        let after = bounded(
            limit,
            "invoking `widgets.counter`",
            tools.invoke("widgets.counter", None),
        )
        .await;
        assert_eq!(
            control(ok(&after), "widgets.counter", None).label,
            "Clicked 1 times"
        );
        tools.close().await;
    });
}

#[test]
fn a_modal_dialog_is_named_and_its_confirm_rejects_the_claim() {
    // claim 1044 is rejected by this test only
    let (tools, _) = tools();
    block_on(async {
        let rejected_before = saves_of("claim.reject-confirm");
        open(&tools, "/claims/1044").await;
        let rt = tools.invoke("claim.reject", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.route, "/claims/1044");
        assert_eq!(screen.dialog.as_deref(), Some("Reject claim 1044?"));
        assert_eq!(screen.focus.as_deref(), Some("claim.reject-reason"));
        let confirm = control(screen, "claim.reject-confirm", None);
        assert!(confirm.visible);
        assert_eq!(confirm.region, "dialog");

        ok(&tools
            .fill("claim.reject-reason", "Duplicate of claim 1040")
            .await);
        let rt = tools.invoke("claim.reject-confirm", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.label.as_deref(), Some("Confirm rejection"));
        assert_eq!(rt.route_before, "/claims/1044");
        assert_eq!(screen.route.split('?').next(), Some("/claims"));
        assert_eq!(screen.screen.as_deref(), Some("claims-list"));
        assert_eq!(screen.dialog, None);
        assert_eq!(saves_of("claim.reject-confirm"), rejected_before + 1);

        let detail = open(&tools, "/claims/1044").await;
        assert!(
            control(&detail, "claim.reject", None).disabled,
            "the claim is closed"
        );
        tools.close().await;
    });
}

#[test]
fn a_modal_dialog_takes_input_and_closes() {
    let (tools, probe) = probed_tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.open-dialog", None).await;
        assert_eq!(ok(&rt).dialog.as_deref(), Some("Rename item"));
        ok(&tools.fill("widgets.dialog-name", "Quarterly report").await);
        let rt = tools.invoke("widgets.dialog-ok", None).await;
        let screen = ok(&rt);
        assert_eq!(screen.dialog, None);
        assert_eq!(
            probe.text("#rename-result").await.as_deref(),
            Some("Name: Quarterly report")
        );
        tools.close().await;
    });
}
