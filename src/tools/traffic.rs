//! Waiting for the network: `wait_for(#{request: pattern, method})` and
//! `wait_for(#{response: pattern, status})`, alone or with the page conditions of
//! `wait_for`, over the requests every tab of the journey keeps in its log (see
//! `browser::TrafficLog`: each tab logs its own from its set-up, and a journey's tabs are
//! its own browser context, so one journey never sees another's requests).
//!
//! **The window.** A network wait is armed before the action that triggers it, as
//! `eventually` is: it matches a request sent since the *start of the last call that could
//! have caused one* (any call but `read_screen`, `wait_for` and `tabs`), or one sent later,
//! until its deadline. So `invoke("save"); wait_for(#{response: "/api/save"})` finds the
//! response the click caused even when it came back while the invoke was settling, and so
//! does a second wait after it (`wait_for(#{request: …}); wait_for(#{response: …})`, or a
//! `wait_for(#{text})` first): waits move no window. What a wait returned is taken (its
//! request by a request wait, its response by a response wait): the next wait of the same
//! kind waits for another, as two saves need two responses. Not "since the previous call
//! started" whatever it was: a wait for the text the response put on screen would then
//! hide the response from the wait after it.
//!
//! Patterns are the routes' globs (app-relative `/api/items/**` or absolute URLs). What a
//! wait returns is an [`Exchange`]: method, URL, status, headers and the body (its JSON or
//! its text, cut at [`BODY_CAP`] characters), with the secrets redacted as a `request`'s
//! are (`Authorization`, `Cookie`, `Set-Cookie` headers; values named like secrets).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::request::{BODY_CAP, redact};
use super::{Call, Condition, Tools};
use crate::browser::{Abort, Reply, Route, Tab};
use crate::protocol::{Attribution, ErrorCode, ToolError, quoted};

/// How long a network wait sleeps between two looks at the logs at most (a log wakes it
/// sooner when it changes).
const LOOK: Duration = Duration::from_millis(25);

/// The requests a timeout's message lists at most.
const LISTED: usize = 12;

/// A request, or its response, that a network wait matched.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Exchange {
    /// `GET`, `POST`…
    pub method: String,
    /// The URL requested.
    pub url: String,
    /// The response's status (a request wait's, when it came already).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// A request wait: the request's headers; a response wait: the response's. By
    /// lower-case name, secrets redacted.
    pub headers: BTreeMap<String, String>,
    /// The body (what a request sent, what a response answered), parsed, when it is JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<serde_json::Value>,
    /// The body as text, when it is not JSON (or was cut).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The body was longer than [`BODY_CAP`] characters and is cut there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
    /// The request failed before its response: the network's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// What a network wait waits for.
struct Wanted {
    route: Route,
    response: bool,
    status: Option<u16>,
}

impl<T: Tab> Tools<T> {
    /// Moves the network waits' window to now, at the start of a call that could cause
    /// requests (see the module's words).
    pub(super) fn mark_traffic(&self, call: &Call) {
        if matches!(call, Call::Read(_) | Call::WaitFor(_) | Call::Tabs(_)) {
            return;
        }
        if let Ok(mut since) = self.shared.traffic_since.lock() {
            *since = Some(Instant::now());
        }
    }

    /// Waits, until `deadline`, for the request (or response) `condition` names, and
    /// returns it (`None`: it names none).
    pub(super) async fn wait_traffic(
        &self,
        condition: &Condition,
        deadline: Instant,
    ) -> Result<Option<Exchange>, ToolError> {
        let invalid = |why: &str| Err(ToolError::new(ErrorCode::InvalidArgument, why));
        let (pattern, response) = match (&condition.request, &condition.response) {
            (Some(_), Some(_)) => {
                return invalid(
                    "`wait_for`: `request` or `response`, not both (a response wait returns \
                     its request's method and URL too)",
                );
            }
            (None, Some(p)) => (p, true),
            (Some(_), None) if condition.status.is_some() => {
                return invalid("`wait_for`: `status` goes with `response`");
            }
            (Some(p), None) => (p, false),
            (None, None) if condition.method.is_some() || condition.status.is_some() => {
                return invalid(
                    "`wait_for`: `method` and `status` go with `request` or `response`",
                );
            }
            (None, None) => return Ok(None),
        };
        let wanted = Wanted {
            route: self.traffic_route(pattern, condition.method.as_deref())?,
            response,
            status: condition.status,
        };
        let since = self
            .shared
            .traffic_since
            .lock()
            .ok()
            .and_then(|s| *s)
            .unwrap_or_else(|| Instant::now() - Duration::from_secs(3600 * 24));
        loop {
            // The current tab's log wakes the wait; another tab's is looked at every LOOK.
            let log = self.here().tab.traffic();
            let version = log.as_ref().map_or(0, |l| l.version());
            if let Some((tab, found)) = self.find_traffic(&wanted, since) {
                return self
                    .exchange(&tab, found, &wanted, deadline)
                    .await
                    .map(Some);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(self.traffic_timeout(condition, since));
            }
            let most = LOOK.min(deadline - now);
            match log {
                Some(log) => log.changed(version, most).await,
                None => tokio::time::sleep(most).await,
            }
        }
    }

    /// The first request of the window that `wanted` matches and no wait took, with the
    /// tab that made it.
    fn find_traffic(
        &self,
        wanted: &Wanted,
        since: Instant,
    ) -> Option<(
        std::sync::Arc<super::tabs::OpenTab<T>>,
        crate::browser::Exchange,
    )> {
        let mut best: Option<(
            std::sync::Arc<super::tabs::OpenTab<T>>,
            crate::browser::Exchange,
        )> = None;
        for open in self.tabs.all() {
            let Some(log) = open.tab.traffic() else {
                continue;
            };
            let found = log.since(since).into_iter().find(|x| {
                wanted.route.matches(&x.method, &x.url)
                    && match wanted.response {
                        false => !x.request_taken,
                        true => {
                            !x.response_taken
                                && x.status.is_some()
                                && wanted.status.is_none_or(|s| x.status == Some(s))
                        }
                    }
            });
            if let Some(x) = found
                && best.as_ref().is_none_or(|(_, b)| x.sent_at < b.sent_at)
            {
                best = Some((open, x));
            }
        }
        best
    }

    /// What a wait returns of `found`: taken, its body read (a response's once it has
    /// loaded, waited for until `deadline`).
    async fn exchange(
        &self,
        open: &super::tabs::OpenTab<T>,
        mut found: crate::browser::Exchange,
        wanted: &Wanted,
        deadline: Instant,
    ) -> Result<Exchange, ToolError> {
        let Some(log) = open.tab.traffic() else {
            return Err(ToolError::new(ErrorCode::CaptureFailed, "no traffic log"));
        };
        log.take(found.seq, wanted.response);
        // A response's body once it has loaded (or failed), waited for until the deadline.
        while wanted.response && !found.done() {
            let version = log.version();
            if let Some(now) = log.get(found.seq) {
                found = now;
            }
            let now = Instant::now();
            if found.done() || now >= deadline {
                break;
            }
            log.changed(version, LOOK.min(deadline - now)).await;
        }
        let body = match (wanted.response, found.finished, found.has_body) {
            (true, true, _) | (false, _, true) => open
                .tab
                .body(&found.id, wanted.response)
                .await
                .map_err(super::browser_error)?,
            _ => None,
        };
        let headers = match wanted.response {
            true => &found.response_headers,
            false => &found.request_headers,
        };
        let mut shown = Exchange {
            method: found.method.clone(),
            url: found.url.clone(),
            status: found.status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                .collect(),
            failed: found.failed.clone(),
            ..Exchange::default()
        };
        if let Some(mut text) = body {
            let length = text.chars().count();
            if length > BODY_CAP {
                text = text.chars().take(BODY_CAP).collect();
                shown.cut = true;
            }
            shown.json = (!shown.cut)
                .then(|| serde_json::from_str::<serde_json::Value>(&text).ok())
                .flatten()
                .filter(|_| !text.is_empty());
            if shown.json.is_none() {
                shown.text = Some(form_redacted(&text, &shown.headers));
            }
        }
        Ok(redacted(shown))
    }

    /// The glob a network wait matches, as a route's (`/api/**` is the app's).
    fn traffic_route(&self, pattern: &str, method: Option<&str>) -> Result<Route, ToolError> {
        let invalid = |why: String| ToolError::new(ErrorCode::InvalidArgument, why);
        let pattern = pattern.trim();
        let absolute = self.absolute_pattern(pattern, "request")?;
        Route::new(pattern, &absolute, method, Reply::Abort(Abort::Failed)).map_err(invalid)
    }

    /// The timeout of a network wait: the condition, and the requests the window saw.
    fn traffic_timeout(&self, condition: &Condition, since: Instant) -> ToolError {
        let origin = self.origin();
        let mut seen: Vec<String> = Vec::new();
        let mut total = 0;
        for open in self.tabs.all() {
            for x in open
                .tab
                .traffic()
                .map(|l| l.since(since))
                .unwrap_or_default()
            {
                total += 1;
                if seen.len() >= LISTED {
                    continue;
                }
                let url = x.url.strip_prefix(&origin).unwrap_or(&x.url);
                let answer = match (&x.status, &x.failed) {
                    (Some(s), _) => s.to_string(),
                    (None, Some(f)) => f.clone(),
                    (None, None) => "no answer yet".to_string(),
                };
                seen.push(format!("{} `{}` {answer}", x.method, quoted(url)));
            }
        }
        let within = condition.timeout.unwrap_or_else(|| self.action_timeout());
        let listed = match (total, seen.len()) {
            (0, _) => "none".to_string(),
            (n, shown) if n > shown => format!("{} and {} more", seen.join(", "), n - shown),
            _ => seen.join(", "),
        };
        ToolError::new(
            ErrorCode::Timeout,
            format!(
                "{condition} did not come within {} ms; requests seen: {listed}",
                within.as_millis()
            ),
        )
        .attributed(Attribution::App)
    }
}

/// `exchange` with its secrets redacted: the headers and JSON keys named like secrets.
fn redacted(mut exchange: Exchange) -> Exchange {
    let mut headers = serde_json::to_value(&exchange.headers).unwrap_or_default();
    redact(&mut headers);
    exchange.headers = serde_json::from_value(headers).unwrap_or_default();
    if let Some(json) = &mut exchange.json {
        redact(json);
    }
    exchange
}

/// A form body's text with its secret fields' values redacted; any other text as it is.
fn form_redacted(text: &str, headers: &BTreeMap<String, String>) -> String {
    let form = headers
        .get("content-type")
        .is_some_and(|t| t.starts_with("application/x-www-form-urlencoded"));
    if !form {
        return text.to_string();
    }
    let mut fields = serde_json::Map::new();
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(text.as_bytes())
        .into_owned()
        .collect();
    for (k, v) in &pairs {
        fields.insert(k.clone(), v.clone().into());
    }
    let mut value = serde_json::Value::Object(fields);
    redact(&mut value);
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(k, _)| {
            let v = value[k].as_str().unwrap_or_default().to_string();
            (k.clone(), v)
        }))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_of_what_a_wait_returns_are_redacted() {
        let mut headers = BTreeMap::new();
        headers.insert("authorization".to_string(), "Bearer x".to_string());
        headers.insert("set-cookie".to_string(), "s=1".to_string());
        headers.insert("content-type".to_string(), "application/json".to_string());
        let shown = redacted(Exchange {
            headers,
            json: Some(serde_json::json!({"token": "t", "id": 3})),
            ..Exchange::default()
        });
        assert_eq!(shown.headers["authorization"], "[redacted]");
        assert_eq!(shown.headers["set-cookie"], "[redacted]");
        assert_eq!(shown.headers["content-type"], "application/json");
        assert_eq!(
            shown.json,
            Some(serde_json::json!({"token": "[redacted]", "id": 3}))
        );
        let mut form = BTreeMap::new();
        form.insert(
            "content-type".to_string(),
            "application/x-www-form-urlencoded".to_string(),
        );
        assert_eq!(
            form_redacted("user=ann&password=hunter2", &form),
            "user=ann&password=%5Bredacted%5D"
        );
    }
}
