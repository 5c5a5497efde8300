//! `in_viewport` as Playwright's `toBeInViewport()` says it (an IntersectionObserver's
//! ratio above 0; playwright-core on the same Debian Chromium is the oracle), on
//! `tests/fixtures/audit/viewport.html`: rows of a list that scrolls, a strip that hides
//! its overflow across, `overflow: clip`, `contain: paint`, a rule under `@media`, a
//! style attribute, nested panes, an absolute control its positioned container clips and
//! one that escapes a container that is not positioned, a fixed one, and a frame's rows
//! below its fold; as loaded, then after each of STEPS (the list, the panes, the window
//! and the frame scrolled by the page's own scripts, and a modal dialog whose content
//! scrolls).

use std::sync::Arc;

use waymark::registry::Registry;
use waymark::tools::ToolOptions;

use crate::fixtures;
use crate::harness::{block_on, ok, probed_tools_at};

/// What the page's scripts do between the reads compared, in turn.
const STEPS: &[&str] = &[
    "document.getElementById('list').scrollTop = 300",
    "document.getElementById('pane').scrollTop = 50; document.querySelector('#pane .inner').scrollTop = 40",
    "window.scrollBy(0, 150)",
    "document.getElementById('frame').contentWindow.scrollTo(0, 120)",
    "const d = document.createElement('dialog'); d.innerHTML = '<button data-anchor=\"dialog.near\">Near</button><div style=\"height:2000px\"></div><button data-anchor=\"dialog.far\">Far</button>'; document.body.append(d); d.showModal()",
];

/// tests/playwright/viewport.mjs's answers: each control's, as loaded and after each step.
fn playwright(url: &str) -> Option<serde_json::Value> {
    let args: Vec<&str> = std::iter::once(url).chain(STEPS.iter().copied()).collect();
    crate::harness::playwright_oracle("viewport.mjs", &args)
}

/// Each control's `in_viewport` in `screen`, as the screen map shows it.
fn in_viewport(
    screen: &waymark::screen::InferredState,
) -> serde_json::Map<String, serde_json::Value> {
    let json = serde_json::to_value(screen).expect("a screen serializes");
    json["controls"]
        .as_array()
        .expect("controls")
        .iter()
        .map(|c| {
            (
                c["anchor"].as_str().expect("an anchor").to_string(),
                c["in_viewport"].clone(),
            )
        })
        .collect()
}

#[test]
fn in_viewport_is_what_playwrights_to_be_in_viewport_says_through_what_clips() {
    let url = fixtures::base().join("viewport.html").expect("a URL");
    let (tools, probe) = probed_tools_at(
        fixtures::base(),
        Arc::new(Registry::empty()),
        ToolOptions::default(),
    );
    let ours: Vec<_> = block_on(async {
        let mut seen = vec![in_viewport(ok(&tools.navigate("/viewport.html").await))];
        for step in STEPS {
            probe.run(step).await;
            // A few frames: the scroll painted and its events sent, as the oracle waits.
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            seen.push(in_viewport(ok(&tools.read_screen().await)));
        }
        seen
    });
    // The page is what the test says: the list's first rows scrolled out of it at load,
    // the strip's button past its hidden overflow, the frame's last rows below its fold.
    let load = &ours[0];
    for (anchor, want) in [
        ("list.row-0", false),
        ("list.row-2", true),
        ("list.row-10", false),
        ("strip.wide", false),
        ("boxed.abs", true),
        ("loose.abs", true),
        ("loose.fixed", true),
        ("frame.row-0", true),
        ("frame.row-5", false),
    ] {
        assert_eq!(
            load.get(anchor),
            Some(&serde_json::json!(want)),
            "{anchor} at load"
        );
    }
    // And a modal dialog's content past its scrolling box.
    let modal = &ours[STEPS.len()];
    assert_eq!(modal.get("dialog.near"), Some(&serde_json::json!(true)));
    assert_eq!(modal.get("dialog.far"), Some(&serde_json::json!(false)));
    let Some(theirs) = playwright(url.as_str()) else {
        return;
    };
    let mut differences = Vec::new();
    for (i, ours) in ours.iter().enumerate() {
        let theirs = theirs[i.to_string()].as_object().expect("a step's answers");
        assert_eq!(
            ours.len(),
            theirs.len(),
            "step {i}: the same controls on both sides"
        );
        for (anchor, want) in theirs {
            if ours.get(anchor) != Some(want) {
                differences.push(format!(
                    "step {i}: {anchor}: waymark {:?}, Playwright {want}",
                    ours.get(anchor)
                ));
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
