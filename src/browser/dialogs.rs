//! JavaScript dialogs: a dialog blocks the page (and every evaluate) until answered, so each
//! is answered at once, recorded for the next read, and counted. The count is what tells a
//! page that shows one alert from a page that keeps opening them (see `tools::guard`): a
//! loop of dialogs is answered as fast as it opens, and only the count shows it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{
    EventJavascriptDialogOpening, HandleJavaScriptDialogParams,
};
use chromiumoxide::listeners::EventStream;
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::ChromeEvents;

/// Dialogs kept for the next read, at most: a page that loops on them is counted, not kept.
pub(super) const DIALOGS_KEPT: usize = 20;

/// Answers every dialog `opening` announces (accepting it), keeping the first
/// [`DIALOGS_KEPT`] since the last read in `chrome` and counting all in `answered`.
pub(super) fn answer_all(
    page: Page,
    mut opening: EventStream<EventJavascriptDialogOpening>,
    chrome: Arc<Mutex<ChromeEvents>>,
    answered: Arc<AtomicU64>,
    timeout: Duration,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(event) = opening.next().await {
            if let Ok(mut chrome) = chrome.lock()
                && chrome.dialogs.len() < DIALOGS_KEPT
            {
                chrome
                    .dialogs
                    .push((event.r#type.as_ref().to_string(), event.message.clone()));
            }
            let answer = HandleJavaScriptDialogParams::new(true);
            let _ = tokio::time::timeout(timeout, page.execute(answer)).await;
            answered.fetch_add(1, Ordering::Relaxed);
        }
    })
}
