//! A cookie as every side holds it: the profiles and saved states of `control`, the
//! browser contexts `browser` sets and reads. Its value is a secret: no `Debug` output,
//! message or trace shows it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One cookie: of a profile, a saved state, or a tab's browser context.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cookie {
    /// Its name.
    pub name: String,
    /// Its value: a secret. Never printed (see the `Debug` impl).
    pub value: String,
    /// The host it belongs to, lowercase, without a leading dot.
    pub domain: String,
    /// Sent to `domain` only, not to its subdomains.
    pub host_only: bool,
    /// Its path.
    pub path: String,
    /// Sent over HTTPS only.
    pub secure: bool,
    /// Hidden from the page's scripts.
    pub http_only: bool,
    /// When it expires, in seconds since the Unix epoch; `None` for a session cookie.
    pub expires: Option<f64>,
    /// Its `SameSite` attribute, when it has one.
    pub same_site: Option<SameSite>,
}

impl fmt::Debug for Cookie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cookie")
            .field("name", &self.name)
            .field("value", &"<redacted>")
            .field("domain", &self.domain)
            .field("host_only", &self.host_only)
            .field("path", &self.path)
            .field("secure", &self.secure)
            .field("http_only", &self.http_only)
            .field("expires", &self.expires)
            .field("same_site", &self.same_site)
            .finish()
    }
}

/// A cookie's `SameSite` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SameSite {
    /// `Strict`.
    Strict,
    /// `Lax`.
    Lax,
    /// `None` (cross-site allowed).
    None,
}

impl Cookie {
    /// What makes two cookies the same cookie: its domain, path and name.
    pub(crate) fn key(&self) -> (String, String, String) {
        (self.domain.clone(), self.path.clone(), self.name.clone())
    }

    /// It expired at or before `now` (seconds since the Unix epoch).
    pub(crate) fn expired(&self, now: f64) -> bool {
        self.expires.is_some_and(|t| t <= now)
    }
}
