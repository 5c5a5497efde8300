//! Routes: a journey's answers to the requests its pages make, given by the browser itself
//! (CDP's Fetch domain, no proxy). A tab routes only its own requests, so two journeys, each
//! in a browser context and tabs of its own, never see each other's routes.
//!
//! The journey's [`RouteBook`] holds its routes and what they answered; every tab of the
//! journey routes by the same book. A tab asks the browser to pause only the requests some
//! route may match (Fetch's own wildcards, a superset of the routes' globs), then answers
//! each: the last route added that matches fulfils, fails or lets it through changed; a
//! request none matches goes on as it was.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, DisableParams, EnableParams, EventRequestPaused, FailRequestParams,
    FulfillRequestParams, HeaderEntry, RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::ErrorReason;
use chromiumoxide::listeners::EventStream;
use futures::StreamExt;
use globset::{GlobBuilder, GlobMatcher};
use serde::Serialize;
use tokio::task::JoinHandle;

use super::BrowserError;
use super::commands::{Commands, bounded};
use super::context_settings::Credentials;

/// Requests remembered for the next call's round trip, at most: a page that polls through
/// a route is counted, not kept past it.
const HITS_KEPT: usize = 200;

/// How a route fails a request, as the page then sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abort {
    /// `net::ERR_FAILED`.
    Failed,
    /// `net::ERR_TIMED_OUT`.
    TimedOut,
    /// `net::ERR_CONNECTION_REFUSED`.
    Refused,
}

/// What a route does with a request it matches.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Answers it without the server: a status, headers and a body, after `delay`.
    Fulfill {
        /// The HTTP status.
        status: u16,
        /// The response headers (a `content-type` among them).
        headers: Vec<(String, String)>,
        /// The body.
        body: Vec<u8>,
        /// How long to hold the answer.
        delay: Duration,
    },
    /// Fails it as the network would.
    Abort(Abort),
    /// Sends it on to the server with these headers set (added, or replacing the request's
    /// own of the same name).
    Continue {
        /// The headers to set.
        headers: Vec<(String, String)>,
    },
}

/// One route: the requests it matches and its reply.
#[derive(Debug, Clone)]
pub struct Route {
    /// The pattern as the journey wrote it (`/api/items/**`): the route's name.
    pub pattern: String,
    /// The method it matches only (`POST`), upper case; any when `None`.
    pub method: Option<String>,
    reply: Reply,
    glob: GlobMatcher,
    /// The URL glob, absolute (`http://127.0.0.1:8080/api/items/**`).
    absolute: String,
}

impl Route {
    /// A route answering the requests whose URL (without its fragment) matches `absolute`,
    /// a glob (`*` within a path segment, `**` across them, `?` itself), named `pattern`.
    pub fn new(
        pattern: &str,
        absolute: &str,
        method: Option<&str>,
        reply: Reply,
    ) -> Result<Route, String> {
        // `?` is a URL's own (its query), and `[`, `{` are not globs here either.
        let escaped: String = absolute
            .chars()
            .map(|c| match c {
                '?' | '[' | ']' | '{' | '}' => format!("[{c}]"),
                c => c.to_string(),
            })
            .collect();
        let glob = GlobBuilder::new(&escaped)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("`{pattern}` is not a glob: {e}"))?
            .compile_matcher();
        Ok(Route {
            pattern: pattern.to_string(),
            method: method.map(str::to_ascii_uppercase),
            reply,
            glob,
            absolute: absolute.to_string(),
        })
    }

    /// Whether it matches a `method` request for `url`.
    pub fn matches(&self, method: &str, url: &str) -> bool {
        let url = url.split('#').next().unwrap_or(url);
        self.method
            .as_deref()
            .is_none_or(|m| m.eq_ignore_ascii_case(method))
            && self.glob.is_match(url)
    }

    /// The pattern of the requests the browser pauses for it: Fetch's wildcards (`*` any
    /// run of characters), a superset of the glob's matches.
    fn fetch_pattern(&self) -> String {
        let mut out = String::new();
        let mut last_star = false;
        for c in self.absolute.chars() {
            match c {
                '*' if last_star => {}
                '*' => out.push('*'),
                '?' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
            last_star = c == '*';
        }
        out
    }
}

/// A request a route answered, as the trace records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Routed {
    /// The route's pattern.
    pub pattern: String,
    /// The request's method.
    pub method: String,
    /// The request's URL.
    pub url: String,
    /// What the route did: `fulfilled 500`, `aborted timedout`, `continued`.
    pub answer: String,
}

/// What answers the requests no route matches, when a journey has it (a HAR replayed:
/// `har.rs`): asked with the request's method, URL, headers and body.
pub trait Fallback: Send + Sync + std::fmt::Debug {
    /// Its name in what the trace records (`--har`).
    fn name(&self) -> &str;
    /// Its reply to the request, `None` to let it through.
    fn reply(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Option<&[u8]>,
    ) -> Option<Reply>;
}

/// A journey's routes, and the requests they answered since they were last taken.
#[derive(Debug, Default)]
pub struct RouteBook {
    routes: Mutex<Vec<Arc<Route>>>,
    routed: Mutex<(Vec<Routed>, u64)>,
    /// The journey's credentials (`http_credentials`), over the run's: answered to
    /// challenges beside the routes (see `context_settings.rs`).
    credentials: Mutex<Option<Credentials>>,
    /// What answers the requests no route matches (the routes win over it).
    fallback: std::sync::OnceLock<Arc<dyn Fallback>>,
}

impl RouteBook {
    /// Adds `route`, in place of one with the same pattern and method.
    pub fn add(&self, route: Route) {
        if let Ok(mut routes) = self.routes.lock() {
            routes.retain(|r| !(r.pattern == route.pattern && r.method == route.method));
            routes.push(Arc::new(route));
        }
    }

    /// Removes the routes named `pattern` (of every method), saying how many there were.
    pub fn remove(&self, pattern: &str) -> usize {
        self.routes.lock().map_or(0, |mut routes| {
            let before = routes.len();
            routes.retain(|r| r.pattern != pattern);
            before - routes.len()
        })
    }

    /// Whether it holds no route (and no fallback).
    pub fn is_empty(&self) -> bool {
        self.fallback.get().is_none() && self.routes.lock().is_ok_and(|r| r.is_empty())
    }

    /// Answers the requests no route matches by `fallback` from now on (once: a later
    /// one is ignored).
    pub fn fall_back_to(&self, fallback: Arc<dyn Fallback>) {
        let _ = self.fallback.set(fallback);
    }

    /// Answers servers' authentication challenges with `credentials` from now on (in
    /// place of the run's).
    pub fn set_credentials(&self, credentials: Credentials) {
        if let Ok(mut set) = self.credentials.lock() {
            *set = Some(credentials);
        }
    }

    /// The journey's credentials, if it gave some.
    pub fn credentials(&self) -> Option<Credentials> {
        self.credentials.lock().ok().and_then(|c| c.clone())
    }

    /// The requests routed since the last call, and how many more were routed past the
    /// [`HITS_KEPT`] kept.
    pub fn take(&self) -> (Vec<Routed>, u64) {
        self.routed
            .lock()
            .map(|mut r| std::mem::take(&mut *r))
            .unwrap_or_default()
    }

    /// The route that answers a `method` request for `url`: the last added that matches.
    fn find(&self, method: &str, url: &str) -> Option<Arc<Route>> {
        let routes = self.routes.lock().ok()?;
        routes
            .iter()
            .rev()
            .find(|r| r.matches(method, url))
            .cloned()
    }

    fn note(&self, routed: Routed) {
        if let Ok(mut log) = self.routed.lock() {
            if log.0.len() < HITS_KEPT {
                log.0.push(routed);
            } else {
                log.1 += 1;
            }
        }
    }

    fn patterns(&self) -> Vec<RequestPattern> {
        let routes = self.routes.lock().map(|r| r.clone()).unwrap_or_default();
        let mut patterns: Vec<String> = routes.iter().map(|r| r.fetch_pattern()).collect();
        if self.fallback.get().is_some() {
            patterns = vec!["*".to_string()];
        }
        patterns.sort();
        patterns.dedup();
        patterns
            .into_iter()
            .map(|p| RequestPattern {
                url_pattern: Some(p),
                resource_type: None,
                request_stage: Some(RequestStage::Request),
            })
            .collect()
    }
}

/// A tab's side of routing: the task answering its paused requests, started at its first
/// route.
#[derive(Default)]
pub(super) struct Router {
    answering: tokio::sync::OnceCell<JoinHandle<()>>,
}

impl Drop for Router {
    fn drop(&mut self) {
        if let Some(task) = self.answering.get() {
            task.abort();
        }
    }
}

impl Router {
    /// Whether the tab routed once (its answering task is there).
    pub(super) fn started(&self) -> bool {
        self.answering.initialized()
    }

    /// Makes `page` route by `book` as it stands now: the browser pauses what its routes may
    /// match (nothing, once it has none).
    pub(super) async fn apply(
        &self,
        page: &Page,
        book: &Arc<RouteBook>,
        timeout: Duration,
    ) -> Result<(), BrowserError> {
        self.answering
            .get_or_try_init(|| async {
                let paused = bounded(
                    timeout,
                    "subscribing to paused requests",
                    page.event_listener::<EventRequestPaused>(),
                )
                .await?;
                Ok::<_, BrowserError>(answer_all(page.clone(), paused, Arc::clone(book), timeout))
            })
            .await?;
        let patterns = book.patterns();
        if patterns.is_empty() {
            page.command(timeout, "routing no requests", DisableParams::default())
                .await?;
        } else {
            let enable = EnableParams {
                patterns: Some(patterns),
                handle_auth_requests: None,
            };
            page.command(timeout, "routing requests", enable).await?;
        }
        Ok(())
    }
}

/// Answers every request `paused` announces by `book`'s routes, each in a task of its own
/// (a delayed answer holds up no other request), every answer bounded by `timeout` past
/// its delay.
fn answer_all(
    page: Page,
    mut paused: EventStream<EventRequestPaused>,
    book: Arc<RouteBook>,
    timeout: Duration,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(event) = paused.next().await {
            let (page, book) = (page.clone(), Arc::clone(&book));
            tokio::spawn(async move {
                let _ = answer(&page, &book, &event, timeout).await;
            });
        }
    })
}

async fn answer(
    page: &Page,
    book: &RouteBook,
    event: &EventRequestPaused,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let (method, url) = (&event.request.method, &event.request.url);
    let id = event.request_id.clone();
    let found = book
        .find(method, url)
        .map(|r| (r.pattern.clone(), r.reply.clone()));
    let found = found.or_else(|| {
        let fallback = book.fallback.get()?;
        let headers = super::har::headers_of(event.request.headers.inner());
        let body = super::har::post_body(&event.request);
        let reply = fallback.reply(method, url, &headers, body.as_deref())?;
        Some((fallback.name().to_string(), reply))
    });
    let Some((pattern, reply)) = found else {
        let on = ContinueRequestParams::new(id);
        page.command(timeout, "letting a request through", on)
            .await?;
        return Ok(());
    };
    let answer = match &reply {
        Reply::Fulfill {
            status,
            headers,
            body,
            delay,
        } => {
            tokio::time::sleep(*delay).await;
            let mut fulfil = FulfillRequestParams::new(id, i64::from(*status));
            fulfil.response_headers = Some(entries(headers));
            fulfil.body = Some(
                base64::engine::general_purpose::STANDARD
                    .encode(body)
                    .into(),
            );
            page.command(timeout, "answering a routed request", fulfil)
                .await?;
            format!("fulfilled {status}")
        }
        Reply::Abort(abort) => {
            let (reason, word) = match abort {
                Abort::Failed => (ErrorReason::Failed, "failed"),
                Abort::TimedOut => (ErrorReason::TimedOut, "timedout"),
                Abort::Refused => (ErrorReason::ConnectionRefused, "refused"),
            };
            page.command(
                timeout,
                "failing a routed request",
                FailRequestParams::new(id, reason),
            )
            .await?;
            format!("aborted {word}")
        }
        Reply::Continue { headers } => {
            let mut merged: Vec<(String, String)> = event
                .request
                .headers
                .inner()
                .as_object()
                .map(|o| {
                    o.iter()
                        .filter(|(k, _)| !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)))
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                })
                .unwrap_or_default();
            merged.extend(headers.iter().cloned());
            let mut on = ContinueRequestParams::new(id);
            on.headers = Some(entries(&merged));
            page.command(timeout, "letting a routed request through", on)
                .await?;
            "continued".to_string()
        }
    };
    book.note(Routed {
        pattern,
        method: method.clone(),
        url: url.clone(),
        answer,
    });
    Ok(())
}

fn entries(headers: &[(String, String)]) -> Vec<HeaderEntry> {
    headers
        .iter()
        .map(|(n, v)| HeaderEntry::new(n.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(absolute: &str, method: Option<&str>) -> Route {
        let reply = Reply::Abort(Abort::Failed);
        Route::new(absolute, absolute, method, reply).expect("a glob")
    }

    #[test]
    fn a_star_stays_in_its_segment_and_two_cross_them() {
        let one = route("http://a/api/*", None);
        assert!(one.matches("GET", "http://a/api/items"));
        assert!(!one.matches("GET", "http://a/api/items/3"));
        let two = route("http://a/api/items/**", None);
        assert!(two.matches("GET", "http://a/api/items/3"));
        assert!(two.matches("GET", "http://a/api/items/3/notes?page=2#top"));
        assert!(!two.matches("GET", "http://a/api/other"));
    }

    #[test]
    fn a_question_mark_is_the_query_and_a_method_narrows() {
        let query = route("http://a/api/items?page=2", Some("get"));
        assert!(query.matches("GET", "http://a/api/items?page=2"));
        assert!(!query.matches("GET", "http://a/api/itemsXpage=2"));
        assert!(!query.matches("POST", "http://a/api/items?page=2"));
        assert_eq!(query.fetch_pattern(), "http://a/api/items\\?page=2");
        assert_eq!(
            route("http://a/api/**", None).fetch_pattern(),
            "http://a/api/*"
        );
    }

    #[test]
    fn the_last_route_added_answers_and_one_of_the_same_name_is_replaced() {
        let book = RouteBook::default();
        book.add(route("http://a/**", None));
        book.add(route("http://a/api/*", Some("POST")));
        let found = book.find("POST", "http://a/api/x").expect("a route");
        assert_eq!(found.pattern, "http://a/api/*");
        let found = book.find("GET", "http://a/api/x").expect("a route");
        assert_eq!(found.pattern, "http://a/**");
        book.add(route("http://a/**", None));
        assert_eq!(book.routes.lock().unwrap().len(), 2);
        assert_eq!(book.remove("http://a/**"), 1);
        assert!(book.find("GET", "http://a/api/x").is_none());
    }
}
