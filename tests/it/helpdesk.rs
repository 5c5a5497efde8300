//! The helpdesk fixture app of the suite benchmark (`bench/compare/app/`: a many-page app
//! without `data-anchor`, found through matchers): its journeys pass, so the waymark side
//! of `bench/compare/suite.mjs` cannot rot. Its Playwright Test port checks the same things
//! (`bench/compare/tests/app.spec.mjs`); CI does not run that side.

use std::path::{Path, PathBuf};

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::cli::waymark;
use crate::harness::block_on;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/compare/app")
}

/// A file of the app's `site/` (its `index.html` at `/`).
async fn file(request: Request) -> Response {
    let path = request.uri().path().trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    if path
        .split('/')
        .any(|part| part == ".." || part.starts_with('.'))
    {
        return StatusCode::NOT_FOUND.into_response();
    }
    let kind = match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css",
        Some("js") => "text/javascript",
        _ => "application/octet-stream",
    };
    match tokio::fs::read(dir().join("site").join(path)).await {
        Ok(body) => ([(header::CONTENT_TYPE, kind)], body).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The app's site on a free 127.0.0.1 port.
fn serve() -> String {
    block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the helpdesk's server");
        let addr = listener.local_addr().expect("the helpdesk's address");
        let app = axum::Router::new().fallback(file);
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}/")
    })
}

#[test]
fn the_suite_benchmarks_helpdesk_journeys_pass() {
    let url = serve();
    let journeys = dir().join("journeys");
    let anchors = dir().join("anchors.yaml");
    let run = waymark(
        &dir(),
        [
            "run".as_ref(),
            journeys.as_os_str(),
            "--anchors".as_ref(),
            anchors.as_os_str(),
            "--base-url".as_ref(),
            url.as_ref(),
            "--jobs".as_ref(),
            "2".as_ref(),
        ],
        &[],
    );
    run.exits(0).says("11 passed, 0 failed");
}
