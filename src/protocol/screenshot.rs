//! How the control page shows a tab: a source of screenshots the browser makes and the hub
//! holds, named here so that neither side imports the other.

use std::sync::Arc;

/// Takes a PNG of one tab for the control page (or says why it could not). It should hold
/// the tab weakly: the hub keeps it as long as the tab is registered.
pub type ScreenshotSource =
    Arc<dyn Fn() -> futures::future::BoxFuture<'static, Result<Vec<u8>, String>> + Send + Sync>;
