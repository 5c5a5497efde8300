//! A HAR answering a journey's requests (`--har replay=FILE`), as the fallback of its
//! [`RouteBook`](crate::browser::RouteBook): a request no route of the journey matches is
//! answered by the entry Playwright's `routeFromHAR` would pick (its `harBackend`):
//!
//! - the entries of the same URL (exactly, without the fragment) and method;
//! - for a `POST` with a body, of those that recorded a body, only those whose body is the
//!   same bytes (or the same but for a `multipart/form-data` boundary);
//! - of several, the one whose request headers share the most name and value pairs with
//!   the request's (the first in the file on a tie).
//!
//! Where Playwright follows a recorded redirect in the file and answers a request that is
//! not a navigation with the last hop's response, waymark answers with the redirect as
//! recorded and the browser follows it (its next request matched the same way). An entry
//! of a failed request (status -1) fails the request. A request no entry matches is failed
//! (`--har-missing abort`, as Playwright's `notFound: 'abort'`) or let through to the
//! network (`pass`, Playwright's `'fallback'`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;

use super::{Content, Entry, Har, PostData, REDACTED};
use crate::browser::routes::{Abort, Fallback, Reply};

/// What a replayed HAR does with a request none of its entries matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum HarMissing {
    /// Fails it (`net::ERR_FAILED`), as Playwright's `notFound: 'abort'`.
    #[default]
    Abort,
    /// Lets it through to the network, as Playwright's `notFound: 'fallback'`.
    Pass,
}

/// A HAR file, read, answering requests.
#[derive(Debug)]
pub struct HarReplay {
    entries: Vec<Entry>,
    /// The file's folder: where `_file` bodies are.
    dir: PathBuf,
    missing: HarMissing,
}

/// Response headers not sent with a replayed body: it is sent decoded and whole.
const NOT_REPLAYED: [&str; 3] = ["content-encoding", "content-length", "transfer-encoding"];

/// The statuses of a redirect.
const REDIRECTS: [i64; 5] = [301, 302, 303, 307, 308];

impl HarReplay {
    /// Reads the HAR at `path`; why not, in words.
    pub fn load(path: &Path, missing: HarMissing) -> Result<HarReplay, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the HAR `{}`: {e}", path.display()))?;
        let har: Har = serde_json::from_str(&text)
            .map_err(|e| format!("`{}` is not a HAR: {e}", path.display()))?;
        let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        Ok(HarReplay {
            entries: har.log.entries,
            dir,
            missing,
        })
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry that answers a `method` request for `url` with `headers` and `body`.
    pub fn find(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Option<&[u8]>,
    ) -> Option<&Entry> {
        let url = url.split('#').next().unwrap_or(url);
        let mut best: Option<(&Entry, usize)> = None;
        for entry in &self.entries {
            if entry.request.url != url || entry.request.method != method {
                continue;
            }
            if let (true, Some(body), Some(recorded)) =
                (method == "POST", body, &entry.request.post_data)
                && !self.same_body(body, headers, recorded, entry)
            {
                continue;
            }
            let shared = matching_headers(entry, headers);
            if best.is_none_or(|(_, most)| shared > most) {
                best = Some((entry, shared));
            }
        }
        best.map(|(e, _)| e)
    }

    fn same_body(
        &self,
        body: &[u8],
        headers: &[(String, String)],
        recorded: &PostData,
        entry: &Entry,
    ) -> bool {
        let Ok(bytes) = self.bytes(
            &recorded.text,
            recorded.encoding.as_deref(),
            recorded.file.as_deref(),
        ) else {
            return false;
        };
        if bytes == body {
            return true;
        }
        let ours = boundary(headers.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        let theirs = boundary(
            entry
                .request
                .headers
                .iter()
                .map(|p| (p.name.as_str(), p.value.as_str())),
        );
        match (ours, theirs) {
            (Some(ours), Some(theirs)) => {
                String::from_utf8_lossy(body).replace(&ours, "")
                    == String::from_utf8_lossy(&bytes).replace(&theirs, "")
            }
            _ => false,
        }
    }

    /// A body's bytes: `text` (base64 when `encoding` says), or the file `file` beside the
    /// HAR (never outside its folder).
    fn bytes(
        &self,
        text: &str,
        encoding: Option<&str>,
        file: Option<&str>,
    ) -> Result<Vec<u8>, String> {
        if let Some(file) = file {
            let relative = Path::new(file);
            if relative.is_absolute()
                || relative
                    .components()
                    .any(|c| matches!(c, std::path::Component::ParentDir))
            {
                return Err(format!("the HAR's `_file` `{file}` is outside its folder"));
            }
            return std::fs::read(self.dir.join(relative))
                .map_err(|e| format!("cannot read the HAR's `_file` `{file}`: {e}"));
        }
        match encoding {
            Some("base64") => base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| format!("a base64 body that is not: {e}")),
            _ => Ok(text.as_bytes().to_vec()),
        }
    }

    /// The reply an entry makes.
    fn reply_of(&self, entry: &Entry) -> Reply {
        let response = &entry.response;
        let Ok(status) = u16::try_from(response.status) else {
            return Reply::Abort(Abort::Failed);
        };
        if !(100..=599).contains(&status) {
            return Reply::Abort(Abort::Failed);
        }
        let Content {
            text,
            encoding,
            file,
            ..
        } = &response.content;
        let body = self
            .bytes(
                text.as_deref().unwrap_or_default(),
                encoding.as_deref(),
                file.as_deref(),
            )
            .unwrap_or_default();
        let mut headers: Vec<(String, String)> = response
            .headers
            .iter()
            .filter(|h| {
                let name = h.name.to_ascii_lowercase();
                !name.starts_with(':')
                    && !NOT_REPLAYED.contains(&name.as_str())
                    && h.value != REDACTED
            })
            .map(|h| (h.name.clone(), h.value.clone()))
            .collect();
        if REDIRECTS.contains(&response.status)
            && !headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("location"))
            && !response.redirect_url.is_empty()
        {
            headers.push(("location".into(), response.redirect_url.clone()));
        }
        Reply::Fulfill {
            status,
            headers,
            body,
            delay: Duration::ZERO,
        }
    }
}

impl Fallback for HarReplay {
    fn name(&self) -> &str {
        "--har"
    }

    fn reply(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Option<&[u8]>,
    ) -> Option<Reply> {
        match (self.find(method, url, headers, body), self.missing) {
            (Some(entry), _) => Some(self.reply_of(entry)),
            (None, HarMissing::Abort) => Some(Reply::Abort(Abort::Failed)),
            (None, HarMissing::Pass) => None,
        }
    }
}

/// How many of the request's headers (name, case aside, and value) the entry recorded.
fn matching_headers(entry: &Entry, headers: &[(String, String)]) -> usize {
    entry
        .request
        .headers
        .iter()
        .filter(|h| {
            headers
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case(&h.name) && *v == h.value)
        })
        .count()
}

/// The boundary of a `multipart/form-data` body, from its `content-type`.
fn boundary<'a>(mut headers: impl Iterator<Item = (&'a str, &'a str)>) -> Option<String> {
    let (_, kind) = headers.find(|(n, _)| n.eq_ignore_ascii_case("content-type"))?;
    if !kind.contains("multipart/form-data") {
        return None;
    }
    let at = kind.find("boundary=")? + "boundary=".len();
    let boundary: String = kind[at..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    (!boundary.is_empty()).then_some(boundary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::har::{Pair, Request, Response};

    fn entry(
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        post: Option<&str>,
        body: &str,
    ) -> Entry {
        let pairs = |h: &[(&str, &str)]| {
            h.iter()
                .map(|(n, v)| Pair {
                    name: n.to_string(),
                    value: v.to_string(),
                })
                .collect()
        };
        Entry {
            started_date_time: String::new(),
            time: 0.0,
            request: Request {
                method: method.into(),
                url: url.into(),
                http_version: "HTTP/1.1".into(),
                cookies: Vec::new(),
                headers: pairs(headers),
                query_string: Vec::new(),
                post_data: post.map(|p| PostData {
                    mime_type: "text/plain".into(),
                    text: p.into(),
                    ..PostData::default()
                }),
                headers_size: -1,
                body_size: 0,
            },
            response: Response {
                status: 200,
                status_text: "OK".into(),
                http_version: "HTTP/1.1".into(),
                cookies: Vec::new(),
                headers: pairs(&[("content-type", "text/plain"), ("set-cookie", REDACTED)]),
                content: Content {
                    text: Some(body.into()),
                    ..Content::default()
                },
                redirect_url: String::new(),
                headers_size: -1,
                body_size: -1,
            },
            cache: serde_json::Map::new(),
            timings: super::super::Timings::default(),
            server_ip_address: None,
            resource_type: None,
            failure_text: None,
        }
    }

    fn replay(entries: Vec<Entry>, missing: HarMissing) -> HarReplay {
        HarReplay {
            entries,
            dir: PathBuf::new(),
            missing,
        }
    }

    fn body_of(reply: Option<Reply>) -> String {
        match reply {
            Some(Reply::Fulfill { body, .. }) => String::from_utf8(body).expect("text"),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn url_and_method_match_exactly_a_post_by_its_body_and_headers_break_a_tie() {
        let har = replay(
            vec![
                entry("GET", "http://a/api?x=1", &[], None, "x1"),
                entry("POST", "http://a/api", &[], Some("{\"n\":1}"), "one"),
                entry("POST", "http://a/api", &[], Some("{\"n\":2}"), "two"),
                entry(
                    "GET",
                    "http://a/list",
                    &[("accept", "text/html")],
                    None,
                    "html",
                ),
                entry(
                    "GET",
                    "http://a/list",
                    &[("accept", "application/json")],
                    None,
                    "json",
                ),
            ],
            HarMissing::Abort,
        );
        let none: &[(String, String)] = &[];
        assert_eq!(
            body_of(har.reply("GET", "http://a/api?x=1#top", none, None)),
            "x1"
        );
        assert!(matches!(
            har.reply("GET", "http://a/api?x=2", none, None),
            Some(Reply::Abort(Abort::Failed))
        ));
        assert!(har.find("get", "http://a/api?x=1", none, None).is_none());
        assert_eq!(
            body_of(har.reply("POST", "http://a/api", none, Some(b"{\"n\":2}"))),
            "two"
        );
        assert!(
            har.find("POST", "http://a/api", none, Some(b"{\"n\":3}"))
                .is_none()
        );
        let json = [("Accept".to_string(), "application/json".to_string())];
        assert_eq!(
            body_of(har.reply("GET", "http://a/list", &json, None)),
            "json"
        );
        assert_eq!(
            body_of(har.reply("GET", "http://a/list", none, None)),
            "html"
        );
        let pass = replay(Vec::new(), HarMissing::Pass);
        assert!(pass.reply("GET", "http://a/", none, None).is_none());
    }

    #[test]
    fn a_multipart_body_matches_whatever_its_boundary_and_redacted_headers_are_not_sent() {
        let recorded = "--AAA\r\ncontent-disposition: form-data; name=\"f\"\r\n\r\nv\r\n--AAA--";
        let sent = "--BBB\r\ncontent-disposition: form-data; name=\"f\"\r\n\r\nv\r\n--BBB--";
        let har = replay(
            vec![entry(
                "POST",
                "http://a/up",
                &[("content-type", "multipart/form-data; boundary=AAA")],
                Some(recorded),
                "ok",
            )],
            HarMissing::Abort,
        );
        let ours = [(
            "content-type".to_string(),
            "multipart/form-data; boundary=BBB".to_string(),
        )];
        let reply = har.reply("POST", "http://a/up", &ours, Some(sent.as_bytes()));
        let Some(Reply::Fulfill { headers, .. }) = reply else {
            panic!("answered: {reply:?}");
        };
        assert_eq!(
            headers,
            [("content-type".to_string(), "text/plain".to_string())]
        );
    }
}
