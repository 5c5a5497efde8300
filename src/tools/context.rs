//! The journey's browser context settings: `http_credentials`, `set_headers`,
//! `set_geolocation`, `grant_permissions` (see `browser::context_settings`). Each holds for
//! every tab the journey has and opens; the run's own (`--http-credentials`, `--header`)
//! stay under them. Credentials and header values are secrets: no round trip, error or
//! action names them, and the trace writes them `[redacted]` wherever a page shows them.
//!
//! All four are class `act`: each changes what the browser tells the app (who the person
//! is, what each request carries, where they are, what the page may do), so an agent's is
//! consented like `invoke`.

use super::verbs::{GeolocationArgs, HeadersArgs, HttpCredentialsArgs, PermissionsArgs};
use super::{RoundTrip, Tools, Verb};
use crate::browser::{
    ContextChange, Credentials, ExtraHeaders, Geolocation, SECRET_MIN_CHARS, Tab,
};
use crate::protocol::{ErrorCode, ToolError, quoted};

impl<T: Tab> Tools<T> {
    /// Answers servers' HTTP authentication challenges (basic, digest) with `args` from
    /// now on, in every tab of the journey.
    pub async fn http_credentials(&self, args: &HttpCredentialsArgs) -> RoundTrip {
        let work = async {
            self.keep_secret([args.pass.clone()]);
            self.shared.routes.set_credentials(Credentials {
                user: args.user.clone(),
                pass: args.pass.clone(),
            });
            self.apply_routes().await.map_err(|e| (None, e))?;
            self.read_back().await
        };
        self.call(Verb::HttpCredentials, None, None, work).await
    }

    /// Sends `args`' headers with every request of the journey's tabs from now on (in place
    /// of those it set before; over the run's `--header`).
    pub async fn set_headers(&self, args: &HeadersArgs) -> RoundTrip {
        let work = async {
            let headers = headers(args).map_err(|e| (None, e))?;
            self.keep_secret(headers.0.iter().map(|(_, v)| v.clone()));
            if let Ok(mut set) = self.shared.context.lock() {
                set.0 = Some(headers.clone());
            }
            self.change_every_tab(&ContextChange::Headers(headers))
                .await
                .map_err(|e| (None, e))?;
            self.read_back().await
        };
        self.call(Verb::SetHeaders, None, None, work).await
    }

    /// Makes the journey's tabs say the person is where `args` says (the page still needs
    /// the `geolocation` permission to ask).
    pub async fn set_geolocation(&self, args: &GeolocationArgs) -> RoundTrip {
        let work = async {
            let at = geolocation(args).map_err(|e| (None, e))?;
            if let Ok(mut set) = self.shared.context.lock() {
                set.1 = Some(at);
            }
            self.change_every_tab(&ContextChange::Geolocation(at))
                .await
                .map_err(|e| (None, e))?;
            self.read_back().await
        };
        self.call(Verb::SetGeolocation, None, None, work).await
    }

    /// Grants the app's origin the permissions `args` names, in the journey's context.
    pub async fn grant_permissions(&self, args: &PermissionsArgs) -> RoundTrip {
        let work = async {
            if args.permissions.is_empty() || args.permissions.iter().any(|p| p.trim().is_empty()) {
                let e = ToolError::new(
                    ErrorCode::InvalidArgument,
                    "`grant_permissions` takes a list of permission names (`geolocation`, `clipboard-read`…)",
                );
                return Err((None, e));
            }
            let change = ContextChange::Permissions {
                origin: self.base.origin().ascii_serialization(),
                names: args.permissions.clone(),
            };
            self.here()
                .tab
                .change_context(&change)
                .await
                .map_err(|e| (None, refused(e)))?;
            self.read_back().await
        };
        let target = args.permissions.join(",");
        self.call(Verb::GrantPermissions, Some(&target), None, work)
            .await
    }

    /// Gives a tab that joined the journey its headers and geolocation, if it set them.
    pub(super) async fn context_joined(&self, tab: &T) {
        let (headers, at) = self
            .shared
            .context
            .lock()
            .map(|c| c.clone())
            .unwrap_or_default();
        if let Some(headers) = headers {
            let _ = tab.change_context(&ContextChange::Headers(headers)).await;
        }
        if let Some(at) = at {
            let _ = tab.change_context(&ContextChange::Geolocation(at)).await;
        }
    }

    async fn change_every_tab(&self, change: &ContextChange) -> Result<(), ToolError> {
        for open in self.tabs.all() {
            if open.tab.is_closed() {
                continue;
            }
            open.tab.change_context(change).await.map_err(refused)?;
        }
        Ok(())
    }

    async fn read_back(&self) -> super::Outcome {
        self.read()
            .await
            .map(|s| (None, s, None))
            .map_err(|e| (None, e))
    }

    /// Writes `values` `[redacted]` in the journey's trace from now on.
    fn keep_secret(&self, values: impl IntoIterator<Item = String>) {
        if let Some(trace) = &self.trace {
            trace.also_redact(
                values
                    .into_iter()
                    .filter(|v| v.chars().count() >= SECRET_MIN_CHARS),
            );
        }
    }
}

/// Chromium's refusal of a setting (an unknown permission, a header it does not take) is
/// the journey's mistake; anything else is as the browser's errors are.
fn refused(e: crate::browser::BrowserError) -> ToolError {
    match e {
        crate::browser::BrowserError::Protocol(why) => {
            ToolError::new(ErrorCode::InvalidArgument, why)
        }
        other => super::browser_error(other),
    }
}

/// The headers `args` give, checked: names are tokens, values one line.
fn headers(args: &HeadersArgs) -> Result<ExtraHeaders, ToolError> {
    for (name, value) in &args.headers {
        let token = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token {
            return Err(ToolError::new(
                ErrorCode::InvalidArgument,
                format!("`set_headers`: `{}` is not a header name", quoted(name)),
            ));
        }
        if value.contains(['\r', '\n']) {
            return Err(ToolError::new(
                ErrorCode::InvalidArgument,
                format!("`set_headers`: the value of `{name}` holds a line break"),
            ));
        }
    }
    Ok(ExtraHeaders(
        args.headers
            .iter()
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect(),
    ))
}

/// The place `args` give, checked as Chromium (and Playwright) check it.
fn geolocation(args: &GeolocationArgs) -> Result<Geolocation, ToolError> {
    let accuracy = args.accuracy.unwrap_or(0.0);
    let fits = (-90.0..=90.0).contains(&args.latitude)
        && (-180.0..=180.0).contains(&args.longitude)
        && accuracy.is_finite()
        && accuracy >= 0.0;
    if !fits {
        return Err(ToolError::new(
            ErrorCode::InvalidArgument,
            "`set_geolocation`: latitude from -90 to 90, longitude from -180 to 180, accuracy 0 or more (metres)",
        ));
    }
    Ok(Geolocation {
        latitude: args.latitude,
        longitude: args.longitude,
        accuracy,
    })
}
