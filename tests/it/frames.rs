//! Controls inside an open shadow root and inside a same-origin iframe are read, invoked
//! and filled like any other.

use crate::harness::{block_on, control, ok, open, tools};

#[test]
fn shadow_and_frame_controls_are_read_with_labels_and_regions() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/widgets").await;
        let expected = [
            ("widgets.shadow-input", "Shadow field", "textbox", "shadow"),
            (
                "widgets.shadow-button",
                "Shadow clicks: 0",
                "button",
                "shadow",
            ),
            ("frame.input", "Frame field", "textbox", "frame"),
            ("frame.button", "Frame clicks: 0", "button", "frame"),
        ];
        for (anchor, label, role, region) in expected {
            let c = control(&screen, anchor, None);
            assert_eq!(
                (c.label.as_str(), c.role.as_str(), c.region.as_str()),
                (label, role, region),
                "{anchor}"
            );
            assert!(c.visible, "{anchor}");
            assert!(!c.disabled, "{anchor}");
        }
        assert!(control(&screen, "widgets.shadow-input", None).editable);
        assert!(control(&screen, "frame.input", None).editable);
        tools.close().await;
    });
}

#[test]
fn a_button_in_a_shadow_root_can_be_invoked() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.shadow-button", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.label.as_deref(), Some("Shadow clicks: 0"));
        assert_eq!(
            control(screen, "widgets.shadow-button", None).label,
            "Shadow clicks: 1"
        );
        let again = tools.invoke("widgets.shadow-button", None).await;
        assert_eq!(
            control(ok(&again), "widgets.shadow-button", None).label,
            "Shadow clicks: 2"
        );
        tools.close().await;
    });
}

#[test]
fn a_button_in_a_frame_can_be_invoked() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("frame.button", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.label.as_deref(), Some("Frame clicks: 0"));
        assert_eq!(rt.route, "/widgets");
        assert_eq!(
            control(screen, "frame.button", None).label,
            "Frame clicks: 1"
        );
        let again = tools.invoke("frame.button", None).await;
        assert_eq!(
            control(ok(&again), "frame.button", None).label,
            "Frame clicks: 2"
        );
        tools.close().await;
    });
}

#[test]
fn fields_in_a_shadow_root_and_a_frame_can_be_filled() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let shadow = tools.fill("widgets.shadow-input", "in the shadow").await;
        assert_eq!(shadow.label.as_deref(), Some("Shadow field"));
        assert_eq!(
            control(ok(&shadow), "widgets.shadow-input", None)
                .value
                .as_deref(),
            Some("in the shadow")
        );
        let frame = tools.fill("frame.input", "in the frame").await;
        assert_eq!(frame.label.as_deref(), Some("Frame field"));
        assert_eq!(
            control(ok(&frame), "frame.input", None).value.as_deref(),
            Some("in the frame")
        );

        let read = tools.read_screen().await;
        let screen = ok(&read);
        assert_eq!(
            control(screen, "widgets.shadow-input", None)
                .value
                .as_deref(),
            Some("in the shadow")
        );
        assert_eq!(
            control(screen, "frame.input", None).value.as_deref(),
            Some("in the frame")
        );
        tools.close().await;
    });
}
