//! What a tab's pages sent and were answered (CDP's `Network.requestWillBeSent`,
//! `responseReceived`, `loadingFinished`, `loadingFailed`), kept from the tab's set-up on in
//! a bounded log ([`TrafficLog`], the last [`KEPT`] requests), so that a journey's
//! `wait_for(#{request})` or `wait_for(#{response})` written after the action that caused
//! the request still finds it (see `tools::traffic`). Bodies are not copied here: a wait
//! that matched asks the browser for the one it returns ([`response_body`], after the
//! response finished loading; [`request_body`] for what a request sent).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, EventResponseReceived,
    GetRequestPostDataParams, GetResponseBodyParams, RequestId,
};
use chromiumoxide::listeners::EventStream;
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::BrowserError;
use super::commands::{Commands, bounded};

/// Requests a tab's log keeps at most: past it the oldest are forgotten (a page that polls
/// does not grow it).
pub const KEPT: usize = 500;

/// One request a tab's page made, and what came of it so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    /// Its number in the tab's log, in the order the requests were sent.
    pub seq: u64,
    /// When waymark heard the browser send it.
    pub sent_at: Instant,
    /// The browser's id of the request (the same for each redirect of one request).
    pub id: String,
    /// `GET`, `POST`…
    pub method: String,
    /// The URL requested.
    pub url: String,
    /// The request's headers, as sent.
    pub request_headers: Vec<(String, String)>,
    /// Whether it sent a body (ask [`request_body`] for it).
    pub has_body: bool,
    /// The HTTP status of its response, once one came.
    pub status: Option<u16>,
    /// The response's headers.
    pub response_headers: Vec<(String, String)>,
    /// The response's body finished loading (its body can be asked for).
    pub finished: bool,
    /// It failed: the network's words (`net::ERR_FAILED`).
    pub failed: Option<String>,
    /// A `wait_for(#{request})` returned it already.
    pub request_taken: bool,
    /// A `wait_for(#{response})` returned it already.
    pub response_taken: bool,
}

impl Exchange {
    /// Whether it is over: its body loaded, or it failed.
    pub fn done(&self) -> bool {
        self.finished || self.failed.is_some()
    }
}

/// A tab's requests: the last [`KEPT`], in the order sent.
#[derive(Debug, Default)]
pub struct TrafficLog {
    entries: Mutex<VecDeque<Exchange>>,
    next: Mutex<u64>,
    /// Counted at each event, and woken, for a wait on the log.
    version: std::sync::atomic::AtomicU64,
    changed: tokio::sync::Notify,
}

impl TrafficLog {
    /// The requests sent at or after `since`, as they stand now.
    pub fn since(&self, since: Instant) -> Vec<Exchange> {
        self.entries.lock().map_or_else(
            |_| Vec::new(),
            |e| e.iter().filter(|x| x.sent_at >= since).cloned().collect(),
        )
    }

    /// Marks the request numbered `seq` taken by a wait for its request (`response`: for
    /// its response).
    pub fn take(&self, seq: u64, response: bool) {
        if let Ok(mut entries) = self.entries.lock()
            && let Some(x) = entries.iter_mut().find(|x| x.seq == seq)
        {
            match response {
                true => x.response_taken = true,
                false => x.request_taken = true,
            }
        }
    }

    /// The request numbered `seq` as it stands now.
    pub fn get(&self, seq: u64) -> Option<Exchange> {
        let entries = self.entries.lock().ok()?;
        entries.iter().find(|x| x.seq == seq).cloned()
    }

    /// How many events the log has heard: what [`changed`](TrafficLog::changed) is given,
    /// taken before looking at the log.
    pub fn version(&self) -> u64 {
        self.version.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Resolves once the log has heard an event past `version`, or after `most`.
    pub async fn changed(&self, version: u64, most: Duration) {
        let notified = self.changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.version() != version {
            return;
        }
        let _ = tokio::time::timeout(most, notified).await;
    }

    fn heard(&self) {
        self.version
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.changed.notify_waiters();
    }

    fn sent(&self, event: &EventRequestWillBeSent) {
        let seq = self.next.lock().map_or(0, |mut n| {
            *n += 1;
            *n
        });
        let exchange = Exchange {
            seq,
            sent_at: Instant::now(),
            id: event.request_id.inner().clone(),
            method: event.request.method.clone(),
            url: event.request.url.clone(),
            request_headers: headers(event.request.headers.inner()),
            has_body: event.request.has_post_data == Some(true),
            status: None,
            response_headers: Vec::new(),
            finished: false,
            failed: None,
            request_taken: false,
            response_taken: false,
        };
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= KEPT {
                entries.pop_front();
            }
            entries.push_back(exchange);
        }
        self.heard();
    }

    /// Changes the latest request of `id` (a redirect's last hop is the one answered);
    /// false when the log has none of that id (yet: see [`Ahead`]).
    fn update(&self, id: &RequestId, change: impl FnOnce(&mut Exchange)) -> bool {
        let found = self.entries.lock().is_ok_and(|mut entries| {
            entries
                .iter_mut()
                .rev()
                .find(|x| &x.id == id.inner())
                .map(change)
                .is_some()
        });
        self.heard();
        found
    }

    /// What `heard` says of its request: false when the log has no request of its id.
    fn hear(&self, heard: &Heard) -> bool {
        match heard {
            Heard::Answered(e) => self.update(&e.request_id, |x| {
                x.status = u16::try_from(e.response.status).ok();
                x.response_headers = headers(e.response.headers.inner());
            }),
            Heard::Finished(e) => self.update(&e.request_id, |x| x.finished = true),
            Heard::Failed(e) => self.update(&e.request_id, |x| {
                x.failed = Some(e.error_text.clone());
            }),
        }
    }
}

/// What was heard of a request after it was sent.
pub(super) enum Heard {
    Answered(std::sync::Arc<EventResponseReceived>),
    Finished(std::sync::Arc<EventLoadingFinished>),
    Failed(std::sync::Arc<EventLoadingFailed>),
}

impl Heard {
    /// The request it is of.
    pub(super) fn id(&self) -> &RequestId {
        match self {
            Heard::Answered(e) => &e.request_id,
            Heard::Finished(e) => &e.request_id,
            Heard::Failed(e) => &e.request_id,
        }
    }
}

/// What was heard of requests before the requests themselves, kept until they come. The
/// four streams are read apart, and chromiumoxide fills each from its own queue: a task
/// reading them can find a response whose request is not in its stream yet (a journey's
/// `wait_for(#{response})` once waited 5 s for an answer the log had dropped so). At most
/// [`AHEAD_KEPT`], the oldest forgotten.
pub(super) struct Ahead<E>(VecDeque<(String, E)>);

/// Events kept at most for requests not heard yet.
const AHEAD_KEPT: usize = 64;

impl<E> Default for Ahead<E> {
    fn default() -> Ahead<E> {
        Ahead(VecDeque::new())
    }
}

impl<E> Ahead<E> {
    /// Keeps `event` for the request `id`, until it is sent.
    pub(super) fn keep(&mut self, id: &RequestId, event: E) {
        if self.0.len() >= AHEAD_KEPT {
            self.0.pop_front();
        }
        self.0.push_back((id.inner().clone(), event));
    }

    /// What was kept for the request `id`, in the order heard.
    pub(super) fn take(&mut self, id: &RequestId) -> Vec<E> {
        if self.0.is_empty() {
            return Vec::new();
        }
        let (taken, kept) = std::mem::take(&mut self.0)
            .into_iter()
            .partition(|(of, _)| of == id.inner());
        self.0 = kept;
        taken.into_iter().map(|(_, e)| e).collect()
    }
}

fn headers(json: &serde_json::Value) -> Vec<(String, String)> {
    json.as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    (k.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A page's four Network streams a request's life is told in (sent, answered, finished,
/// failed), subscribed together: what the traffic log and the HAR recorder each follow.
pub(super) async fn subscribe(
    page: &Page,
    timeout: Duration,
) -> Result<
    (
        EventStream<EventRequestWillBeSent>,
        EventStream<EventResponseReceived>,
        EventStream<EventLoadingFinished>,
        EventStream<EventLoadingFailed>,
    ),
    BrowserError,
> {
    Ok(futures::try_join!(
        bounded(
            timeout,
            "subscribing to requests",
            page.event_listener::<EventRequestWillBeSent>()
        ),
        bounded(
            timeout,
            "subscribing to responses",
            page.event_listener::<EventResponseReceived>()
        ),
        bounded(
            timeout,
            "subscribing to finished loads",
            page.event_listener::<EventLoadingFinished>()
        ),
        bounded(
            timeout,
            "subscribing to failed requests",
            page.event_listener::<EventLoadingFailed>()
        ),
    )?)
}

/// Starts keeping `page`'s requests in `log`: the subscriptions are made before the tab's
/// first navigation (so none of its requests is missed), the task that fills the log runs
/// until the tab is dropped.
pub(super) async fn watch(
    page: &Page,
    log: std::sync::Arc<TrafficLog>,
    timeout: Duration,
) -> Result<JoinHandle<()>, BrowserError> {
    let (mut sent, mut answered, mut finished, mut failed) = subscribe(page, timeout).await?;
    Ok(tokio::spawn(async move {
        let mut ahead = Ahead::default();
        loop {
            // One task for the four streams, the requests first; what comes of a request
            // not heard yet waits for it (see Ahead).
            let heard = tokio::select! {
                biased;
                Some(e) = sent.next() => {
                    log.sent(&e);
                    for heard in ahead.take(&e.request_id) {
                        log.hear(&heard);
                    }
                    continue;
                }
                Some(e) = answered.next() => Heard::Answered(e),
                Some(e) = finished.next() => Heard::Finished(e),
                Some(e) = failed.next() => Heard::Failed(e),
                else => break,
            };
            if !log.hear(&heard) {
                ahead.keep(&heard.id().clone(), heard);
            }
        }
    }))
}

/// The body of the response to the request `id`, as text (`None`: the browser keeps none,
/// or it is not text). Ask once it finished loading.
pub(super) async fn response_body(
    page: &Page,
    id: &str,
    timeout: Duration,
) -> Result<Option<String>, BrowserError> {
    let params = GetResponseBodyParams::new(RequestId::new(id));
    let reply = match page
        .command(timeout, "reading a response's body", params)
        .await
    {
        Ok(reply) => reply,
        // No body kept (a redirect, a 204, evicted): none to show.
        Err(BrowserError::Protocol(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(text_of(&reply.result.body, reply.result.base64_encoded))
}

/// The body the request `id` sent, as text.
pub(super) async fn request_body(
    page: &Page,
    id: &str,
    timeout: Duration,
) -> Result<Option<String>, BrowserError> {
    let params = GetRequestPostDataParams::new(RequestId::new(id));
    match page
        .command(timeout, "reading a request's body", params)
        .await
    {
        Ok(reply) => Ok(Some(reply.result.post_data.clone())),
        Err(BrowserError::Protocol(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

fn text_of(body: &str, base64: bool) -> Option<String> {
    use base64::Engine;
    if !base64 {
        return Some(body.to_string());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(body)
        .ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_heard_before_its_request_waits_for_it_in_order() {
        let (a, b) = (RequestId::new("a"), RequestId::new("b"));
        let mut ahead = Ahead::default();
        assert!(ahead.take(&a).is_empty());
        ahead.keep(&a, 1);
        ahead.keep(&b, 2);
        ahead.keep(&a, 3);
        assert_eq!(ahead.take(&a), [1, 3]);
        assert!(ahead.take(&a).is_empty(), "taken once");
        assert_eq!(ahead.take(&b), [2]);
        for n in 0..AHEAD_KEPT + 5 {
            ahead.keep(&a, n);
        }
        let kept = ahead.take(&a);
        assert_eq!(kept.len(), AHEAD_KEPT, "bounded");
        assert_eq!(kept[0], 5, "the oldest forgotten");
    }

    #[test]
    fn an_update_of_a_request_not_sent_yet_says_so() {
        let log = TrafficLog::default();
        assert!(!log.update(&RequestId::new("x"), |x| x.finished = true));
    }

    #[test]
    fn a_body_is_text_or_nothing() {
        assert_eq!(text_of("abc", false).as_deref(), Some("abc"));
        assert_eq!(text_of("YWJj", true).as_deref(), Some("abc"));
        assert_eq!(text_of("//79", true), None);
    }
}
