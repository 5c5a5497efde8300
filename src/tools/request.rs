//! `request`: an HTTP request to the app from the journey, as its signed-in user.
//!
//! It is made from the journey's page (`fetch` with `credentials: 'include'`), not by an
//! HTTP client of waymark's over CDP with the context's cookies copied: the browser then
//! sends exactly what it would for the app (its `HttpOnly` cookies, `SameSite` as it
//! applies it, the same origin, the same proxy and certificates), no second client is
//! kept in step with it, and the journey's routes answer it as they answer the app. So
//! the tab must show a page of the app (a `navigate` first): a page elsewhere is refused.
//! The answer's body is cut at [`BODY_CAP`] characters in the page, before it crosses.

use serde::{Deserialize, Serialize};

use super::verbs::RequestArgs;
use super::{RoundTrip, Tools, Verb};
use crate::browser::Tab;
use crate::protocol::{ErrorCode, ToolError, quoted};

/// The most characters of a body a `request` returns: past it the text is cut (`cut`).
pub const BODY_CAP: usize = 1 << 20;

/// What a field, header or JSON key named like a secret is recorded as.
const SECRET_WORDS: [&str; 6] = [
    "password",
    "passwd",
    "secret",
    "token",
    "authorization",
    "cookie",
];

/// What the server answered a `request`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// The response headers, by lower-case name.
    pub headers: std::collections::BTreeMap<String, String>,
    /// The body, parsed, when it is JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<serde_json::Value>,
    /// The body as text, when it is not JSON (or was cut).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The body was longer than [`BODY_CAP`] characters and is cut there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
    /// The body's length in characters, whole.
    pub length: u64,
}

/// What the page answers.
#[derive(Deserialize)]
struct Answer {
    status: Option<u16>,
    #[serde(default)]
    headers: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    text: String,
    #[serde(default)]
    cut: bool,
    #[serde(default)]
    length: u64,
    error: Option<String>,
}

impl<T: Tab> Tools<T> {
    /// Makes the request `args` from the current tab's page, with its cookies.
    pub async fn request(&self, args: &RequestArgs) -> RoundTrip {
        let method = args.method();
        let target = format!("{method} {}", args.route);
        let work = async {
            let response = self.fetch(args, &method).await.map_err(|e| (None, e))?;
            if let Ok(mut slot) = self.shared.response.lock() {
                *slot = Some(response);
            }
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        let mut rt = self
            .call_as(Verb::Request, args.class(), Some(&target), None, work)
            .await;
        rt.response = self.shared.response.lock().ok().and_then(|mut r| r.take());
        rt
    }

    async fn fetch(&self, args: &RequestArgs, method: &str) -> Result<Response, ToolError> {
        let invalid = |why: String| ToolError::new(ErrorCode::InvalidArgument, why);
        let url = self.resolve(&args.route)?;
        let here = self.current_route_url().await;
        if !here
            .as_ref()
            .is_some_and(|u| u.origin() == self.base.origin())
        {
            return Err(invalid(format!(
                "`request` of `{}` needs a page of the app to send it from (its cookies are the \
                 page's): `navigate` first",
                quoted(&args.route)
            )));
        }
        let mut headers = args.headers.clone().unwrap_or_default();
        let body = match (&args.json, &args.form) {
            (Some(_), Some(_)) => {
                return Err(invalid("`request`: a body is `json` or `form`".into()));
            }
            (Some(json), None) => {
                headers
                    .entry("content-type".into())
                    .or_insert_with(|| "application/json".into());
                Some(json.to_string())
            }
            (None, Some(form)) => {
                headers
                    .entry("content-type".into())
                    .or_insert_with(|| "application/x-www-form-urlencoded".into());
                Some(
                    url::form_urlencoded::Serializer::new(String::new())
                        .extend_pairs(form)
                        .finish(),
                )
            }
            (None, None) => None,
        };
        if body.is_some() && matches!(method, "GET" | "HEAD") {
            return Err(invalid(format!("`request`: a {method} has no body")));
        }
        let given = serde_json::json!({
            "url": url.as_str(),
            "method": method,
            "headers": headers,
            "body": body,
            "cap": BODY_CAP,
        });
        let expr = format!(
            "(async function (a) {{ try {{ \
               var r = await fetch(a.url, {{ method: a.method, headers: a.headers, \
                 body: a.body === null ? undefined : a.body, credentials: 'include' }}); \
               var headers = {{}}; r.headers.forEach(function (v, k) {{ headers[k] = v; }}); \
               var text = a.method === 'HEAD' ? '' : await r.text(); \
               var length = text.length, cut = length > a.cap; \
               if (cut) text = text.slice(0, a.cap); \
               return JSON.stringify({{ status: r.status, headers: headers, text: text, \
                 cut: cut, length: length }}); \
             }} catch (e) {{ return JSON.stringify({{ error: String(e && e.message || e) }}); }} \
             }})({given})"
        );
        let answer = self
            .here()
            .tab
            .evaluate(&expr, self.options.load_timeout)
            .await
            .map_err(super::browser_error)?;
        let answer: Answer = serde_json::from_str(&answer)
            .map_err(|e| ToolError::new(ErrorCode::CaptureFailed, e.to_string()))?;
        let (Some(status), None) = (answer.status, &answer.error) else {
            let why = answer.error.unwrap_or_default();
            return Err(ToolError::new(
                ErrorCode::RequestFailed,
                format!(
                    "`request` {method} `{}` got no answer: {}",
                    quoted(url.as_str()),
                    quoted(&why)
                ),
            ));
        };
        let json = (!answer.cut)
            .then(|| serde_json::from_str::<serde_json::Value>(&answer.text).ok())
            .flatten()
            .filter(|_| !answer.text.is_empty());
        Ok(Response {
            status,
            headers: answer.headers,
            text: json.is_none().then_some(answer.text),
            json,
            cut: answer.cut,
            length: answer.length,
        })
    }

    /// The address the current tab shows, asked of the browser.
    async fn current_route_url(&self) -> Option<url::Url> {
        let (href, _) = self
            .here()
            .tab
            .describe(self.options.script_timeout)
            .await
            .ok()?;
        url::Url::parse(&href).ok()
    }
}

/// Replaces, in a request's recorded arguments, the values of the headers, form fields
/// and JSON keys named like secrets (`password`, `token`, `authorization`…): what a
/// secret field's fill is, a request's secret values are, recorded as `[redacted]`.
pub(super) fn redact(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                let lower = key.to_ascii_lowercase();
                if SECRET_WORDS.iter().any(|w| lower.contains(w)) {
                    *v = serde_json::Value::from(super::REDACTED);
                } else {
                    redact(v);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_values_of_a_request_are_redacted_wherever_they_sit() {
        let mut args = serde_json::json!({
            "route": "/api/login",
            "headers": {"Authorization": "Bearer abc", "x-tenant": "acme"},
            "form": {"user": "ann", "password": "hunter2"},
            "json": {"items": [{"api_token": "t0k", "name": "n"}]},
        });
        redact(&mut args);
        assert_eq!(args["headers"]["Authorization"], "[redacted]");
        assert_eq!(args["headers"]["x-tenant"], "acme");
        assert_eq!(args["form"]["password"], "[redacted]");
        assert_eq!(args["form"]["user"], "ann");
        assert_eq!(args["json"]["items"][0]["api_token"], "[redacted]");
        assert_eq!(args["json"]["items"][0]["name"], "n");
        assert_eq!(args["route"], "/api/login");
    }
}
