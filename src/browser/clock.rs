//! The clock script a tab's new documents get (`Page.addScriptToEvaluateOnNewDocument`,
//! which runs it in every frame of each new document before the document's own scripts):
//! one per tab, replaced at each change of the journey's clock, so that a document loaded
//! later starts where the clock is (see `tools::clock`, which writes the script).

use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, RemoveScriptToEvaluateOnNewDocumentParams,
    ScriptIdentifier,
};

use super::BrowserError;
use super::chromium::ChromiumTab;
use super::commands::Commands;

/// Makes `source` the clock script of `tab`'s new documents, in place of the one before.
///
/// The new one is added before the old is removed: a document that starts loading between
/// the two gets both (the later one only moves the clock to where it is now), never none.
pub(super) async fn set_clock(tab: &ChromiumTab, source: &str) -> Result<(), BrowserError> {
    let (page, timeout) = tab.page_and_timeout();
    let mut slot = tab.clock_script.lock().await;
    let added = page
        .command(
            timeout,
            "installing the clock for new documents",
            AddScriptToEvaluateOnNewDocumentParams::new(source),
        )
        .await?;
    let before = slot.replace(added.result.identifier.inner().clone());
    if let Some(before) = before {
        page.command(
            timeout,
            "removing the clock before",
            RemoveScriptToEvaluateOnNewDocumentParams::new(ScriptIdentifier::new(before)),
        )
        .await?;
    }
    Ok(())
}
