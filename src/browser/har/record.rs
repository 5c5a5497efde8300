//! Recording a journey's traffic as HAR entries (`--har record=FILE`): every tab of the
//! journey is watched by one [`HarRecorder`] (CDP's `Network.requestWillBeSent`,
//! `responseReceived`, `loadingFinished`, `loadingFailed`, subscribed before the tab's
//! first navigation), and each response's body is asked of the browser as soon as it
//! finished loading (`Network.getResponseBody`), while the tab still keeps it.
//!
//! Bounds: [`ENTRIES_KEPT`] requests per journey (the log's `comment` counts those past
//! it), a body of [`BODY_CAP`] bytes at most (a longer one is recorded without its text,
//! its `content.comment` saying so), [`BODIES_CAP`] bytes of bodies in all.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::{
    EventRequestWillBeSent, GetRequestPostDataParams, GetResponseBodyParams, RequestId,
};
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::{Content, Entry, Har, PostData, Request, Response, Timings};
use crate::browser::BrowserError;
use crate::browser::commands::Commands;
use crate::browser::traffic::{Ahead, Heard as Later};

/// Requests a journey's HAR keeps at most.
pub const ENTRIES_KEPT: usize = 10_000;

/// The longest response body a HAR keeps, in bytes: 1 MiB.
pub const BODY_CAP: usize = 1 << 20;

/// The bytes of bodies a journey's HAR keeps in all: 64 MiB.
const BODIES_CAP: usize = 64 << 20;

/// One request as heard so far.
#[derive(Debug, Clone, Default)]
struct Heard {
    /// The tab's number in the recorder, and the browser's id of the request.
    key: (u64, String),
    wall: f64,
    sent: f64,
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    post: Option<Vec<u8>>,
    resource: Option<String>,
    status: Option<i64>,
    status_text: String,
    protocol: Option<String>,
    response_headers: Vec<(String, String)>,
    mime: String,
    remote: Option<String>,
    answered: Option<f64>,
    timing: Option<(f64, f64, f64, f64)>,
    ended: Option<f64>,
    encoded: Option<f64>,
    body: Option<Body>,
    failed: Option<String>,
}

/// A response body as kept.
#[derive(Debug, Clone)]
enum Body {
    Text(String),
    Base64(String, usize),
    Cut(usize),
}

/// A journey's traffic, from each of its tabs, for its HAR.
#[derive(Debug, Default)]
pub struct HarRecorder {
    heard: Mutex<Vec<Heard>>,
    /// Requests past [`ENTRIES_KEPT`].
    past: AtomicU64,
    tabs: AtomicU64,
    body_bytes: AtomicUsize,
    /// Each tab's watcher, ended at [`finish`](HarRecorder::finish).
    watchers: Mutex<Vec<JoinHandle<()>>>,
    /// The bodies being asked for.
    asking: Mutex<Vec<JoinHandle<()>>>,
}

impl HarRecorder {
    /// Waits (up to `bound`) for the bodies still being asked for, stops watching the
    /// tabs, and gives the HAR: its entries in the order they were sent, secrets
    /// redacted (see `har/mod.rs`).
    pub async fn finish(&self, bound: Duration) -> Har {
        let asking: Vec<JoinHandle<()>> = self
            .asking
            .lock()
            .map(|mut a| std::mem::take(&mut *a))
            .unwrap_or_default();
        let _ = tokio::time::timeout(bound, futures::future::join_all(asking)).await;
        if let Ok(mut watchers) = self.watchers.lock() {
            watchers.drain(..).for_each(|w| w.abort());
        }
        let mut heard = self.heard.lock().map(|h| h.clone()).unwrap_or_default();
        heard.sort_by(|a, b| a.wall.total_cmp(&b.wall));
        let past = self.past.load(Ordering::Relaxed);
        let comment = (past > 0)
            .then(|| format!("{past} requests past the first {ENTRIES_KEPT} are not recorded"));
        Har::new(heard.iter().map(entry).collect(), comment)
    }

    fn sent(&self, tab: u64, e: &EventRequestWillBeSent) {
        let Ok(mut heard) = self.heard.lock() else {
            return;
        };
        let key = (tab, e.request_id.inner().clone());
        // A redirect: the hop before ends here, answered by the redirect.
        if let Some(r) = &e.redirect_response
            && let Some(hop) = heard.iter_mut().rev().find(|h| h.key == key)
        {
            answered(hop, r, *e.timestamp.inner());
            hop.ended = Some(*e.timestamp.inner());
        }
        if !(e.request.url.starts_with("http://") || e.request.url.starts_with("https://")) {
            return;
        }
        if heard.len() >= ENTRIES_KEPT {
            self.past.fetch_add(1, Ordering::Relaxed);
            return;
        }
        heard.push(Heard {
            key,
            wall: *e.wall_time.inner(),
            sent: *e.timestamp.inner(),
            method: e.request.method.clone(),
            url: e.request.url.clone(),
            headers: super::headers_of(e.request.headers.inner()),
            post: super::post_body(&e.request),
            resource: e.r#type.as_ref().map(|t| t.as_ref().to_ascii_lowercase()),
            ..Heard::default()
        });
    }

    /// Changes the latest request `id` of tab `tab`; false when it has none of that id.
    fn update(&self, tab: u64, id: &RequestId, change: impl FnOnce(&mut Heard)) -> bool {
        self.heard.lock().is_ok_and(|mut heard| {
            heard
                .iter_mut()
                .rev()
                .find(|h| h.key.0 == tab && &h.key.1 == id.inner())
                .map(change)
                .is_some()
        })
    }

    fn ask(&self, task: JoinHandle<()>) {
        if let Ok(mut asking) = self.asking.lock() {
            asking.retain(|t| !t.is_finished());
            asking.push(task);
        }
    }
}

fn answered(h: &mut Heard, r: &chromiumoxide::cdp::browser_protocol::network::Response, at: f64) {
    h.status = Some(r.status);
    h.status_text.clone_from(&r.status_text);
    h.protocol.clone_from(&r.protocol);
    h.response_headers = super::headers_of(r.headers.inner());
    h.mime.clone_from(&r.mime_type);
    h.remote.clone_from(&r.remote_ip_address);
    h.answered = Some(at);
    h.timing = r.timing.as_ref().map(|t| {
        let span = |a: f64, b: f64| if a >= 0.0 && b >= a { b - a } else { -1.0 };
        (
            span(t.dns_start, t.dns_end),
            span(t.connect_start, t.connect_end),
            span(t.ssl_start, t.ssl_end),
            span(t.send_start, t.send_end),
        )
    });
}

/// Records `page`'s traffic in `recorder` from now on (subscribed before this returns).
pub(in crate::browser) async fn record(
    page: &Page,
    recorder: &Arc<HarRecorder>,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let (mut sent, mut answered_, mut finished, mut failed) =
        crate::browser::traffic::subscribe(page, timeout).await?;
    let tab = recorder.tabs.fetch_add(1, Ordering::Relaxed);
    let (rec, page) = (Arc::clone(recorder), page.clone());
    let watcher = tokio::spawn(async move {
        // What comes of a request not heard yet waits for it (see traffic::Ahead).
        let mut ahead = Ahead::default();
        loop {
            let later = tokio::select! {
                biased;
                Some(e) = sent.next() => {
                    rec.sent(tab, &e);
                    // A body the event did not carry (a large one): asked for now.
                    if e.request.has_post_data == Some(true) && e.request.post_data_entries.is_none() {
                        let (rec2, page, id) = (Arc::clone(&rec), page.clone(), e.request_id.clone());
                        rec.ask(tokio::spawn(async move {
                            let params = GetRequestPostDataParams::new(id.clone());
                            if let Ok(reply) = page.command(timeout, "reading a request's body", params).await {
                                let body = reply.result.post_data.clone().into_bytes();
                                rec2.update(tab, &id, |h| h.post = Some(body));
                            }
                        }));
                    }
                    for later in ahead.take(&e.request_id) {
                        hear(&rec, &page, tab, &later, timeout);
                    }
                    continue;
                }
                Some(e) = answered_.next() => Later::Answered(e),
                Some(e) = finished.next() => Later::Finished(e),
                Some(e) = failed.next() => Later::Failed(e),
                else => break,
            };
            if !hear(&rec, &page, tab, &later, timeout) {
                ahead.keep(&later.id().clone(), later);
            }
        }
    });
    if let Ok(mut watchers) = recorder.watchers.lock() {
        watchers.push(watcher);
    }
    Ok(())
}

/// What `later` says of its request, in `rec`: false when `rec` has no such request (yet).
fn hear(rec: &Arc<HarRecorder>, page: &Page, tab: u64, later: &Later, timeout: Duration) -> bool {
    let id = later.id();
    let known = match later {
        Later::Answered(e) => {
            rec.update(tab, id, |h| answered(h, &e.response, *e.timestamp.inner()))
        }
        Later::Finished(e) => {
            let (at, length) = (*e.timestamp.inner(), e.encoded_data_length);
            rec.update(tab, id, |h| {
                h.ended = Some(at);
                h.encoded = Some(length);
            })
        }
        Later::Failed(e) => {
            let at = *e.timestamp.inner();
            rec.update(tab, id, |h| {
                h.failed = Some(e.error_text.clone());
                h.ended = Some(at);
            })
        }
    };
    if known && matches!(later, Later::Finished(_)) {
        let (rec2, page, id) = (Arc::clone(rec), page.clone(), id.clone());
        rec.ask(tokio::spawn(async move {
            let body = response_body(&page, &id, &rec2.body_bytes, timeout).await;
            rec2.update(tab, &id, |h| h.body = body);
        }));
    }
    known
}

/// The body of the response to `id`, as kept: text, base64 for bytes that are not
/// UTF-8, or only its length past the caps (`total` counts the bytes kept).
async fn response_body(
    page: &Page,
    id: &RequestId,
    total: &AtomicUsize,
    timeout: Duration,
) -> Option<Body> {
    let params = GetResponseBodyParams::new(id.clone());
    let reply = page
        .command(timeout, "reading a response's body", params)
        .await
        .ok()?;
    let (body, base64) = (&reply.result.body, reply.result.base64_encoded);
    let bytes = match base64 {
        true => base64::engine::general_purpose::STANDARD
            .decode(body)
            .ok()?,
        false => body.clone().into_bytes(),
    };
    let size = bytes.len();
    if size > BODY_CAP || total.fetch_add(size, Ordering::Relaxed) + size > BODIES_CAP {
        return Some(Body::Cut(size));
    }
    Some(match String::from_utf8(bytes) {
        Ok(text) => Body::Text(text),
        Err(_) => Body::Base64(
            match base64 {
                true => body.clone(),
                false => base64::engine::general_purpose::STANDARD.encode(body),
            },
            size,
        ),
    })
}

/// `HTTP/1.1` from Chromium's `http/1.1`, `HTTP/2.0` from `h2`.
fn http_version(protocol: Option<&str>) -> String {
    match protocol.map(str::to_ascii_lowercase).as_deref() {
        Some("h2") => "HTTP/2.0".into(),
        Some("h3") => "HTTP/3.0".into(),
        Some(p) if p.starts_with("http/") => p.to_ascii_uppercase(),
        _ => "HTTP/1.1".into(),
    }
}

fn millis(from: Option<f64>, to: Option<f64>) -> f64 {
    match (from, to) {
        (Some(a), Some(b)) if b >= a => (b - a) * 1000.0,
        _ => 0.0,
    }
}

/// The HAR entry of a request as heard, its secrets redacted.
fn entry(h: &Heard) -> Entry {
    let (url, query_string) = super::redacted_url(&h.url);
    let header = |name: &str| {
        h.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let post_data = h.post.as_ref().map(|body| {
        let mime_type = header("content-type").unwrap_or_default();
        let text = super::redacted_body(&mime_type, &String::from_utf8_lossy(body));
        PostData {
            mime_type,
            text,
            ..PostData::default()
        }
    });
    let version = http_version(h.protocol.as_deref());
    let (dns, connect, ssl, send) = h.timing.unwrap_or((-1.0, -1.0, -1.0, 0.0));
    let whole_wait = millis(Some(h.sent), h.answered);
    let receive = millis(h.answered, h.ended);
    let known = |v: f64| v.max(0.0);
    let wait = (whole_wait - known(dns) - known(connect) - known(send)).max(0.0);
    let timings = Timings {
        blocked: -1.0,
        dns,
        connect,
        send: known(send),
        wait,
        receive,
        ssl,
    };
    let (size, text, encoding, comment) = match &h.body {
        Some(Body::Text(t)) => (t.len(), Some(t.clone()), None, None),
        Some(Body::Base64(b, size)) => (*size, Some(b.clone()), Some("base64".to_string()), None),
        Some(Body::Cut(size)) => (
            *size,
            None,
            None,
            Some(format!(
                "a body of {size} bytes: past the cap ({BODY_CAP} bytes each, {BODIES_CAP} in all)"
            )),
        ),
        None => (0, None, None, None),
    };
    let location = h
        .response_headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("location"))
        .map(|(_, v)| {
            url::Url::parse(&h.url)
                .and_then(|u| u.join(v))
                .map_or_else(|_| v.clone(), |u| u.to_string())
        })
        .unwrap_or_default();
    Entry {
        started_date_time: chrono::DateTime::from_timestamp_micros((h.wall * 1e6) as i64)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        time: [
            timings.dns,
            timings.connect,
            timings.send,
            timings.wait,
            timings.receive,
        ]
        .into_iter()
        .map(known)
        .sum(),
        request: Request {
            method: h.method.clone(),
            url,
            http_version: version.clone(),
            cookies: super::cookie_names(&h.headers, false),
            headers: super::redacted_headers(&h.headers),
            query_string,
            body_size: h.post.as_ref().map_or(0, |b| b.len() as i64),
            post_data,
            headers_size: -1,
        },
        response: Response {
            status: match (&h.failed, h.status) {
                (_, Some(status)) => status,
                _ => -1,
            },
            status_text: h.status_text.clone(),
            http_version: version,
            cookies: super::cookie_names(&h.response_headers, true),
            headers: super::redacted_headers(&h.response_headers),
            content: Content {
                size: size as i64,
                mime_type: h.mime.clone(),
                text,
                encoding,
                file: None,
                comment,
            },
            redirect_url: location,
            headers_size: -1,
            body_size: h.encoded.map_or(-1, |e| e as i64),
        },
        cache: serde_json::Map::new(),
        timings,
        server_ip_address: h.remote.clone(),
        resource_type: h.resource.clone(),
        failure_text: h.failed.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_says_its_versions_times_and_body() {
        assert_eq!(http_version(Some("h2")), "HTTP/2.0");
        assert_eq!(http_version(Some("http/1.1")), "HTTP/1.1");
        assert_eq!(http_version(None), "HTTP/1.1");
        let heard = Heard {
            key: (0, "1".into()),
            wall: 1_767_225_600.25,
            sent: 10.0,
            method: "POST".into(),
            url: "http://a/api/save?token=t&x=1".into(),
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Authorization".into(), "Bearer b".into()),
            ],
            post: Some(br#"{"password":"p","name":"n"}"#.to_vec()),
            status: Some(302),
            response_headers: vec![("Location".into(), "/done".into())],
            answered: Some(10.02),
            ended: Some(10.03),
            body: Some(Body::Base64("AAE=".into(), 2)),
            ..Heard::default()
        };
        let e = entry(&heard);
        assert_eq!(e.started_date_time, "2026-01-01T00:00:00.250Z");
        assert!((e.time - 30.0).abs() < 0.01, "{}", e.time);
        assert_eq!(e.request.url, "http://a/api/save?token=%5Bredacted%5D&x=1");
        assert_eq!(e.request.headers[1].value, super::super::REDACTED);
        let post = e.request.post_data.expect("a body");
        assert!(!post.text.contains("\"p\""), "{}", post.text);
        assert_eq!(e.response.redirect_url, "http://a/done");
        assert_eq!(e.response.content.encoding.as_deref(), Some("base64"));
        assert_eq!(e.response.content.size, 2);
    }
}
