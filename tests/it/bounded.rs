//! Bounded replies: whatever a page shows or an input says, what reaches an agent, a console
//! line, a trace or a report stays small. A page here pushes a 2 MB address, names itself
//! and a control with a megabyte each, holds a megabyte in a field and alerts one; the app
//! answers HTTP 431 to a route too long for it. Every string is shown cut, with its length
//! (`… (N characters)`).

use std::path::Path;

use axum::http::{StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use rmcp::model::CallToolResult;
use serde_json::json;

use crate::cli::{anchors, project, waymark};
use crate::mcp::{Person, Session, run, text};

/// The page: a 2,000,000-character address (pushed, as a client-side router does), a 1 MB
/// title, a control with a 1 MB label, a field holding 1 MB, and a control that alerts 1 MB.
const HUGE: &str = r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Huge</title></head>
<body><main data-anchor-region="main">
<button data-anchor="huge.label" id="label">x</button>
<input data-anchor="huge.field" id="field" aria-label="Field">
<button data-anchor="huge.alert" id="alert">Alert</button>
</main>
<script>
function big(c, n) { return c.repeat(n); }
document.title = big('T', 1 << 20);
document.getElementById('label').setAttribute('aria-label', big('L', 1 << 20));
document.getElementById('field').value = big('V', 1 << 20);
document.getElementById('alert').onclick = function () { alert(big('D', 1 << 20)); };
history.pushState(null, '', '/' + big('r', 2000000));
</script></body></html>"#;

/// The most an MCP reply may take, whatever the page: the read budget and a little more.
const REPLY_MOST: usize = 64 * 1024;

/// The most one console line may take.
const LINE_MOST: usize = 1024;

/// Serves [`HUGE`] at `/huge.html` on 127.0.0.1 on the current runtime; hyper answers 431
/// to a request whose route does not fit its buffer. Its base URL.
async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the page's server");
    let addr = listener.local_addr().expect("the server's address");
    let app = axum::Router::new().fallback(|uri: Uri| async move {
        let page: Response = match uri.path() {
            "/huge.html" => Html(HUGE).into_response(),
            _ => StatusCode::NOT_FOUND.into_response(),
        };
        page
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/")
}

/// The size of `reply` as the client received it (its JSON), checked against the bound.
#[track_caller]
fn bounded(call: &str, reply: &CallToolResult) -> usize {
    let bytes = serde_json::to_string(reply)
        .expect("a reply serializes")
        .len();
    eprintln!("`{call}` replied {bytes} bytes");
    assert!(
        bytes < REPLY_MOST,
        "`{call}` replied {bytes} bytes: {}",
        &text(reply).chars().take(600).collect::<String>()
    );
    bytes
}

/// A 2 MB route the app answers with 431 came back as an 8 MB reply: the route, four times
/// over, in the agent's context. Every reply stays under 64 kB, and says how long what it
/// cut was.
#[test]
fn every_mcp_reply_stays_small_whatever_the_page_or_the_arguments() {
    run(async {
        let base = serve().await;
        let s = Session::start(
            Person::new(false, false),
            &["--base-url", &base, "--consent", "allow"],
        )
        .await;

        let opened = s.call("navigate", json!({"route": "/huge.html"})).await;
        bounded("navigate /huge.html", &opened);
        let value = opened.structured_content.clone().expect("a round trip");
        assert_eq!(value["ok"], true, "{}", text(&opened));
        let route = value["route"].as_str().expect("a route");
        assert!(route.ends_with("… (2000001 characters)"), "{route}");
        let title = value["screen"]["title"].as_str().expect("a title");
        assert!(title.ends_with("… (1048576 characters)"), "{title}");
        let said = text(&opened);
        assert!(
            said.contains("… (1048576 characters)\" button"),
            "the label is listed cut: {}",
            &said[..said.len().min(2_000)]
        );

        let read = s.call("read_screen", json!({})).await;
        bounded("read_screen", &read);
        let value = read.structured_content.clone().expect("a round trip");
        let controls = value["screen"]["controls"].as_array().expect("controls");
        // Each control is cut, not dropped: one megabyte label cannot take the budget.
        assert_eq!(controls.len(), 3, "{value}");
        assert!(value["screen"]["truncation"].is_null(), "{value}");
        let field = controls
            .iter()
            .find(|c| c["anchor"] == "huge.field")
            .expect("the field");
        let held = field["value"].as_str().expect("a value");
        assert!(held.ends_with("… (1048576 characters)"), "{held}");

        let alerted = s.call("invoke", json!({"anchor": "huge.alert"})).await;
        bounded("invoke huge.alert", &alerted);
        let value = alerted.structured_content.clone().expect("a round trip");
        let dialog = value["screen"]["dialog"]
            .as_str()
            .expect("the alert's text");
        // Chromium hands a dialog's text over cut to its own limit (10,240 characters).
        assert!(dialog.ends_with(" characters)"), "{dialog}");
        assert!(dialog.chars().count() <= 200, "{dialog}");
        let after = s.call("read_screen", json!({})).await;
        bounded("read_screen after the alert", &after);

        let huge = "z".repeat(2 << 20);
        let filled = s
            .call("fill", json!({"anchor": "huge.field", "text": huge}))
            .await;
        bounded("fill with 2 MB", &filled);
        bounded(
            "wait_for 2 MB of text",
            &s.call("wait_for", json!({"text": huge, "timeout_ms": 50}))
                .await,
        );
        bounded(
            "invoke a 2 MB anchor",
            &s.call("invoke", json!({"anchor": format!("x{huge}")}))
                .await,
        );
        bounded(
            "read_screen of a 2 MB region",
            &s.call("read_screen", json!({"region": huge})).await,
        );
        bounded("tabs", &s.call("tabs", json!({})).await);

        // The bug as it was filed: a 2 MB route the app answers with 431.
        let route = format!("/{}", "a".repeat(2_000_000));
        let refused = s.call("navigate", json!({"route": route})).await;
        bounded("navigate to a 2 MB route", &refused);
        let said = text(&refused);
        assert!(said.contains("431"), "{said}");
        assert!(said.contains("(2000001 characters)"), "{said}");

        bounded(
            "finish with 2 MB",
            &s.call("finish", json!({"summary": huge})).await,
        );
        s.stop().await;
    });
}

/// A journey that met the same page printed its route, title and labels whole, and failed
/// quoting a megabyte: each console line stays under 1 kB, and the trace keeps the lengths.
#[test]
fn a_run_that_meets_a_huge_page_prints_short_lines() {
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the page's server");
    let base = server.block_on(serve());
    let dir = project(&[(
        "huge.rhai",
        r#"let opened = navigate("/huge.html");
print(opened.route);
let screen = read_screen();
print(screen.title);
for c in screen.controls { print(c.label); print(c.value); }
invoke("huge.alert");
print(read_screen().dialog);
let route = "r";
for i in 0..20 { route += route; }
navigate("/" + route);
"#,
    )]);
    let anchors = anchors();
    let run = waymark(
        dir.path(),
        [
            "--anchors",
            &anchors,
            "--base-url",
            &base,
            "run",
            "--trace",
            "traces",
        ],
        &[],
    );
    run.exits(1)
        .says("navigation_failed")
        .says("431")
        .says("(1048577 characters)");
    for line in run.stdout.lines().chain(run.stderr.lines()) {
        assert!(
            line.len() < LINE_MOST,
            "a console line of {} bytes: {}",
            line.len(),
            &line.chars().take(300).collect::<String>()
        );
    }
    let longest = run.all().lines().map(str::len).max().unwrap_or(0);
    eprintln!("the longest console line: {longest} bytes");
    trace_keeps_lengths(&dir.path().join("traces/huge.jsonl"));
}

/// Each line of the trace at `path` is short (the raw layer, the evidence, goes to a side
/// file as it always did), and the cut strings say how long they were.
fn trace_keeps_lengths(path: &Path) {
    let trace = std::fs::read_to_string(path).expect("the journey's trace");
    for line in trace.lines() {
        assert!(
            line.len() < REPLY_MOST,
            "a trace line of {} bytes: {}",
            line.len(),
            &line.chars().take(300).collect::<String>()
        );
    }
    assert!(trace.contains("(2000001 characters)"), "the route's length");
    assert!(trace.contains("(1048576 characters)"), "the title's length");
    assert!(trace.contains("(1048577 characters)"), "the input's length");
}
