//! `read_screen`: the inferred state of a screen — labels computed the way assistive
//! technology names controls, roles, disabled and editable states, values with secrets
//! redacted, regions and visibility.

use std::sync::Arc;

use waymark::registry::Registry;
use waymark::tools::ToolOptions;

use crate::fixtures;
use crate::harness::{
    block_on, control, ok, open, probed_tools, probed_tools_on, shared, tools, value,
};

#[test]
fn read_screen_returns_the_screen_without_moving() {
    let (tools, _) = tools();
    block_on(async {
        let opened = open(&tools, "/claims").await;
        let rt = tools.read_screen().await;
        let screen = ok(&rt);
        assert_eq!(rt.tool, "read_screen");
        assert_eq!(rt.anchor, None);
        assert_eq!(rt.route_before, "/claims");
        assert_eq!(rt.route, "/claims");
        assert_eq!(screen.screen.as_deref(), Some("claims-list"));
        assert_eq!(screen.controls, opened.controls);
        assert_eq!(screen.truncation, None);
        assert_eq!(screen.confidence, 1.0, "{:?}", screen.confidence_reasons);
        tools.close().await;
    });
}

#[test]
fn labels_come_from_every_naming_source() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/widgets").await;
        let label = |anchor: &str| control(&screen, anchor, None).label.clone();
        // aria-labelledby with two ids, joined in order
        assert_eq!(label("widgets.labelledby"), "Billing Postcode");
        // a label wrapping the control
        assert_eq!(label("widgets.wrapped"), "Send receipt");
        // title only (the glyph inside is aria-hidden)
        assert_eq!(label("widgets.titled"), "Print");
        // an image's alt text inside the button
        assert_eq!(label("widgets.img-button"), "Delete");
        // placeholder only
        assert_eq!(label("widgets.placeholder"), "Search orders");
        // label[for]
        assert_eq!(label("widgets.readonly"), "Reference");
        assert_eq!(label("widgets.secret"), "API secret");
        // content
        assert_eq!(label("widgets.counter"), "Clicked 0 times");
        for anchor in [
            "widgets.labelledby",
            "widgets.wrapped",
            "widgets.titled",
            "widgets.img-button",
            "widgets.placeholder",
        ] {
            assert_eq!(control(&screen, anchor, None).region, "labels", "{anchor}");
        }
        tools.close().await;
    });
}

#[test]
fn aria_label_names_a_field_without_a_visible_label() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/orders/42").await;
        let qty = control(&screen, "order.line-qty", Some("1"));
        assert_eq!(qty.label, "Quantity line 1");
        assert_eq!(qty.role, "spinbutton");
        assert_eq!(qty.region, "lines");
        assert!(qty.editable);
        assert_eq!(qty.value.as_deref(), Some("10"));
        tools.close().await;
    });
}

#[test]
fn roles_states_and_values_are_read() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/widgets").await;

        let archive = control(&screen, "widgets.disabled", None);
        assert_eq!(
            (archive.label.as_str(), archive.role.as_str()),
            ("Archive", "button")
        );
        assert!(archive.disabled);
        assert!(!archive.editable);

        let reference = control(&screen, "widgets.readonly", None);
        assert_eq!(reference.role, "textbox");
        assert!(!reference.editable, "a read-only input takes no text");
        assert!(!reference.disabled);
        assert_eq!(reference.value.as_deref(), Some("REF-0001"));

        let receipt = control(&screen, "widgets.wrapped", None);
        assert_eq!(receipt.role, "checkbox");
        assert_eq!(receipt.checked, Some(false));
        assert!(!receipt.editable);

        let postcode = control(&screen, "widgets.labelledby", None);
        assert_eq!(postcode.role, "textbox");
        assert!(postcode.editable);
        assert_eq!(postcode.value.as_deref(), Some(""));

        let counter = control(&screen, "widgets.counter", None);
        assert_eq!(counter.role, "button");
        assert_eq!(counter.value, None);
        assert_eq!(counter.checked, None);

        let link = control(&screen, "widgets.navigate-link", None);
        assert_eq!(
            (link.label.as_str(), link.role.as_str()),
            ("Go to claims", "link")
        );

        let states = ["widgets.disabled", "widgets.readonly", "widgets.counter"];
        for anchor in states {
            assert_eq!(control(&screen, anchor, None).region, "states", "{anchor}");
        }
        assert_eq!(
            control(&screen, "widgets.open-dialog", None).region,
            "dialogs"
        );
        assert_eq!(control(&screen, "nav.widgets", None).region, "nav");
        tools.close().await;
    });
}

#[test]
fn a_password_value_is_redacted_everywhere() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/widgets").await;
        let secret = control(&screen, "widgets.secret", None);
        assert_eq!(secret.role, "textbox");
        assert!(secret.editable);
        assert_eq!(secret.value.as_deref(), Some("[redacted]"));
        let json = serde_json::to_string(&screen).expect("a screen serializes");
        assert!(!json.contains("hunter2"), "the secret leaked: {json}");
        tools.close().await;
    });
}

#[test]
fn controls_hidden_by_css_are_read_as_not_visible() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/widgets").await;
        assert!(!control(&screen, "widgets.hidden", None).visible);
        // the closed rename dialog's field is in the page but not shown
        assert!(!control(&screen, "widgets.dialog-name", None).visible);
        assert!(control(&screen, "widgets.counter", None).visible);
        assert_eq!(screen.dialog, None, "the rename dialog is closed");
        tools.close().await;
    });
}

#[test]
fn keyed_controls_carry_their_keys_and_regions() {
    let (tools, _) = tools();
    block_on(async {
        let screen = open(&tools, "/claims").await;
        let keys: Vec<&str> = screen
            .controls
            .iter()
            .filter(|c| c.anchor == "claims.open")
            .filter_map(|c| c.key.as_deref())
            .collect();
        let expected: Vec<String> = (1040..1050).map(|id| id.to_string()).collect();
        assert_eq!(keys, expected);
        let claim = control(&screen, "claims.open", Some("1042"));
        assert_eq!(claim.label, "Claim 1042");
        assert_eq!(claim.region, "claims");
        assert_eq!(claim.reference(), "claims.open[1042]");
        assert_eq!(control(&screen, "claims.filter", None).region, "filters");
        assert_eq!(
            control(&screen, "claims.status-filter", None)
                .value
                .as_deref(),
            Some("All")
        );
        tools.close().await;
    });
}

/// Regression: reads after an action send only what changed, and must still see a value
/// the page's script set on another field (no event names that field).
#[test]
fn a_value_set_by_script_in_answer_to_typing_is_read() {
    let (tools, _) = tools();
    block_on(async {
        let first = tools.navigate("/widgets").await;
        assert!(first.ok, "{:?}", first.error);
        let typed = tools.fill("widgets.placeholder", "kettle").await;
        assert!(typed.ok, "{:?}", typed.error);
        let screen = typed.screen.as_ref().expect("a screen after fill");
        let mirror = screen
            .control("widgets.mirror", None)
            .expect("the mirror field is read");
        assert_eq!(mirror.value.as_deref(), Some("KETTLE"));
        let changes = typed.changes.as_ref().expect("fill stays on the page");
        assert!(
            changes.changed.iter().any(|c| c == "widgets.mirror"),
            "{changes:?}"
        );
        // And a read with nothing new sends nothing new, but still reads the same.
        let again = tools.read_screen().await;
        let mirror = again
            .screen
            .as_ref()
            .and_then(|s| s.control("widgets.mirror", None))
            .and_then(|m| m.value.clone());
        assert_eq!(mirror.as_deref(), Some("KETTLE"));
        tools.close().await;
    });
}

/// The collector packs a read's records with DEL between fields and escapes a record whose
/// strings hold one: labels, values and keys holding DEL or ESC read back as the page has
/// them, in a whole read and in the deltas after actions — including values the page's
/// script sets, in a click's handler or later, which no event names.
#[test]
fn text_holding_the_packing_bytes_reads_back_exactly() {
    let tools = fixtures::tools();
    block_on(async {
        let screen = open(&tools, "/separators.html").await;
        let name = control(&screen, "odd.name", None);
        assert_eq!(name.label, "Name\u{7f}with DEL");
        assert_eq!(name.value.as_deref(), Some("a\u{7f}b\u{1b}1c"));
        let plain = control(&screen, "odd.plain", Some("k\u{1b}0"));
        assert_eq!(plain.label, "Plain");
        let wrote = tools.invoke("odd.write", None).await;
        let after = ok(&wrote);
        assert_eq!(
            control(after, "odd.notes", None).value.as_deref(),
            Some("line \"one\" \\ \u{7f}\u{7f}\ntwo\u{1b}")
        );
        let changes = wrote.changes.as_ref().expect("the page stayed");
        assert_eq!(changes.changed, ["odd.notes"]);
        assert_eq!(control(after, "odd.name", None).label, "Name\u{7f}with DEL");
        // A value a timer sets after the action's read is seen by the next read.
        let clicked = tools.invoke("odd.later", None).await;
        assert_eq!(
            control(ok(&clicked), "odd.name", None).value.as_deref(),
            Some("a\u{7f}b\u{1b}1c"),
            "the timer has not fired yet"
        );
        tokio::time::sleep(std::time::Duration::from_millis(800)).await;
        let read = tools.read_screen().await;
        assert_eq!(
            control(ok(&read), "odd.name", None).value.as_deref(),
            Some("later\u{7f}")
        );
        tools.close().await;
    });
}

#[test]
fn a_whole_read_gathers_what_a_warm_read_holds_and_later_reads_build_on_it() {
    let (tools, _) = tools();
    block_on(async {
        let opened = open(&tools, "/widgets").await;
        let whole = ok(&tools.read_screen_whole().await).clone();
        assert_eq!(whole.controls, opened.controls);
        // the roots were found again: the shadow root's and the frame's controls are there
        control(&whole, "widgets.shadow-button", None);
        assert!(
            whole.controls.iter().any(|c| c.region == "frame"),
            "{:?}",
            whole.controls
        );
        ok(&tools.invoke("widgets.counter", None).await);
        let warm = ok(&tools.read_screen().await).clone();
        assert_eq!(
            control(&warm, "widgets.counter", None).label,
            "Clicked 1 times"
        );
        let again = ok(&tools.read_screen_whole().await).clone();
        assert_eq!(again.controls, warm.controls);
        // the whole read is the one the runner holds now: the next delta applies to it
        let pressed = tools.invoke("widgets.counter", None).await;
        assert_eq!(
            control(ok(&pressed), "widgets.counter", None).label,
            "Clicked 2 times"
        );
        let changes = pressed
            .changes
            .as_ref()
            .expect("an invoke says what changed");
        assert_eq!(changes.changed.len(), 1, "{changes:?}");
        tools.close().await;
    });
}

#[test]
fn what_no_mutation_announced_is_seen_by_the_next_read() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions::default());
    block_on(async {
        let screen = open(&tools, "/restyled.html").await;
        assert!(control(&screen, "restyled.goes", None).visible);
        // The style sheet hides the button at 300 ms: no mutation, no input, but the
        // animation's events say that boxes may have changed.
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        let warm = ok(&tools.read_screen().await).clone();
        assert!(!control(&warm, "restyled.goes", None).visible);
        // A declaration set by name through a rule's style: no method, no setter, but the
        // page read the rule's declarations, which is watched.
        probe
            .run("document.styleSheets[0].cssRules[2].style.visibility = 'hidden'")
            .await;
        let warm = ok(&tools.read_screen().await).clone();
        assert!(!control(&warm, "restyled.stays", None).visible);
        let whole = ok(&tools.read_screen_whole().await).clone();
        assert!(!control(&whole, "restyled.goes", None).visible);
        assert!(!control(&whole, "restyled.stays", None).visible);
        tools.close().await;
    });
}

#[test]
fn an_element_the_page_sealed_is_read_and_acted_on() {
    let tools = fixtures::tools();
    block_on(async {
        let screen = open(&tools, "/sealed.html").await;
        assert_eq!(control(&screen, "sealed.sealed", None).label, "Sealed 0");
        let pressed = tools.invoke("sealed.sealed", None).await;
        assert_eq!(
            control(ok(&pressed), "sealed.sealed", None).label,
            "Sealed 1"
        );
        let changes = pressed.changes.as_ref().expect("the page stayed");
        assert_eq!(changes.changed, ["sealed.sealed"]);
        let whole = ok(&tools.read_screen_whole().await).clone();
        assert_eq!(whole.controls, ok(&pressed).controls);
        tools.close().await;
    });
}

#[test]
fn a_value_set_through_a_setter_the_page_kept_at_load_is_read() {
    // In the page itself, and in a same-origin frame (whose setters its own document's
    // collector watches).
    for page in ["/captured.html", "/framed.html"] {
        setter_kept_at_load(page);
    }
}

fn setter_kept_at_load(page: &str) {
    let tools = fixtures::tools();
    block_on(async {
        let city = |screen: &waymark::screen::InferredState| {
            control(screen, "lookup.city", None).value.clone()
        };
        let screen = open(&tools, page).await;
        assert_eq!(city(&screen).as_deref(), Some(""));
        let clicked = tools.invoke("lookup.go", None).await;
        assert_eq!(
            city(ok(&clicked)).as_deref(),
            Some(""),
            "the answer has not come yet"
        );
        tokio::time::sleep(std::time::Duration::from_millis(700)).await;
        let later = ok(&tools.read_screen().await).clone();
        assert_eq!(city(&later).as_deref(), Some("Utrecht"), "{page}");
        tools.close().await;
    });
}

/// A click reads again only the fields an event or a setter named (see `valueChanged` in
/// collector/js/04-state.js): each way a script changes a value with no event and no
/// mutation is watched, and so is a form's reset. After each click, the round trip's
/// controls equal a whole read's.
#[test]
fn values_a_click_changes_without_an_event_are_read() {
    let tools = fixtures::tools();
    block_on(async {
        let value = |screen: &waymark::screen::InferredState, anchor: &str| {
            let c = control(screen, anchor, None);
            c.value
                .clone()
                .map(|v| v.to_string())
                .or(c.checked.map(|c| c.to_string()))
        };
        open(&tools, "/values.html").await;
        // (the button, the field it changes, that field's value after)
        let steps = [
            ("v.step", "v.count", "2"),
            ("v.splice", "v.code", "Xbc"),
            ("v.splice_memo", "v.memo", "one three"),
            ("v.as_number", "v.qty", "7"),
            ("v.as_date", "v.day", "2026-05-17"),
            ("v.index", "v.size", "Large"),
            ("v.option", "v.size", "Medium"),
            ("v.radio", "v.basic", "false"),
            ("v.copy", "v.note", "Xbc"),
            ("v.tick", "v.agree", "true"),
            ("v.nothing", "v.agree", "true"),
            ("v.reset", "v.count", "1"),
        ];
        for (button, field, after) in steps {
            let pressed = tools.invoke(button, None).await;
            let screen = ok(&pressed).clone();
            assert_eq!(value(&screen, field).as_deref(), Some(after), "{button}");
            let whole = ok(&tools.read_screen_whole().await).clone();
            assert_eq!(screen.controls, whole.controls, "after {button}");
        }
        tools.close().await;
    });
}

/// Style rules on states that input changes with no mutation show and hide controls: a
/// panel shown by a ticked box (:checked), a hint by the focus inside its field
/// (:focus-within), a card's actions under the pointer (:hover), a button by a field's
/// value (:placeholder-shown), set by typing or in script. The read after each took every
/// box again and equals a whole read, boxes and evidence included; so when the rules come
/// from a style sheet of another origin, once its text is in (see
/// `style_sheets_of_another_origin_are_read_from_the_browsers_copy`).
#[test]
fn what_style_shows_or_hides_by_state_is_read_after_each_action() {
    for page in ["/stateful.html", "/stateful.html?elsewhere"] {
        shows_and_hides_by_state(page);
    }
}

fn shows_and_hides_by_state(page: &str) {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions {
        evidence: true,
        ..ToolOptions::default()
    });
    block_on(async {
        let opened = open(&tools, page).await;
        if page.ends_with("?elsewhere") {
            sheets_taken(&tools, &probe, 1).await;
        }
        for hidden in [
            "stateful.extra",
            "stateful.hint",
            "stateful.delete",
            "stateful.clear",
        ] {
            assert!(!control(&opened, hidden, None).visible, "{hidden}");
        }
        // (the action, the controls it shows or hides: shown after)
        let steps: [(&str, &[(&str, bool)]); 4] = [
            ("tick", &[("stateful.extra", true)]),
            ("type", &[("stateful.hint", true), ("stateful.clear", true)]),
            (
                "hover",
                &[("stateful.delete", true), ("stateful.hint", false)],
            ),
            ("away", &[("stateful.delete", false)]),
        ];
        for (step, shows) in steps {
            let rt = match step {
                "tick" => tools.invoke("stateful.more", None).await,
                "type" => tools.fill("stateful.name", "Ann").await,
                "hover" => tools.invoke("stateful.card", None).await,
                _ => tools.invoke("stateful.away", None).await,
            };
            let screen = ok(&rt).clone();
            for &(anchor, shown) in shows {
                assert_eq!(
                    control(&screen, anchor, None).visible,
                    shown,
                    "{step}: {anchor}"
                );
            }
            same_as_whole(&tools, &probe, &screen, step).await;
        }
        // A value set in script: no event, no mutation.
        probe
            .run("document.getElementById('name').value = ''")
            .await;
        let read = ok(&tools.read_screen().await).clone();
        assert!(!control(&read, "stateful.clear", None).visible);
        same_as_whole(&tools, &probe, &read, "script").await;
        tools.close().await;
    });
}

/// A style sheet of another origin, whose rules the page cannot read, counted before as one
/// that may move, hide or pin anything: every input took every box again, and so did every
/// scroll of the window. The runner now hands the page the text the browser holds of it,
/// and of the sheets it imports, and once those are in, it counts as the page's own sheets
/// do: input whose rules only paint takes no box again, the window scrolled only what the
/// sheets pin (two sheets, asked for together, one importing a third). The text never enters the page's world, where its scripts could read it
/// (here, one that wraps the collector's entry point): it is read in a world of its own, and
/// only what it holds is handed over.
#[test]
fn style_sheets_of_another_origin_are_read_from_the_browsers_copy() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions::default());
    block_on(async {
        let opened = open(&tools, "/elsewhere.html").await;
        let sheet = probe.value("document.styleSheets[0].href").await;
        assert!(
            sheet
                .as_str()
                .is_some_and(|h| h.starts_with("http://localhost:")),
            "{sheet}"
        );
        let unreadable = probe
            .value("(function () { try { document.styleSheets[0].cssRules; return false; } catch (e) { return true; } })()")
            .await;
        assert_eq!(unreadable, true, "the page cannot read the sheet");
        assert_eq!(opened.controls.len(), 5);
        probe
            .run(
                "var run = window.__waymarkRun; window.seen = []; \
                 window.__waymarkRun = function (op, args) { \
                 window.seen.push(JSON.stringify(args)); return run.apply(this, arguments); }",
            )
            .await;
        sheets_taken(&tools, &probe, 3).await;
        let seen = probe.value("window.seen.join(' ')").await;
        let seen = seen.as_str().unwrap_or_default();
        assert!(
            seen.contains("\"facts\""),
            "what the sheets hold came in: {seen}"
        );
        assert!(
            !seen.contains("only-in-the-sheet") && !seen.contains("123456"),
            "the page saw the sheet's text: {seen}"
        );
        let kept = probe
            .value(
                "Array.from(window.__waymark.sheetFacts.entries()).map(function (e) { \
                 var name = function (u) { return u.split('/').pop(); }; \
                 return [name(e[0]), Object.keys(e[1]).sort(), e[1].stateful, e[1].hides, \
                 e[1].pinned, e[1].clips, e[1].imports.map(name)]; }).sort()",
            )
            .await;
        let fields = ["clips", "hides", "imports", "pinned", "stateful"];
        assert_eq!(
            kept,
            serde_json::json!([
                [
                    "elsewhere-more.css",
                    fields,
                    false,
                    false,
                    ["footer"],
                    [],
                    []
                ],
                ["elsewhere-paint.css", fields, false, false, [], [], []],
                [
                    "elsewhere.css",
                    fields,
                    false,
                    false,
                    ["header"],
                    [".panel"],
                    ["elsewhere-more.css"]
                ]
            ]),
            "what each sheet's rules hold, and nothing of its text"
        );

        probe.measured();
        ok(&tools.invoke("elsewhere.go", None).await);
        assert_eq!(probe.value("window.pressed").await, 1);
        assert_eq!(probe.measured(), [0], "after an invoke");
        let filled = ok(&tools.fill("elsewhere.code", "XYZ").await).clone();
        assert_eq!(
            control(&filled, "elsewhere.code", None).value.as_deref(),
            Some("XYZ")
        );
        assert_eq!(probe.measured(), [0], "after a fill");

        // The window scrolled: the sticky header's and the fixed footer's controls alone are
        // measured again.
        probe.run("window.scrollTo(0, 400)").await;
        let read = ok(&tools.read_screen().await).clone();
        assert_eq!(probe.measured(), [2], "after the window scrolled");
        let whole = ok(&tools.read_screen_whole().await).clone();
        assert_eq!(read.controls, whole.controls);
        tools.close().await;
    });
}

/// Reads until the page holds what `n` style sheets of another origin say (their text is
/// fetched beside the calls and taken in by the next one), for at most five seconds.
async fn sheets_taken(
    tools: &waymark::tools::Tools<crate::harness::ProbedTab>,
    probe: &crate::harness::Probe,
    n: u64,
) {
    for _ in 0..100 {
        ok(&tools.read_screen().await);
        let taken = probe.value("window.__waymark.sheetFacts.size").await;
        if taken.as_u64() >= Some(n) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the page never took in the text of {n} style sheet(s) of another origin");
}

/// The read the tools hold, `screen`, took boxes again and equals a whole read of the same
/// page, boxes and evidence included.
async fn same_as_whole(
    tools: &waymark::tools::Tools<crate::harness::ProbedTab>,
    probe: &crate::harness::Probe,
    screen: &waymark::screen::InferredState,
    step: &str,
) {
    let raw = tools.last_observation().expect("a read is held");
    let measured = probe.measured();
    assert!(measured.iter().any(|&n| n > 0), "{step}: {measured:?}");
    let whole = ok(&tools.read_screen_whole().await).clone();
    assert_eq!(screen.controls, whole.controls, "{step}");
    let again = tools.last_observation().expect("a read is held");
    assert_eq!(raw.controls, again.controls, "{step}: boxes");
    assert_eq!(raw.evidence, again.evidence, "{step}: evidence");
}

/// Rules on the states input changes that only paint (a hover colour, a focus outline, an
/// invalid field's border) leave every record as it was: the reads after an invoke and a
/// fill take no box again. A box scrolled, a popover shown, a rule added or a declaration
/// set in script and a custom element defined move or show controls with no mutation and
/// no such rule: the read after each takes every box again and equals a whole read. The
/// window scrolled moves only the controls pinned to the viewport (a sticky header's, a
/// fixed bar's): only theirs are taken again. A style sheet given a rule on a state that
/// moves boxes makes the next input take them again.
#[test]
fn only_what_can_move_a_box_has_the_boxes_taken_again() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions {
        evidence: true,
        ..ToolOptions::default()
    });
    block_on(async {
        let opened = open(&tools, "/painted.html").await;
        assert!(!control(&opened, "painted.menu-item", None).visible);
        probe.measured();
        ok(&tools.invoke("painted.go", None).await);
        assert_eq!(probe.value("window.pressed").await, 1);
        assert_eq!(probe.measured(), [0], "after an invoke");
        let filled = tools.fill("painted.code", "XYZ").await;
        assert_eq!(
            control(ok(&filled), "painted.code", None).value.as_deref(),
            Some("XYZ")
        );
        assert_eq!(probe.measured(), [0], "after a fill");

        let row = ok(&tools.invoke("painted.row", Some("4")).await).clone();
        let scrolled = probe
            .value("document.getElementById('list').scrollTop")
            .await;
        assert!(scrolled.as_f64().is_some_and(|y| y > 0.0), "{scrolled}");
        same_as_whole(&tools, &probe, &row, "row").await;

        let menu = ok(&tools.invoke("painted.menu", None).await).clone();
        assert!(control(&menu, "painted.menu-item", None).visible);
        same_as_whole(&tools, &probe, &menu, "menu").await;

        let far = ok(&tools.invoke("painted.far", None).await).clone();
        let at = probe.value("scrollY").await;
        assert!(at.as_f64().is_some_and(|y| y > 1000.0), "{at}");
        // The popover closed as the far button was pressed (light dismiss): its toggle
        // takes every box again; the scroll alone, only the two pinned ones and the two with
        // no box, which a box query places at the window's corner (the closed popover's
        // item, the button in the custom element not yet defined).
        assert!(!control(&far, "painted.menu-item", None).visible);
        probe.measured();
        // Read before the scroll's event fires (with the next frame): the offset tells.
        probe.run("window.scrollBy(0, -300)").await;
        let read = ok(&tools.read_screen().await).clone();
        assert_eq!(probe.measured(), [4], "after the window scrolled");
        let raw = tools.last_observation().expect("a read is held");
        assert_eq!(read.controls, ok(&tools.read_screen_whole().await).controls);
        let again = tools.last_observation().expect("a read is held");
        assert_eq!(raw.controls, again.controls);
        assert_eq!(raw.evidence, again.evidence);

        probe
            .run("document.styleSheets[0].insertRule('.wide { width: 320px }', 0)")
            .await;
        let read = ok(&tools.read_screen().await).clone();
        same_as_whole(&tools, &probe, &read, "rule").await;
        probe
            .run("document.styleSheets[0].cssRules[0].style.setProperty('width', '340px')")
            .await;
        let read = ok(&tools.read_screen().await).clone();
        same_as_whole(&tools, &probe, &read, "declaration").await;
        // A custom element defined (:defined) shows what it holds.
        assert!(!control(&read, "painted.late", None).visible);
        probe
            .run("customElements.define('x-late', class extends HTMLElement {})")
            .await;
        let read = ok(&tools.read_screen().await).clone();
        assert!(control(&read, "painted.late", None).visible);
        same_as_whole(&tools, &probe, &read, "defined").await;

        // The style element's text changed: its new rule on :hover moves the button under
        // the pointer, so the read after the pointer leaves it must take boxes again (the
        // answer for the sheets before, asked by the invoke before the change, no longer
        // holds).
        ok(&tools.invoke("painted.go", None).await);
        probe
            .run("document.querySelector('style').textContent += ' button:hover { padding: 9px }'")
            .await;
        ok(&tools.read_screen().await);
        let away = ok(&tools.invoke("painted.top", None).await).clone();
        same_as_whole(&tools, &probe, &away, "hover").await;
        tools.close().await;
    });
}

/// After a mutation a read gathers again only the controls it could have changed, and takes
/// every other's box and visibility again; a change that may reach further (a label, what an
/// aria-labelledby names, an id, a datalist, a style sheet, a shadow root) gathers all. Each
/// read equals a whole read of the same screen, whichever way it went.
#[test]
fn a_read_after_mutations_gathers_what_they_reached_and_equals_a_whole_read() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions::default());
    block_on(async {
        let opened = open(&tools, "/mutations.html").await;
        assert!(!opened.controls.is_empty());
        // The page took its first read as its DOM was parsed (nothing changed since): the
        // read after the load gathers nothing again.
        assert_eq!(probe.gathered(), [0]);
        // (what the page does, how many records the next read builds whole: None for all)
        let steps: [(&str, Option<u64>); 25] = [
            ("q('m.text').firstChild.data = 'Text 2'", Some(1)),
            ("document.title = 'Mutated'", Some(0)),
            (
                "document.getElementById('box').style.display = 'none'",
                Some(0),
            ),
            ("document.getElementById('box').style.display = ''", Some(0)),
            (
                "document.getElementById('box').setAttribute('data-anchor-region', 'boxy')",
                Some(1),
            ),
            ("document.getElementById('group').disabled = true", Some(1)),
            (
                "var li = document.createElement('li'); li.innerHTML = '<button type=button \
                 data-anchor=m.row data-anchor-key=3>Row 3</button>'; \
                 document.getElementById('rows').appendChild(li)",
                Some(1),
            ),
            (
                "document.getElementById('rows').firstElementChild.remove()",
                Some(0),
            ),
            (
                "document.getElementById('box').appendChild(q('m.side'))",
                Some(1),
            ),
            (
                "document.getElementById('box').setAttribute('aria-disabled', 'true')",
                Some(2),
            ),
            (
                "q('m.pick').setAttribute('aria-label', 'Pick one')",
                Some(1),
            ),
            (
                "document.getElementById('rows').className = 'listed'",
                Some(0),
            ),
            (
                "document.getElementById('rows').insertAdjacentHTML('afterend', \
                 '<p id=note>A note</p>')",
                Some(0),
            ),
            (
                "q('m.name').value = 'Ann'; document.getElementById('note').textContent = 'Note'",
                Some(0),
            ),
            ("q('m.text').setAttribute('role', 'link')", Some(1)),
            (
                "document.getElementById('note').attachShadow({ mode: 'open' }).innerHTML = \
                 '<button type=button data-anchor=m.late>Late</button>'",
                Some(1),
            ),
            ("document.getElementById('note').remove()", Some(0)),
            (
                "document.getElementById('caption').textContent = 'Caption 2'",
                None,
            ),
            (
                "document.querySelector('label[for=name]').textContent = 'Full name'",
                None,
            ),
            (
                "document.body.insertAdjacentHTML('beforeend', \
                 '<datalist id=options><option>a</option></datalist>')",
                None,
            ),
            (
                "document.getElementById('sheet').textContent = '.listed { visibility: hidden }'",
                None,
            ),
            (
                "document.getElementById('host').shadowRoot.firstChild.textContent = 'Shadow 2'",
                None,
            ),
            ("document.getElementById('name').id = 'renamed'", None),
            (
                "var st = document.createElement('style'); st.textContent = '#box { display: none }'; \
                 document.head.appendChild(st)",
                None,
            ),
            // More records than the page keeps, among them a region for the shadow root's host.
            (
                "for (var i = 0; i < 600; i++) document.body.setAttribute('data-n', i); \
                 document.body.setAttribute('data-anchor-region', 'everything')",
                None,
            ),
        ];
        for (script, gathered) in steps {
            probe
                .run(&format!(
                    "function q(a) {{ return document.querySelector('[data-anchor=\"' + a + '\"]'); }} {script}"
                ))
                .await;
            let read = ok(&tools.read_screen().await).clone();
            let built = probe.gathered();
            let shown = read.controls.len() as u64;
            assert_eq!(built, [gathered.unwrap_or(shown)], "{script}");
            let whole = ok(&tools.read_screen_whole().await).clone();
            probe.gathered();
            assert_eq!(read.controls, whole.controls, "{script}");
        }
        // What the steps did, as the last read has it.
        let last = ok(&tools.read_screen().await).clone();
        assert_eq!(control(&last, "m.text", None).label, "Text 2");
        assert_eq!(control(&last, "m.boxed", None).region, "boxy");
        assert_eq!(control(&last, "m.side", None).region, "boxy");
        assert_eq!(control(&last, "m.captioned", None).region, "form");
        assert!(control(&last, "m.side", None).disabled);
        assert!(!control(&last, "m.text", None).disabled);
        assert!(control(&last, "m.in-group", None).disabled);
        assert_eq!(control(&last, "m.captioned", None).label, "Caption 2");
        assert_eq!(control(&last, "m.wrapped", None).label, "Wrapped");
        assert_eq!(control(&last, "m.name", None).label, "");
        assert_eq!(control(&last, "m.pick", None).role, "combobox");
        assert_eq!(control(&last, "m.pick", None).label, "Pick one");
        assert!(!control(&last, "m.row", Some("2")).visible);
        assert_eq!(control(&last, "m.shadow", None).label, "Shadow 2");
        assert_eq!(control(&last, "m.shadow", None).region, "everything");
        assert!(!control(&last, "m.boxed", None).visible);
        assert_eq!(control(&last, "m.name", None).value.as_deref(), Some("Ann"));
        assert_eq!(control(&last, "m.text", None).role, "link");
        assert!(!last.controls.iter().any(|c| c.anchor == "m.late"));
        tools.close().await;
    });
}

/// Random changes of every kind a partial read must follow (text, attributes a record or
/// the scan reads, controls added, removed, moved and renamed, values set, shadow roots
/// attached, moved and removed, containers hidden), on a screen cut so that some controls are past the cut:
/// after each, the read the page answers from what it kept equals a whole read. Also with
/// every control gathered, where a shadow root's controls are records rather than counts.
#[test]
fn after_random_mutations_every_read_equals_a_whole_read() {
    for max_controls in [8, 100] {
        random_mutations(max_controls);
    }
}

fn random_mutations(max_controls: usize) {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions {
        max_controls,
        ..ToolOptions::default()
    });
    block_on(async {
        open(&tools, "/mutations.html").await;
        // One step of the page's own: a xorshift seeded per step picks a change.
        probe
            .run(
                "window.step = function (seed) {
                  var s = Math.imul(seed, 2654435761) || 1;
                  function below(n) { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; return (s >>> 0) % n; }
                  function pick(list) { return list.length ? list[below(list.length)] : null; }
                  var anchored = Array.prototype.slice.call(document.querySelectorAll('[data-anchor]'));
                  var places = ['main', '#rows', '#box', 'aside', '#group', 'body']
                    .map(function (q) { return document.querySelector(q); })
                    .filter(function (x) { return x; });
                  var el = pick(anchored), place = pick(places), n = 'r' + seed;
                  switch (below(12)) {
                    case 0: if (el && el.tagName === 'BUTTON') el.textContent = 'Text ' + n; break;
                    case 1: if (el) el.setAttribute(pick(['role', 'aria-label', 'data-anchor-region']),
                      pick(['link', 'tab', 'Named ' + n, 'area-' + below(3)])); break;
                    case 2: if (el) el.toggleAttribute(pick(['disabled', 'hidden'])); break;
                    case 3: place.insertAdjacentHTML(pick(['afterbegin', 'beforeend']),
                      '<button type=button data-anchor=m.new data-anchor-key=' + n + '>New ' + n + '</button>'); break;
                    case 4: if (anchored.length > 6 && el) el.remove(); break;
                    case 5: if (el && !el.contains(place) && !place.contains(el)) place.appendChild(el); break;
                    case 6: var f = pick(anchored.filter(function (x) { return x.tagName === 'INPUT'; }));
                      if (f) f.value = 'Value ' + n;
                      if (below(2)) place.insertAdjacentHTML('beforeend', '<p>Typed ' + n + '</p>'); break;
                    case 7: var host = document.createElement('div'); place.appendChild(host);
                      host.attachShadow({ mode: 'open' }).innerHTML =
                        '<button type=button data-anchor=m.shadowed data-anchor-key=' + n + '>In ' + n + '</button>'; break;
                    case 8: place.insertAdjacentHTML('beforeend', '<p>Note ' + n + '</p>'); break;
                    case 9: if (place !== document.body) place.style.display = place.style.display ? '' : 'none'; break;
                    case 10: var hosts = Array.prototype.filter.call(document.querySelectorAll('*'),
                        function (x) { return x.shadowRoot; });
                      var h = pick(hosts);
                      if (h && below(2)) h.remove();
                      else if (h && !h.contains(place)) place.appendChild(h);
                      break;
                    default: if (el) el.setAttribute('data-anchor', 'm.renamed-' + below(4));
                  }
                }",
            )
            .await;
        probe.read_kinds();
        for seed in 1..=80 {
            probe.run(&format!("window.step({seed})")).await;
            let read = ok(&tools.read_screen().await).clone();
            let whole = ok(&tools.read_screen_whole().await).clone();
            assert_eq!(
                probe.read_kinds(),
                ["delta", "full"],
                "step {seed}: a partial read, then a whole one"
            );
            let at = format!("cut at {max_controls}, step {seed}");
            assert_eq!(read.controls, whole.controls, "{at}");
            assert_eq!(read.truncation, whole.truncation, "{at}");
        }
        tools.close().await;
    });
}

/// Each way CSS hides an element and leaves its box, made so in script on hiding.html:
/// (the step, what it runs in the page, the control it hides).
const HIDING_STEPS: [(&str, &str, &str); 13] = [
    (
        "a style attribute",
        "document.getElementById('w1').style.visibility = 'hidden'",
        "hiding.one",
    ),
    (
        "a details element closed",
        "document.getElementById('w2').open = false",
        "hiding.two",
    ),
    (
        "hidden until found",
        "document.getElementById('w3').setAttribute('hidden', 'until-found')",
        "hiding.three",
    ),
    (
        "a hidden control added",
        "document.querySelector('main').insertAdjacentHTML('beforeend', \
         '<div style=\"visibility: hidden\"><button data-anchor=\"hiding.added\">Added</button></div>')",
        "hiding.added",
    ),
    (
        "a rule inserted",
        "document.styleSheets[0].insertRule('#w4 { visibility: hidden }', 2)",
        "hiding.four",
    ),
    (
        "a class a rule hides",
        "document.getElementById('w3').className = 'gone'",
        "hiding.three",
    ),
    (
        "a rule in a media query",
        "document.styleSheets[0].insertRule('@media screen { #w4 button { visibility: hidden } }', 2)",
        "hiding.four",
    ),
    (
        "a nested rule",
        "document.styleSheets[0].insertRule('#w2 { & button { visibility: hidden } }', 2)",
        "hiding.two",
    ),
    (
        "a rule on a state",
        "document.styleSheets[0].insertRule('main:not(:hover) #w5 { visibility: hidden }', 2)",
        "hiding.five",
    ),
    (
        "content-visibility by a rule",
        "document.styleSheets[0].insertRule('#w1 { content-visibility: hidden }', 2)",
        "hiding.one",
    ),
    (
        "a rule's declaration set by name",
        "document.styleSheets[0].cssRules[0].style.visibility = 'hidden'",
        "hiding.five",
    ),
    (
        "a script's animation",
        "document.getElementById('w4').animate([{visibility: 'hidden'}, \
         {visibility: 'hidden'}], {duration: 1e6})",
        "hiding.four",
    ),
    (
        "SVG's visibility attribute",
        "document.getElementById('w6').setAttribute('visibility', 'hidden')",
        "hiding.six",
    ),
];

/// On a page where nothing can hide a control that has a box, a read takes boxes alone as
/// saying what is shown and asks the browser nothing more, also after a mutation: a style
/// rule that hides but selects nothing yet (a utility class) or only a pseudo-element is
/// no reason to ask. Each way CSS hides an element and leaves its box, made so in script
/// after the page loaded, has the next read ask again and report the control hidden, as a
/// whole read does.
#[test]
fn boxes_alone_say_shown_only_where_nothing_can_hide_one() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions::default());
    let steps = HIDING_STEPS;
    block_on(async {
        for (step, script, hidden) in steps {
            let opened = open(&tools, "/hiding.html").await;
            assert!(opened.controls.iter().all(|c| c.visible), "{step}");
            assert_eq!(probe.vis_checks(), [0], "{step}: the first read");
            probe.measured();
            // A mutation that can hide nothing: every box is taken again, and trusted.
            probe.run("document.body.dataset.touched = '1'").await;
            let touched = ok(&tools.read_screen().await).clone();
            assert!(touched.controls.iter().all(|c| c.visible), "{step}");
            assert_eq!(probe.measured(), [6], "{step}");
            assert_eq!(probe.vis_checks(), [0], "{step}: a read after a mutation");

            probe.run(script).await;
            let read = ok(&tools.read_screen().await).clone();
            assert!(!control(&read, hidden, None).visible, "{step}: {hidden}");
            let asked = probe.vis_checks();
            assert!(asked.iter().any(|&n| n > 0), "{step}: {asked:?}");
            let whole = ok(&tools.read_screen_whole().await).clone();
            assert_eq!(read.controls, whole.controls, "{step}");
            assert!(probe.vis_checks().iter().any(|&n| n > 0), "{step}: whole");
        }
        tools.close().await;
    });
}

/// What one of the page's own hiders can hide is what it holds: with a style attribute
/// naming visibility on one element, or hidden=until-found, a read asks the browser about
/// the controls inside it alone, and trusts every other control's box; a whole read too.
#[test]
fn a_hider_has_only_what_it_holds_asked_about() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions::default());
    // Two hiders that hold one control each.
    let steps: Vec<_> = HIDING_STEPS
        .into_iter()
        .filter(|(step, ..)| ["a style attribute", "hidden until found"].contains(step))
        .collect();
    assert_eq!(steps.len(), 2, "the two steps are among HIDING_STEPS");
    block_on(async {
        for (step, script, hidden) in steps {
            let opened = open(&tools, "/hiding.html").await;
            assert!(opened.controls.iter().all(|c| c.visible), "{step}");
            probe.vis_checks();
            probe.run(script).await;
            let read = ok(&tools.read_screen().await).clone();
            assert!(!control(&read, hidden, None).visible, "{step}: {hidden}");
            let shown: Vec<_> = read
                .controls
                .iter()
                .filter(|c| c.anchor.as_str() != hidden)
                .map(|c| c.visible)
                .collect();
            assert_eq!(shown, [true; 5], "{step}: the others");
            assert_eq!(probe.vis_checks(), [1], "{step}: asked of the one inside");
            let whole = ok(&tools.read_screen_whole().await).clone();
            assert_eq!(read.controls, whole.controls, "{step}");
            assert_eq!(probe.vis_checks(), [1], "{step}: whole");
        }
        tools.close().await;
    });
}

/// A read cut at `max` tests for what can hide a control only the anchored elements
/// before the cut: one past it hides only its own content, past the cut too, so boxes are
/// still trusted. But a shadow tree read after the document may slot a control from
/// before the cut into one past it, so with shadow roots a hider past the cut is not ruled
/// out.
#[test]
fn a_hider_past_the_cut_hides_nothing_before_it_but_what_a_shadow_tree_slots() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions {
        max_controls: 1,
        ..ToolOptions::default()
    });
    block_on(async {
        let cut = open(&tools, "/past-cut.html").await;
        let shown: Vec<_> = cut
            .controls
            .iter()
            .map(|c| (c.anchor.as_str(), c.visible))
            .collect();
        assert_eq!(shown, [("cut.first", true)]);
        assert_eq!(probe.vis_checks(), [0]);
        // A dialog is asked about as it is, wherever it sits.
        assert_eq!(cut.dialog, None);
        let slotted = open(&tools, "/slotted.html").await;
        assert!(!control(&slotted, "slotted.inner", None).visible);
        // The page took its first read itself, as its DOM was parsed: a whole read shows
        // what such a read asks the browser.
        probe.vis_checks();
        let again = ok(&tools.read_screen_whole().await).clone();
        assert!(!control(&again, "slotted.inner", None).visible);
        let asked = probe.vis_checks();
        assert!(
            !asked.is_empty() && asked.iter().all(|&n| n > 0),
            "{asked:?}"
        );
        tools.close().await;
    });
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions::default());
    block_on(async {
        open(&tools, "/past-cut.html").await;
        probe.vis_checks();
        let whole = ok(&tools.read_screen_whole().await).clone();
        assert!(control(&whole, "cut.first", None).visible);
        assert!(!control(&whole, "cut.wrap", None).visible);
        assert!(!control(&whole, "cut.inner", None).visible);
        assert_eq!(whole.dialog, None);
        let asked = probe.vis_checks();
        assert!(
            !asked.is_empty() && asked.iter().all(|&n| n > 0),
            "{asked:?}"
        );
        tools.close().await;
    });
}

/// A run sets up each tab it opens ahead of a journey while the journey before runs: the
/// collector its documents get, with the first read it will send (`tools/first_read.rs`,
/// `Session::fresh_tab`). A journey whose tools ask for another collector (here: evidence
/// kept, for a trace) replaces it before the tab's first navigation, so the first read the
/// page sends is the one they ask for, sent once; tools that ask for the same collector
/// leave it as it is.
#[test]
fn a_tab_set_up_ahead_gets_the_collector_its_journey_asks_for() {
    let registry = Arc::new(Registry::empty());
    let plain = ToolOptions::default();
    let traced = ToolOptions {
        evidence: true,
        ..ToolOptions::default()
    };
    for (ahead, journey) in [(&plain, &traced), (&traced, &traced), (&plain, &plain)] {
        let tab = block_on(async {
            let tab = shared().browser().new_tab().await.expect("open a tab");
            waymark::tools::prepare_tab(&tab, &registry, ahead)
                .await
                .expect("set the tab up ahead");
            tab
        });
        let (tools, probe) = probed_tools_on(
            tab,
            fixtures::base(),
            Arc::clone(&registry),
            journey.clone(),
        );
        block_on(async {
            let loaded = open(&tools, "/loaded-late.html").await;
            assert_eq!(probe.pushed(), 1, "the first read came from the page, once");
            assert_eq!(probe.read_kinds(), ["full"], "and no other was asked for");
            assert_eq!(value(&loaded, "late.status"), "Loaded");
            let raw = tools.last_observation().expect("a read is held");
            assert_eq!(
                raw.evidence.is_some(),
                journey.evidence,
                "evidence as the journey asks, set up ahead with evidence {}",
                ahead.evidence
            );
            tools.close().await;
        });
    }
}

/// A document a click loads sends its first read too, which no call takes (the action reads
/// the settled page itself): each call lets go of what the tab's documents pushed as it
/// ends, so a journey that goes from page to page by its links keeps none of those reads,
/// where before it kept every one (the page's whole records) until its next `navigate`.
#[test]
fn the_first_reads_of_documents_a_click_loaded_are_let_go_as_the_call_ends() {
    let (tools, probe) = probed_tools();
    block_on(async {
        open(&tools, "/").await;
        assert_eq!(probe.pushed(), 1, "navigate took its document's first read");
        let links = [
            "nav.claims",
            "nav.orders",
            "nav.widgets",
            "nav.claims",
            "nav.home",
        ];
        let mut let_go = 0;
        for link in links {
            ok(&tools.invoke(link, None).await);
            let_go += probe.pushed();
        }
        // Whatever came after the last action's end goes with the next call.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        ok(&tools.read_screen().await);
        let_go += probe.pushed();
        assert_eq!(probe.waiting_pushes().await, 0, "nothing left in the tab");
        assert_eq!(
            let_go,
            links.len(),
            "each loaded document's read, let go once"
        );
        tools.close().await;
    });
}

/// A document's first read is the one its page sends at the end of its load, not one asked
/// for after it (which waited behind the page's first frame): it holds what the page's
/// load listeners did, those added after the collector's own included, it equals a read
/// gathered whole, and the next read is a delta against it. The function the page sends it with is never the page's to see.
/// A same-document navigation loads nothing, and its read is asked for.
#[test]
fn navigate_takes_the_first_read_the_page_sent_at_its_load() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions::default());
    block_on(async {
        let loaded = open(&tools, "/loaded-late.html").await;
        assert_eq!(probe.pushed(), 1, "the first read came from the page");
        assert_eq!(probe.read_kinds(), ["full"], "and no other was asked for");
        assert_eq!(control(&loaded, "late.parsed", None).label, "Parsed");
        assert_eq!(value(&loaded, "late.status"), "Loaded");
        control(&loaded, "late.added", None);
        assert!(loaded.control("late.timer", None).is_none(), "{loaded:?}");
        let names = "Object.getOwnPropertyNames(window).filter(n => /waymark.*push/i.test(n))";
        assert_eq!(probe.value(names).await, serde_json::json!([]));
        // The next read is a delta against it; and it is what a read gathered whole says.
        let raw = tools.last_observation().expect("a read is held");
        let again = ok(&tools.read_screen().await).clone();
        assert_eq!(probe.read_kinds(), ["delta"]);
        assert_eq!(again.controls, loaded.controls);
        let whole = ok(&tools.read_screen_whole().await).clone();
        assert_eq!(whole.controls, loaded.controls);
        let boxes = tools.last_observation().expect("a read is held");
        assert_eq!(raw.controls, boxes.controls, "boxes");
        probe.read_kinds();

        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let later = ok(&tools.read_screen().await).clone();
        control(&later, "late.timer", None);
        assert_eq!(probe.read_kinds(), ["delta"]);

        let moved = open(&tools, "/loaded-late.html#elsewhere").await;
        control(&moved, "late.timer", None);
        assert_eq!(probe.pushed(), 0, "nothing loaded, nothing pushed");
        tools.close().await;
    });
}
