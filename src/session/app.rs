//! The app under test: a base URL checked reachable before any browser starts, or the
//! embedded demo app (in the layout asked for), served for as long as the session holds it.

use std::time::Duration;

use url::Url;

use super::RunError;
use crate::demo::DemoApp;
use crate::layout::Layout;

/// The app under test: the given base URL (checked reachable) or the embedded demo app,
/// kept alive as long as this value.
pub struct App {
    /// Base URL of the app.
    pub base: Url,
    _demo: Option<DemoApp>,
}

impl App {
    /// Parses and checks `base_url`, or starts the demo app in `layout`.
    pub async fn start(base_url: Option<&str>, layout: Layout) -> Result<App, RunError> {
        let Some(given) = base_url else {
            let demo = DemoApp::start_in(layout).await?;
            let base = Url::parse(demo.base_url()).map_err(|e| RunError::BaseUrl {
                url: demo.base_url().to_string(),
                why: e.to_string(),
            })?;
            return Ok(App {
                base,
                _demo: Some(demo),
            });
        };
        let bad = |why: String| RunError::BaseUrl {
            url: given.to_string(),
            why,
        };
        let base = Url::parse(given).map_err(|e| bad(e.to_string()))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(bad("only http and https apps can be driven".into()));
        }
        let host = base
            .host_str()
            .ok_or_else(|| bad("it has no host".into()))?;
        let port = base
            .port_or_known_default()
            .ok_or_else(|| bad("it has no port".into()))?;
        let unreachable = |why: String| RunError::Unreachable {
            url: given.to_string(),
            why,
        };
        match tokio::time::timeout(
            Duration::from_secs(5),
            tokio::net::TcpStream::connect((host, port)),
        )
        .await
        {
            Ok(Ok(_)) => Ok(App { base, _demo: None }),
            Ok(Err(e)) => Err(unreachable(e.to_string())),
            Err(_) => Err(unreachable("no answer within 5 s".into())),
        }
    }
}
