//! Tabs a page opens, on pages of their own (`tests/fixtures/apps/tabs/`, served on
//! 127.0.0.1, with a partner's page on a second origin): a `target="_blank"` help link, a
//! sign-in popup that reports to its opener and closes itself, a popup off the app's
//! origin refused; the journey through the CLI, its trace, and each tab's own gates.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use axum::response::Html;
use url::Url;
use waymark::control::Hub;
use waymark::registry::Registry;
use waymark::tools::{ErrorCode, ToolOptions, Tools};

use crate::cli::waymark;
use crate::harness::{block_on, failed, ok, shared, value};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apps/tabs")
}

fn page(name: &str) -> &'static str {
    let text = std::fs::read_to_string(dir().join(name)).expect("read a fixture page");
    Box::leak(text.into_boxed_str())
}

/// Serves `app` on 127.0.0.1: its address.
async fn serve(app: axum::Router) -> Url {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a server");
    let addr = listener.local_addr().expect("the server's address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Url::parse(&format!("http://{addr}/")).expect("the URL parses")
}

/// The app, with its partner's page on another origin (another port).
fn base() -> Url {
    static BASE: OnceLock<Url> = OnceLock::new();
    BASE.get_or_init(|| {
        block_on(async {
            let partner = axum::Router::new().route(
                "/offers",
                axum::routing::get(|| async {
                    Html("<title>Offers</title><h1>Partner offers</h1>")
                }),
            );
            let other = serve(partner).await;
            let other = other.as_str().trim_end_matches('/').to_string();
            let index: &'static str = Box::leak(
                page("index.html")
                    .replace("{{OTHER}}", &other)
                    .into_boxed_str(),
            );
            let mut app = axum::Router::new()
                .route("/", axum::routing::get(move || async move { Html(index) }));
            for (path, file) in [
                ("/help", "help.html"),
                ("/signin", "signin.html"),
                ("/deals", "blocked.html"),
            ] {
                let text = page(file);
                app = app.route(path, axum::routing::get(move || async move { Html(text) }));
            }
            serve(app).await
        })
    })
    .clone()
}

fn tools() -> Tools<waymark::browser::ChromiumTab> {
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    Tools::new(
        tab,
        base(),
        Arc::new(Registry::empty()),
        ToolOptions::default(),
    )
}

#[test]
fn a_link_to_a_new_tab_is_announced_listed_and_driven() {
    let tools = tools();
    block_on(async {
        ok(&tools.navigate("/").await);
        let rt = tools.invoke("help.open", None).await;
        ok(&rt);
        let opened = rt.opened.clone().expect("the round trip says a tab opened");
        assert_eq!(opened.tab, 1, "{opened:?}");
        assert_eq!(opened.url, format!("{}help", base()), "{opened:?}");
        assert_eq!(rt.route, "/", "the tools stay where they were");
        let tabs = tools.tabs().await;
        assert_eq!(tabs.len(), 2, "{tabs:?}");
        assert!(tabs[0].current && !tabs[1].current, "{tabs:?}");
        assert_eq!(tabs[1].opener, Some(0), "{tabs:?}");
        let rt = tools.switch_tab(1).await;
        let screen = ok(&rt);
        assert_eq!(screen.route, "/help");
        assert_eq!(rt.tab, 1);
        assert_eq!(tools.tabs().await[1].title, "Help centre");
        ok(&tools.fill("help.search", "refunds").await);
        ok(&tools.switch_tab(0).await);
        let rt = tools.switch_tab(7).await;
        let err = failed(&rt, ErrorCode::InvalidArgument);
        assert!(err.message.contains("no open tab 7"), "{}", err.message);
    });
    block_on(tools.close());
}

#[test]
fn a_popup_that_closes_itself_returns_the_tools_to_its_opener() {
    let tools = tools();
    block_on(async {
        ok(&tools.navigate("/").await);
        let rt = tools.invoke("signin.open", None).await;
        let popup = rt.opened.clone().expect("a popup opened").tab;
        ok(&tools.switch_tab(popup).await);
        ok(&tools.fill("signin.email", "ada@example.com").await);
        let rt = tools.invoke("signin.done", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.closed, Some(popup), "{rt:?}");
        assert_eq!(rt.tab, 0);
        assert_eq!(screen.route, "/");
        assert_eq!(tools.tabs().await.len(), 1);
        // One that closes a moment after the action: the next call is the opener's.
        let rt = tools.invoke("signin.open", None).await;
        let popup = rt.opened.clone().expect("a popup opened").tab;
        ok(&tools.switch_tab(popup).await);
        assert_eq!(
            ok(&tools.invoke("signin.later", None).await).route,
            "/signin"
        );
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        let rt = tools.read_screen().await;
        assert_eq!(ok(&rt).route, "/", "{rt:?}");
        assert_eq!((rt.closed, rt.tab), (Some(popup), 0), "{rt:?}");
    });
    block_on(tools.close());
}

#[test]
fn every_window_a_page_opens_is_the_journeys_and_its_opener_stays_shown() {
    let tools = tools();
    block_on(async {
        ok(&tools.navigate("/").await);
        // One click, two windows: the round trip names the first, the list has both.
        let rt = tools.invoke("both.open", None).await;
        assert_eq!(rt.opened.as_ref().map(|o| o.tab), Some(1), "{rt:?}");
        let routes: Vec<String> = tools.tabs().await.into_iter().map(|t| t.route).collect();
        assert_eq!(routes, ["/", "/help", "/signin"]);
        // A new tab comes to the front; the journey's stays shown (its page renders).
        let screen = ok(&tools.read_screen().await).clone();
        assert_eq!(value(&screen, "visibility"), "visible");
        // A named window opened again is the same window: nothing new, and no wait for it.
        let first = tools.invoke("signin.open", None).await;
        let again = tools.invoke("signin.open", None).await;
        assert_eq!(first.opened.as_ref().map(|o| o.tab), Some(3), "{first:?}");
        assert_eq!(ok(&again).route, "/");
        assert_eq!(again.opened, None, "{again:?}");
        // A window opened on load, without a gesture, is announced by the navigation.
        let rt = tools.navigate("/deals").await;
        assert_eq!(rt.opened.as_ref().map(|o| o.tab), Some(4), "{rt:?}");
        assert_eq!(tools.tabs().await.len(), 5);
    });
    block_on(tools.close());
}

#[test]
fn a_popup_off_the_apps_origin_is_refused_and_closed() {
    let tools = tools();
    block_on(async {
        ok(&tools.navigate("/").await);
        let rt = tools.invoke("partner.open", None).await;
        let err = failed(&rt, ErrorCode::OffOrigin);
        assert!(err.message.contains("/offers"), "{}", err.message);
        assert_eq!(
            tools.tabs().await.len(),
            1,
            "the partner's tab is not the journey's"
        );
        assert_eq!(rt.route, "/");
    });
    block_on(tools.close());
}

#[test]
fn close_tab_closes_the_current_tab_or_another_and_returns_to_the_opener() {
    let tools = tools();
    block_on(async {
        ok(&tools.navigate("/").await);
        ok(&tools.invoke("help.open", None).await);
        ok(&tools.switch_tab(1).await);
        let rt = tools.close_tab(None).await;
        let screen = ok(&rt);
        assert_eq!(rt.tool, "close_tab");
        assert_eq!(rt.closed, Some(1), "the round trip says which closed");
        assert_eq!(rt.tab, 0, "the calls are on its opener");
        assert_eq!(screen.route, "/");
        assert_eq!(tools.tabs().await.len(), 1, "the closed tab is gone");

        // Another tab than the current one: the calls stay.
        let opened = tools
            .invoke("help.open", None)
            .await
            .opened
            .expect("a tab opened");
        let rt = tools.close_tab(Some(opened.tab)).await;
        ok(&rt);
        assert_eq!((rt.closed, rt.tab), (Some(opened.tab), 0));
        assert_eq!(tools.tabs().await.len(), 1);

        let rt = tools.close_tab(None).await;
        let err = failed(&rt, ErrorCode::InvalidArgument);
        assert!(
            err.message.contains("the journey's first"),
            "{}",
            err.message
        );
        let rt = tools.close_tab(Some(7)).await;
        let err = failed(&rt, ErrorCode::InvalidArgument);
        assert!(
            err.message.contains("no open tab 7; the journey's tabs: 0"),
            "{}",
            err.message
        );
        assert_eq!(tools.tabs().await.len(), 1, "tab 0 is still open");
    });
    block_on(tools.close());
}

#[test]
fn the_close_tab_journey_passes_and_its_trace_records_the_close() {
    let cwd = tempfile::tempdir().expect("a temp dir");
    let journey = dir().join("journeys/close.rhai");
    let url = base();
    let args = [
        "run".as_ref(),
        journey.as_os_str(),
        "--base-url".as_ref(),
        url.as_str().as_ref(),
    ];
    waymark(cwd.path(), args, &[]).exits(0).says("1 passed");
    let trace = std::fs::read_to_string(cwd.path().join("target/waymark/traces/close.jsonl"))
        .expect("the journey's trace");
    assert!(
        trace.contains("\"verb\":\"close_tab\""),
        "close_tab is a step"
    );
    assert!(trace.contains("\"closed\":1"), "its close is recorded");
}

#[test]
fn the_tabs_journey_passes_and_its_trace_names_each_steps_tab() {
    let cwd = tempfile::tempdir().expect("a temp dir");
    let journey = dir().join("journeys/tabs.rhai");
    let url = base();
    let args = [
        "run".as_ref(),
        journey.as_os_str(),
        "--base-url".as_ref(),
        url.as_str().as_ref(),
    ];
    waymark(cwd.path(), args, &[]).exits(0).says("1 passed");
    let trace = std::fs::read_to_string(cwd.path().join("target/waymark/traces/tabs.jsonl"))
        .expect("the journey's trace");
    assert!(
        trace.contains("\"opened\":{\"tab\":1"),
        "the trace records the opened tab"
    );
    assert!(trace.contains("\"tab\":1,"), "a step in tab 1 says so");
    assert!(trace.contains("\"switch_tab\""), "switches are steps");
    assert!(
        trace.contains("\"closed\":2"),
        "the popup's end is recorded"
    );
}

#[test]
fn each_tab_has_its_own_place_in_the_hub_and_its_own_tab_control() {
    let hub = Arc::new(Hub::new());
    let first = hub.register("run-a", "tabs");
    let tools = tools().with_control(crate::gates::script_control(&hub, first, "run-a"));
    block_on(async {
        ok(&tools.navigate("/").await);
        let opened = tools
            .invoke("help.open", None)
            .await
            .opened
            .expect("a tab opened");
        let listed = hub.tabs();
        let help = listed
            .iter()
            .find(|t| t.id != first)
            .expect("the new tab has a place in the hub");
        assert_eq!(help.journey, "tabs (tab 1)");
        assert_eq!(help.route, "/help");
        // The person takes the help tab: calls there wait for them, the first tab's do not.
        hub.take(help.id).expect("take the help tab");
        let rt = tools.switch_tab(opened.tab).await;
        failed(&rt, ErrorCode::PausedByUser);
        assert_eq!(
            (rt.tab, tools.current_tab()),
            (0, 0),
            "the calls stay on tab 0"
        );
        ok(&tools.read_screen().await);
        hub.give_back(help.id).expect("give it back");
        ok(&tools.switch_tab(opened.tab).await);
    });
    block_on(tools.close());
    let left: Vec<_> = hub.tabs().into_iter().map(|t| t.id).collect();
    assert_eq!(left, [first], "the help tab left the hub with the tools");
}
