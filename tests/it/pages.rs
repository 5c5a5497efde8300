//! Pages a test writes at run time (issue 48's rows, the differential test's corpus and
//! generated pages), served on 127.0.0.1 by one small server on the shared runtime, each at
//! `/p/{name}` once put.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::Path as UrlPath;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse};
use url::Url;

use crate::harness::block_on;

type Pages = Arc<Mutex<HashMap<String, String>>>;

fn server() -> &'static (Url, Pages) {
    static SERVER: OnceLock<(Url, Pages)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let pages: Pages = Arc::default();
        let served = pages.clone();
        let url = block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind the page server");
            let addr = listener.local_addr().expect("the page server's address");
            let app = axum::Router::new().route(
                "/p/{name}",
                axum::routing::get(move |UrlPath(name): UrlPath<String>| {
                    let page = served.lock().expect("the pages").get(&name).cloned();
                    async move {
                        match page {
                            Some(html) => Html(html).into_response(),
                            None => StatusCode::NOT_FOUND.into_response(),
                        }
                    }
                }),
            );
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            Url::parse(&format!("http://{addr}/")).expect("the page server's URL parses")
        });
        (url, pages)
    })
}

/// The server's base URL (`http://127.0.0.1:PORT/`).
pub fn base() -> Url {
    server().0.clone()
}

/// Serves `html` at `/p/{name}` (replacing what was there); its route.
pub fn put(name: &str, html: impl Into<String>) -> String {
    server()
        .1
        .lock()
        .expect("the pages")
        .insert(name.to_string(), html.into());
    format!("/p/{name}")
}
