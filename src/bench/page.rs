//! The bench targets a page names for itself (`<meta name="bench-click-target">` and
//! `<meta name="bench-fill-target">`, as the dense pages carry them), read by fetching the
//! page over plain HTTP — never through the browser tab being measured, which only the
//! tools may touch — with the profile's cookies for it, as the tab is opened with them.
//!
//! One GET through the crate's HTTP exchange (`browser::exchange`, hyper's client), the
//! whole answer, no redirects.

use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header;
use url::Url;

use super::BenchError;
use crate::control::cookies::Cookie;
use crate::session::RunError;

/// The anchors a page names as its bench targets.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Targets {
    /// `bench-click-target`: what `--invoke auto` presses.
    pub click: Option<String>,
    /// `bench-fill-target`: what `--fill auto` fills.
    pub fill: Option<String>,
    /// `bench-registry`: where the registry the page is benched with is (a page without
    /// data-anchor, found through matchers).
    pub registry: Option<String>,
}

/// The `<meta name>` that names the target of `--invoke auto` or `--fill auto`.
pub(super) fn meta_name(flag: &str) -> &'static str {
    if flag == "fill" {
        "bench-fill-target"
    } else {
        "bench-click-target"
    }
}

/// Fetches `route` of the app at `base` (sending what of `cookies` a browser would) and
/// reads its bench targets, for `--{flag} auto`.
pub(super) async fn bench_targets(
    base: &Url,
    route: &str,
    flag: &'static str,
    cookies: &[Cookie],
) -> Result<Targets, BenchError> {
    let bad = |why: String| BenchError::Auto {
        flag,
        route: route.to_string(),
        why,
    };
    let url = base
        .join(route)
        .map_err(|e| bad(format!("`{route}` is not a route: {e}")))?;
    if url.scheme() != "http" {
        return Err(bad(format!(
            "the page's bench targets are read over plain HTTP, and `{url}` is not http; give the anchors instead"
        )));
    }
    let (status, html) = tokio::time::timeout(Duration::from_secs(30), get(&url, cookies))
        .await
        .map_err(|_| unreachable(&url, "no answer within 30 s".into()))?
        .map_err(|why| unreachable(&url, why))?;
    if status != 200 {
        return Err(bad(format!("the page answered HTTP {status}")));
    }
    Ok(Targets {
        click: meta_content(&html, meta_name("invoke")),
        fill: meta_content(&html, meta_name("fill")),
        registry: meta_content(&html, "bench-registry"),
    })
}

/// The registry at `path` of the app at `base`, fetched and validated.
pub(super) async fn registry(
    base: &Url,
    route: &str,
    path: &str,
    cookies: &[Cookie],
) -> Result<crate::registry::Registry, BenchError> {
    let bad = |why: String| BenchError::Registry {
        route: route.to_string(),
        why,
    };
    let url = base
        .join(path)
        .map_err(|e| bad(format!("`{path}` is not a route: {e}")))?;
    let (status, text) = tokio::time::timeout(Duration::from_secs(30), get(&url, cookies))
        .await
        .map_err(|_| unreachable(&url, "no answer within 30 s".into()))?
        .map_err(|why| unreachable(&url, why))?;
    if status != 200 {
        return Err(bad(format!("`{url}` answered HTTP {status}")));
    }
    crate::registry::Registry::parse(&text, url.as_str()).map_err(|e| bad(e.to_string()))
}

fn unreachable(url: &Url, why: String) -> BenchError {
    BenchError::Run(RunError::Unreachable {
        url: url.to_string(),
        why,
    })
}

/// One `GET` with what of `cookies` goes to `url`: the status code and the body, or why
/// there is none.
async fn get(url: &Url, cookies: &[Cookie]) -> Result<(u16, String), String> {
    let mut target = url.clone();
    target.set_fragment(None);
    let mut request = hyper::Request::get(target.as_str())
        .header(header::ACCEPT, "text/html")
        .header(header::USER_AGENT, "waymark-bench")
        .header(header::CONNECTION, "close");
    if let Some(value) = cookie_header(url, cookies, now_secs()) {
        request = request.header(header::COOKIE, value);
    }
    let request = request
        .body(Full::new(Bytes::new()))
        .map_err(|e| e.to_string())?;
    // Bounded by its callers.
    let (status, body) =
        crate::browser::exchange(request, None)
            .await
            .map_err(|why| match why {
                crate::browser::Unanswered::Failed(why) => why,
                crate::browser::Unanswered::Late => "no answer".to_string(),
            })?;
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// The `Cookie` header a browser sends with a plain-HTTP request for `url`: the cookies
/// not expired at `now` (seconds since the epoch) whose domain and path match (RFC 6265
/// 5.1.3, 5.1.4) and that are not secure-only; none when no cookie goes.
fn cookie_header(url: &Url, cookies: &[Cookie], now: f64) -> Option<String> {
    let host = url.host_str()?.to_ascii_lowercase();
    let path = url.path();
    let sent: Vec<String> = cookies
        .iter()
        .filter(|c| !c.secure && c.expires.is_none_or(|e| e > now))
        .filter(|c| {
            host == c.domain
                || (!c.host_only
                    && host
                        .strip_suffix(c.domain.as_str())
                        .is_some_and(|sub| sub.ends_with('.')))
        })
        .filter(|c| {
            path == c.path
                || path
                    .strip_prefix(c.path.as_str())
                    .is_some_and(|rest| c.path.ends_with('/') || rest.starts_with('/'))
        })
        .map(|c| format!("{}={}", c.name, c.value))
        .collect();
    (!sent.is_empty()).then(|| sent.join("; "))
}

fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The `content` of the first `<meta name="{name}">` in the document's head.
fn meta_content(html: &str, name: &str) -> Option<String> {
    // ASCII lowercasing keeps byte offsets, so positions found in `lower` index `html`.
    let lower = html.to_ascii_lowercase();
    let head_end = lower.find("</head").unwrap_or(lower.len());
    let mut at = 0;
    while let Some(i) = lower[at..head_end].find("<meta") {
        let start = at + i + "<meta".len();
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        let attrs = attributes(&html[start..end]);
        let named = attrs
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("name") && v == name);
        if named {
            return attrs
                .into_iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("content"))
                .map(|(_, v)| v)
                .filter(|v| !v.is_empty());
        }
        at = end;
    }
    None
}

/// The attributes of a tag's inside (`name="x" content='y' flag`), values unescaped.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = tag.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '/')
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        rest = rest[name_end..].trim_start();
        let mut value = String::new();
        if let Some(after) = rest.strip_prefix('=') {
            let after = after.trim_start();
            let (raw, left) = match after.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let body = &after[1..];
                    let close = body.find(q).unwrap_or(body.len());
                    (&body[..close], body.get(close + 1..).unwrap_or_default())
                }
                _ => {
                    let close = after.find(char::is_whitespace).unwrap_or(after.len());
                    (&after[..close], &after[close..])
                }
            };
            value = unescape(raw);
            rest = left;
        }
        if !name.is_empty() {
            out.push((name.to_string(), value));
        }
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookie(name: &str, domain: &str, host_only: bool, path: &str) -> Cookie {
        Cookie {
            name: name.into(),
            value: format!("v-{name}"),
            domain: domain.into(),
            host_only,
            path: path.into(),
            secure: false,
            http_only: true,
            expires: None,
            same_site: None,
        }
    }

    #[test]
    fn a_plain_request_carries_the_cookies_a_browser_would_send() {
        let url = Url::parse("http://app.example.com:8080/claims/7?x=1").unwrap();
        let mut secure = cookie("secure", "example.com", false, "/");
        secure.secure = true;
        let mut expired = cookie("expired", "app.example.com", true, "/");
        expired.expires = Some(99.0);
        let mut later = cookie("later", "app.example.com", true, "/");
        later.expires = Some(101.0);
        let cookies = [
            cookie("parent", "example.com", false, "/"),
            cookie("host", "app.example.com", true, "/claims"),
            cookie("parent-host-only", "example.com", true, "/"),
            cookie("other", "notexample.com", false, "/"),
            cookie("deeper", "app.example.com", true, "/claims/7/lines"),
            cookie("near", "app.example.com", true, "/claim"),
            cookie("dir", "app.example.com", true, "/claims/"),
            secure,
            expired,
            later,
        ];
        assert_eq!(
            cookie_header(&url, &cookies, 100.0).as_deref(),
            Some("parent=v-parent; host=v-host; dir=v-dir; later=v-later")
        );
        assert_eq!(cookie_header(&url, &cookies[3..4], 100.0), None);
    }

    #[test]
    fn meta_content_reads_either_attribute_order_and_quote() {
        let html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\">\n\
                    <META content='region-3.button-2' NAME=bench-click-target>\n\
                    <meta name=\"bench-fill-target\" content=\"region-3.input-1\"/>\n\
                    </head><body><meta name=\"late\" content=\"x\"></body>";
        assert_eq!(
            meta_content(html, "bench-click-target").as_deref(),
            Some("region-3.button-2")
        );
        assert_eq!(
            meta_content(html, "bench-fill-target").as_deref(),
            Some("region-3.input-1")
        );
        assert_eq!(meta_content(html, "late"), None, "only the head is read");
        assert_eq!(meta_content(html, "bench-count"), None);
    }

    /// Serves one connection with `answer`, whatever was asked; what was asked.
    async fn answer_once(answer: &'static [u8]) -> (Url, tokio::task::JoinHandle<String>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = Url::parse(&format!(
            "http://{}/claims?x=1#top",
            listener.local_addr().unwrap()
        ))
        .unwrap();
        let asked = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = Vec::new();
            let mut chunk = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = stream.read(&mut chunk).await.unwrap();
                assert!(n > 0, "the request ended early");
                request.extend_from_slice(&chunk[..n]);
            }
            stream.write_all(answer).await.unwrap();
            stream.shutdown().await.unwrap();
            String::from_utf8(request).unwrap()
        });
        (url, asked)
    }

    #[tokio::test]
    async fn a_response_splits_into_status_and_body() {
        let answer = b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nn must be";
        let (url, asked) = answer_once(answer).await;
        let cookies = [cookie("session", "127.0.0.1", true, "/")];
        assert_eq!(
            get(&url, &cookies).await,
            Ok((400, "n must be".to_string()))
        );
        let asked = asked.await.unwrap().to_ascii_lowercase();
        assert!(asked.starts_with("get /claims?x=1 http/1.1\r\n"), "{asked}");
        assert!(
            asked.contains("\r\ncookie: session=v-session\r\n"),
            "{asked}"
        );

        let (url, _) = answer_once(b"garbage").await;
        assert!(get(&url, &[]).await.is_err());

        // A refused connection says so, not just which stage of the client failed.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = Url::parse(&format!("http://{}/", closed.local_addr().unwrap())).unwrap();
        drop(closed);
        let why = get(&url, &[]).await.expect_err("refused");
        assert!(why.to_lowercase().contains("refused"), "{why}");
    }

    #[tokio::test]
    async fn the_demo_dense_page_names_the_targets_the_generator_does() {
        let demo = crate::demo::DemoApp::start()
            .await
            .expect("the demo app starts");
        let base = Url::parse(demo.base_url()).expect("a URL");
        let targets = bench_targets(&base, "/dense?n=137", "invoke", &[])
            .await
            .expect("fetched");
        let page = crate::demo::dense_page(137);
        assert_eq!(targets.click, meta_content(&page, "bench-click-target"));
        assert!(page.contains(&format!(
            "<meta name=\"bench-fill-target\" content=\"{}\">",
            targets.fill.as_deref().expect("a fill target")
        )));
        let e = bench_targets(&base, "/dense?n=5", "fill", &[])
            .await
            .expect_err("400");
        assert!(e.to_string().contains("HTTP 400"), "{e}");
    }
}
