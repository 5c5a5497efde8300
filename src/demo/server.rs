//! Starting and stopping the demo app: the router of every screen, the save counter API,
//! and the [`DemoApp`] handle that owns a running server.

use std::io;

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::Layout;
use super::chrome::not_found;
use super::state::{AppState, Shared};
use super::{claims, dense, dispatch, home, orders, pricing, returns, widgets};
use crate::serve::serve_until_dropped;

/// A running demo app on a free `127.0.0.1` port; dropping it stops the server.
pub struct DemoApp {
    base_url: String,
    state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
}

/// Why the demo app could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// No port could be bound.
    #[error("bind the demo app to `127.0.0.1:0`")]
    Bind(#[source] io::Error),
    /// The bound socket did not tell its address.
    #[error("read the local address of the demo app")]
    LocalAddr(#[source] io::Error),
}

impl DemoApp {
    /// Binds 127.0.0.1:0, spawns the server (in the classic layout) on the current tokio
    /// runtime, returns once it accepts connections.
    pub async fn start() -> Result<DemoApp, DemoError> {
        DemoApp::start_in(Layout::Classic).await
    }

    /// The same, serving `layout`.
    pub async fn start_in(layout: Layout) -> Result<DemoApp, DemoError> {
        // Bound before spawning: the kernel queues connections from here on, so the
        // returned URL works at once.
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(DemoError::Bind)?;
        let addr = listener.local_addr().map_err(DemoError::LocalAddr)?;
        let state = Shared::seeded(layout);
        let app = router(state.clone());
        let shutdown = serve_until_dropped(listener, app, "demo app");
        tracing::debug!(%addr, %layout, "demo app listening");
        Ok(DemoApp {
            base_url: format!("http://{addr}"),
            state,
            shutdown: Some(shutdown),
        })
    }

    /// e.g. "http://127.0.0.1:41234" (no trailing slash)
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The layout it serves.
    pub fn layout(&self) -> Layout {
        self.state.layout
    }

    /// Total number of saves (form POSTs that changed server state) since start.
    pub fn saves(&self) -> u64 {
        self.state.lock().saves
    }
}

impl std::fmt::Debug for DemoApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoApp")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl Drop for DemoApp {
    fn drop(&mut self) {
        // Graceful: the listener closes at once, open connections end after their request.
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(home::home))
        .route("/login", get(home::login_form).post(home::login))
        .route("/slow", get(home::slow))
        .route("/claims", get(claims::list))
        .route("/claims/{id}", get(claims::detail))
        .route("/claims/{id}/approve", post(claims::approve))
        .route("/claims/{id}/reject", post(claims::reject))
        .route("/orders", get(orders::list))
        .route("/orders/{id}", get(orders::detail))
        .route("/orders/{id}/draft", post(orders::save_draft))
        .route("/orders/{id}/submit", post(orders::submit))
        .route("/orders/{id}/confirmation", get(orders::confirmation))
        .route("/accounts", get(pricing::accounts))
        .route(
            "/accounts/{id}/pricing",
            get(pricing::rules).post(pricing::save),
        )
        .route("/dispatch", get(dispatch::board))
        .route("/dispatch/assign", post(dispatch::assign))
        .route("/returns", post(returns::submit))
        .route("/returns/new", get(returns::form))
        .route("/returns/{id}", get(returns::detail))
        .route("/widgets", get(widgets::widgets))
        .route("/widgets/frame", get(widgets::frame))
        .route("/widgets/later", get(widgets::later))
        .route("/widgets/appear", get(widgets::appear))
        .route("/dense", get(dense::serve))
        .route("/dense/anchors.yaml", get(dense::serve_registry))
        .route("/api/saves", get(api_saves))
        .fallback(fallback)
        .with_state(state)
}

async fn fallback(State(state): State<AppState>) -> Response {
    not_found(state.layout)
}

/// `{"saves": N, "by_form": {"claim.approve": 1, …}}`; reading it changes nothing.
async fn api_saves(State(state): State<AppState>) -> Response {
    let store = state.lock();
    axum::Json(serde_json::json!({
        "saves": store.saves,
        "by_form": store.by_form,
    }))
    .into_response()
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::io::ErrorKind;

    use serde::Deserialize;
    use tokio::net::TcpStream;

    use super::{DemoApp, Layout};

    /// A reply of the tiny HTTP/1.1 client below.
    struct Reply {
        status: u16,
        headers: String,
        body: String,
    }

    impl Reply {
        fn header(&self, name: &str) -> Option<&str> {
            self.headers.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name).then(|| value.trim())
            })
        }
    }

    async fn write_all(stream: &TcpStream, mut buf: &[u8]) {
        while !buf.is_empty() {
            stream.writable().await.expect("socket writable");
            match stream.try_write(buf) {
                Ok(n) => buf = &buf[n..],
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => panic!("write failed: {e}"),
            }
        }
    }

    async fn read_to_end(stream: &TcpStream) -> Vec<u8> {
        let mut out = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        loop {
            stream.readable().await.expect("socket readable");
            match stream.try_read(&mut chunk) {
                Ok(0) => return out,
                Ok(n) => out.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => panic!("read failed: {e}"),
            }
        }
    }

    fn dechunk(mut body: &str) -> String {
        let mut out = String::new();
        while let Some((size, rest)) = body.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).expect("chunk size");
            if size == 0 {
                break;
            }
            out.push_str(&rest[..size]);
            body = &rest[size + 2..];
        }
        out
    }

    /// One request on a fresh connection (`Connection: close`, so the reply ends at EOF).
    async fn request(app: &DemoApp, method: &str, path: &str, form: Option<&str>) -> Reply {
        let addr = app.base_url().trim_start_matches("http://");
        let stream = TcpStream::connect(addr)
            .await
            .expect("connect to the demo app");
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        if let Some(form) = form {
            req.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
            req.push_str(&format!("Content-Length: {}\r\n", form.len()));
        }
        req.push_str("\r\n");
        req.push_str(form.unwrap_or(""));
        write_all(&stream, req.as_bytes()).await;
        let raw = String::from_utf8(read_to_end(&stream).await).expect("utf-8 reply");
        let (head, body) = raw.split_once("\r\n\r\n").expect("a complete reply");
        let (status_line, headers) = head.split_once("\r\n").unwrap_or((head, ""));
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status code");
        let mut reply = Reply {
            status,
            headers: headers.to_string(),
            body: body.to_string(),
        };
        if reply
            .header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        {
            reply.body = dechunk(&reply.body);
        }
        reply
    }

    async fn get(app: &DemoApp, path: &str) -> Reply {
        request(app, "GET", path, None).await
    }

    async fn post(app: &DemoApp, path: &str, form: &str) -> Reply {
        request(app, "POST", path, Some(form)).await
    }

    fn count(haystack: &str, needle: &str) -> usize {
        haystack.matches(needle).count()
    }

    const VOID: [&str; 13] = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr",
    ];

    /// Index of the `>` that ends the tag opening at `start`, skipping quoted values.
    fn tag_end(html: &str, start: usize) -> usize {
        let mut quote = None;
        for (i, c) in html[start..].char_indices() {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, '>') => return start + i,
                _ => {}
            }
        }
        panic!("unterminated tag at {start}");
    }

    fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()
    }

    /// Walks the markup as a crude tag tree: every `data-anchor` must sit inside exactly one
    /// `data-anchor-region`, and every element must be closed in order. Returns the anchors
    /// found, each with whether it carries `data-anchor-key`.
    fn anchors_in_regions(html: &str) -> BTreeMap<String, bool> {
        let mut stack: Vec<(String, bool)> = Vec::new();
        let mut anchors = BTreeMap::new();
        let mut i = 0;
        while let Some(off) = html[i..].find('<') {
            let start = i + off;
            if html[start..].starts_with("<!--") {
                i = start + html[start..].find("-->").expect("closed comment") + 3;
                continue;
            }
            let end = tag_end(html, start);
            let tag = &html[start + 1..end];
            i = end + 1;
            if tag.starts_with('!') {
                continue;
            }
            if let Some(name) = tag.strip_prefix('/') {
                let (open, _) = stack.pop().unwrap_or_else(|| panic!("stray </{name}>"));
                assert_eq!(open, name.trim(), "</{name}> closes <{open}>");
                continue;
            }
            let name = tag
                .split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            if let Some(anchor) = attr(tag, "data-anchor") {
                let regions = stack.iter().filter(|(_, region)| *region).count();
                assert_eq!(regions, 1, "`{anchor}` sits in {regions} regions: <{tag}>");
                anchors.insert(anchor.to_string(), attr(tag, "data-anchor-key").is_some());
            }
            if name == "script" || name == "style" {
                let close = format!("</{name}>");
                i += html[i..].find(&close).expect("closed script or style") + close.len();
                continue;
            }
            if !VOID.contains(&name.as_str()) && !tag.ends_with('/') {
                stack.push((name, tag.contains(" data-anchor-region=\"")));
            }
        }
        assert!(stack.is_empty(), "unclosed elements: {stack:?}");
        anchors
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[expect(dead_code, reason = "mirrors every field of the registry format")]
    struct Registry {
        app: String,
        screens: Vec<RegistryScreen>,
        anchors: Vec<RegistryAnchor>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[expect(dead_code, reason = "mirrors every field of the registry format")]
    struct RegistryScreen {
        id: String,
        route: String,
        #[serde(default)]
        description: Option<String>,
        #[serde(default)]
        example: BTreeMap<String, String>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[expect(dead_code, reason = "mirrors every field of the registry format")]
    struct RegistryAnchor {
        id: String,
        description: String,
        screens: Vec<String>,
        #[serde(default)]
        keyed: bool,
        #[serde(default, rename = "match")]
        matcher: Option<yaml_serde::Value>,
        #[serde(default)]
        key: Option<yaml_serde::Value>,
    }

    #[tokio::test]
    async fn claims_list_offers_ten_keyed_claims() {
        let app = DemoApp::start().await.expect("start");
        let reply = get(&app, "/claims").await;
        assert_eq!(reply.status, 200);
        assert_eq!(count(&reply.body, "data-anchor=\"claims.open\""), 10);
        for id in 1040..1050 {
            assert!(
                reply
                    .body
                    .contains(&format!("data-anchor-key=\"{id}\">Claim {id}</a>"))
            );
        }
        assert!(reply.body.contains("Daniel O&#x27;Brien"));
    }

    #[tokio::test]
    async fn pricing_save_counts_once_and_shows_the_rate() {
        let app = DemoApp::start().await.expect("start");
        assert_eq!(app.saves(), 0);
        let reply = post(
            &app,
            "/accounts/7/pricing",
            "rate=5.25&effective_date=2024-09-01&currency=USD",
        )
        .await;
        assert_eq!(reply.status, 303);
        assert_eq!(
            reply.header("location"),
            Some("/accounts/7/pricing?flash=Rate+saved")
        );
        assert_eq!(app.saves(), 1);
        let api = get(&app, "/api/saves").await;
        assert_eq!(api.status, 200);
        let json: serde_json::Value = serde_json::from_str(&api.body).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"saves": 1, "by_form": {"pricing.save": 1}})
        );
        let page = get(&app, "/accounts/7/pricing?flash=Rate+saved").await;
        assert!(page.body.contains("role=\"status\">Rate saved</p>"));
        assert!(
            page.body
                .contains("value=\"5.25\" data-anchor=\"pricing.rate\"")
        );
        // reading the counter is not a save
        assert_eq!(app.saves(), 1);
    }

    #[tokio::test]
    async fn invalid_rate_is_not_a_save() {
        let app = DemoApp::start().await.expect("start");
        let reply = post(&app, "/accounts/7/pricing", "rate=lots&currency=EUR").await;
        assert_eq!(reply.status, 422);
        assert!(reply.body.contains("role=\"alert\""));
        assert!(reply.body.contains("value=\"lots\""));
        assert_eq!(app.saves(), 0);
    }

    #[tokio::test]
    async fn unknown_routes_and_ids_are_404_pages() {
        let app = DemoApp::start().await.expect("start");
        for path in [
            "/nope",
            "/claims/9999",
            "/claims/abc",
            "/orders/1",
            "/returns/1",
        ] {
            let reply = get(&app, path).await;
            assert_eq!(reply.status, 404, "{path}");
            assert!(reply.body.contains("<h1>Page not found</h1>"), "{path}");
        }
        assert_eq!(
            post(&app, "/claims/9999/approve", "note=").await.status,
            404
        );
    }

    #[tokio::test]
    async fn approve_closes_the_claim_and_escapes_the_note() {
        let app = DemoApp::start().await.expect("start");
        let reply = post(&app, "/claims/1042/approve", "note=%3Cb%3Eok%3C%2Fb%3E").await;
        assert_eq!(reply.status, 303);
        assert_eq!(
            reply.header("location"),
            Some("/claims?flash=Claim+1042+approved")
        );
        let detail = get(&app, "/claims/1042").await;
        assert!(
            detail
                .body
                .contains("data-anchor=\"claim.approve\" disabled>")
        );
        assert!(detail.body.contains("&lt;b&gt;ok&lt;/b&gt;</textarea>"));
        // a second approval changes nothing
        assert_eq!(
            post(&app, "/claims/1042/approve", "note=").await.status,
            303
        );
        assert_eq!(app.saves(), 1);
    }

    #[tokio::test]
    async fn login_needs_both_fields() {
        let app = DemoApp::start().await.expect("start");
        let empty = post(&app, "/login", "username=&password=").await;
        assert_eq!(empty.status, 422);
        assert!(empty.body.contains("role=\"alert\""));
        let ok = post(
            &app,
            "/login",
            "username=maria&password=secret&remember=yes",
        )
        .await;
        assert_eq!(ok.status, 303);
        assert_eq!(ok.header("location"), Some("/claims"));
        assert!(
            ok.header("set-cookie")
                .is_some_and(|c| c.starts_with("demo_session="))
        );
        assert_eq!(app.saves(), 0);
    }

    #[tokio::test]
    async fn dense_rejects_out_of_range_n() {
        let app = DemoApp::start().await.expect("start");
        for n in ["9", "100001", "ten"] {
            assert_eq!(get(&app, &format!("/dense?n={n}")).await.status, 400, "{n}");
        }
        let page = get(&app, "/dense?n=137").await;
        assert_eq!(page.body, super::super::dense_page(137));
    }

    /// Each registry screen of an app in `layout` (after the saves that create the screens
    /// only a save shows): the anchors its markup carries (each in one region), and those
    /// the registry declares on it (`true` beside a keyed one).
    async fn screens_of(layout: Layout) -> Vec<(&'static str, String, Anchors, Anchors)> {
        let app = DemoApp::start_in(layout).await.expect("start");
        assert_eq!(app.layout(), layout);
        let submitted = post(&app, "/orders/43/submit", "customer=globex&qty_1=3&qty_3=2").await;
        assert_eq!(
            submitted.header("location"),
            Some("/orders/43/confirmation")
        );
        let returned = post(
            &app,
            "/returns",
            "order_number=41&reason=Wrong+item&reason_detail=&condition=opened&refund_method=credit",
        )
        .await;
        assert_eq!(
            returned.header("location"),
            Some("/returns/5001?flash=Return+5001+submitted")
        );
        let dispatched = post(
            &app,
            "/dispatch/assign",
            "job=J-201&driver=dev&day=tomorrow",
        )
        .await;
        assert_eq!(dispatched.status, 303);
        let by_form =
            serde_json::from_str::<serde_json::Value>(&get(&app, "/api/saves").await.body)
                .expect("json")["by_form"]
                .clone();
        assert_eq!(
            by_form,
            serde_json::json!({"order.submit": 1, "return.submit": 1, "dispatch.assign": 1})
        );

        let registry: Registry =
            yaml_serde::from_str(include_str!("../../anchors.yaml")).expect("anchors.yaml parses");
        let samples = [
            ("home", "/"),
            ("login", "/login"),
            ("claims-list", "/claims"),
            ("claim-detail", "/claims/1042"),
            ("orders-list", "/orders"),
            ("sales-order", "/orders/42"),
            ("order-confirmation", "/orders/43/confirmation"),
            ("accounts-list", "/accounts"),
            ("pricing-rules", "/accounts/7/pricing"),
            ("dispatch-board", "/dispatch?day=tomorrow"),
            ("return-form", "/returns/new"),
            ("return-detail", "/returns/5001"),
            ("widgets", "/widgets"),
            ("widget-frame", "/widgets/frame"),
            ("slow", "/slow?ms=0"),
            ("dense", "/dense?n=137"),
        ];
        let listed: BTreeSet<&str> = registry.screens.iter().map(|s| s.id.as_str()).collect();
        let sampled: BTreeSet<&str> = samples.iter().map(|(id, _)| *id).collect();
        assert_eq!(listed, sampled, "every registry screen is checked");

        let frame = anchors_in_regions(&get(&app, "/widgets/frame").await.body);
        let mut out = Vec::new();
        for (screen, path) in samples {
            let reply = get(&app, path).await;
            assert_eq!(reply.status, 200, "{path}");
            let mut found = anchors_in_regions(&reply.body);
            if screen == "dense" {
                // a port of the bench script, headings and all
                assert_eq!(found.len(), 137);
                continue;
            }
            assert_eq!(count(&reply.body, "<h1"), 1, "{path} has one heading");
            assert_eq!(count(&reply.body, "<title>"), 1, "{path} has a title");
            if screen == "widgets" {
                // the frame's controls are on this screen too, inside the iframe
                found.extend(frame.clone());
            }
            let expected: Anchors = registry
                .anchors
                .iter()
                .filter(|a| a.screens.iter().any(|s| s == screen))
                .map(|a| (a.id.clone(), a.keyed))
                .collect();
            out.push((screen, reply.body, found, expected));
        }
        out
    }

    type Anchors = BTreeMap<String, bool>;

    #[tokio::test]
    async fn every_screen_keeps_its_anchors_in_regions_and_in_the_registry() {
        for (screen, _, found, expected) in screens_of(Layout::Classic).await {
            assert_eq!(found, expected, "anchors of {screen}");
        }
    }

    #[tokio::test]
    async fn the_redesign_drops_one_anchor_and_leaves_one_screen_without_any() {
        for (screen, body, found, mut expected) in screens_of(Layout::Redesign).await {
            match screen {
                "claim-detail" => {
                    assert!(expected.remove("claim.back").is_some());
                    assert!(
                        body.contains(
                            "data-anchor=\"claim.escalate\" \
                         title=\"Only supervisors can send a claim on\">Send to supervisor</a>"
                        ),
                        "{body}"
                    );
                }
                // Matchers find these; not even a region is marked.
                "return-form" => {
                    assert!(!body.contains("data-anchor"), "{body}");
                    expected.clear();
                }
                _ => {}
            }
            assert_eq!(found, expected, "anchors of {screen} in the redesign");
            // The frame's page and the slow page have no chrome, in either layout.
            if !matches!(screen, "widget-frame" | "slow") {
                assert!(body.contains("<aside class=\"sidebar\">"), "{screen}");
                assert!(!body.contains("class=\"card"), "{screen} is restyled");
            }
        }
    }

    #[tokio::test]
    async fn dropping_the_app_stops_the_server() {
        let app = DemoApp::start().await.expect("start");
        let addr = app.base_url().trim_start_matches("http://").to_string();
        drop(app);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert!(TcpStream::connect(&addr).await.is_err());
    }
}
