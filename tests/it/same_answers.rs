//! Issue 48's rows: what a user bringing Playwright's and Testing Library's semantics
//! expects on pages built the way real apps build them (web components, icon fonts, split
//! text, submenus), each on a page of ours built that way (served by `pages`).

use std::sync::Arc;

use waymark::registry::Registry;
use waymark::screen::InferredState;
use waymark::tools::{ToolOptions, Tools};

use crate::harness::{block_on, control, open, shared};
use crate::pages;

/// A registry of one screen (every page the server holds) and `anchors`, written as YAML
/// entries (`- id: …`), each on that screen.
fn registry(anchors: &str) -> Arc<Registry> {
    let yaml = format!("app: rows\nscreens:\n  - id: page\n    route: /p/*\nanchors:\n{anchors}");
    Arc::new(Registry::parse(&yaml, "anchors.yaml").unwrap_or_else(|e| panic!("{}", e.report())))
}

/// Reads `html` (served as `name`) through `anchors`.
fn read(name: &str, html: &str, anchors: &str) -> InferredState {
    let route = pages::put(name, html);
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    let tools = Tools::new(
        tab,
        pages::base(),
        registry(anchors),
        ToolOptions::default(),
    );
    block_on(open(&tools, &route))
}

fn of<'a>(screen: &'a InferredState, anchor: &str) -> Vec<&'a waymark::screen::Control> {
    screen
        .controls
        .iter()
        .filter(|c| c.anchor.as_str() == anchor)
        .collect()
}

const HEAD: &str = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>row</title></head><body style=\"width: 970px; margin: 0\">";

#[test]
fn an_empty_paragraph_is_not_visible_as_playwright_says() {
    // A 970 × 0 px box: Playwright's isVisible() is false (a box must have both sizes).
    let html = format!(
        "{HEAD}<p data-anchor=\"row.empty\"></p><p data-anchor=\"row.full\">Shown</p></body></html>"
    );
    let screen = read("empty-p", &html, "");
    assert!(
        !control(&screen, "row.empty", None).visible,
        "an empty <p> reads hidden"
    );
    assert!(control(&screen, "row.full", None).visible);
}

#[test]
fn role_skips_rows_hidden_on_a_web_component_host_unless_asked() {
    // A filtered list: the finished row's host is `display: none` (its <li> lives in the
    // host's shadow root). `match: {role: listitem}` finds the two shown rows only;
    // `hidden: true` opts in to all three.
    let row = |title: &str, hidden: bool| {
        format!(
            "<todo-row{}><template shadowrootmode=\"open\"><li>{title}</li></template></todo-row>",
            if hidden {
                " style=\"display: none\""
            } else {
                ""
            }
        )
    };
    let html = format!(
        "{HEAD}<ul>{}{}{}</ul><ul><li hidden>gone</li><li aria-hidden=\"true\">muted</li>\
         <li style=\"visibility: hidden\">unseen</li></ul></body></html>",
        row("Buy milk", false),
        row("Walk the dog", true),
        row("Call mum", false)
    );
    let anchors = "  - id: todo.item\n    description: d\n    screens: [page]\n    keyed: true\n    match: {role: listitem}\n    key: text\n  - id: todo.any\n    description: d\n    screens: [page]\n    keyed: true\n    match: {role: listitem, hidden: true}\n    key: text\n";
    let screen = read("hidden-rows", &html, anchors);
    let keys: Vec<_> = of(&screen, "todo.item")
        .iter()
        .map(|c| c.key.clone().unwrap_or_default())
        .collect();
    assert_eq!(keys, ["Buy milk", "Call mum"], "the shown rows only");
    // An element shows under the first anchor that finds it: the hidden ones under the other.
    let mut hidden: Vec<_> = of(&screen, "todo.any")
        .iter()
        .map(|c| c.key.clone().unwrap_or_default())
        .collect();
    hidden.sort();
    assert_eq!(
        hidden,
        ["Walk the dog", "gone", "muted", "unseen"],
        "hidden: true finds them"
    );
}

#[test]
fn text_matches_split_text_whole_the_smallest_element() {
    // `<strong>2</strong> items left`: the counter's whole text matches, not its pieces.
    let html = format!(
        "{HEAD}<footer><span class=\"todo-count\"><strong>2</strong> items left</span>\
         <p>Double-click to <em>edit</em> a todo</p></footer></body></html>"
    );
    let anchors = "  - id: todo.count\n    description: d\n    screens: [page]\n    match: {text: \"/items? left/\"}\n  - id: todo.hint\n    description: d\n    screens: [page]\n    match: {text: Double-click to edit a todo}\n";
    let screen = read("split-text", &html, anchors);
    let count = of(&screen, "todo.count");
    assert_eq!(
        count.len(),
        1,
        "one counter: the span, not the footer around it"
    );
    assert_eq!(count[0].value.as_deref(), Some("2 items left"));
    assert_eq!(
        of(&screen, "todo.hint").len(),
        1,
        "a string is compared with the whole text"
    );
}

#[test]
fn a_menu_item_is_named_without_its_open_submenu() {
    // Chromium names the item "Enabled" whatever its open submenu holds.
    let html = format!(
        "{HEAD}<ul role=\"menu\"><li role=\"menuitem\" aria-haspopup=\"true\" aria-expanded=\"true\">Enabled\
         <ul role=\"menu\"><li role=\"menuitem\">Downloads</li><li role=\"menuitem\">PDF</li>\
         <li role=\"menuitem\">CSV</li></ul></li><li role=\"menuitem\">Back to top</li></ul>\
         <ul role=\"tree\"><li role=\"treeitem\" aria-expanded=\"true\">Reports<ul role=\"group\">\
         <li role=\"treeitem\">2024</li></ul></li></ul></body></html>"
    );
    let anchors = "  - id: menu.enabled\n    description: d\n    screens: [page]\n    match: {role: menuitem, name: Enabled}\n  - id: tree.reports\n    description: d\n    screens: [page]\n    match: {role: treeitem, name: Reports}\n";
    let screen = read("submenu", &html, anchors);
    assert_eq!(control(&screen, "menu.enabled", None).label, "Enabled");
    assert_eq!(control(&screen, "tree.reports", None).label, "Reports");
}

#[test]
fn an_icon_font_glyph_is_left_out_of_a_name() {
    // A Private Use Area glyph (an icon font's) before the word: named "Login", shown so.
    let html = format!(
        "{HEAD}<button><i class=\"icon\">\u{e001}</i> Login</button>\
         <label>\u{f0e0} Email <input></label></body></html>"
    );
    let anchors = "  - id: auth.login\n    description: d\n    screens: [page]\n    match: {role: button, name: Login}\n  - id: auth.email\n    description: d\n    screens: [page]\n    match: {label: Email}\n";
    let screen = read("icon-font", &html, anchors);
    assert_eq!(control(&screen, "auth.login", None).label, "Login");
    assert_eq!(control(&screen, "auth.email", None).label, "Email");
}

#[test]
fn suggest_writes_an_icon_buttons_name_without_its_glyph() {
    // The glyph is no part of the name `suggest` proposes, and the matcher finds the button.
    let route = pages::put(
        "icon-suggest",
        format!(
            "{HEAD}<main><button><i class=\"icon\">\u{e001}</i> Login</button></main></body></html>"
        ),
    );
    let url = pages::base().join(&route).expect("the page's URL");
    let cwd = tempfile::tempdir().expect("a temp dir");
    let run = crate::cli::waymark(
        cwd.path(),
        ["suggest", url.path(), "--base-url", pages::base().as_str()],
        &[],
    );
    run.exits(0);
    assert!(
        run.stdout
            .contains("match: {role: button, name: \"Login\"}"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains('\u{e001}'), "{}", run.stdout);
}
