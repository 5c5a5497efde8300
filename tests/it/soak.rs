//! The soak: hundreds of journeys with `--jobs 2` over apps built as frameworks build them
//! (`tests/fixtures/soak/`: a TodoMVC of jQuery, Handlebars and director's hash router, one
//! of Preact with a History API router, an app of ES modules with chunks loaded per route),
//! served by Python's `http.server` (as a developer serves a build) and by a server of the
//! test's own that redirects, answers slowly and falls back to a single-page app's index.
//! One-line navigations and short flows; every journey passes, and no CDP request times out
//! (each one that does is logged, and the runs' logs are read). Issue 54: one journey in
//! about forty failed after 30 s with `browser_crashed: … Request timed out`.
//!
//! `SOAK_JOURNEYS` sets how many (default 400, split between the two servers); the README
//! gives the long run's figures.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::extract::{Path as UrlPath, Request};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};

use crate::harness::{block_on, spawn};

/// Journeys by default: enough to have met issue 54's failure about ten times over.
const DEFAULT_JOURNEYS: usize = 400;

fn apps() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/soak")
}

/// One-line journeys for the Python server: every app at its first screen and at another;
/// most often the jQuery build's first screen, whose router sets its default route just
/// after the load (issue 54's trigger), as the issue's forty `navigate("/")` did.
const STATIC_ROUTES: &[&str] = &[
    "/todomvc-jquery/",
    "/modules/",
    "/todomvc-jquery/",
    "/preact/",
    "/todomvc-jquery/#/active",
    "/todomvc-jquery/",
    "/modules/#/reports",
    "/todomvc-jquery/#/completed",
    "/modules/#/settings",
];

/// One-line journeys for the test's own server: redirects (a chain of three among them),
/// the slow copies of the apps, deep links a single-page app answers from its index, and a
/// page that sends its visitor on once loaded, as an auth guard does.
const SERVED_ROUTES: &[&str] = &[
    "/",
    "/go/todomvc-jquery",
    "/old/preact",
    "/preact/active",
    "/preact/completed",
    "/r/1",
    "/slow/todomvc-jquery/",
    "/slow/preact/",
    "/slow/modules/",
    "/modules/#/reports",
];

/// A TodoMVC build's flow at `route`: two todos typed, one toggled, the active filter.
fn todo_flow(route: &str) -> String {
    format!(
        r#"navigate("{route}");
fill("todo.new", "Buy milk");
press("todo.new", "Enter");
fill("todo.new", "Walk the dog");
let r = press("todo.new", "Enter");
expect(r.screen.controls.filter(|c| c.anchor == "todo.item").len() == 2, "two todos");
invoke("todo.toggle", "Buy milk");
invoke("filter.active");
let s = read_screen();
let items = s.controls.filter(|c| c.anchor == "todo.item");
expect(items.len() == 1 && items[0].key == "Walk the dog", `one active, saw ${{items.len()}}`);
"#
    )
}

/// The module-built app's flow at `route`: to the reports, whose chunk and data load then.
fn ledger_flow(route: &str) -> String {
    format!(
        r#"navigate("{route}");
invoke("ledger.reports");
wait_for(#{{text: "Operating"}});
"#
    )
}

/// The journeys of one server: `count` of them, a quarter flows, named in order.
fn journeys(count: usize, routes: &[&str], flows: &[String]) -> Vec<(String, String)> {
    (0..count)
        .map(|i| {
            let source = if i % 4 == 3 {
                flows[(i / 4) % flows.len()].clone()
            } else {
                format!("navigate(\"{}\");\n", routes[i % routes.len()])
            };
            (format!("j{i:04}.rhai"), source)
        })
        .collect()
}

/// `python3 -m http.server` on the apps, on a free port, killed when dropped.
struct PythonServer(Child, String);

impl PythonServer {
    fn start(root: &Path) -> PythonServer {
        let mut child = Command::new("python3")
            .args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"])
            .arg("--directory")
            .arg(root)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start python3 -m http.server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("read the server's first line");
        // "Serving HTTP on 127.0.0.1 port 46253 (http://127.0.0.1:46253/) ..."
        let port = line
            .split("port ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        PythonServer(child, format!("http://127.0.0.1:{port}/"))
    }
}

impl Drop for PythonServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The test's own server of the apps: redirects, slow copies, single-page fallbacks.
fn serve_apps() -> String {
    block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the soak server");
        let addr = listener.local_addr().expect("the soak server's address");
        let app = axum::Router::new()
            .route(
                "/",
                axum::routing::get(|| async { Redirect::to("/todomvc-jquery/") }),
            )
            .route(
                "/go/{app}",
                axum::routing::get(|UrlPath(app): UrlPath<String>| async move {
                    Redirect::to(&format!("/{app}/"))
                }),
            )
            .route(
                "/old/preact",
                axum::routing::get(|| async { Redirect::permanent("/preact/") }),
            )
            .route(
                "/r/1",
                axum::routing::get(|| async { Redirect::temporary("/r/2") }),
            )
            .route(
                "/r/2",
                axum::routing::get(|| async { Redirect::to("/r/3") }),
            )
            .route(
                "/r/3",
                axum::routing::get(|| async { Redirect::to("/modules/#/reports") }),
            )
            .route("/guard/", axum::routing::get(guard))
            .fallback(file);
        spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}/")
    })
}

/// A page that sends its visitor to the app once it has loaded (a sign-in check passed).
async fn guard() -> Response {
    axum::response::Html(
        "<!doctype html><title>Checking</title><p role=status>Checking your session…</p>\
         <script>addEventListener('load', function () { setTimeout(function () { \
         location.replace('/preact/'); }, 0); });</script>",
    )
    .into_response()
}

/// A file of the apps; under `/slow/` the same, later; a Preact route its index.
async fn file(request: Request) -> Response {
    let path = request.uri().path().to_string();
    let (path, slow) = match path.strip_prefix("/slow") {
        Some(rest) => (rest.to_string(), true),
        None => (path, false),
    };
    if path
        .split('/')
        .any(|part| part == ".." || part.starts_with('.'))
    {
        return StatusCode::NOT_FOUND.into_response();
    }
    let mut relative = path.trim_start_matches('/').to_string();
    if relative.is_empty() || relative.ends_with('/') {
        relative.push_str("index.html");
    }
    let mut disk = apps().join(&relative);
    if !disk.is_file() && relative.starts_with("preact/") && !relative.contains('.') {
        disk = apps().join("preact/index.html");
    }
    if slow {
        // Each file of a slow copy 40-360 ms late, the same each time.
        let spread = relative.bytes().map(u64::from).sum::<u64>() % 9;
        tokio::time::sleep(Duration::from_millis(40 + 40 * spread)).await;
    } else if relative.ends_with(".json") {
        // The apps' data comes from a slower backend than their files.
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    match std::fs::read(&disk) {
        Ok(body) => ([(header::CONTENT_TYPE, media_type(&disk))], body).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

fn media_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// What a run of `journeys` against `base` gave: its report, its output, how long it took.
struct Soaked {
    report: serde_json::Value,
    output: String,
    took: Duration,
}

fn run(base: &str, journeys: &[(String, String)]) -> Soaked {
    let dir = tempfile::tempdir().expect("a temp dir");
    for (name, source) in journeys {
        std::fs::write(dir.path().join(name), source).expect("write a journey");
    }
    let report = dir.path().join("report.json");
    let anchors = apps().join("anchors.yaml").display().to_string();
    let report_flag = format!("json={}", report.display());
    let args = [
        "--anchors",
        &anchors,
        "--base-url",
        base,
        "run",
        "--jobs",
        "2",
        "--no-trace",
        "--report",
        &report_flag,
        ".",
    ];
    // Every CDP request that times out is logged (`waymark::cdp`); none may.
    let log = [("RUST_LOG", std::ffi::OsStr::new("waymark::cdp=warn"))];
    // A run of a thousand journeys takes a few minutes on two cores; a stuck one, for ever.
    let limit = Duration::from_secs(60 + journeys.len() as u64);
    let start = Instant::now();
    let run = crate::cli::waymark_within(limit, dir.path(), args, &log, &mut |_| true);
    let took = start.elapsed();
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("read the JSON report: {e}\n{}", run.all()));
    Soaked {
        report: serde_json::from_str(&text).expect("the report is JSON"),
        output: run.all(),
        took,
    }
}

/// Every journey passed, and no CDP request timed out, saying which did not.
fn passed(soaked: &Soaked, count: usize, server: &str) {
    let journeys = soaked.report["journeys"].as_array().expect("journeys");
    assert_eq!(journeys.len(), count, "{server}: {}", soaked.output);
    let failed: Vec<String> = journeys
        .iter()
        .filter(|j| j["status"] != "passed")
        .map(|j| {
            format!(
                "{} {}: {}",
                j["name"], j["status"], j["attempts"][0]["error"]
            )
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{server}: {} of {count} journeys did not pass:\n{}",
        failed.len(),
        failed.join("\n")
    );
    let timeouts = soaked.output.matches("request timed out").count();
    assert_eq!(
        timeouts, 0,
        "{server}: CDP requests timed out:\n{}",
        soaked.output
    );
    assert!(
        !soaked.output.contains("browser_crashed"),
        "{}",
        soaked.output
    );
}

#[test]
fn hundreds_of_journeys_over_framework_built_apps_all_pass_with_two_jobs() {
    let total = std::env::var("SOAK_JOURNEYS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(DEFAULT_JOURNEYS)
        .max(2);
    let (python_count, served_count) = (total / 2, total - total / 2);

    let python = PythonServer::start(&apps());
    let flows = [
        todo_flow("/todomvc-jquery/"),
        todo_flow("/preact/"),
        ledger_flow("/modules/"),
    ];
    let on_python = run(&python.1, &journeys(python_count, STATIC_ROUTES, &flows));
    drop(python);
    passed(&on_python, python_count, "python3 -m http.server");

    let served = serve_apps();
    let flows = [
        todo_flow("/slow/todomvc-jquery/"),
        todo_flow("/go/preact"),
        ledger_flow("/slow/modules/"),
        "navigate(\"/guard/\");\nwait_for(#{route: \"/preact/\"});\n".to_string(),
    ];
    let on_served = run(&served, &journeys(served_count, SERVED_ROUTES, &flows));
    passed(&on_served, served_count, "the test's server");

    eprintln!(
        "soak: {total} journeys passed, no CDP request timed out: {python_count} on python3 -m \
         http.server in {:.1} s, {served_count} on the test's server in {:.1} s",
        on_python.took.as_secs_f64(),
        on_served.took.as_secs_f64()
    );
}
