//! `waymark check`: the registry's promises checked on the demo app, screen by screen, and
//! one build compared with another.

use std::path::PathBuf;

use crate::cli::waymark;
use crate::harness::shared;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn check_on_the_demo_finds_every_anchor() {
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
