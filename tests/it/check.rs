//! `waymark check`: the registry's promises checked on the demo app, screen by screen, and
//! one build compared with another: the same build, and the demo's redesign layout.

use std::path::PathBuf;
use std::sync::OnceLock;

use waymark::demo::{DemoApp, Layout};

use crate::cli::waymark;
use crate::harness::{block_on, shared};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A second demo app, in the redesign layout, served on the shared runtime for the whole
/// test binary.
fn redesign() -> &'static DemoApp {
    static APP: OnceLock<DemoApp> = OnceLock::new();
    APP.get_or_init(|| {
        block_on(DemoApp::start_in(Layout::Redesign)).expect("start the redesigned demo app")
    })
}

/// `file:line` of every line of `journeys/` naming `anchor` in a string literal.
fn uses_of(anchor: &str) -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("journeys"))
        .expect("journeys/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rhai"))
        .collect();
    files.sort();
    let mut uses = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a journey");
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if code.contains(&format!("\"{anchor}\"")) {
                uses.push(format!("journeys/{name}:{}", i + 1));
            }
        }
    }
    uses
}

#[test]
fn check_on_the_classic_demo_finds_nothing_broken() {
    let run = waymark(&root(), ["check", "--json"], &[]);
    // The demo app keeps every promise its registry makes: nothing missing or ambiguous.
    run.exits(0);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("the report is JSON");
    let screens = report["base"]["screens"].as_array().expect("screens");
    let mut broken = Vec::new();
    let mut found = 0;
    for screen in screens {
        for anchor in screen["anchors"].as_array().expect("anchors") {
            match anchor["state"].as_str() {
                Some("found") => found += 1,
                state => broken.push((
                    screen["screen"].as_str().unwrap_or_default().to_string(),
                    anchor["anchor"].as_str().unwrap_or_default().to_string(),
                    state.unwrap_or_default().to_string(),
                    anchor["count"].as_u64(),
                )),
            }
        }
    }
    assert!(broken.is_empty(), "nothing broken: {broken:?}");
    assert!(found > 80, "{found} found");
    // A screen with a parameter and no example is said so, not counted as missing.
    let skipped: Vec<&str> = screens
        .iter()
        .filter(|s| s["skipped"].is_string())
        .map(|s| s["screen"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(skipped, ["order-confirmation", "return-detail"]);
    let claim = screens
        .iter()
        .find(|s| s["screen"] == "claim-detail")
        .expect("claim-detail");
    assert_eq!(
        claim["route"], "/claims/1042",
        "visited through its example"
    );
    let approve = claim["anchors"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["anchor"] == "claim.approve"))
        .expect("claim.approve");
    assert_eq!(approve["seen"]["role"], "button");
    assert_eq!(approve["seen"]["region"], "actions");
    // Journeys' uses come from their text, at their lines.
    let uses = report["used_by"]["claim.approve"].as_array().expect("uses");
    assert!(
        uses.iter().any(|u| u
            .as_str()
            .is_some_and(|u| u.starts_with("journeys/") && u.contains(".rhai:"))),
        "{uses:?}"
    );
    let coverage = report["coverage"]["line"].as_str().unwrap_or_default();
    assert!(
        coverage.starts_with("coverage: 86 declared · 84 found · "),
        "{coverage}"
    );
}

#[test]
fn check_against_the_same_build_names_no_change() {
    let other = shared().base().to_string();
    let run = waymark(&root(), ["check", "--against", other.as_str()], &[]);
    run.exits(0)
        .says(&format!("check {other}"))
        .says("no change to any declared anchor")
        .says("not checked: return-detail: its route `/returns/{id}` needs `example:` values for `id`")
        .says("coverage: 86 declared · 84 found · ")
        .says("against coverage: 86 declared · 84 found · ");
    assert!(!run.stdout.contains("AMBIGUOUS"), "{}", run.stdout);
    assert!(!run.stdout.contains("MISSING"), "{}", run.stdout);
}

#[test]
fn check_without_screens_is_bad_input() {
    let dir = std::env::temp_dir().join(format!("waymark-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    std::fs::write(
        dir.join("anchors.yaml"),
        "app: a\nscreens: []\nanchors: []\n",
    )
    .expect("write a registry");
    waymark(&dir, ["check"], &[])
        .exits(2)
        .says("the registry declares no screens");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_against_the_redesign_names_exactly_the_relabel_the_drop_and_the_moves() {
    let redesign = format!("{}/", redesign().base_url());
    let run = waymark(
        &root(),
        ["check", "--against", redesign.as_str(), "--json"],
        &[],
    );
    // The redesign breaks one promise on purpose (claim.back is gone): exit 1.
    run.exits(1);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("the report is JSON");
    let listed = report["changes"]["changes"].as_array().expect("changes");
    let changes: Vec<String> = listed
        .iter()
        .map(|c| {
            let [kind, anchor, screen, was, now] =
                ["kind", "anchor", "screen", "was", "now"].map(|k| c[k].as_str().unwrap_or("-"));
            format!("{kind} {anchor} on {screen}: {was} → {now}")
        })
        .collect();
    // In registry order (the human output puts breaking changes first).
    assert_eq!(
        changes,
        [
            "moved claim.approve on claim-detail: actions → toolbar",
            "moved claim.reject on claim-detail: actions → toolbar",
            "relabelled claim.escalate on claim-detail: Escalate → Send to supervisor",
            "moved claim.escalate on claim-detail: actions → toolbar",
            "removed claim.back on claim-detail: - → -",
            "moved order.add-line on sales-order: lines → actions",
        ]
    );
    // Each change names the journeys that use its anchor, at their lines.
    for c in listed {
        let anchor = c["anchor"].as_str().unwrap_or_default();
        let used: Vec<&str> = c["used_by"]
            .as_array()
            .expect("used_by")
            .iter()
            .filter_map(|u| u.as_str())
            .collect();
        assert_eq!(used, uses_of(anchor), "{anchor}");
    }
    assert_eq!(
        uses_of("claim.back").len(),
        1,
        "the drop breaks one journey"
    );
    assert!(
        uses_of("claim.escalate")
            .iter()
            .all(|u| u.starts_with("journeys/error_codes.rhai:"))
    );

    // The broken promise is the drop, and nothing else: the return form, which carries no
    // data-anchor in the redesign, keeps every anchor through the registry's matchers.
    let against = report["against"]["screens"].as_array().expect("screens");
    let mut broken = Vec::new();
    for screen in against {
        for a in screen["anchors"].as_array().expect("anchors") {
            if a["state"] != "found" {
                broken.push(format!(
                    "{} {} {}",
                    screen["screen"], a["anchor"], a["state"]
                ));
            }
        }
    }
    assert_eq!(broken, ["\"claim-detail\" \"claim.back\" \"missing\""]);
    let form = against
        .iter()
        .find(|s| s["screen"] == "return-form")
        .expect("return-form");
    let found: Vec<&str> = form["anchors"]
        .as_array()
        .expect("anchors")
        .iter()
        .filter(|a| a["state"] == "found")
        .filter_map(|a| a["anchor"].as_str())
        .collect();
    assert!(
        found.contains(&"return.condition") && found.contains(&"nav.home"),
        "{found:?}"
    );
    assert_eq!(
        found.len(),
        15,
        "8 nav links and 7 return controls: {found:?}"
    );

    // What a reviewer reads in the pull request.
    let removed = format!(
        "removed       claim.back on claim-detail — used by {}",
        uses_of("claim.back").join(", ")
    );
    let relabelled = format!(
        "relabelled    claim.escalate on claim-detail: \"Escalate\" → \"Send to supervisor\" — used by {}",
        uses_of("claim.escalate").join(", ")
    );
    waymark(&root(), ["check", "--against", redesign.as_str()], &[])
        .exits(1)
        .says(&format!("{redesign} against http://127.0.0.1:"))
        .says(": 6 change(s)")
        .says(&removed)
        .says(&relabelled)
        .says("claim-detail    claim.back              MISSING")
        .says("against coverage: 86 declared · 83 found · ");
}
