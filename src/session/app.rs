//! The app under test: a base URL (parsed and checked when the settings were resolved),
//! checked reachable before any browser starts, or the embedded demo app (in the layout
//! asked for), served for as long as the session holds it.

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
    /// Checks that the app at `base_url` (already parsed and checked, see
    /// [`app_url`](crate::settings::app_url)) answers, or starts the demo app in `layout`.
    pub async fn start(base_url: Option<&Url>, layout: Layout) -> Result<App, RunError> {
        let Some(base) = base_url else {
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
        let unreachable = |why: String| RunError::Unreachable {
            url: base.to_string(),
            why,
        };
        // `app_url` saw to both.
        let (Some(host), Some(port)) = (base.host_str(), base.port_or_known_default()) else {
            return Err(unreachable("it has no host and port".into()));
        };
        match tokio::time::timeout(
            Duration::from_secs(5),
            tokio::net::TcpStream::connect((host, port)),
        )
        .await
        {
            Ok(Ok(_)) => Ok(App {
                base: base.clone(),
                _demo: None,
            }),
            Ok(Err(e)) => Err(unreachable(e.to_string())),
            Err(_) => Err(unreachable("no answer within 5 s".into())),
        }
    }
}
