//! The registry means what it says (issue 48, item 4): a matcher applies only on its
//! anchor's screens, and `key: text` under `within:` keys each row by its own row, on pages
//! built as apps build them (two sign-in forms, a list of `<div>` rows).

use std::sync::Arc;

use waymark::registry::Registry;
use waymark::tools::{ToolOptions, Tools};

use crate::fixtures;
use crate::harness::{block_on, ok, shared};

fn tools(yaml: &str) -> Tools<waymark::browser::ChromiumTab> {
    let registry = Registry::parse(yaml, "scope.yaml").unwrap_or_else(|e| panic!("{e:?}"));
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    Tools::new(
        tab,
        fixtures::base(),
        Arc::new(registry),
        ToolOptions::default(),
    )
}

/// The row of issue 48: every matcher ran on every screen, the first in the file took the
/// element, and the other screen's anchor read missing (44 of 79 found on a first registry).
#[test]
fn similar_matchers_on_different_screens_each_find_their_own_screens_element() {
    let tools = tools(
        "app: auth
screens:
  - id: sign-in
    route: /sign-in.html
  - id: sign-up
    route: /sign-up.html
anchors:
  - id: signin.submit
    description: signs in
    screens: [sign-in]
    match: {role: button, name: /^Sign/}
  - id: signup.submit
    description: signs up
    screens: [sign-up]
    match: {role: button, name: /^Sign/}
",
    );
    block_on(async {
        for (route, mine, other, label) in [
            ("/sign-in.html", "signin.submit", "signup.submit", "Sign in"),
            ("/sign-up.html", "signup.submit", "signin.submit", "Sign up"),
        ] {
            let rt = tools.navigate(route).await;
            let screen = ok(&rt);
            let found: Vec<&str> = screen.controls.iter().map(|c| c.anchor.as_str()).collect();
            assert!(found.contains(&mine), "{route}: {found:?}");
            assert!(!found.contains(&other), "{route}: {found:?}");
            let c = screen
                .controls
                .iter()
                .find(|c| c.anchor == mine)
                .expect("found");
            assert_eq!(c.label, label);
            ok(&tools.invoke(mine, None).await);
        }
        tools.close().await;
    });
}

/// The row of issue 48: `key: text` on an item `within:` a list keyed every item by the
/// whole list's text. Each row is keyed by its own row now.
#[test]
fn key_text_within_a_list_keys_each_element_by_its_own_row() {
    let tools = tools(
        "app: todos
screens:
  - id: todos
    route: /todo-rows.html
anchors:
  - id: todo.list
    description: the list
    screens: [todos]
    match: {role: list, name: Todos}
  - id: todo.toggle
    description: marks a todo done
    screens: [todos]
    keyed: true
    match: {role: checkbox, within: todo.list}
    key: text
",
    );
    block_on(async {
        let rt = tools.navigate("/todo-rows.html").await;
        let screen = ok(&rt);
        let keys: Vec<&str> = screen
            .controls
            .iter()
            .filter(|c| c.anchor == "todo.toggle")
            .filter_map(|c| c.key.as_deref())
            .collect();
        assert_eq!(keys, ["Buy milk", "Walk the dog"]);
        let rt = tools.invoke("todo.toggle", Some("Walk the dog")).await;
        let screen = ok(&rt);
        let walked = screen
            .controls
            .iter()
            .find(|c| c.anchor == "todo.toggle" && c.key.as_deref() == Some("Walk the dog"))
            .expect("the row is still there");
        assert_eq!(walked.checked, Some(true));
        tools.close().await;
    });
}

/// Two anchors whose different matchers find one same element on one screen: `check` says
/// which (the first in the file shows it, the other reads missing).
#[test]
fn check_names_two_anchors_that_find_one_element() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(
        dir.path().join("anchors.yaml"),
        "app: auth
screens:
  - id: sign-in
    route: /sign-in.html
anchors:
  - id: signin.submit
    description: signs in
    screens: [sign-in]
    match: {role: button, name: Sign in}
  - id: signin.button
    description: the form's button
    screens: [sign-in]
    match: {css: form button}
",
    )
    .expect("write a registry");
    let base = fixtures::base();
    crate::cli::waymark(dir.path(), ["check", "--base-url", base.as_str()], &[])
        .exits(1)
        .says("shared: signin.submit and signin.button find the same element on sign-in");
}
