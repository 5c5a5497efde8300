//! Browsers this run does not start: one already running that speaks CDP
//! (`--cdp-endpoint`), or one a W3C WebDriver server (Selenium Grid 4, any server that
//! returns `se:cdp`) starts for it and hands over as a CDP websocket (`--webdriver-url`).
//!
//! A WebDriver session is held as a [`Lease`]: ended (`DELETE /session/{id}`) when its
//! browser closes, when it is dropped, and on Ctrl-C ([`end_leases`]), so a Grid never keeps
//! a slot for a run that stopped.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use url::Url;

use chromiumoxide::Browser;
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::handler::{Handler, HandlerConfig};
use futures::StreamExt;

use super::{BrowserError, Chromium, LaunchOptions};

/// A browser somewhere else, instead of one launched here.
#[derive(Debug, Clone, PartialEq)]
pub enum Remote {
    /// A running browser's CDP endpoint: `http://host:port` (resolved through
    /// `/json/version`) or its `ws://…/devtools/browser/…` URL.
    Cdp(String),
    /// A W3C WebDriver server (Selenium Grid 4) asked for a Chrome session per browser.
    WebDriver(Url),
}

/// Why a URL this build cannot open is refused when the command line is read: waymark
/// links no TLS client (hyper-util's client and async-tungstenite are built without one,
/// and chromiumoxide connects through async-tungstenite), so `https://` and `wss://` would
/// only fail later, at the first connection.
fn no_tls(given: &str, scheme: &str) -> String {
    format!(
        "`{given}`: this build of waymark speaks no TLS, so not `{scheme}:`; reach the \
         browser over `http://` or `ws://` (e.g. through an SSH tunnel or a TLS-ending proxy)"
    )
}

impl Remote {
    /// `--cdp-endpoint URL`: `http://` or `ws://`, with a host (`https://`, `wss://`:
    /// refused: the build has no TLS client).
    pub fn cdp(endpoint: &str) -> Result<Remote, String> {
        let url = Url::parse(endpoint).map_err(|e| format!("`{endpoint}` is not a URL: {e}"))?;
        match url.scheme() {
            "http" | "ws" if url.host().is_some() => Ok(Remote::Cdp(endpoint.to_string())),
            tls @ ("https" | "wss") => Err(no_tls(endpoint, tls)),
            other => Err(format!(
                "`{endpoint}`: a CDP endpoint is `http://host:port` or a `ws://` URL, not `{other}:`"
            )),
        }
    }

    /// `--webdriver-url URL`: the server's `http://` address (e.g. `http://grid:4444`;
    /// `https://`: refused, the build has no TLS client).
    pub fn webdriver(server: &str) -> Result<Remote, String> {
        let url = Url::parse(server).map_err(|e| format!("`{server}` is not a URL: {e}"))?;
        match url.scheme() {
            "http" if url.host().is_some() => Ok(Remote::WebDriver(url)),
            "https" => Err(no_tls(server, "https")),
            other => Err(format!(
                "`{server}`: a WebDriver server is an `http://host:port` URL, not `{other}:`"
            )),
        }
    }

    /// Where, in words, for messages and the trace header.
    pub fn describe(&self) -> String {
        match self {
            Remote::Cdp(endpoint) => format!("the browser at `{endpoint}`"),
            Remote::WebDriver(url) => format!("a session of the WebDriver server at `{url}`"),
        }
    }
}

/// A WebDriver session this run holds; ended once, by [`Lease::end`] or on drop.
#[derive(Debug)]
pub(super) struct Lease {
    server: Url,
    session: String,
    ended: bool,
}

/// The sessions held now, for [`end_leases`] on Ctrl-C.
static LEASES: Mutex<Vec<(Url, String)>> = Mutex::new(Vec::new());

impl Lease {
    fn new(server: Url, session: String) -> Lease {
        if let Ok(mut leases) = LEASES.lock() {
            leases.push((server.clone(), session.clone()));
        }
        Lease {
            server,
            session,
            ended: false,
        }
    }

    /// Ends the session on the server (which closes its browser), bounded by `timeout`.
    pub(super) async fn end(mut self, timeout: Duration) {
        self.ended = true;
        forget(&self.session);
        delete(&self.server, &self.session, timeout).await;
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        forget(&self.session);
        // Not ended in order (an early return, a killed connection): ended in the
        // background while the runtime lives, else by `end_leases` on the way out.
        let (server, session) = (self.server.clone(), self.session.clone());
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            if let Ok(mut leases) = LEASES.lock() {
                leases.push((server.clone(), session.clone()));
            }
            handle.spawn(async move {
                delete(&server, &session, Duration::from_secs(5)).await;
                forget(&session);
            });
        }
    }
}

fn forget(session: &str) {
    if let Ok(mut leases) = LEASES.lock() {
        leases.retain(|(_, s)| s != session);
    }
}

/// Ends every WebDriver session still held (an interrupted run), each bounded by `timeout`.
pub async fn end_leases(timeout: Duration) {
    let leases = match LEASES.lock() {
        Ok(mut leases) => std::mem::take(&mut *leases),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    let ends = leases
        .iter()
        .map(|(server, session)| delete(server, session, timeout));
    futures::future::join_all(ends).await;
}

async fn delete(server: &Url, session: &str, timeout: Duration) {
    let Ok(url) = server.join(&format!("session/{session}")) else {
        return;
    };
    if let Err(e) = request("DELETE", &url, None, timeout).await {
        tracing::warn!("could not end WebDriver session {session} at {server}: {e}");
    }
}

/// The browser-level websocket of `endpoint`: a `ws://` URL as is; for `http://host:port`,
/// the `webSocketDebuggerUrl` its `/json/version` names, on the endpoint's own host and
/// port (a browser behind a proxy or in a container names its own loopback address).
pub(super) async fn cdp_websocket(
    endpoint: &str,
    timeout: Duration,
) -> Result<String, BrowserError> {
    let fail = |reason: String| BrowserError::Remote {
        endpoint: endpoint.to_string(),
        reason,
    };
    let base = Url::parse(endpoint).map_err(|e| fail(e.to_string()))?;
    if matches!(base.scheme(), "ws" | "wss") {
        return Ok(endpoint.to_string());
    }
    let version = if base.path().trim_end_matches('/').ends_with("/json/version") {
        base.clone()
    } else {
        let mut dir = base.clone();
        if !dir.path().ends_with('/') {
            dir.set_path(&format!("{}/", dir.path()));
        }
        dir.join("json/version").map_err(|e| fail(e.to_string()))?
    };
    let (status, body) = request("GET", &version, None, timeout)
        .await
        .map_err(&fail)?;
    let answer: Value = serde_json::from_slice(&body).map_err(|_| {
        fail(format!(
            "`{version}` answered {status} with no JSON: is this a browser's debugging port?"
        ))
    })?;
    let ws = answer["webSocketDebuggerUrl"].as_str().ok_or_else(|| {
        fail(format!(
            "`{version}` names no `webSocketDebuggerUrl`: is this a browser's debugging port?"
        ))
    })?;
    let mut ws = Url::parse(ws).map_err(|e| fail(format!("its websocket `{ws}`: {e}")))?;
    if let Some(host) = base.host_str() {
        // Both set or neither: a websocket URL always has a host.
        let _ = ws.set_host(Some(host));
        let _ = ws.set_port(base.port_or_known_default());
    }
    Ok(ws.to_string())
}

/// Asks the WebDriver server at `server` for a headless Chrome session and returns it with
/// the CDP websocket it hands over (`se:cdp`).
pub(super) async fn new_session(
    server: &Url,
    headed: bool,
    viewport: (u32, u32),
    timeout: Duration,
) -> Result<(Lease, String), BrowserError> {
    let fail = |reason: String| BrowserError::Remote {
        endpoint: server.to_string(),
        reason,
    };
    let mut args = vec![
        "--disable-gpu".to_string(),
        "--disable-dev-shm-usage".to_string(),
        "--no-first-run".to_string(),
        format!("--window-size={},{}", viewport.0, viewport.1),
        format!(
            "--disable-features={}",
            super::launch::DISABLED_FEATURES.join(",")
        ),
    ];
    if !headed {
        args.push("--headless=new".to_string());
    }
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        // A Grid on this machine run as root starts Chromium as root, which needs this.
        args.push("--no-sandbox".to_string());
    }
    let body = json!({"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {"args": args},
    }}});
    let url = server
        .join("session")
        .map_err(|e| fail(format!("`{server}`: {e}")))?;
    let (status, answer) = request("POST", &url, Some(body), timeout)
        .await
        .map_err(&fail)?;
    let answer: Value = serde_json::from_slice(&answer).map_err(|_| {
        fail(format!(
            "`POST {url}` answered {status} with no JSON: is this a WebDriver server?"
        ))
    })?;
    let value = &answer["value"];
    let Some(session) = value["sessionId"].as_str() else {
        let why = value["message"]
            .as_str()
            .unwrap_or("no session and no reason");
        let first = why.lines().next().unwrap_or(why);
        return Err(fail(format!(
            "no Chrome session (`POST /session` answered {status}): {}",
            crate::protocol::quoted(first)
        )));
    };
    let lease = Lease::new(server.clone(), session.to_string());
    let Some(ws) = value["capabilities"]["se:cdp"].as_str() else {
        lease.end(timeout).await;
        return Err(fail(
            "the session has no `se:cdp` capability: waymark drives the browser over CDP, which \
             Selenium Grid 4 hands over for Chrome and Chromium"
                .into(),
        ));
    };
    Ok((lease, ws.to_string()))
}

impl Chromium {
    /// Connects to a browser elsewhere: a CDP endpoint's, or one a WebDriver server starts
    /// for this run (its session ended again when the connection cannot be made).
    pub(super) async fn connect(
        remote: &Remote,
        options: LaunchOptions,
    ) -> Result<Chromium, BrowserError> {
        let bound = options.launch_timeout;
        let (lease, ws) = match remote {
            Remote::Cdp(endpoint) => (None, cdp_websocket(endpoint, bound).await?),
            Remote::WebDriver(server) => {
                let (lease, ws) =
                    new_session(server, options.headed, options.viewport, bound).await?;
                (Some(lease), ws)
            }
        };
        let (width, height) = options.viewport;
        let config = HandlerConfig {
            viewport: (!options.headed).then(|| Viewport {
                width,
                height,
                ..Viewport::default()
            }),
            request_timeout: super::commands::BACKSTOP,
            ..HandlerConfig::default()
        };
        let reason = match tokio::time::timeout(bound, Browser::connect_with_config(&ws, config))
            .await
        {
            Ok(Ok((browser, handler))) => {
                let downloads = tempfile::Builder::new()
                    .prefix("waymark-downloads-")
                    .tempdir()
                    .ok()
                    .map(super::launch::Files::Temporary);
                return Ok(
                    Chromium::assemble(browser, handler, None, options, downloads, lease).await,
                );
            }
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no connection within {} ms", bound.as_millis()),
        };
        if let Some(lease) = lease {
            lease.end(bound).await;
        }
        Err(BrowserError::Remote {
            endpoint: ws,
            reason,
        })
    }

    /// A browser connected: its events handled until the connection ends, its version asked.
    pub(super) async fn assemble(
        browser: Browser,
        mut handler: Handler,
        pid: Option<u32>,
        options: LaunchOptions,
        files: Option<super::launch::Files>,
        lease: Option<Lease>,
    ) -> Chromium {
        let handler = tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                match event {
                    Ok(()) => {}
                    Err(CdpError::Ws(e)) => {
                        tracing::debug!("browser connection closed: {e}");
                        break;
                    }
                    Err(e) => tracing::debug!("ignoring a browser message: {e}"),
                }
            }
        });
        let version = match tokio::time::timeout(options.command_timeout, browser.version()).await {
            Ok(Ok(v)) => v.product,
            _ => String::from("unknown"),
        };
        Chromium {
            browser: Arc::new(browser),
            handler,
            pid,
            version,
            options,
            files,
            lease,
        }
    }
}

/// One HTTP request with an optional JSON body: the status and the whole answer.
async fn request(
    method: &str,
    url: &Url,
    body: Option<Value>,
    timeout: Duration,
) -> Result<(u16, Bytes), String> {
    let payload = body.map(|b| b.to_string()).unwrap_or_default();
    let request = hyper::Request::builder()
        .method(method)
        .uri(url.as_str())
        .header(header::CONTENT_TYPE, "application/json; charset=utf-8")
        .header(header::ACCEPT, "application/json")
        .header(header::USER_AGENT, "waymark")
        .body(Full::new(Bytes::from(payload)))
        .map_err(|e| e.to_string())?;
    exchange(request, Some(timeout))
        .await
        .map_err(|why| match why {
            Unanswered::Late => format!(
                "`{method} {url}` had no answer within {} ms",
                timeout.as_millis()
            ),
            Unanswered::Failed(why) => why,
        })
}

/// Why an HTTP exchange has no answer.
pub(crate) enum Unanswered {
    /// None came within the bound.
    Late,
    /// The wire's own words ("Connection refused"), not the client's stage.
    Failed(String),
}

/// Sends `request` through hyper's client (plain HTTP, no redirects) and takes the whole
/// answer, within `bound` when given: the status code and the body. The one HTTP client
/// of the crate's own requests (a WebDriver server, a CDP endpoint, a bench page).
pub(crate) async fn exchange(
    request: hyper::Request<Full<Bytes>>,
    bound: Option<Duration>,
) -> Result<(u16, Bytes), Unanswered> {
    let client = Client::builder(TokioExecutor::new()).build_http();
    let answer = async {
        let response = client.request(request).await.map_err(innermost)?;
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(innermost)?
            .to_bytes();
        Ok((status, body))
    };
    match bound {
        None => answer.await.map_err(Unanswered::Failed),
        Some(bound) => match tokio::time::timeout(bound, answer).await {
            Ok(result) => result.map_err(Unanswered::Failed),
            Err(_) => Err(Unanswered::Late),
        },
    }
}

/// The deepest cause of an error: hyper's own words ("client error (Connect)") say less
/// than the OS's ("Connection refused").
fn innermost(e: impl std::error::Error) -> String {
    let mut source: &dyn std::error::Error = &e;
    while let Some(next) = source.source() {
        source = next;
    }
    source.to_string()
}

#[cfg(test)]
mod tests {
    use super::Remote;

    #[test]
    fn endpoints_are_checked_before_anything_starts() {
        assert!(Remote::cdp("http://127.0.0.1:9222").is_ok());
        assert!(Remote::cdp("ws://h:1/devtools/browser/x").is_ok());
        let e = Remote::cdp("ftp://h:1").unwrap_err();
        assert!(e.contains("not `ftp:`"), "{e}");
        assert!(Remote::cdp("9222").is_err());
        assert!(Remote::webdriver("http://grid:4444/wd/hub/").is_ok());
        let e = Remote::webdriver("ws://grid:4444").unwrap_err();
        assert!(e.contains("not `ws:`"), "{e}");
    }

    #[test]
    fn tls_endpoints_are_refused_since_the_build_has_no_tls_client() {
        for given in ["https://h:9222", "wss://h:1/devtools/browser/x"] {
            let e = Remote::cdp(given).unwrap_err();
            assert!(e.contains("speaks no TLS"), "{e}");
        }
        let e = Remote::webdriver("https://grid:4444").unwrap_err();
        assert!(e.contains("speaks no TLS, so not `https:`"), "{e}");
    }
}
