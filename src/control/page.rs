//! The control page: the person's side of every gate, served on `127.0.0.1` for one run.
//!
//! Every path starts with a random 128-bit token (`http://127.0.0.1:PORT/TOKEN/`); anything
//! else is a plain 404 that tells nothing about the token. The page lists the run's tabs
//! (state, journey, route, a live screenshot), takes and returns control, answers consent
//! questions and finishes handoffs — all through the [`Hub`], which it polls (`api/state`,
//! a long poll on the hub's change counter). Page text it shows (routes, questions naming
//! on-screen labels) is untrusted: the page's script inserts it as text, never as HTML.
//!
//! No screenshot is taken while the person has a tab (`user`, `handoff`): what they type
//! there stays in their browser window.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::{Hub, HubError, TabId, TabState};

/// How long `api/state?since=N` waits for a change before answering with the same state.
/// Below the hub's presence window, so a page that is only long-polling stays present.
const LONG_POLL: Duration = Duration::from_secs(5);

/// How long a screenshot may take before the request answers with an error.
const SHOT_TIMEOUT: Duration = Duration::from_secs(5);

const HTML: &str = include_str!("page.html");

/// A served control page; dropping it stops the server.
pub struct ControlPage {
    url: String,
    shutdown: Option<oneshot::Sender<()>>,
}

impl ControlPage {
    /// `http://127.0.0.1:PORT/TOKEN/`: whoever has it can steer the run's tabs.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl std::fmt::Debug for ControlPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL carries the token.
        f.debug_struct("ControlPage").finish_non_exhaustive()
    }
}

impl Drop for ControlPage {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// Serves the control page of `hub` on a free `127.0.0.1` port, on the current tokio
/// runtime; it accepts connections when this returns.
pub async fn serve(hub: Arc<Hub>) -> Result<ControlPage, io::Error> {
    let token = token()?;
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let page = Arc::new(Page {
        hub,
        token: token.clone(),
        hosts: [
            format!("127.0.0.1:{}", addr.port()),
            format!("localhost:{}", addr.port()),
        ],
    });
    let app = Router::new().fallback(handle).with_state(page);
    let shutdown = crate::serve::serve_until_dropped(listener, app, "the control page");
    Ok(ControlPage {
        url: format!("http://{addr}/{token}/"),
        shutdown: Some(shutdown),
    })
}

/// 128 random bits from the kernel, as 32 hex digits.
fn token() -> Result<String, io::Error> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Equal without an early exit: the time taken tells nothing about how much matched.
fn same(given: &[u8], token: &[u8]) -> bool {
    given.len() == token.len()
        && std::hint::black_box(
            given
                .iter()
                .zip(token)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b)),
        ) == 0
}

struct Page {
    hub: Arc<Hub>,
    token: String,
    /// The `Host` headers a browser on this machine sends (a page of another site that
    /// rebinds its name to 127.0.0.1 sends its own).
    hosts: [String; 2],
}

/// The only handler: checks the host and the token, then routes what follows the token.
async fn handle(
    State(page): State<Arc<Page>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let host_ok = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| page.hosts.iter().any(|ok| ok == h));
    let path = uri.path().strip_prefix('/').unwrap_or_default();
    let (given, rest) = path
        .split_once('/')
        .map_or((path, None), |(t, r)| (t, Some(r)));
    if !host_ok || !same(given.as_bytes(), page.token.as_bytes()) {
        return plain(StatusCode::NOT_FOUND, "not found");
    }
    let Some(rest) = rest else {
        // `/TOKEN` without its slash: the page's relative links need it.
        let location = format!("/{}/", page.token);
        return with_headers(
            (
                StatusCode::PERMANENT_REDIRECT,
                [(header::LOCATION, location)],
            )
                .into_response(),
        );
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let response = match (&method, segments.as_slice()) {
        (&Method::GET, [""]) => {
            ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], HTML).into_response()
        }
        (&Method::GET, ["api", "state"]) => state(&page.hub, uri.query()).await,
        (&Method::GET, ["api", "tabs", id, "screenshot"]) => match id.parse() {
            Ok(id) => screenshot(&page.hub, id).await,
            Err(_) => error(StatusCode::NOT_FOUND, format!("no tab `{id}`")),
        },
        (&Method::POST, ["api", "tabs", id, action @ ("take" | "return" | "done")]) => {
            match id.parse::<TabId>() {
                Ok(id) => answered(match *action {
                    "take" => page.hub.take(id),
                    "return" => page.hub.give_back(id),
                    _ => page.hub.done(id),
                }),
                Err(_) => error(StatusCode::NOT_FOUND, format!("no tab `{id}`")),
            }
        }
        (&Method::POST, ["api", "questions", id, verdict @ ("approve" | "deny")]) => {
            match id.parse::<u64>() {
                Ok(id) => answered(page.hub.answer(id, *verdict == "approve")),
                Err(_) => error(StatusCode::NOT_FOUND, format!("no pending question `{id}`")),
            }
        }
        _ if is_route(&segments) => error(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("`{method}` is not allowed here"),
        ),
        _ => error(StatusCode::NOT_FOUND, format!("no page `/{rest}`")),
    };
    with_headers(response)
}

/// Whether `segments` name a route of the page under some other method.
fn is_route(segments: &[&str]) -> bool {
    matches!(
        segments,
        [""] | ["api", "state"]
            | ["api", "tabs", _, "screenshot" | "take" | "return" | "done"]
            | ["api", "questions", _, "approve" | "deny"]
    )
}

/// Nothing is cached, no referrer leaks the token, no other site frames the buttons.
fn with_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             img-src 'self'; connect-src 'self'; frame-ancestors 'none'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

fn error(status: StatusCode, message: String) -> Response {
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}

/// 204 when the hub took the answer; 404 for an unknown tab or question, 409 when it does
/// not fit the tab's state.
fn answered(result: Result<(), HubError>) -> Response {
    match result {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e @ (HubError::NoTab(_) | HubError::NoQuestion(_))) => {
            error(StatusCode::NOT_FOUND, e.to_string())
        }
        Err(e) => error(StatusCode::CONFLICT, e.to_string()),
    }
}

/// `{version, tabs, questions}`; with `?since=N` it waits (up to [`LONG_POLL`]) until the
/// hub's version differs from N. Asking is what makes the person present to the hub.
async fn state(hub: &Hub, query: Option<&str>) -> Response {
    hub.touch();
    let since = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|pair| pair.strip_prefix("since="))
        .and_then(|n| n.parse::<u64>().ok());
    let mut changes = hub.subscribe();
    if let Some(since) = since
        && *changes.borrow_and_update() == since
    {
        let _ = tokio::time::timeout(LONG_POLL, changes.changed()).await;
        hub.touch();
    }
    let version = *changes.borrow();
    axum::Json(serde_json::json!({
        "version": version,
        "tabs": hub.tabs(),
        "questions": hub.questions(),
    }))
    .into_response()
}

/// A PNG of the tab, unless the person has it.
async fn screenshot(hub: &Hub, id: TabId) -> Response {
    let person_has = |state: TabState| matches!(state, TabState::User | TabState::Handoff);
    let Some(tab) = hub.tab(id) else {
        return error(StatusCode::NOT_FOUND, HubError::NoTab(id).to_string());
    };
    if person_has(tab.state) {
        return error(
            StatusCode::CONFLICT,
            format!(
                "tab {id} is {:?}: no screenshots while the person has it",
                tab.state
            ),
        );
    }
    let Some(source) = hub.screenshot(id) else {
        return error(
            StatusCode::NOT_FOUND,
            format!("tab {id} has no screenshot source"),
        );
    };
    let png = match tokio::time::timeout(SHOT_TIMEOUT, source()).await {
        Ok(Ok(png)) => png,
        Ok(Err(why)) => {
            return error(
                StatusCode::BAD_GATEWAY,
                format!("no screenshot of tab {id}: {why}"),
            );
        }
        Err(_) => {
            return error(
                StatusCode::GATEWAY_TIMEOUT,
                format!(
                    "no screenshot of tab {id} within {} s",
                    SHOT_TIMEOUT.as_secs()
                ),
            );
        }
    };
    // The person may have taken the tab while it was being captured.
    if hub.tab(id).is_none_or(|t| person_has(t.state)) {
        return error(
            StatusCode::CONFLICT,
            format!("tab {id} changed hands during the screenshot"),
        );
    }
    ([(header::CONTENT_TYPE, "image/png")], png).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bits_of_hex_and_compare_whole() {
        let a = token().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, token().unwrap());
        assert!(same(a.as_bytes(), a.as_bytes()));
        assert!(!same(&a.as_bytes()[..31], a.as_bytes()));
        assert!(!same(b"", a.as_bytes()));
    }
}
