//! Routes: app-relative paths for what the page shows, and the one gate on where a journey
//! may navigate (the app's origin, never `javascript:`, `data:` or `file:`).

use url::Url;

use super::{ErrorCode, ToolError, Tools};
use crate::browser::Tab;
use crate::protocol::quoted;

impl<T: Tab> Tools<T> {
    /// The route of `url` relative to the app (path, query, and the fragment when it is a
    /// hash route: `#/…` or `#!/…`), or the URL itself when it is off the app's origin. An
    /// in-page fragment (`#section`) is not part of the route: it names a place on the same
    /// screen, while a hash-routed app shows a different screen after each `#/`.
    pub fn route_of(&self, url: &str) -> String {
        match Url::parse(url) {
            Ok(u) if u.origin() == self.base.origin() => {
                let mut route = u.path().to_string();
                if let Some(q) = u.query() {
                    route.push('?');
                    route.push_str(q);
                }
                if let Some(f) = u
                    .fragment()
                    .filter(|f| f.starts_with('/') || f.starts_with("!/"))
                {
                    route.push('#');
                    route.push_str(f);
                }
                route
            }
            _ => url.to_string(),
        }
    }

    /// The URL a route names, refused unless it is on the app's origin.
    pub(super) fn resolve(&self, route: &str) -> Result<Url, ToolError> {
        let lower = route.trim_start().to_ascii_lowercase();
        let refused = [
            "javascript:",
            "data:",
            "file:",
            "blob:",
            "about:",
            "chrome:",
            "view-source:",
        ];
        if let Some(scheme) = refused.iter().find(|s| lower.starts_with(**s)) {
            return Err(ToolError::new(
                ErrorCode::OffOrigin,
                format!(
                    "`{scheme}` URLs are refused; journeys navigate within the app at {}",
                    self.origin()
                ),
            ));
        }
        let url = self.base.join(route).map_err(|e| {
            ToolError::new(
                ErrorCode::InvalidArgument,
                format!("`{}` is not a route: {e}", quoted(route)),
            )
        })?;
        if url.origin() != self.base.origin() {
            return Err(ToolError::new(
                ErrorCode::OffOrigin,
                format!(
                    "`{}` is off the app's origin {}; journeys navigate within the app",
                    quoted(route),
                    self.origin()
                ),
            ));
        }
        Ok(url)
    }

    pub(super) fn origin(&self) -> String {
        self.base.origin().ascii_serialization()
    }

    /// A route's or a network wait's pattern as an absolute URL glob: an app-relative path
    /// (`/api/**`) on the app's origin, or an absolute `http(s)` URL as it is; anything else
    /// is `invalid_argument`, naming `what` the pattern is for.
    pub(super) fn absolute_pattern(&self, pattern: &str, what: &str) -> Result<String, ToolError> {
        if pattern.starts_with('/') {
            Ok(format!("{}{pattern}", self.origin()))
        } else if ["http://", "https://"]
            .iter()
            .any(|s| pattern.to_ascii_lowercase().starts_with(s))
        {
            Ok(pattern.to_string())
        } else {
            Err(ToolError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "`{}` is not a {what} pattern: an app-relative path (`/api/**`) or an absolute URL",
                    quoted(pattern)
                ),
            ))
        }
    }
}
