//! `fill`: a field's value is set and input/change events fire — and nothing else: no
//! Enter, no submit, no click. Selects are filled by option label.

use waymark::tools::{ErrorCode, ToolOptions};

use crate::fixtures;
use crate::harness::{block_on, control, failed, ok, open, saves_of, tools};

#[test]
fn fill_sets_the_value_and_the_next_read_shows_it() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.fill("widgets.labelledby", "SW1A 1AA").await;
        let screen = ok(&rt);
        assert_eq!(rt.tool, "fill");
        assert_eq!(rt.anchor.as_deref(), Some("widgets.labelledby"));
        assert_eq!(rt.label.as_deref(), Some("Billing Postcode"));
        assert_eq!(rt.route, "/widgets");
        assert_eq!(
            control(screen, "widgets.labelledby", None).value.as_deref(),
            Some("SW1A 1AA")
        );
        let changes = rt.changes.as_ref().expect("a fill reports changes");
        assert!(
            changes.changed.iter().any(|c| c == "widgets.labelledby"),
            "{changes:?}"
        );

        let read = tools.read_screen().await;
        assert_eq!(
            control(ok(&read), "widgets.labelledby", None)
                .value
                .as_deref(),
            Some("SW1A 1AA")
        );
        tools.close().await;
    });
}

#[test]
fn fill_replaces_what_the_field_held() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        ok(&tools.fill("widgets.placeholder", "first").await);
        let rt = tools.fill("widgets.placeholder", "second").await;
        assert_eq!(
            control(ok(&rt), "widgets.placeholder", None)
                .value
                .as_deref(),
            Some("second")
        );
        let cleared = tools.fill("widgets.placeholder", "").await;
        assert_eq!(
            control(ok(&cleared), "widgets.placeholder", None)
                .value
                .as_deref(),
            Some("")
        );
        tools.close().await;
    });
}

#[test]
fn fill_sets_a_number_field() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/orders/41").await;
        let rt = tools.fill("order.line-qty", "7").await;
        // one line on order 41, so the keyless reference is unique
        assert_eq!(
            control(ok(&rt), "order.line-qty", Some("1"))
                .value
                .as_deref(),
            Some("7")
        );
        assert_eq!(rt.route, "/orders/41");
        tools.close().await;
    });
}

#[test]
fn fill_with_a_newline_never_submits_the_pricing_form() {
    // pricing-rules is touched by this test only, so its save count is ours to watch
    let (tools, _) = tools();
    block_on(async {
        let before = saves_of("pricing.save");
        open(&tools, "/accounts/12/pricing").await;

        let rt = tools.fill("pricing.rate", "abc\n").await;
        let screen = ok(&rt);
        assert_eq!(rt.route_before, "/accounts/12/pricing");
        assert_eq!(rt.route, "/accounts/12/pricing");
        assert_eq!(screen.screen.as_deref(), Some("pricing-rules"));
        assert_eq!(
            screen.status,
            Some(200),
            "a submitted invalid rate answers 422"
        );
        assert_eq!(
            control(screen, "pricing.rate", None).value.as_deref(),
            Some("abc")
        );

        // a valid rate: Enter would save it and redirect to the flash page
        let rt = tools.fill("pricing.rate", "4.5\n").await;
        let screen = ok(&rt);
        assert_eq!(rt.route, "/accounts/12/pricing");
        assert_eq!(
            control(screen, "pricing.rate", None).value.as_deref(),
            Some("4.5")
        );

        let read = tools.read_screen().await;
        let screen = ok(&read);
        assert_eq!(screen.route, "/accounts/12/pricing");
        assert_eq!(screen.screen.as_deref(), Some("pricing-rules"));
        assert_eq!(screen.status, Some(200));
        assert_eq!(
            control(screen, "pricing.rate", None).value.as_deref(),
            Some("4.5")
        );
        assert_eq!(saves_of("pricing.save"), before, "fill saved the form");
        tools.close().await;
    });
}

#[test]
fn fill_keeps_a_newline_in_a_textarea_as_text() {
    // claim 1043 is used by this test only; nothing in this binary approves a claim
    let (tools, _) = tools();
    block_on(async {
        let before = saves_of("claim.approve");
        open(&tools, "/claims/1043").await;
        let rt = tools.fill("claim.note", "Receipt checked.\nPay out.").await;
        let screen = ok(&rt);
        assert_eq!(rt.route, "/claims/1043");
        assert_eq!(screen.screen.as_deref(), Some("claim-detail"));
        assert_eq!(
            control(screen, "claim.note", None).value.as_deref(),
            Some("Receipt checked.\nPay out.")
        );

        let read = tools.read_screen().await;
        let screen = ok(&read);
        assert_eq!(screen.route, "/claims/1043");
        assert_eq!(
            control(screen, "claim.note", None).value.as_deref(),
            Some("Receipt checked.\nPay out.")
        );
        assert_eq!(saves_of("claim.approve"), before, "fill approved the claim");
        let reopened = open(&tools, "/claims/1043").await;
        assert!(
            !control(&reopened, "claim.approve", None).disabled,
            "the claim is still open"
        );
        tools.close().await;
    });
}

#[test]
fn fill_chooses_a_select_option_by_its_label() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/returns/new").await;
        let rt = tools.fill("return.reason", "Wrong item").await;
        let screen = ok(&rt);
        assert_eq!(rt.label.as_deref(), Some("Return reason"));
        assert_eq!(
            control(screen, "return.reason", None).value.as_deref(),
            Some("Wrong item")
        );
        assert_eq!(
            rt.route, "/returns/new",
            "choosing an option submits nothing"
        );

        let refund = tools.fill("return.refund-method", "Store credit").await;
        assert_eq!(
            control(ok(&refund), "return.refund-method", None)
                .value
                .as_deref(),
            Some("Store credit")
        );
        tools.close().await;
    });
}

#[test]
fn fill_with_an_unknown_option_lists_the_options() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/returns/new").await;
        let rt = tools.fill("return.reason", "Changed my mind").await;
        let error = failed(&rt, ErrorCode::NotEditable);
        assert!(error.message.contains("return.reason"), "{}", error.message);
        assert!(
            error.message.contains("Changed my mind"),
            "{}",
            error.message
        );
        for option in [
            "Damaged in transit",
            "Wrong item",
            "No longer needed",
            "Other",
        ] {
            assert!(error.message.contains(option), "{}", error.message);
        }
        let screen = rt
            .screen
            .as_ref()
            .expect("a failed fill still reads the screen");
        assert_eq!(
            control(screen, "return.reason", None).value.as_deref(),
            Some(""),
            "the select kept its value"
        );
        tools.close().await;
    });
}

/// Fill after fill on one page: each round trip's changes name exactly the fields whose
/// value moved (the one typed into, and one the page's script set in answer), never one an
/// earlier fill changed, and every value read stays the last one written.
#[test]
fn fill_after_fill_reports_only_what_each_changed() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let changed = |rt: &waymark::tools::RoundTrip| {
            let mut c = rt
                .changes
                .as_ref()
                .expect("a fill reports changes")
                .changed
                .clone();
            c.sort();
            c
        };
        let first = tools.fill("widgets.labelledby", "SW1A 1AA").await;
        ok(&first);
        assert_eq!(changed(&first), ["widgets.labelledby"]);

        let second = tools.fill("widgets.placeholder", "kettle").await;
        ok(&second);
        assert_eq!(changed(&second), ["widgets.mirror", "widgets.placeholder"]);

        let third = tools.fill("widgets.labelledby", "EC1A 1BB").await;
        let screen = ok(&third);
        assert_eq!(changed(&third), ["widgets.labelledby"]);
        let value = |s, anchor| control(s, anchor, None).value.clone();
        assert_eq!(
            value(screen, "widgets.labelledby").as_deref(),
            Some("EC1A 1BB")
        );
        assert_eq!(
            value(screen, "widgets.placeholder").as_deref(),
            Some("kettle")
        );
        assert_eq!(value(screen, "widgets.mirror").as_deref(), Some("KETTLE"));

        // The same value again changes nothing.
        let same = tools.fill("widgets.labelledby", "EC1A 1BB").await;
        ok(&same);
        assert_eq!(changed(&same), Vec::<String>::new());

        let read = tools.read_screen().await;
        let screen = ok(&read);
        assert_eq!(
            value(screen, "widgets.labelledby").as_deref(),
            Some("EC1A 1BB")
        );
        assert_eq!(value(screen, "widgets.mirror").as_deref(), Some("KETTLE"));
        tools.close().await;
    });
}

/// The page types a fill itself, in the trip that checks the field, when nothing in it
/// could tell that from typing: the `input` event is the trusted `insertText` typing gives,
/// with a person's activation on, and one `change` follows it; a line, a text area and
/// editable content each get their text. A field with a focus handler of its own is typed
/// into from outside, with one `change` as well.
#[test]
fn fill_types_with_trusted_input_events_in_the_page() {
    // The log grows past what a round trip shows of a value: the test reads it itself.
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions::default());
    block_on(async {
        open(&tools, "/typing.html").await;
        let rt = tools.fill("typing.name", "Ada Lovelace").await;
        let screen = ok(&rt);
        assert_eq!(
            control(screen, "typing.name", None).value.as_deref(),
            Some("Ada Lovelace")
        );
        assert_eq!(
            control(screen, "typing.log", None).value.as_deref(),
            Some("exec:insertText input:insertText:true:true change")
        );
        let rt = tools.fill("typing.notes", "one\r\ntwo").await;
        assert_eq!(
            control(ok(&rt), "typing.notes", None).value.as_deref(),
            Some("one\ntwo")
        );
        let rt = tools.fill("typing.rich", "  rich \n text ").await;
        let screen = ok(&rt);
        assert_eq!(
            control(screen, "typing.rich", None).value.as_deref(),
            Some("rich text")
        );
        let log = probe.text("output").await;
        assert_eq!(
            log.unwrap_or_default().matches("exec:insertText").count(),
            3,
            "each fill typed in the page"
        );
        // A field with a focus handler attribute is typed into from outside.
        let rt = tools.fill("typing.code", "A-1").await;
        let screen = ok(&rt);
        assert_eq!(
            control(screen, "typing.code", None).value.as_deref(),
            Some("A-1")
        );
        let log = probe.text("output").await.unwrap_or_default();
        assert!(
            log.ends_with(
                "input:insertText:true:true change onfocus input:insertText:true:true change"
            ),
            "{log}"
        );
        assert_eq!(log.matches("exec:insertText").count(), 3, "{log}");
        tools.close().await;
    });
}

/// A page that listens for `beforeinput` (an editor, a mask that refuses keys), or for
/// focus (and so could see when the typing comes), gets the text typed by the runner (CDP's
/// `Input.insertText`, which fires `beforeinput`), and one `change` after it; so does a
/// document that cannot run the editing command.
#[test]
fn fill_types_from_outside_where_the_page_would_tell() {
    let tools = fixtures::tools();
    block_on(async {
        let cases = [
            (
                "/typing.html?beforeinput",
                "beforeinput:insertText:true:true input:insertText:true:true change",
            ),
            (
                "/typing.html?focus",
                "focus input:insertText:true:true change",
            ),
            ("/typing.html?no-exec", "input:insertText:true:true change"),
        ];
        for (page, heard) in cases {
            open(&tools, page).await;
            let rt = tools.fill("typing.name", "Ada Lovelace").await;
            let screen = ok(&rt);
            assert_eq!(
                control(screen, "typing.name", None).value.as_deref(),
                Some("Ada Lovelace"),
                "{page}"
            );
            assert_eq!(
                control(screen, "typing.log", None).value.as_deref(),
                Some(heard),
                "{page}"
            );
        }
        tools.close().await;
    });
}
