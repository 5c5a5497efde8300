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

/// Each press of the keys comparison: the field it names and the key, as a journey writes
/// it (and as Playwright's `press` takes it).
const PRESSES: &[(&str, &str)] = &[
    ("keys.line", "End"),
    ("keys.line", "Shift+ArrowLeft"),
    ("keys.line", "Backspace"),
    ("keys.line", "a"),
    ("keys.line", "Shift+b"),
    ("keys.line", "Shift+KeyB"),
    ("keys.line", "Shift+1"),
    ("keys.line", "Space"),
    ("keys.line", "Home"),
    ("keys.line", "Shift+End"),
    ("keys.line", "Delete"),
    ("keys.line", "x"),
    ("keys.line", "Control+a"),
    ("keys.line", "Control+Backspace"),
    ("keys.line", "Enter"),
    ("keys.line", "Escape"),
    ("keys.line", "F2"),
    ("keys.line", "Alt+x"),
    ("keys.line", "Tab"),
    ("keys.text", "End"),
    ("keys.text", "Enter"),
    ("keys.text", "Shift+Enter"),
    ("keys.text", "z"),
    ("keys.text", "Control+Home"),
    ("keys.text", "PageDown"),
    ("keys.text", "PageUp"),
    ("keys.text", "Digit7"),
    ("keys.text", "Control+Shift+ArrowRight"),
    ("keys.text", "Shift+Tab"),
];

/// tests/playwright/keys.mjs's answers: what each of PRESSES left, in turn.
fn playwright_keys(url: &str) -> Option<serde_json::Value> {
    let presses = serde_json::to_string(PRESSES).expect("the presses");
    crate::harness::playwright_oracle("keys.mjs", &[url, &presses])
}

/// Each key fires what Playwright's own `press` fires, in order (keydown, keypress, keyup
/// with their key, code, keyCode, location and modifiers; beforeinput and input with their
/// inputType and data), and leaves the field, its value and its selection as Playwright's
/// leaves them: letters, shifted ones, edits, selection by keys, a chord with Control and
/// one with Alt, Enter in a line and in a text area, Tab and Shift+Tab.
#[test]
fn each_key_fires_what_playwrights_press_fires() {
    let url = crate::fixtures::base().join("keys.html").expect("a URL");
    let (tools, probe) = crate::fixtures::probed_tools_with(waymark::tools::ToolOptions::default());
    let ours: Vec<serde_json::Value> = block_on(async {
        ok(&tools.navigate("/keys.html").await);
        let mut seen = Vec::new();
        for (anchor, key) in PRESSES {
            ok(&tools.press(anchor, key).await);
            seen.push(probe.value("window.taken()").await);
        }
        seen
    });
    // What the page is: a letter named by its code types its capital with Shift held (by
    // its key, the key as named, as in Playwright), Control+a selects all.
    let after = |key: &str| {
        let at = PRESSES.iter().position(|p| p.1 == key).expect("a press");
        &ours[at]
    };
    assert_eq!(
        after("Shift+b")["value"],
        "hello worlab",
        "{}",
        after("Shift+b")
    );
    assert_eq!(
        after("Shift+KeyB")["value"],
        "hello worlabB",
        "{}",
        after("Shift+KeyB")
    );
    // (Control+a after the line was cut down to "x".)
    assert_eq!(after("Control+a")["value"], "x", "{}", after("Control+a"));
    assert_eq!(
        after("Control+a")["selection"],
        serde_json::json!([0, 1]),
        "{}",
        after("Control+a")
    );
    let Some(theirs) = playwright_keys(url.as_str()) else {
        return;
    };
    let theirs = theirs.as_array().expect("one answer per press");
    let mut differences = Vec::new();
    for (((anchor, key), ours), theirs) in PRESSES.iter().zip(&ours).zip(theirs) {
        if ours != theirs {
            differences.push(format!(
                "{anchor} {key}:\n  waymark    {ours}\n  Playwright {theirs}"
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
