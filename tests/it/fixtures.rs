//! Fixture pages (`tests/fixtures/audit/*.html`, the accessible-name ones under
//! `/accname/`, the hostile ones under `/hostile/`, the
//! secret fields under `/secrets/`, the API of `crate::network` under `/api/`), served on 127.0.0.1 by a small static server on the shared runtime (started
//! once); the known-answer ones beside the read they must give (`NAME.expected.json`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use axum::extract::{ConnectInfo, Path as UrlPath};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use url::Url;
use waymark::browser::ChromiumTab;
use waymark::registry::Registry;
use waymark::tools::{ToolOptions, Tools};

use crate::harness::{Probe, ProbedTab, block_on, probed_tools_at, shared};

/// Where the pages live.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit")
}

/// Base URL of the fixture server.
pub fn base() -> Url {
    static BASE: OnceLock<Url> = OnceLock::new();
    BASE.get_or_init(|| {
        block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind the fixture server");
            let addr = listener.local_addr().expect("the fixture server's address");
            let app = axum::Router::new()
                .route("/{name}", axum::routing::get(page))
                .route("/accname/{name}", axum::routing::get(accname_page))
                .route("/hostile/{name}", axum::routing::get(hostile_page))
                .route("/secrets/{name}", axum::routing::get(secrets_page))
                .merge(crate::network::api());
            // Each request's peer, for a test that must tell which browser asked.
            let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            Url::parse(&format!("http://{addr}/")).expect("the fixture URL parses")
        })
    })
    .clone()
}

/// What the server answers for `members.html` without the session cookie: a sign-in page.
const SIGN_IN: &str = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
    <title>Sign in</title></head><body><main>\
    <a data-anchor=\"members.sign-in\" href=\"#sign-in\">Sign in</a></main></body></html>";

async fn page(UrlPath(name): UrlPath<String>, headers: HeaderMap) -> Response {
    // A screen behind a sign-in, as an app serves it: its page only with the session cookie.
    let signed_in = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|c| c.trim_start().starts_with("member="));
    if name == "members.html" && !signed_in {
        return Html(SIGN_IN).into_response();
    }
    let css = name.ends_with(".css");
    let plain = (name.ends_with(".html") || css)
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    match plain.then(|| std::fs::read_to_string(dir().join(&name))) {
        Some(Ok(body)) if css => ([(header::CONTENT_TYPE, "text/css")], body).into_response(),
        Some(Ok(body)) => Html(body).into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The accessible-name pages (`tests/fixtures/accname/*.html`), at `/accname/NAME`.
async fn accname_page(UrlPath(name): UrlPath<String>) -> Response {
    html_in("accname", &name)
}

/// The hostile pages (`tests/fixtures/hostile/*.html`: dialogs in a loop, a handler that
/// never returns…), at `/hostile/NAME`.
async fn hostile_page(
    UrlPath(name): UrlPath<String>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
) -> Response {
    if let Ok(mut served) = SERVED.lock() {
        served.push((name.clone(), peer.port()));
    }
    html_in("hostile", &name)
}

/// The pages with secret fields (`tests/fixtures/secrets/*.html`), at `/secrets/NAME`.
async fn secrets_page(UrlPath(name): UrlPath<String>) -> Response {
    html_in("secrets", &name)
}

/// The hostile pages served so far, by name, in order, with the port they were asked from.
static SERVED: std::sync::Mutex<Vec<(String, u16)>> = std::sync::Mutex::new(Vec::new());

/// How often the hostile page `name` was served (a test waits for a run to reach it).
pub fn served(name: &str) -> usize {
    SERVED
        .lock()
        .map_or(0, |s| s.iter().filter(|(n, _)| n == name).count())
}

/// The port the hostile page `name` was last asked from: the asking browser's end of the
/// connection.
pub fn served_to(name: &str) -> Option<u16> {
    let served = SERVED.lock().ok()?;
    served
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, p)| *p)
}

/// The page `name` of `tests/fixtures/FOLDER`, when it is a plain `.html` name.
fn html_in(folder: &str, name: &str) -> Response {
    let plain = name.ends_with(".html")
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(folder);
    match plain.then(|| std::fs::read_to_string(dir.join(name))) {
        Some(Ok(body)) => Html(body).into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Tools over a fresh tab on the fixture server, without a registry, every read audited.
pub fn audited_tools() -> Tools<ChromiumTab> {
    audited_tools_with(ToolOptions::default())
}

/// The same with other bounds (`audit` is switched on).
pub fn audited_tools_with(options: ToolOptions) -> Tools<ChromiumTab> {
    tools_with(ToolOptions {
        audit: true,
        ..options
    })
}

/// Tools over a fresh tab on the fixture server, without a registry, with the default bounds.
pub fn tools() -> Tools<ChromiumTab> {
    tools_with(ToolOptions::default())
}

/// Tools over a fresh tab on the fixture server, without a registry, plus a probe on the
/// same page.
pub fn probed_tools_with(options: ToolOptions) -> (Tools<ProbedTab>, Probe) {
    probed_tools_at(base(), Arc::new(Registry::empty()), options)
}

/// Tools over a fresh tab on the fixture server, without a registry, with other bounds.
pub fn tools_with(options: ToolOptions) -> Tools<ChromiumTab> {
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    Tools::new(tab, base(), Arc::new(Registry::empty()), options)
}

/// The expected read of page `name`: each control's anchor, key, label, role, disabled.
pub fn expected(name: &str) -> serde_json::Value {
    let path = dir().join(format!("{name}.expected.json"));
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The fixture server's base URL without its last slash, as `--base-url` takes it.
pub fn base_url() -> String {
    base().to_string().trim_end_matches('/').to_string()
}

/// Writes `journeys` (file name, source) into `dir` and runs them all at once, two jobs
/// side by side, against the fixture server: journeys that must not see each other's
/// routes, clocks or traffic.
pub fn run_two_jobs(dir: &Path, journeys: Vec<(&str, String)>) -> crate::cli::Run {
    for (name, source) in journeys {
        std::fs::write(dir.join(name), source).expect("write a journey");
    }
    let url = base_url();
    let args = [
        "--base-url",
        url.as_str(),
        "run",
        "--no-trace",
        "--jobs",
        "2",
        ".",
    ];
    crate::cli::waymark(dir, args, &[])
}
