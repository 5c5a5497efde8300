//! HAR 1.2 (`--har`): the journey's traffic written as an HTTP Archive (`record`: what
//! its tabs' pages sent and were answered, from CDP's Network domain, with the response
//! bodies), and a HAR answering the requests of a journey's tabs (`replay`: through the
//! Fetch domain, by the journey's [`RouteBook`](super::RouteBook), whose own routes win),
//! matched as Playwright's `routeFromHAR` matches (see `replay.rs`).
//!
//! The types read what Playwright's `recordHar` writes and write what its
//! `routeFromHAR` reads: fields waymark does not know are ignored when read.

mod record;
mod replay;

use serde::{Deserialize, Serialize};

pub(super) use record::record;
pub use record::{BODY_CAP, ENTRIES_KEPT, HarRecorder};
pub use replay::{HarMissing, HarReplay};

/// What a redacted value is written as.
pub const REDACTED: &str = "[redacted]";

/// Headers whose values a HAR never holds.
const SECRET_HEADERS: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// Form fields and JSON keys whose values a recorded request body never holds: named
/// like one of these (as `request` redacts its arguments).
const SECRET_WORDS: [&str; 6] = [
    "password",
    "passwd",
    "secret",
    "token",
    "authorization",
    "cookie",
];

/// A HAR file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Har {
    /// Its one log.
    pub log: Log,
}

/// A HAR's log.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Log {
    /// `1.2`.
    #[serde(default)]
    pub version: String,
    /// What wrote it.
    #[serde(default)]
    pub creator: Creator,
    /// The pages (waymark writes none: its entries name no page).
    #[serde(default)]
    pub pages: Vec<serde_json::Value>,
    /// The requests, in the order they were sent.
    #[serde(default)]
    pub entries: Vec<Entry>,
    /// What was left out (entries past the cap), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// What wrote a HAR.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Creator {
    /// `waymark`, `Playwright`…
    #[serde(default)]
    pub name: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
}

/// One request and its response.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// When it was sent (ISO 8601, UTC).
    #[serde(default)]
    pub started_date_time: String,
    /// Its whole time, in milliseconds.
    #[serde(default)]
    pub time: f64,
    /// The request.
    pub request: Request,
    /// The response.
    pub response: Response,
    /// Nothing is recorded of the cache.
    #[serde(default)]
    pub cache: serde_json::Map<String, serde_json::Value>,
    /// Where its time went.
    #[serde(default)]
    pub timings: Timings,
    /// The server's address.
    #[serde(
        rename = "serverIPAddress",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_ip_address: Option<String>,
    /// What the browser loaded it as (`document`, `fetch`…), as Playwright writes it.
    #[serde(
        rename = "_resourceType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resource_type: Option<String>,
    /// Why it failed, when it did (its status is then -1).
    #[serde(
        rename = "_failureText",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub failure_text: Option<String>,
}

/// A name and a value: a header, a query parameter, a cookie.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// The name.
    pub name: String,
    /// The value.
    #[serde(default)]
    pub value: String,
}

/// A recorded request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// `GET`, `POST`…
    pub method: String,
    /// The URL, without its fragment.
    pub url: String,
    /// `HTTP/1.1`, `HTTP/2.0`.
    #[serde(default)]
    pub http_version: String,
    /// Its cookies (values redacted).
    #[serde(default)]
    pub cookies: Vec<Pair>,
    /// Its headers.
    #[serde(default)]
    pub headers: Vec<Pair>,
    /// The URL's query, parsed.
    #[serde(default)]
    pub query_string: Vec<Pair>,
    /// The body it sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_data: Option<PostData>,
    /// Unknown: -1.
    #[serde(default = "unknown")]
    pub headers_size: i64,
    /// The body's size in bytes (0: none).
    #[serde(default = "unknown")]
    pub body_size: i64,
}

/// A request's body.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostData {
    /// Its media type.
    #[serde(default)]
    pub mime_type: String,
    /// Its text.
    #[serde(default)]
    pub text: String,
    /// Where Playwright put it beside the HAR, instead of `text`.
    #[serde(rename = "_file", default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `base64` when `text` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// A recorded response.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// The HTTP status (-1: the request failed).
    pub status: i64,
    /// Its words (`OK`).
    #[serde(default)]
    pub status_text: String,
    /// `HTTP/1.1`, `HTTP/2.0`.
    #[serde(default)]
    pub http_version: String,
    /// The cookies it set (values redacted).
    #[serde(default)]
    pub cookies: Vec<Pair>,
    /// Its headers.
    #[serde(default)]
    pub headers: Vec<Pair>,
    /// Its body.
    #[serde(default)]
    pub content: Content,
    /// Where a redirect sends the request (its `location`), else empty.
    #[serde(rename = "redirectURL", default)]
    pub redirect_url: String,
    /// Unknown: -1.
    #[serde(default = "unknown")]
    pub headers_size: i64,
    /// The bytes that came over the network for the body (-1: unknown).
    #[serde(default = "unknown")]
    pub body_size: i64,
}

/// A response's body.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    /// Its length in bytes, decoded.
    #[serde(default)]
    pub size: i64,
    /// Its media type.
    #[serde(default)]
    pub mime_type: String,
    /// Its text (base64 when `encoding` says); absent when not kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `base64` for a body that is not text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// Where Playwright put it beside the HAR, instead of `text`.
    #[serde(rename = "_file", default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Why `text` is absent, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// Where an entry's time went, in milliseconds (-1: not applicable).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timings {
    /// Waiting for a connection.
    #[serde(default = "unknown_f")]
    pub blocked: f64,
    /// Resolving the name.
    #[serde(default = "unknown_f")]
    pub dns: f64,
    /// Connecting (TLS included).
    #[serde(default = "unknown_f")]
    pub connect: f64,
    /// Sending the request.
    #[serde(default)]
    pub send: f64,
    /// Waiting for the response's first byte.
    #[serde(default)]
    pub wait: f64,
    /// Receiving the response.
    #[serde(default)]
    pub receive: f64,
    /// The TLS handshake.
    #[serde(default = "unknown_f")]
    pub ssl: f64,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            blocked: -1.0,
            dns: -1.0,
            connect: -1.0,
            send: 0.0,
            wait: 0.0,
            receive: 0.0,
            ssl: -1.0,
        }
    }
}

fn unknown() -> i64 {
    -1
}

fn unknown_f() -> f64 {
    -1.0
}

impl Har {
    /// A HAR of `entries`, written by waymark.
    pub fn new(entries: Vec<Entry>, comment: Option<String>) -> Har {
        Har {
            log: Log {
                version: "1.2".into(),
                creator: Creator {
                    name: "waymark".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                },
                pages: Vec::new(),
                entries,
                comment,
            },
        }
    }
}

/// A CDP headers object as (name, value) pairs.
pub(super) fn headers_of(json: &serde_json::Value) -> Vec<(String, String)> {
    json.as_object()
        .map(|o| {
            o.iter()
                .flat_map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    // Chromium joins repeated headers (`set-cookie`) with newlines.
                    let values: Vec<String> = v.split('\n').map(str::to_string).collect();
                    values.into_iter().map(move |v| (k.clone(), v))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The body a request sends, as the browser gives it with the request (its parts joined);
/// `None` when it gave none.
pub(super) fn post_body(
    request: &chromiumoxide::cdp::browser_protocol::network::Request,
) -> Option<Vec<u8>> {
    use base64::Engine;
    let entries = request.post_data_entries.as_ref()?;
    let mut body = Vec::new();
    for entry in entries {
        let part: &str = entry.bytes.as_ref().map_or("", |b| b.as_ref());
        body.extend(
            base64::engine::general_purpose::STANDARD
                .decode(part)
                .ok()?,
        );
    }
    Some(body)
}

/// Whether a form field or JSON key named `name` holds a secret.
fn secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| lower.contains(w))
}

/// `headers` as HAR pairs, the secret ones' values redacted.
fn redacted_headers(headers: &[(String, String)]) -> Vec<Pair> {
    headers
        .iter()
        .map(|(name, value)| Pair {
            name: name.clone(),
            value: match SECRET_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
                true => REDACTED.into(),
                false => value.clone(),
            },
        })
        .collect()
}

/// The cookies a `cookie` header sends (`set`: false) or `set-cookie` headers set, by name,
/// their values redacted.
fn cookie_names(headers: &[(String, String)], set: bool) -> Vec<Pair> {
    let wanted = if set { "set-cookie" } else { "cookie" };
    headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case(wanted))
        .flat_map(|(_, v)| {
            let cookies: Vec<&str> = match set {
                true => v.split(';').take(1).collect(),
                false => v.split(';').collect(),
            };
            cookies
                .into_iter()
                .filter_map(|c| c.split_once('=').map(|(n, _)| n.trim().to_string()))
                .collect::<Vec<_>>()
        })
        .map(|name| Pair {
            name,
            value: REDACTED.into(),
        })
        .collect()
}

/// A request body of media type `mime` with its secret form fields' or JSON keys' values
/// redacted (any other body as it is).
fn redacted_body(mime: &str, text: &str) -> String {
    let mime = mime.to_ascii_lowercase();
    if mime.starts_with("application/x-www-form-urlencoded") {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(text.as_bytes())
            .map(|(n, v)| {
                let v = if secret_name(&n) {
                    REDACTED.into()
                } else {
                    v.into_owned()
                };
                (n.into_owned(), v)
            })
            .collect();
        if pairs.iter().any(|(n, _)| secret_name(n)) {
            return url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(pairs)
                .finish();
        }
        return text.to_string();
    }
    if mime.contains("json")
        && let Ok(mut json) = serde_json::from_str::<serde_json::Value>(text)
        && redact_json(&mut json)
    {
        return json.to_string();
    }
    text.to_string()
}

/// Redacts the values of `value`'s keys named like secrets; whether it changed any.
fn redact_json(value: &mut serde_json::Value) -> bool {
    match value {
        serde_json::Value::Object(map) => {
            let mut changed = false;
            for (key, v) in map.iter_mut() {
                if secret_name(key) {
                    *v = REDACTED.into();
                    changed = true;
                } else {
                    changed |= redact_json(v);
                }
            }
            changed
        }
        serde_json::Value::Array(items) => items.iter_mut().fold(false, |c, v| redact_json(v) | c),
        _ => false,
    }
}

/// `url` with the values of its query parameters named like secrets redacted, and its
/// query as pairs (so redacted too).
fn redacted_url(url: &str) -> (String, Vec<Pair>) {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return (url.to_string(), Vec::new());
    };
    let pairs: Vec<Pair> = parsed
        .query_pairs()
        .map(|(n, v)| Pair {
            value: if secret_name(&n) {
                REDACTED.into()
            } else {
                v.into_owned()
            },
            name: n.into_owned(),
        })
        .collect();
    if pairs.iter().any(|p| secret_name(&p.name)) {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs.iter().map(|p| (&p.name, &p.value)))
            .finish();
        parsed.set_query(Some(&query));
        return (parsed.to_string(), pairs);
    }
    (url.to_string(), pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_headers_cookies_fields_and_keys_are_redacted() {
        let headers = [
            ("Authorization".to_string(), "Bearer abc".to_string()),
            (
                "cookie".to_string(),
                "session=s3cr3t; theme=dark".to_string(),
            ),
            ("accept".to_string(), "*/*".to_string()),
        ];
        let pairs = redacted_headers(&headers);
        assert_eq!(pairs[0].value, REDACTED);
        assert_eq!(pairs[1].value, REDACTED);
        assert_eq!(pairs[2].value, "*/*");
        let cookies = cookie_names(&headers, false);
        let names: Vec<&str> = cookies.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["session", "theme"]);
        assert!(cookies.iter().all(|c| c.value == REDACTED));
        let set = [(
            "Set-Cookie".to_string(),
            "sid=xyz; Path=/; HttpOnly".to_string(),
        )];
        assert_eq!(cookie_names(&set, true)[0].name, "sid");
        assert_eq!(
            redacted_body(
                "application/x-www-form-urlencoded",
                "user=ann&password=hunter2"
            ),
            "user=ann&password=%5Bredacted%5D"
        );
        assert_eq!(
            redacted_body("application/json", r#"{"user":"ann","api_token":"t0k"}"#),
            r#"{"api_token":"[redacted]","user":"ann"}"#
        );
        assert_eq!(redacted_body("text/plain", "password=x"), "password=x");
        let (url, query) = redacted_url("http://a/x?token=abc&page=2");
        assert_eq!(url, "http://a/x?token=%5Bredacted%5D&page=2");
        assert_eq!(query[1].value, "2");
        assert_eq!(redacted_url("http://a/x?page=2").0, "http://a/x?page=2");
    }

    #[test]
    fn a_playwright_har_reads() {
        let har: Har = serde_json::from_str(
            r#"{"log":{"version":"1.2","creator":{"name":"Playwright","version":"1.65"},
            "browser":{"name":"chromium"},"pages":[{"id":"page@1"}],
            "entries":[{"startedDateTime":"2026-01-01T00:00:00.000Z","time":1.5,"_monotonicTime":3.2,
            "request":{"method":"GET","url":"http://a/api","httpVersion":"HTTP/1.1","cookies":[],
            "headers":[{"name":"accept","value":"*/*"}],"queryString":[],"headersSize":-1,"bodySize":0},
            "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],
            "headers":[],"content":{"size":2,"mimeType":"application/json","text":"[]"},
            "redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":-1},
            "cache":{},"timings":{"send":0,"wait":1,"receive":0.5}}]}}"#,
        )
        .expect("Playwright's HAR reads");
        assert_eq!(
            har.log.entries[0].response.content.text.as_deref(),
            Some("[]")
        );
        assert_eq!(har.log.entries[0].timings.dns, -1.0);
    }
}
