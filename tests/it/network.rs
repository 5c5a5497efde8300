//! The network (issue 52): routes answer, fail or change the requests a journey's pages
//! make, per journey; against `items.html` and the API the fixture server serves under
//! `/api/` (a list, saves, an error, a slow answer, the headers a request came with).

use std::sync::Mutex;
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;

use crate::cli::waymark;
use crate::fixtures::{base, base_url, run_two_jobs};

/// The items the API lists.
const ITEMS: &str =
    r#"[{"id":1,"name":"Apple"},{"id":2,"name":"Banana"},{"id":3,"name":"Cherry"}]"#;

/// What the API saved, as (body, cookie header), in order.
static SAVED: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// The test API: `GET /api/items` lists, `POST /api/items` saves, `/api/error` fails,
/// `/api/slow` answers after 1.5 s, `/api/echo-headers` answers the request's headers.
pub fn api() -> axum::Router {
    axum::Router::new()
        .route("/api/items", get(items).post(save))
        .route(
            "/api/error",
            get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "broken") }),
        )
        .route(
            "/api/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_millis(1500)).await;
                Json(serde_json::json!({"slow": true}))
            }),
        )
        .route("/api/echo-headers", get(echo_headers))
}

async fn items() -> Response {
    ([("content-type", "application/json")], ITEMS).into_response()
}

async fn save(headers: HeaderMap, body: String) -> Response {
    let cookie = headers
        .get("cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let id = SAVED.lock().map_or(0, |mut saved| {
        saved.push((body, cookie));
        saved.len()
    });
    (StatusCode::CREATED, Json(serde_json::json!({"id": id}))).into_response()
}

async fn echo_headers(headers: HeaderMap) -> Json<serde_json::Value> {
    let map: serde_json::Map<String, serde_json::Value> = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().into()))
        .collect();
    Json(serde_json::Value::Object(map))
}

/// A Rhai function counting the requests a round trip's routes answered.
const ANSWERED: &str = r#"
fn answered(rt) {
    let routed = rt.routed;
    if routed == () { return 0; }
    let n = 0;
    for r in routed { n += r.answered; }
    n
}
"#;

#[test]
fn a_route_answers_fails_delays_or_changes_the_requests_it_matches_and_unroute_ends_it() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = format!(
        r#"{ANSWERED}
navigate("/items.html");
invoke("items.load");
wait_for(#{{text: "Loaded 3 items: Apple, Banana, Cherry"}});

// The app's error state, from a route.
route("/api/items", #{{status: 500, body: "database down"}});
let a = invoke("items.load");
let b = wait_for(#{{text: "Error 500: database down"}});
expect(answered(a) + answered(b) == 1, `one request answered: ${{a.routed}} ${{b.routed}}`);

// Its own data, as JSON; a later route of the same pattern replaces the one before.
route("/api/items", #{{json: [#{{id: 9, name: "Mocked"}}]}});
invoke("items.load");
wait_for(#{{text: "Loaded 1 items: Mocked"}});

// The network failing.
route("/api/items", #{{abort: "failed"}});
invoke("items.load");
wait_for(#{{text: "Network error"}});

// A slow answer: held as long as asked (the invoke waits for the page to settle on it).
route("/api/items", #{{json: [], delay_ms: 1500}});
let a = invoke("items.load");
let b = wait_for(#{{text: "Loaded 0 items"}});
expect(a.elapsed_ms + b.elapsed_ms >= 1400.0, `held: ${{a.elapsed_ms}} + ${{b.elapsed_ms}} ms`);

// Only the method named: a save goes to the server, a list is answered.
unroute("/api/items");
route("/api/items", #{{method: "POST", status: 503}});
invoke("items.save");
wait_for(#{{text: "Save failed: 503"}});
invoke("items.load");
wait_for(#{{text: "Loaded 3 items"}});
unroute("/api/items");

// A request let through, changed.
invoke("items.tenant");
wait_for(#{{text: "Tenant: none"}});
route("/api/echo-headers", #{{"continue": #{{headers: #{{"x-tenant": "acme"}}}}}});
invoke("items.tenant");
wait_for(#{{text: "Tenant: acme"}});
"#
    );
    std::fs::write(dir.path().join("routes.rhai"), source).expect("write the journey");
    let run = waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "run",
            "--trace",
            "traces",
            "routes.rhai",
        ],
        &[],
    );
    run.exits(0);
    // The trace records each routed request, with the route that answered it.
    let trace = std::fs::read_to_string(dir.path().join("traces/routes.jsonl"))
        .unwrap_or_else(|e| panic!("read the trace: {e}\n{}", run.all()));
    let routed: Vec<serde_json::Value> = trace
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|l| l.get("routed").cloned())
        .flat_map(|r| r.as_array().cloned().unwrap_or_default())
        .collect();
    let answers: Vec<&str> = routed.iter().filter_map(|r| r["answer"].as_str()).collect();
    assert_eq!(
        answers,
        [
            "fulfilled 500",
            "fulfilled 200",
            "aborted failed",
            "fulfilled 200",
            "fulfilled 503",
            "continued"
        ],
        "{routed:?}"
    );
    assert!(
        routed[0]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/api/items")),
        "{routed:?}"
    );
    assert_eq!(routed[4]["method"], "POST", "{routed:?}");
}

#[test]
fn a_route_pattern_that_is_neither_a_path_nor_a_url_or_two_replies_is_invalid() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
navigate("/items.html");
let e1 = "";
try { route("api/items", #{status: 500}); } catch (e) { e1 = e.code; }
expect(e1 == "invalid_argument", `a relative pattern: ${e1}`);
let e2 = "";
try { route("/api/items", #{status: 500, abort: "failed"}); } catch (e) { e2 = e.code; }
expect(e2 == "invalid_argument", `two replies: ${e2}`);
let e3 = "";
try { unroute("/api/never"); } catch (e) { e3 = e.code; }
expect(e3 == "invalid_argument", `no such route: ${e3}`);
"#;
    std::fs::write(dir.path().join("invalid.rhai"), source).expect("write the journey");
    waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "run",
            "--no-trace",
            "invalid.rhai",
        ],
        &[],
    )
    .exits(0);
}

/// Two journeys mock the same path differently, run together on two workers: each sees
/// only its own route, and a third without one sees the server.
#[test]
fn routes_are_per_journey_under_two_jobs() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let journey = |name: &str, delay: u64| {
        format!(
            r#"route("/api/items", #{{json: [#{{name: "{name}"}}], delay_ms: {delay}}});
navigate("/items.html");
for i in 0..6 {{
    invoke("items.load");
    wait_for(#{{text: "Loaded 1 items: {name}"}});
}}
"#
        )
    };
    let plain = r#"navigate("/items.html");
for i in 0..6 {
    invoke("items.load");
    wait_for(#{text: "Loaded 3 items: Apple, Banana, Cherry"});
}
"#;
    run_two_jobs(
        dir.path(),
        vec![
            ("alpha.rhai", journey("Alpha", 150)),
            ("beta.rhai", journey("Beta", 100)),
            ("plain.rhai", plain.to_string()),
        ],
    )
    .exits(0)
    .says("3 passed");
}

/// The routes of one journey's tools, in one browser beside another journey's: each tab
/// (a browser context of its own) is answered by its own routes only, at the same time.
#[test]
fn two_journeys_in_one_browser_each_see_only_their_own_route() {
    use std::sync::Arc;
    use waymark::tools::{Call, Gateway};

    let (one, _) = crate::harness::probed_tools_at(
        base(),
        Arc::clone(crate::harness::shared().registry()),
        waymark::tools::ToolOptions::default(),
    );
    let (two, _) = crate::harness::probed_tools_at(
        base(),
        Arc::clone(crate::harness::shared().registry()),
        waymark::tools::ToolOptions::default(),
    );
    let journey = |tools: Gateway<crate::harness::ProbedTab>, name: &'static str| async move {
        let args = serde_json::json!({
            "pattern": "/api/items",
            "json": [{"name": name}],
            "delay_ms": 100,
        });
        let route = Call::parse("route", args).expect("route arguments");
        let routed = Box::pin(tools.call(&route)).await.expect("a round trip");
        crate::harness::ok(&routed);
        let open = Call::parse("navigate", serde_json::json!({"route": "/items.html"})).unwrap();
        let opened = Box::pin(tools.call(&open)).await.expect("a round trip");
        crate::harness::ok(&opened);
        let mut answered = 0;
        for _ in 0..5 {
            let load = Call::parse("invoke", serde_json::json!({"anchor": "items.load"})).unwrap();
            let rt = Box::pin(tools.call(&load)).await.expect("a round trip");
            answered += rt.routed.iter().map(|r| r.answered).sum::<u64>();
            let args = serde_json::json!({"text": format!("Loaded 1 items: {name}")});
            let wait = Call::parse("wait_for", args).unwrap();
            let rt = Box::pin(tools.call(&wait)).await.expect("a round trip");
            crate::harness::ok(&rt);
            answered += rt.routed.iter().map(|r| r.answered).sum::<u64>();
        }
        answered
    };
    let (one, two) = (Arc::new(one), Arc::new(two));
    // On the runtime's workers (a test thread's stack is smaller), each call boxed.
    let alpha = crate::harness::spawn(journey(Gateway::new(Arc::clone(&one)), "Alpha"));
    let beta = crate::harness::spawn(journey(Gateway::new(Arc::clone(&two)), "Beta"));
    let (a, b) = crate::harness::block_on(async { tokio::join!(alpha, beta) });
    let (a, b) = (a.expect("alpha ran"), b.expect("beta ran"));
    assert_eq!(
        (a, b),
        (5, 5),
        "each route answered its own journey's five loads"
    );
    for tools in [one, two] {
        if let Ok(tools) = Arc::try_unwrap(tools) {
            crate::harness::block_on(tools.close());
        }
    }
}

/// `request` calls the app's API as the journey's page would, its cookies sent: lists,
/// saves, errors and slow answers of the real server, the journey's routes, and a network
/// that fails; `GET` is a read and `POST` an act for the allowed set.
#[test]
fn a_request_calls_the_api_with_the_journeys_cookies() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
let code = "";
try { request(#{route: "/api/items"}); } catch (e) { code = e.code; }
expect(code == "invalid_argument", `from no page of the app: ${code}`);
navigate("/items.html");
let list = request(#{route: "/api/items"});
expect(list.status == 200, `list: ${list}`);
expect(list.json.len() == 3 && list.json[0].name == "Apple", `list: ${list}`);
expect(list.headers["content-type"] == "application/json", `headers: ${list.headers}`);
let saved = request(#{method: "POST", route: "/api/items", json: #{name: "Durian", password: "hunter2"}});
expect(saved.status == 201 && saved.json.id > 0, `saved: ${saved}`);
let form = request(#{method: "post", route: "/api/items", form: #{name: "Elder"}});
expect(form.status == 201, `form: ${form}`);
let broken = request(#{route: "/api/error"});
expect(broken.status == 500 && broken.text == "broken", `error: ${broken}`);
let slow = request(#{route: "/api/slow"});
expect(slow.json.slow == true, `slow: ${slow}`);
route("/api/items", #{status: 404, json: #{missing: true}});
let mocked = request(#{route: "/api/items"});
expect(mocked.status == 404 && mocked.json.missing == true, `mocked: ${mocked}`);
route("/api/items", #{abort: "refused"});
code = "";
try { request(#{route: "/api/items"}); } catch (e) { code = e.code; }
expect(code == "request_failed", `refused: ${code}`);
unroute("/api/items");
code = "";
try { request(#{route: "http://example.invalid/api"}); } catch (e) { code = e.code; }
expect(code == "off_origin", `elsewhere: ${code}`);
allow(["read"]);
expect(request(#{route: "/api/items"}).status == 200, "a GET is a read");
code = "";
try { request(#{method: "POST", route: "/api/items", json: #{name: "Fig"}}); } catch (e) { code = e.code; }
expect(code == "not_allowed", `a POST acts: ${code}`);
"#;
    std::fs::write(dir.path().join("request.rhai"), source).expect("write the journey");
    let before = SAVED.lock().map_or(0, |s| s.len());
    waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "run",
            "--no-trace",
            "request.rhai",
        ],
        &[],
    )
    .exits(0);
    let saved = SAVED.lock().expect("the saves").clone();
    let ours: Vec<&(String, String)> = saved[before..]
        .iter()
        // The page's own save (`items.save`, a Cherry) is another test's, run beside.
        .filter(|(body, cookie)| cookie.contains("session=items-user") && !body.contains("Cherry"))
        .collect();
    assert_eq!(
        ours.len(),
        2,
        "both saves came with the page's cookie: {saved:?}"
    );
    assert!(ours[0].0.contains("\"Durian\""), "{ours:?}");
    assert_eq!(ours[1].0, "name=Elder", "{ours:?}");
}

/// `set_offline` takes the network away from the journey's page and gives it back;
/// `set_network` adds latency (at least what it asked, never less), and none once cleared.
#[test]
fn set_offline_and_set_network_change_what_the_page_gets() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
navigate("/items.html");
set_offline(true);
invoke("items.load");
wait_for(#{text: "Network error"});
set_offline(false);
invoke("items.load");
wait_for(#{text: "Loaded 3 items"});
set_network(#{latency_ms: 1500, download_kbps: 400});
let a = invoke("items.tenant");
let b = wait_for(#{text: "Tenant: none"});
expect(a.elapsed_ms + b.elapsed_ms >= 1400.0, `latency: ${a.elapsed_ms} + ${b.elapsed_ms} ms`);
let r = request(#{route: "/api/items"});
expect(r.status == 200, "a throttled request still answers");
set_network(#{});
set_offline(true);
let code = "";
try { request(#{route: "/api/items"}); } catch (e) { code = e.code; }
expect(code == "request_failed", `offline: ${code}`);
code = "";
try { set_network(#{latency_ms: -1}); } catch (e) { code = e.code; }
expect(code == "invalid_argument", `a negative latency: ${code}`);
"#;
    std::fs::write(dir.path().join("network.rhai"), source).expect("write the journey");
    waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "run",
            "--no-trace",
            "network.rhai",
        ],
        &[],
    )
    .exits(0);
}

/// `--network` sets every tab's network from the start: offline, no page loads; slow 3G,
/// a request takes its 2 s of latency.
#[test]
fn the_network_flag_starts_every_tab_offline_or_slow() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let offline = r#"
let code = "";
try { navigate("/items.html"); } catch (e) { code = e.code; }
expect(code == "navigation_failed", `offline: ${code}`);
"#;
    std::fs::write(dir.path().join("offline.rhai"), offline).expect("write the journey");
    waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "--network",
            "offline",
            "run",
            "--no-trace",
            "offline.rhai",
        ],
        &[],
    )
    .exits(0);
    let slow = r#"
navigate("/items.html");
let r = request(#{route: "/api/items"});
expect(r.status == 200, "slow, not gone");
set_network(#{});
"#;
    let slow = format!(
        "{slow}let t = request(#{{route: \"/api/items\"}});\nexpect(t.status == 200, \"fast again\");\n"
    );
    std::fs::write(dir.path().join("slow.rhai"), slow).expect("write the journey");
    let run = waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "--network",
            "slow-3g",
            "run",
            "--trace",
            "traces",
            "slow.rhai",
        ],
        &[],
    );
    run.exits(0);
    let trace = std::fs::read_to_string(dir.path().join("traces/slow.jsonl"))
        .unwrap_or_else(|e| panic!("read the trace: {e}\n{}", run.all()));
    let requests: Vec<f64> = trace
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|l| l["action"]["verb"] == "request")
        .filter_map(|l| l["elapsed_ms"].as_f64())
        .collect();
    assert_eq!(requests.len(), 2, "{trace}");
    assert!(requests[0] >= 1900.0, "slow 3G's latency: {requests:?}");
}

/// `wait_for(#{request})` and `wait_for(#{response})`, written after the action that
/// sent the request: the response the invoke caused (back before the invoke returned) is
/// found, taken once, its body and status returned with secrets redacted; one that never
/// comes times out naming the pattern and the requests seen.
#[test]
fn a_network_wait_written_after_the_invoke_finds_the_response_it_caused() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
navigate("/items.html");
let r = invoke("items.save");
expect(r.screen.controls.len() > 0 && read_screen().controls.len() > 0, "read");
// The response came back while the invoke settled (the page shows it already).
let shown = wait_for(#{text: "Saved"});
let w = wait_for(#{response: "/api/items", method: "POST"});
expect(w.exchange.status == 201, `status: ${w.exchange}`);
expect(w.exchange.method == "POST", `method: ${w.exchange}`);
expect(w.exchange.url.ends_with("/api/items"), `url: ${w.exchange}`);
expect(w.exchange.json.id > 0, `json: ${w.exchange}`);
expect(w.exchange.headers["content-type"] == "application/json", `headers: ${w.exchange}`);
// Its request, with the body the page sent (a request wait takes requests, not responses).
let q = wait_for(#{request: "/api/**", method: "POST"});
expect(q.exchange.json.name == "Cherry", `request body: ${q.exchange}`);
// Taken: a second response wait waits for another save, which never comes.
let e = #{};
try { wait_for(#{response: "/api/items", method: "POST", timeout_ms: 300}); } catch (err) { e = err; }
expect(e.code == "timeout", `taken: ${e}`);
expect(e.message.contains("/api/items") && e.message.contains("requests seen: POST `/api/items` 201"), e.message);

// With a page condition, and a status.
invoke("items.load");
let both = wait_for(#{response: "/api/items", status: 200, text: "Loaded 3 items"});
expect(both.exchange.json.len() == 3, `list: ${both.exchange}`);

// A slow answer: the wait waits for it.
invoke("items.slow");
let s = wait_for(#{response: "/api/slow", timeout_ms: 4000});
expect(s.exchange.json.slow == true, `slow: ${s.exchange}`);

// An error status, and an answer that is not JSON.
route("/api/items", #{status: 500, body: "database down"});
invoke("items.load");
let bad = wait_for(#{response: "/api/items", status: 500});
expect(bad.exchange.text == "database down", `text: ${bad.exchange}`);
unroute("/api/items");

// Secrets: the Authorization header a request sent is redacted.
request(#{route: "/api/echo-headers", headers: #{authorization: "Bearer s3cret", "x-tenant": "acme"}});
let h = wait_for(#{request: "/api/echo-headers"});
expect(h.exchange.headers["authorization"] == "[redacted]", `redacted: ${h.exchange}`);
expect(h.exchange.headers["x-tenant"] == "acme", `kept: ${h.exchange}`);
let hr = wait_for(#{response: "/api/echo-headers"});
expect(hr.exchange.json.authorization == "[redacted]", `body redacted: ${hr.exchange}`);

// Nothing of the kind: the timeout names the pattern and what was seen.
let n = #{};
try { wait_for(#{response: "/api/never", timeout_ms: 200}); } catch (err) { n = err; }
expect(n.code == "timeout" && n.message.contains("`/api/never`"), `${n}`);
let bad_pattern = "";
try { wait_for(#{request: "api/x"}); } catch (err) { bad_pattern = err.code; }
expect(bad_pattern == "invalid_argument", bad_pattern);
for wrong in [#{request: "/api/x", response: "/api/x"}, #{request: "/api/x", status: 200}, #{text: "x", method: "GET"}] {
    let code = "";
    try { wait_for(wrong); } catch (err) { code = err.code; }
    expect(code == "invalid_argument", `${wrong}: ${code}`);
}
"#;
    std::fs::write(dir.path().join("waits.rhai"), source).expect("write the journey");
    let run = waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "run",
            "--trace",
            "traces",
            "waits.rhai",
        ],
        &[],
    );
    run.exits(0);
    // The trace records what the wait returned, redacted.
    let trace = std::fs::read_to_string(dir.path().join("traces/waits.jsonl"))
        .unwrap_or_else(|e| panic!("read the trace: {e}\n{}", run.all()));
    assert!(!trace.contains("s3cret"), "a secret in the trace");
    let waits: Vec<serde_json::Value> = trace
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|l| l["action"]["verb"] == "wait_for")
        .collect();
    assert!(!waits.is_empty(), "{trace}");
    // Each wait's step time (`--nocapture` shows them).
    for w in &waits {
        eprintln!("{}: {} ms", w["action"]["target"], w["elapsed_ms"]);
    }
}
