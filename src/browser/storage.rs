//! What a tab's browser context holds for a signed-in session, read for `waymark state
//! save`: the cookies the page and its frames are sent (the app's, not those of a sign-in
//! provider the app redirected through).

use chromiumoxide::cdp::browser_protocol::network::{CookieSameSite, GetCookiesParams};

use super::commands::Commands;
use super::{BrowserError, ChromiumTab};
use crate::protocol::{Cookie, SameSite};

impl ChromiumTab {
    /// The cookies the tab's page and frames are sent. Their values go nowhere but the
    /// caller.
    pub(super) async fn context_cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        // The page's session answers for its own browser context only with Network's
        // command (Storage's answers for the browser's default context there).
        let reply = self
            .page
            .command(
                self.timeout,
                "reading the tab's cookies",
                GetCookiesParams::default(),
            )
            .await?;
        Ok(reply
            .result
            .cookies
            .into_iter()
            .map(|c| {
                let host_only = !c.domain.starts_with('.');
                Cookie {
                    domain: c.domain.trim_start_matches('.').to_ascii_lowercase(),
                    host_only,
                    path: c.path,
                    secure: c.secure,
                    http_only: c.http_only,
                    expires: (!c.session && c.expires > 0.0).then_some(c.expires),
                    same_site: c.same_site.map(|s| match s {
                        CookieSameSite::Strict => SameSite::Strict,
                        CookieSameSite::Lax => SameSite::Lax,
                        CookieSameSite::None => SameSite::None,
                    }),
                    name: c.name,
                    value: c.value,
                }
            })
            .collect())
    }
}
