//! What a journey's browser context tells the sites it visits about the person: HTTP
//! credentials (answered to a server's challenge through the Fetch domain, beside the routes:
//! see `routes.rs`), extra request headers (`Network.setExtraHTTPHeaders`), the locale and the
//! time zone (`Emulation.setLocaleOverride`, `Emulation.setTimezoneOverride`), where the
//! person is (`Emulation.setGeolocationOverride`) and what the pages may do
//! (`Browser.setPermission`). The run's (`--http-credentials`, `--header`, `--locale`,
//! `--timezone`) are set on every tab before its first request, popups included; a journey
//! changes its own with `http_credentials`, `set_headers`, `set_geolocation` and
//! `grant_permissions`.
//!
//! The challenges are answered on the tab's session of waymark's own connection (`wire.rs`),
//! not chromiumoxide's: chromiumoxide's handler answers every `Fetch.authRequired` of its
//! sessions itself (with nothing, unless it holds credentials, and then it lets every paused
//! request through itself, which the routes on its session cannot share). There, Fetch
//! pauses every request (a challenge comes only for a paused one: Chromium takes no empty
//! patterns with `handleAuthRequests`) and each is let through at once, as Playwright does;
//! the routes' own Fetch on chromiumoxide's session sees them as before. A challenge is
//! answered once per request; made again (the credentials were wrong) it is cancelled, as
//! Playwright does, and the page gets the server's 401.
//!
//! Credentials and header values are secrets: their `Debug` writes `[redacted]`, and no
//! error here names one.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::{
    BrowserContextId, GetVersionParams, PermissionDescriptor, PermissionSetting,
    SetPermissionParams,
};
use chromiumoxide::cdp::browser_protocol::emulation::{
    SetGeolocationOverrideParams, SetLocaleOverrideParams, SetTimezoneOverrideParams,
    SetUserAgentOverrideParams,
};
use chromiumoxide::cdp::browser_protocol::network::{Headers, SetExtraHttpHeadersParams};
use chromiumoxide::{Browser, Page};

use super::BrowserError;
use super::commands::Commands;
use super::wire::Wire;

/// A user name and password, answered to a server's HTTP authentication challenge (basic
/// or digest).
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The user name.
    pub user: String,
    /// The password.
    pub pass: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials([redacted])")
    }
}

/// Headers sent with every request, by name; their values are secrets.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ExtraHeaders(pub Vec<(String, String)>);

impl std::fmt::Debug for ExtraHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|(n, _)| n.as_str()).collect();
        write!(f, "ExtraHeaders({names:?}, values [redacted])")
    }
}

impl ExtraHeaders {
    /// These headers with `over`'s set over them (a name in both, in any case, is
    /// `over`'s).
    pub fn with(&self, over: &ExtraHeaders) -> ExtraHeaders {
        let mut all: Vec<(String, String)> = self
            .0
            .iter()
            .filter(|(n, _)| !over.0.iter().any(|(o, _)| o.eq_ignore_ascii_case(n)))
            .cloned()
            .collect();
        all.extend(over.0.iter().cloned());
        ExtraHeaders(all)
    }
}

/// What the run sets on every tab of every journey.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContextSettings {
    /// `--http-credentials USER:PASS`.
    pub credentials: Option<Credentials>,
    /// `--header "Name: value"`, in order.
    pub headers: ExtraHeaders,
    /// `--locale` (`de-DE`): `navigator.language`, `Intl`'s default, `Accept-Language`.
    pub locale: Option<String>,
    /// `--timezone` (`Europe/Berlin`): the time zone of `Date` and `Intl`.
    pub timezone: Option<String>,
}

/// Secret values shorter than this are not searched for in what is written: they would
/// turn every word holding them into `[redacted]`.
pub const SECRET_MIN_CHARS: usize = 4;

impl ContextSettings {
    /// The values written `[redacted]` wherever they would appear: the password and each
    /// header's value (those of [`SECRET_MIN_CHARS`] or more).
    pub fn secret_values(&self) -> Vec<String> {
        let pass = self.credentials.iter().map(|c| c.pass.clone());
        let headers = self.headers.0.iter().map(|(_, v)| v.clone());
        pass.chain(headers)
            .filter(|v| v.chars().count() >= SECRET_MIN_CHARS)
            .collect()
    }
}

/// Where the browser says the person is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geolocation {
    /// Degrees north, -90 to 90.
    pub latitude: f64,
    /// Degrees east, -180 to 180.
    pub longitude: f64,
    /// How sure, in metres.
    pub accuracy: f64,
}

/// A change a journey makes to its context's settings, in one of its tabs.
#[derive(Debug, Clone, PartialEq)]
pub enum ContextChange {
    /// The journey's own headers (over the run's).
    Headers(ExtraHeaders),
    /// Where the person is.
    Geolocation(Geolocation),
    /// Permissions granted to `origin`, by the web's names (`geolocation`,
    /// `clipboard-read`): for the whole browser context.
    Permissions {
        /// The origin they are granted to (`http://127.0.0.1:8080`).
        origin: String,
        /// Their names.
        names: Vec<String>,
    },
}

/// Sets `settings`' headers, locale and time zone on `page` (credentials are the router's).
pub(super) async fn apply(
    page: &Page,
    settings: &ContextSettings,
    timeout: Duration,
) -> Result<(), BrowserError> {
    if !settings.headers.0.is_empty() {
        set_headers(page, &settings.headers, timeout).await?;
    }
    if let Some(locale) = &settings.locale {
        let params = SetLocaleOverrideParams {
            locale: Some(locale.clone()),
        };
        page.command(timeout, "setting the locale", params)
            .await
            .map_err(|e| refused("the locale", locale, e))?;
        // `navigator.language` and `Accept-Language` follow the user agent's languages, as
        // Playwright sets them: the browser's own user agent, with the locale's language.
        let version = page
            .command(
                timeout,
                "asking the user agent",
                GetVersionParams::default(),
            )
            .await?;
        let mut agent = SetUserAgentOverrideParams::new(version.result.user_agent.clone());
        agent.accept_language = Some(locale.clone());
        page.command(timeout, "setting the languages", agent)
            .await
            .map_err(|e| refused("the locale", locale, e))?;
    }
    if let Some(zone) = &settings.timezone {
        let params = SetTimezoneOverrideParams::new(zone.clone());
        page.command(timeout, "setting the time zone", params)
            .await
            .map_err(|e| refused("the time zone", zone, e))?;
    }
    Ok(())
}

/// Chromium's refusal of a setting, naming it (not a secret).
fn refused(what: &str, value: &str, e: BrowserError) -> BrowserError {
    match e {
        BrowserError::Protocol(why) => {
            BrowserError::Protocol(format!("Chromium refused {what} `{value}`: {why}"))
        }
        other => other,
    }
}

async fn set_headers(
    page: &Page,
    headers: &ExtraHeaders,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let map: serde_json::Map<String, serde_json::Value> = headers
        .0
        .iter()
        .map(|(n, v)| (n.clone(), serde_json::Value::from(v.clone())))
        .collect();
    let params = SetExtraHttpHeadersParams::new(Headers::new(serde_json::Value::Object(map)));
    // Chromium's refusal names the header, never its value; the command's own text is not
    // part of the error.
    page.command(timeout, "setting extra headers", params)
        .await
        .map(|_| ())
        .map_err(|e| match e {
            BrowserError::Protocol(why) => BrowserError::Protocol(format!(
                "Chromium refused the extra headers ({}): {why}",
                names(headers)
            )),
            other => other,
        })
}

fn names(headers: &ExtraHeaders) -> String {
    let names: Vec<String> = headers.0.iter().map(|(n, _)| format!("`{n}`")).collect();
    names.join(", ")
}

/// Makes `change` in `page`'s tab (the run's headers `base` under the journey's), or, for
/// permissions, in its browser context `context` through `browser`.
pub(super) async fn change(
    page: &Page,
    (browser, context): (Option<&Browser>, Option<&BrowserContextId>),
    base: &ExtraHeaders,
    change: &ContextChange,
    timeout: Duration,
) -> Result<(), BrowserError> {
    match change {
        ContextChange::Headers(own) => set_headers(page, &base.with(own), timeout).await,
        ContextChange::Geolocation(at) => {
            let params = SetGeolocationOverrideParams {
                latitude: Some(at.latitude),
                longitude: Some(at.longitude),
                accuracy: Some(at.accuracy),
                ..SetGeolocationOverrideParams::default()
            };
            page.command(timeout, "setting the geolocation", params)
                .await
                .map(|_| ())
        }
        ContextChange::Permissions { origin, names } => {
            let browser = browser
                .ok_or_else(|| BrowserError::Protocol("the tab's browser is gone".to_string()))?;
            for name in names {
                let mut params = SetPermissionParams::new(
                    PermissionDescriptor::new(name.clone()),
                    PermissionSetting::Granted,
                );
                params.origin = Some(origin.clone());
                params.browser_context_id = context.cloned();
                browser
                    .command(timeout, "granting a permission", params)
                    .await
                    .map_err(|e| refused("the permission", name, e))?;
            }
            Ok(())
        }
    }
}

/// A tab's answers to authentication challenges: the credentials they give now, and the
/// task answering (from the first credentials on).
#[derive(Default)]
pub(super) struct Challenges {
    credentials: Arc<Mutex<Option<Credentials>>>,
    answering: std::sync::OnceLock<tokio::task::JoinHandle<()>>,
    enabled: tokio::sync::Mutex<bool>,
}

impl Drop for Challenges {
    fn drop(&mut self) {
        if let Some(task) = self.answering.get() {
            task.abort();
        }
    }
}

impl Challenges {
    /// Answers the challenges of the tab at `session` of `wire` with `credentials` from now
    /// on (none: not at all, the browser's own way).
    pub(super) async fn answer_with(
        &self,
        (wire, session): (&Arc<Wire>, &str),
        credentials: Option<Credentials>,
        timeout: Duration,
    ) -> Result<(), BrowserError> {
        let wanted = credentials.is_some();
        if let Ok(mut now) = self.credentials.lock() {
            *now = credentials;
        }
        let mut enabled = self.enabled.lock().await;
        if *enabled == wanted {
            return Ok(());
        }
        self.answering.get_or_init(|| {
            let events = wire.events(session);
            let given = Arc::clone(&self.credentials);
            tokio::spawn(answer_all(
                Arc::clone(wire),
                session.to_string(),
                events,
                given,
            ))
        });
        let (method, params) = match wanted {
            true => (
                "Fetch.enable",
                serde_json::json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}],
                                   "handleAuthRequests": true}),
            ),
            false => ("Fetch.disable", serde_json::json!({})),
        };
        let sent = tokio::time::timeout(timeout, wire.call(Some(session), method, params)).await;
        match sent {
            Ok(Ok(_)) => {
                *enabled = wanted;
                Ok(())
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(BrowserError::Timeout {
                what: format!("answering authentication challenges (`{method}`)"),
                after: timeout,
            }),
        }
    }
}

impl super::ChromiumTab {
    /// Answers the tab's challenges with the journey's credentials in `book`, else the
    /// run's (on its session of waymark's own connection, made for it if need be).
    pub(super) async fn answer_challenges(
        &self,
        book: &super::RouteBook,
    ) -> Result<(), BrowserError> {
        let credentials = book.credentials().or_else(|| self.challenges.0.clone());
        if credentials.is_none() && !self.navigator.initialized() {
            return Ok(());
        }
        self.wire().await?;
        if let Some((wire, session)) = self.navigator.get() {
            let at = (wire, session.as_str());
            let timeout = self.page_and_timeout().1;
            self.challenges
                .1
                .answer_with(at, credentials, timeout)
                .await?;
        }
        Ok(())
    }
}

/// Lets every paused request of `session` through, and answers each challenge with the
/// credentials given (once per request; cancelled when made again).
async fn answer_all(
    wire: Arc<Wire>,
    session: String,
    mut events: tokio::sync::mpsc::UnboundedReceiver<serde_json::Value>,
    credentials: Arc<Mutex<Option<Credentials>>>,
) {
    let mut tried: HashSet<String> = HashSet::new();
    while let Some(event) = events.recv().await {
        let params = &event["params"];
        let Some(id) = params["requestId"].as_str() else {
            continue;
        };
        let (method, answer) = match event["method"].as_str() {
            Some("Fetch.requestPaused") => (
                "Fetch.continueRequest",
                serde_json::json!({"requestId": id}),
            ),
            Some("Fetch.authRequired") => {
                let first = tried.insert(id.to_string());
                let given = credentials.lock().ok().and_then(|c| c.clone());
                let response = match given {
                    Some(c) if first => serde_json::json!({"response": "ProvideCredentials",
                        "username": c.user, "password": c.pass}),
                    _ => serde_json::json!({"response": "CancelAuth"}),
                };
                (
                    "Fetch.continueWithAuth",
                    serde_json::json!({"requestId": id, "authChallengeResponse": response}),
                )
            }
            _ => continue,
        };
        // Each answer on its own: none waits behind another's.
        let (wire, session) = (Arc::clone(&wire), session.clone());
        tokio::spawn(async move {
            let _ = wire.call(Some(&session), method, answer).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_not_written_by_debug_and_the_journeys_headers_win() {
        let c = Credentials {
            user: "ada".into(),
            pass: "hunter2".into(),
        };
        assert!(!format!("{c:?}").contains("hunter2"));
        let run = ExtraHeaders(vec![
            ("X-Tenant".into(), "acme".into()),
            ("X-Trace".into(), "t".into()),
        ]);
        assert!(!format!("{run:?}").contains("acme"));
        let own = ExtraHeaders(vec![("x-tenant".into(), "globex".into())]);
        assert_eq!(
            run.with(&own).0,
            [
                ("X-Trace".to_string(), "t".to_string()),
                ("x-tenant".to_string(), "globex".to_string())
            ]
        );
    }
}
