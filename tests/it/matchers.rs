//! Registry matchers on an app that carries no `data-anchor`: a todo app built twice, in
//! plain markup and with web components (nested open shadow roots), each served on its own
//! 127.0.0.1 port at `/`, found through one registry (`tests/fixtures/apps/todo/`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use axum::response::Html;
use url::Url;
use waymark::registry::Registry;
use waymark::screen::InferredState;
use waymark::tools::{ErrorCode, ToolOptions, Tools};

use crate::cli::waymark;
use crate::harness::{block_on, control, failed, ok, open, shared, value};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apps/todo")
}

/// The two builds of the app.
const BUILDS: [&str; 2] = ["plain", "wc"];

/// The base URL serving `build`'s page at `/` (one server per build, started once).
fn base(build: &str) -> Url {
    static BASES: OnceLock<Vec<Url>> = OnceLock::new();
    let bases = BASES.get_or_init(|| {
        BUILDS
            .iter()
            .map(|b| {
                let page = std::fs::read_to_string(dir().join(format!("{b}.html")))
                    .unwrap_or_else(|e| panic!("read {b}.html: {e}"));
                block_on(async move {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                        .await
                        .expect("bind the app's server");
                    let addr = listener.local_addr().expect("the app's address");
                    let page: &'static str = Box::leak(page.into_boxed_str());
                    let app = axum::Router::new()
                        .route("/", axum::routing::get(move || async move { Html(page) }));
                    tokio::spawn(async move {
                        let _ = axum::serve(listener, app).await;
                    });
                    Url::parse(&format!("http://{addr}/")).expect("the app's URL parses")
                })
            })
            .collect()
    });
    bases[BUILDS.iter().position(|b| *b == build).expect("a build")].clone()
}

fn registry() -> Arc<Registry> {
    let path = dir().join("anchors.yaml");
    Arc::new(Registry::load(&path).unwrap_or_else(|e| panic!("{}", e.report())))
}

fn tools(build: &str) -> Tools<waymark::browser::ChromiumTab> {
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    Tools::new(tab, base(build), registry(), ToolOptions::default())
}

async fn add<T: waymark::browser::Tab>(tools: &Tools<T>, title: &str) -> InferredState {
    ok(&tools.fill("todo.new", title).await);
    ok(&tools.press("todo.new", "Enter").await).clone()
}

#[test]
fn every_matcher_kind_finds_its_control_in_both_builds() {
    for build in BUILDS {
        let tools = tools(build);
        block_on(async {
            let screen = open(&tools, "/").await;
            assert_eq!(screen.screen.as_deref(), Some("all"), "{build}");
            // role + name, label, test id, text (lifted to its link), role + regex name.
            let new = control(&screen, "todo.new", None);
            assert_eq!(
                (new.role.as_str(), new.label.as_str()),
                ("textbox", "New todo"),
                "{build}"
            );
            assert!(new.editable, "{build}");
            assert_eq!(
                control(&screen, "todo.toggle-all", None).role.as_str(),
                "checkbox"
            );
            control(&screen, "todo.list", None);
            assert_eq!(
                control(&screen, "filter.completed", None).role.as_str(),
                "link",
                "{build}"
            );
            control(&screen, "todo.clear", None);
            // An output: its text is its value.
            assert_eq!(value(&screen, "todo.count"), "0 items left", "{build}");
            // CSS, the last resort (an output too: a heading, its text its value).
            assert_eq!(
                control(&screen, "todo.heading", None).role.as_str(),
                "heading",
                "{build}"
            );
            assert_eq!(value(&screen, "todo.heading"), "todos", "{build}");

            // The placeholder finds the same field; an element shows under the first
            // anchor that finds it (`todo.new`), and an action on either finds it.
            assert!(
                screen.control("todo.new-by-placeholder", None).is_none(),
                "{build}"
            );
            ok(&tools.fill("todo.new-by-placeholder", "Buy milk").await);
            let screen = ok(&tools.press("todo.new", "Enter").await).clone();
            assert_eq!(value(&screen, "todo.count"), "1 item left", "{build}");
            let screen = add(&tools, "Walk the dog").await;
            // Keyed by their row's text: every row's key is in the read.
            let keys = |s: &InferredState, anchor: &str| -> Vec<String> {
                s.controls
                    .iter()
                    .filter(|c| c.anchor.as_str() == anchor)
                    .map(|c| c.key.as_deref().unwrap_or("").to_string())
                    .collect()
            };
            assert_eq!(
                keys(&screen, "todo.item"),
                ["Buy milk", "Walk the dog"],
                "{build}"
            );
            assert_eq!(
                keys(&screen, "todo.toggle"),
                ["Buy milk", "Walk the dog"],
                "{build}"
            );
            assert_eq!(
                keys(&screen, "todo.delete"),
                ["Buy milk", "Walk the dog"],
                "{build}"
            );

            // `within` and a key: the checkbox of the row whose text is "Buy milk".
            let screen = ok(&tools.invoke("todo.toggle", Some("Buy milk")).await).clone();
            assert_eq!(
                control(&screen, "todo.toggle", Some("Buy milk")).checked,
                Some(true),
                "{build}"
            );
            assert_eq!(
                control(&screen, "todo.toggle", Some("Walk the dog")).checked,
                Some(false)
            );
            assert_eq!(value(&screen, "todo.count"), "1 item left", "{build}");
            // A key names the row whose text contains it when none is equal to it.
            let screen = ok(&tools.invoke("todo.toggle", Some("dog")).await).clone();
            assert_eq!(value(&screen, "todo.count"), "0 items left", "{build}");

            // A hash route is a screen of its own, and the link's round trip shows it as
            // the app drew it in its `hashchange` (Chromium may tell of the fragment's
            // "load" before that has run).
            let screen = ok(&tools.invoke("filter.active", None).await).clone();
            assert_eq!(screen.screen.as_deref(), Some("active"), "{build}");
            assert!(
                keys(&screen, "todo.item").is_empty(),
                "{build}: {:?}",
                keys(&screen, "todo.item")
            );
        });
    }
}

#[test]
fn a_key_that_names_no_row_lists_the_rows_and_a_missing_anchor_names_its_matcher() {
    for build in BUILDS {
        let tools = tools(build);
        block_on(async {
            open(&tools, "/").await;
            add(&tools, "Buy milk").await;
            let e = failed(
                &tools.invoke("todo.toggle", Some("Buy bread")).await,
                ErrorCode::NotOnScreen,
            )
            .clone();
            assert!(e.message.contains("\"Buy milk\""), "{build}: {}", e.message);
            ok(&tools.invoke("todo.delete", Some("Buy milk")).await);
            let e = failed(
                &tools.invoke("todo.toggle", Some("Buy milk")).await,
                ErrorCode::NotOnScreen,
            )
            .clone();
            assert!(
                e.message
                    .contains("nothing matches {role: checkbox, within: todo.item}"),
                "{build}: {}",
                e.message
            );
        });
    }
}

#[test]
fn a_matcher_that_finds_two_elements_is_ambiguous_with_candidates_and_a_narrower_matcher() {
    let yaml = std::fs::read_to_string(dir().join("anchors.yaml")).expect("the registry");
    let yaml = format!(
        "{yaml}  - id: todo.any-box\n    description: any checkbox\n    screens: [all]\n    match: {{role: checkbox}}\n"
    );
    let registry = Arc::new(
        Registry::parse(&yaml, "anchors.yaml").unwrap_or_else(|e| panic!("{}", e.report())),
    );
    for build in BUILDS {
        let tab = block_on(shared().browser().new_tab()).expect("a tab");
        let tools = Tools::new(
            tab,
            base(build),
            Arc::clone(&registry),
            ToolOptions::default(),
        );
        block_on(async {
            open(&tools, "/").await;
            add(&tools, "Buy milk").await;
            add(&tools, "Walk the dog").await;
            let e = failed(
                &tools.invoke("todo.any-box", None).await,
                ErrorCode::AmbiguousAnchor,
            )
            .clone();
            let m = &e.message;
            assert!(m.contains("matches 3 controls"), "{build}: {m}");
            assert!(
                m.contains("1. checkbox \"Mark all as complete\""),
                "{build}: {m}"
            );
            assert!(m.contains("2. checkbox \"Buy milk\""), "{build}: {m}");
            assert!(m.contains("narrow it by name, e.g. match: {role: checkbox, name: \"Mark all as complete\"}"), "{build}: {m}");
        });
    }
}

#[test]
fn a_journey_written_with_matchers_only_passes_on_both_builds() {
    let journeys = dir().join("journeys");
    let anchors = dir().join("anchors.yaml");
    for build in BUILDS {
        let url = base(build);
        let run = waymark(
            &dir(),
            [
                "run".as_ref(),
                journeys.as_os_str(),
                "--anchors".as_ref(),
                anchors.as_os_str(),
                "--base-url".as_ref(),
                url.as_str().as_ref(),
            ],
            &[],
        );
        run.exits(0).says("1 passed");
    }
}

#[test]
fn suggest_proposes_a_registry_whose_every_entry_finds_its_control_alone() {
    let cwd = tempfile::tempdir().expect("a temp dir");
    for build in BUILDS {
        let url = base(build);
        let run = waymark(
            cwd.path(),
            ["suggest", "/", "--base-url", url.as_str()],
            &[],
        );
        run.exits(0);
        let proposed = Registry::parse(&run.stdout, "suggested.yaml")
            .unwrap_or_else(|e| panic!("{build}: {}\n{}", e.report(), run.stdout));
        let ids: Vec<String> = proposed
            .anchors()
            .iter()
            .map(|a| a.id.to_string())
            .collect();
        for wanted in [
            "header.new-todo",
            "main.mark-all-as-complete",
            "footer.clear-completed",
        ] {
            assert!(
                ids.iter().any(|id| id == wanted),
                "{build}: {wanted} not in {ids:?}"
            );
        }
        let tab = block_on(shared().browser().new_tab()).expect("a tab");
        let tools = Tools::new(tab, url, Arc::new(proposed.clone()), ToolOptions::default());
        block_on(async {
            let screen = open(&tools, "/").await;
            for id in &ids {
                let n = screen
                    .controls
                    .iter()
                    .filter(|c| c.anchor.as_str() == id)
                    .count();
                assert_eq!(n, 1, "{build}: {id} found {n} times\n{}", run.stdout);
            }
        });
    }
}

#[test]
fn a_region_read_finds_the_anchors_matchers_give_after_the_page_changed() {
    let (tools, probe) =
        crate::harness::probed_tools_at(base("plain"), registry(), ToolOptions::default());
    block_on(async {
        open(&tools, "/").await;
        add(&tools, "Buy milk").await;
        // The page changes by itself (no tool read since): a region read sees it.
        probe
            .run("document.querySelector('.todo-list label').textContent = 'Buy bread'")
            .await;
        let rt = tools
            .read_screen_with(waymark::screen::View {
                region: Some("main".into()),
                ..waymark::screen::View::default()
            })
            .await;
        let screen = ok(&rt);
        let keys: Vec<String> = screen
            .controls
            .iter()
            .filter(|c| c.anchor.as_str() == "todo.toggle")
            .map(|c| c.key.as_deref().unwrap_or("").to_string())
            .collect();
        assert_eq!(keys, ["Buy bread"]);
        assert!(screen.controls.iter().all(|c| c.region.as_str() == "main"));
    });
}
