//! Actionability as Playwright defines it (issue 48): a pointer is aimed only at a target
//! attached, visible, enabled, with the same box over two animation frames, and the press
//! must reach it when it arrives, else it is stopped in the page and aimed again; what
//! never comes right fails `obscured` (naming what took the press) or `not_stable`, never
//! `ok`. Also: no fixed wait for a hashchange that never comes. The pages are built as
//! apps build them (a modal portal popping in, a tooltip on mouseenter, a drifting call to
//! action, a hash router on pushState), not to show a feature.

use std::sync::Arc;
use std::time::Duration;

use waymark::registry::Registry;
use waymark::tools::{ErrorCode, ToolOptions};

use crate::fixtures;
use crate::harness::{Probe, ProbedTab, block_on, failed, ok, probed_tools_at};

const REGISTRY: &str = "app: fixtures
screens:
  - id: settings
    route: /modal-pop.html
  - id: plans
    route: /press-races.html
  - id: todos-all
    route: /hash-app.html#/
  - id: todos-active
    route: /hash-app.html#/active
  - id: todos-completed
    route: /hash-app.html#/completed
anchors:
  - id: profile.edit
    description: opens the profile dialog
    screens: [settings]
    match: {role: button, name: Edit profile}
  - id: profile.close
    description: closes the profile dialog
    screens: [settings]
    match: {role: button, name: Close}
  - id: plan.upgrade
    description: upgrades the plan
    screens: [plans]
    match: {role: button, name: Upgrade}
  - id: plan.trial
    description: starts a trial
    screens: [plans]
    match: {role: button, name: Start trial}
  - id: todo.milk
    description: the first todo's checkbox
    screens: [todos-all, todos-active, todos-completed]
    match: {role: checkbox, name: Buy milk}
  - id: todos.active
    description: the Active filter
    screens: [todos-all, todos-active, todos-completed]
    match: {role: link, name: Active}
  - id: todos.completed
    description: the Completed filter
    screens: [todos-all, todos-active, todos-completed]
    match: {role: link, name: Completed}
  - id: todos.left
    description: how many are left
    screens: [todos-all, todos-active, todos-completed]
    match: {role: status}
";

fn tools_with(options: ToolOptions) -> (waymark::tools::Tools<ProbedTab>, Probe) {
    let registry = Registry::parse(REGISTRY, "actionability.yaml")
        .unwrap_or_else(|e| panic!("the registry: {e}"));
    probed_tools_at(fixtures::base(), Arc::new(registry), options)
}

/// How many times the modal is opened and closed: a press landing beside the button came
/// about 9 runs in 10 before, so five rounds in a row do not pass by luck.
const ROUNDS: usize = 5;

/// The row of issue 48: `wait_for` a modal's Close button, then `invoke` it while the
/// modal's 0.3 s pop-in runs. The press landed beside the button (its box measured
/// mid-animation) and the round trip said `ok`, with no change.
#[test]
fn a_press_on_a_popping_modal_waits_for_its_box_to_stand_still_and_closes_it() {
    let (tools, probe) = tools_with(ToolOptions::default());
    block_on(async {
        ok(&tools.navigate("/modal-pop.html").await);
        for round in 1..=ROUNDS {
            ok(&tools.invoke("profile.edit", None).await);
            let c = waymark::tools::Condition {
                anchor: Some("profile.close".into()),
                ..Default::default()
            };
            ok(&tools.wait_for(&c).await);
            let rt = tools.invoke("profile.close", None).await;
            let screen = ok(&rt);
            assert!(
                !screen.controls.iter().any(|c| c.anchor == "profile.close"),
                "round {round}: the dialog is still open after its Close was pressed"
            );
            let status = probe.text("#status").await;
            assert_eq!(status.as_deref(), Some(format!("Closed {round}").as_str()));
        }
    });
    block_on(tools.close());
}

/// The same page under Playwright's `click()`: what changed on the page is the same as
/// what waymark's `invoke` changed (the status after each round, and no dialog left).
#[test]
fn playwright_closes_the_popping_modal_as_invoke_does() {
    let seen = playwright_rounds();
    let expected: Vec<serde_json::Value> = (1..=ROUNDS)
        .map(|i| serde_json::json!({"status": format!("Closed {i}"), "dialogs": 0}))
        .collect();
    assert_eq!(seen, expected, "Playwright's click() on the same page");
}

/// Runs tests/playwright/modal-pop.mjs (see `harness::playwright_output`).
fn playwright_rounds() -> Vec<serde_json::Value> {
    let url = fixtures::base().join("modal-pop.html").expect("a URL");
    let rounds = ROUNDS.to_string();
    let out = crate::harness::playwright_output("modal-pop.mjs", &[url.as_str(), &rounds]);
    serde_json::from_slice(&out).expect("the script prints JSON")
}

/// A tooltip shown on `mouseenter` lies over its own button: the pointer's move brings it,
/// so the press that follows reaches the tooltip. The press is stopped before the page
/// sees it, tried again, and fails `obscured` naming the tooltip; the button never ran.
#[test]
fn a_press_that_reaches_another_element_fails_obscured_and_changes_nothing() {
    let (tools, probe) = tools_with(ToolOptions::default());
    block_on(async {
        ok(&tools.navigate("/press-races.html").await);
        tools.set_action_timeout(Some(Duration::from_millis(600)));
        let rt = tools.invoke("plan.upgrade", None).await;
        let error = failed(&rt, ErrorCode::Obscured);
        assert!(error.message.contains("div.tip"), "{}", error.message);
        assert_eq!(probe.text("#status").await.as_deref(), Some("Free plan"));
    });
    block_on(tools.close());
}

/// A call to action that drifts forever (a ticker) never holds its box over two frames: `not_stable`
/// once the action timeout runs out (Playwright: "element is not stable"), nothing pressed.
#[test]
fn a_target_that_never_stands_still_fails_not_stable() {
    let (tools, probe) = tools_with(ToolOptions::default());
    block_on(async {
        ok(&tools.navigate("/press-races.html").await);
        tools.set_action_timeout(Some(Duration::from_millis(400)));
        let rt = tools.invoke("plan.trial", None).await;
        let error = failed(&rt, ErrorCode::NotStable);
        assert!(error.message.contains("still moving"), "{}", error.message);
        assert_eq!(probe.text("#status").await.as_deref(), Some("Free plan"));
        // Hovering it waits the same way.
        failed(&tools.hover("plan.trial", None).await, ErrorCode::NotStable);
    });
    block_on(tools.close());
}

/// The row of issue 48: a hash-routed app (its route put in the address with replaceState,
/// its links pushed with pushState) whose actions never change the hash waited 500 ms on
/// every action for a hashchange that never came. Now none is waited for unless one is
/// coming: a plain fragment link still is (the app draws the route in its hashchange).
#[test]
fn actions_on_a_hash_routed_app_wait_for_no_hashchange_that_is_not_coming() {
    let (tools, probe) = tools_with(ToolOptions::default());
    block_on(async {
        let rt = tools.navigate("/hash-app.html").await;
        ok(&rt);
        assert_eq!(rt.route, "/hash-app.html#/");
        let waits = || probe.value("window.__waymark.hashWaits || 0");

        let rt = tools.invoke("todo.milk", None).await;
        ok(&rt);
        assert_eq!(rt.route, "/hash-app.html#/");
        assert_eq!(waits().await, 0, "a checkbox waited for a hashchange");

        // A router link pushes its route: no hashchange comes, none is waited for.
        let rt = tools.invoke("todos.active", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.route, "/hash-app.html#/active");
        assert_eq!(screen.screen.as_deref(), Some("todos-active"));
        assert_eq!(
            waits().await,
            0,
            "a pushState route waited for a hashchange"
        );

        // A plain fragment link: its hashchange is coming, and the read waits for it.
        let rt = tools.invoke("todos.completed", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.route, "/hash-app.html#/completed");
        assert_eq!(screen.screen.as_deref(), Some("todos-completed"));
        let milk = screen.controls.iter().find(|c| c.anchor == "todo.milk");
        assert!(
            milk.is_some(),
            "the completed list, drawn in the hashchange, shows the done todo"
        );
    });
    block_on(tools.close());
}
