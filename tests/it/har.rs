//! HAR (issue 52, item 3): `--har record=FILE` writes a journey's traffic as HAR 1.2,
//! `--har replay=FILE` answers its requests from one; round trips with Playwright's
//! `recordHar` and `routeFromHAR` (tests/playwright/har.mjs, on Debian's Chromium). Each
//! test serves `items.html` and an API of its own (so it can change what the API answers
//! between recording and replaying).

use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use crate::cli::waymark;
use crate::harness::block_on;

const RECORDED: &str =
    r#"[{"id":1,"name":"Apple"},{"id":2,"name":"Banana"},{"id":3,"name":"Cherry"}]"#;
const RECORDED_SHOWN: &str = "Loaded 3 items: Apple, Banana, Cherry";
const CHANGED: &str = r#"[{"id":7,"name":"Changed"}]"#;

/// A server of `items.html` and `/api/items`, whose list can change.
struct Api {
    base: String,
    items: Arc<Mutex<String>>,
}

impl Api {
    fn start() -> Api {
        let items = Arc::new(Mutex::new(RECORDED.to_string()));
        let state = Arc::clone(&items);
        let base = block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind the API");
            let addr = listener.local_addr().expect("its address");
            let app = axum::Router::new()
                .route("/items.html", get(page))
                .route("/api/items", get(list).post(save))
                .route(
                    "/api/old",
                    get(|| async { axum::response::Redirect::to("/api/items") }),
                )
                .route("/api/blob", get(blob))
                .route(
                    "/api/echo-headers",
                    get(|| async { axum::Json(serde_json::json!({})) }),
                )
                .with_state(state);
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            format!("http://{addr}")
        });
        Api { base, items }
    }

    /// The API answers `list` from now on.
    fn answer(&self, list: &str) {
        *self.items.lock().expect("the list") = list.to_string();
    }
}

async fn page() -> Html<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit/items.html");
    Html(std::fs::read_to_string(path).expect("items.html"))
}

async fn list(State(items): State<Arc<Mutex<String>>>) -> Response {
    let body = items.lock().map(|i| i.clone()).unwrap_or_default();
    (
        [
            ("content-type", "application/json"),
            ("set-cookie", "sid=server-secret-sid; Path=/; HttpOnly"),
        ],
        body,
    )
        .into_response()
}

/// Bytes that are not UTF-8: five while the list is the one recorded, one after.
async fn blob(State(items): State<Arc<Mutex<String>>>) -> Response {
    let recorded = items.lock().is_ok_and(|i| i.as_str() == RECORDED);
    let bytes: Vec<u8> = match recorded {
        true => vec![0xff, 0xfe, 0x00, 0x01, 0x80],
        false => vec![0xff],
    };
    ([("content-type", "application/octet-stream")], bytes).into_response()
}

async fn save(body: String) -> Response {
    let _ = body;
    (
        StatusCode::CREATED,
        axum::Json(serde_json::json!({"saved": true})),
    )
        .into_response()
}

/// The journey that loads the list and waits for `shown`.
fn loads(shown: &str) -> String {
    format!(
        r#"navigate("/items.html");
invoke("items.load");
wait_for(#{{text: "{shown}"}});
"#
    )
}

fn har_of(path: &Path) -> serde_json::Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn entries(har: &serde_json::Value) -> Vec<serde_json::Value> {
    har["log"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The entry of the first request whose URL ends with `end`.
fn entry<'a>(entries: &'a [serde_json::Value], end: &str) -> &'a serde_json::Value {
    entries
        .iter()
        .find(|e| {
            e["request"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with(end))
        })
        .unwrap_or_else(|| panic!("no entry for {end}: {entries:?}"))
}

/// Runs tests/playwright/har.mjs (see `harness::playwright_output`): what it printed.
fn playwright(args: &[&str]) -> String {
    let out = crate::harness::playwright_output("har.mjs", args);
    String::from_utf8_lossy(&out).trim().to_string()
}

#[test]
fn a_recorded_journey_is_har_1_2_with_bodies_and_replays_with_the_api_answering_otherwise() {
    let api = Api::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("record.rhai"), loads(RECORDED_SHOWN)).expect("write");
    let run = waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "record=out/items.har",
            "run",
            "record.rhai",
        ],
        &[],
    );
    run.exits(0);
    let har = har_of(&dir.path().join("out/items.har"));
    assert_eq!(har["log"]["version"], "1.2");
    assert_eq!(har["log"]["creator"]["name"], "waymark");
    let all = entries(&har);
    let page = entry(&all, "/items.html");
    assert_eq!(page["response"]["status"], 200);
    assert!(
        page["response"]["content"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("items.load"))
    );
    let items = entry(&all, "/api/items");
    assert_eq!(items["request"]["method"], "GET");
    assert_eq!(items["response"]["content"]["text"], RECORDED);
    assert_eq!(items["response"]["content"]["mimeType"], "application/json");
    assert!(
        items["startedDateTime"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    assert!(items["time"].as_f64().is_some_and(|t| t >= 0.0));

    // The API answers otherwise now: the replay shows what was recorded.
    api.answer(CHANGED);
    // A journey's own route wins over the HAR.
    let source = format!(
        "{}route(\"/api/items\", #{{status: 500, body: \"routed\"}});\ninvoke(\"items.load\");\nwait_for(#{{text: \"Error 500: routed\"}});\n",
        loads(RECORDED_SHOWN)
    );
    std::fs::write(dir.path().join("replay.rhai"), source).expect("write");
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "replay=out/items.har",
            "run",
            "--trace",
            "traces",
            "replay.rhai",
        ],
        &[],
    )
    .exits(0);
    // Without the HAR the page shows the API's new answer.
    std::fs::write(
        dir.path().join("live.rhai"),
        loads("Loaded 1 items: Changed"),
    )
    .expect("write");
    waymark(
        dir.path(),
        ["--base-url", &api.base, "run", "--no-trace", "live.rhai"],
        &[],
    )
    .exits(0);
    // The trace names the requests the HAR answered.
    let trace = std::fs::read_to_string(dir.path().join("traces/replay.jsonl")).expect("the trace");
    assert!(trace.contains("\"pattern\":\"--har\""), "{trace}");
}

#[test]
fn a_redirect_and_a_body_that_is_not_text_replay_as_recorded() {
    let api = Api::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"navigate("/items.html");
let r = request(#{route: "/api/old"});
expect(r.json.len() == 3, `the list after the redirect: ${r}`);
let b = request(#{route: "/api/blob"});
expect(b.length == 5, `five bytes: ${b}`);
"#;
    std::fs::write(dir.path().join("bytes.rhai"), source).expect("write");
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "record=bytes.har",
            "run",
            "--no-trace",
            "bytes.rhai",
        ],
        &[],
    )
    .exits(0);
    let har = har_of(&dir.path().join("bytes.har"));
    let all = entries(&har);
    let old = entry(&all, "/api/old");
    assert_eq!(old["response"]["status"], 303, "{old}");
    assert!(
        old["response"]["redirectURL"]
            .as_str()
            .is_some_and(|u| u.ends_with("/api/items"))
    );
    let blob = entry(&all, "/api/blob");
    assert_eq!(blob["response"]["content"]["encoding"], "base64", "{blob}");
    assert_eq!(blob["response"]["content"]["text"], "//4AAYA=");
    assert_eq!(blob["response"]["content"]["size"], 5);
    api.answer(CHANGED);
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "replay=bytes.har",
            "run",
            "--no-trace",
            "bytes.rhai",
        ],
        &[],
    )
    .exits(0);
}

#[test]
fn a_har_keeps_no_authorization_cookie_or_secret_values() {
    let api = Api::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = format!(
        r#"{}
request(#{{route: "/api/items", headers: #{{authorization: "Bearer bearer-secret-1"}}}});
request(#{{method: "POST", route: "/api/items", form: #{{user: "ann", password: "hunter2-pw"}}}});
request(#{{method: "POST", route: "/api/items", json: #{{name: "n", api_token: "json-token-3"}}}});
request(#{{route: "/api/items?note=" + var("NOTE")}});
"#,
        loads(RECORDED_SHOWN)
    );
    std::fs::write(dir.path().join("secrets.rhai"), source).expect("write");
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--secret-var",
            "NOTE=var-secret-4",
            "--har",
            "record=secrets.har",
            "run",
            "--no-trace",
            "secrets.rhai",
        ],
        &[],
    )
    .exits(0);
    let text = std::fs::read_to_string(dir.path().join("secrets.har")).expect("the HAR");
    for secret in [
        "bearer-secret-1",
        "hunter2-pw",
        "json-token-3",
        "var-secret-4",
        // The cookie the server set (the page's own is in its source, which is kept).
        "server-secret-sid",
    ] {
        assert!(!text.contains(secret), "`{secret}` is in the HAR:\n{text}");
    }
    let har: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let all = entries(&har);
    let posts: Vec<&serde_json::Value> = all
        .iter()
        .filter(|e| e["request"]["method"] == "POST")
        .collect();
    assert_eq!(posts.len(), 2, "{all:?}");
    let form = posts[0]["request"]["postData"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        form.contains("user=ann") && form.contains("password=%5Bredacted%5D"),
        "{form}"
    );
    let headers = all.iter().flat_map(|e| {
        e["request"]["headers"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    });
    let authorization: Vec<serde_json::Value> = headers
        .filter(|h| {
            h["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case("authorization"))
        })
        .collect();
    assert!(
        !authorization.is_empty(),
        "the header is recorded, its value redacted"
    );
    assert!(authorization.iter().all(|h| h["value"] == "[redacted]"));
}

#[test]
fn two_journeys_under_two_jobs_record_each_its_own_file() {
    let api = Api::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    for name in ["alpha", "beta"] {
        let source = format!(
            r#"navigate("/items.html");
for i in 0..5 {{
    request(#{{route: "/api/items?from={name}&i=" + i}});
}}
"#
        );
        std::fs::write(dir.path().join(format!("{name}.rhai")), source).expect("write");
    }
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "record=out/traffic.har",
            "run",
            "--no-trace",
            "--jobs",
            "2",
            ".",
        ],
        &[],
    )
    .exits(0)
    .says("2 passed");
    assert!(
        !dir.path().join("out/traffic.har").exists(),
        "one file per journey"
    );
    for (name, other) in [("alpha", "beta"), ("beta", "alpha")] {
        let har = har_of(&dir.path().join(format!("out/traffic.{name}.har")));
        let urls: Vec<String> = entries(&har)
            .iter()
            .filter_map(|e| e["request"]["url"].as_str().map(str::to_string))
            .collect();
        let own = urls
            .iter()
            .filter(|u| u.contains(&format!("from={name}")))
            .count();
        assert_eq!(own, 5, "{name}: {urls:?}");
        assert!(
            !urls.iter().any(|u| u.contains(&format!("from={other}"))),
            "{name}: {urls:?}"
        );
    }
}

#[test]
fn a_request_the_har_has_no_entry_for_is_aborted_or_let_through() {
    let api = Api::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("record.rhai"), loads(RECORDED_SHOWN)).expect("write");
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "record=items.har",
            "run",
            "--no-trace",
            "record.rhai",
        ],
        &[],
    )
    .exits(0);
    api.answer(CHANGED);
    // The save was never recorded: failed (the page shows its network error), or sent to
    // the API (which saves it); the list comes from the HAR either way.
    let source = format!(
        "{}invoke(\"items.save\");\nwait_for(#{{text: var(\"SAVE\")}});\n",
        loads(RECORDED_SHOWN)
    );
    std::fs::write(dir.path().join("replay.rhai"), source).expect("write");
    for (missing, shown) in [("abort", "Network error"), ("pass", "Saved")] {
        waymark(
            dir.path(),
            [
                "--base-url",
                &api.base,
                "--har",
                "replay=items.har",
                "--har-missing",
                missing,
                "--var",
                &format!("SAVE={shown}"),
                "run",
                "--no-trace",
                "replay.rhai",
            ],
            &[],
        )
        .exits(0);
    }
    // The environment's words are the flags'.
    waymark(
        dir.path(),
        ["--base-url", &api.base, "run", "--no-trace", "replay.rhai"],
        &[
            ("WAYMARK_HAR", "replay=items.har".as_ref()),
            ("WAYMARK_HAR_MISSING", "pass".as_ref()),
            ("WAYMARK_VAR_SAVE", "Saved".as_ref()),
        ],
    )
    .exits(0);
    // A HAR that cannot be read is bad input.
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "replay=none.har",
            "run",
            "--no-trace",
            "replay.rhai",
        ],
        &[],
    )
    .exits(2);
}

/// (a) A HAR Playwright's `recordHar` wrote replays in waymark.
#[test]
fn a_har_playwright_recorded_replays_in_waymark() {
    let api = Api::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("playwright.har");
    playwright(&[
        "record",
        &format!("{}/", api.base),
        file.to_str().expect("a path"),
    ]);
    api.answer(CHANGED);
    std::fs::write(dir.path().join("replay.rhai"), loads(RECORDED_SHOWN)).expect("write");
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "replay=playwright.har",
            "run",
            "--no-trace",
            "replay.rhai",
        ],
        &[],
    )
    .exits(0);
}

/// (b) A HAR waymark recorded replays in Playwright's `routeFromHAR`.
#[test]
fn a_har_waymark_recorded_replays_in_playwright() {
    let api = Api::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("record.rhai"), loads(RECORDED_SHOWN)).expect("write");
    waymark(
        dir.path(),
        [
            "--base-url",
            &api.base,
            "--har",
            "record=waymark.har",
            "run",
            "--no-trace",
            "record.rhai",
        ],
        &[],
    )
    .exits(0);
    api.answer(CHANGED);
    let file = dir.path().join("waymark.har");
    let shown = playwright(&[
        "replay",
        &format!("{}/", api.base),
        file.to_str().expect("a path"),
    ]);
    assert_eq!(shown, format!("\"{RECORDED_SHOWN}\""));
}
