//! `waymark mcp`: the tools served to an agent over MCP (stdio) until the client goes
//! away. The app is started (or checked) first; the browser on the first call that needs it.

use std::path::Path;
use std::sync::Arc;

use rmcp::ServiceExt;

use crate::exit::Exit;
use crate::mcp::{Server, checked_stdio};
use crate::session::{RunError, Session};
use crate::settings::Settings;
use crate::transcript::{Recorder, TranscriptHeader};

/// Serves the tools over stdio, recording every call to `record` when given; the exit code.
pub async fn serve(settings: &Settings, record: Option<&Path>) -> Result<Exit, RunError> {
    // The control page, when asked for, is the person's way in when the client cannot ask:
    // take the tab, answer, finish a handoff.
    let session = Session::builder(settings)?
        .run_id(format!("mcp-{}", std::process::id()))
        .start()
        .await?;
    let recorder = record
        .map(|path| Recorder::create(path, &TranscriptHeader::new(session.base().as_str())))
        .transpose()?;
    let server = Server::new(session, recorder);
    let inner = Arc::clone(&server.inner);
    let (stdio, written) = checked_stdio(tokio::io::stdin(), tokio::io::stdout());
    let running = server
        .serve(stdio)
        .await
        .map_err(|e| RunError::Mcp(e.to_string()))?;
    let ended = running.waiting().await;
    // The last answers are on their way to stdout: let them out before anything closes.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), written).await;
    match Arc::try_unwrap(inner) {
        Ok(inner) => inner.close().await,
        // A clone of the server outlived the transport: its tab goes now, its browser
        // when the process ends (every launched browser is killed then).
        Err(inner) => inner.close_tab().await,
    }
    match ended {
        Ok(_) => Ok(Exit::Passed),
        Err(e) => Err(RunError::Mcp(e.to_string())),
    }
}
