//! `waymark demo`: the embedded demo app, served until Ctrl-C.

use crate::demo::DemoApp;
use crate::exit::Exit;
use crate::session::RunError;
use crate::settings::Settings;

/// Serves the demo app in `--layout` and prints its URL; returns only on an error.
pub async fn serve(settings: &Settings) -> Result<Exit, RunError> {
    let demo = DemoApp::start_in(settings.layout).await?;
    crate::out::outln!("{}", demo.base_url());
    eprintln!(
        "serving the waymark demo app in its {} layout; Ctrl-C stops it",
        demo.layout()
    );
    std::future::pending::<()>().await;
    Ok(Exit::Passed)
}
