//! JavaScript dialogs: a dialog blocks the page (and every evaluate) until answered, so each
//! is answered at once, as the journey asked (`on_dialog`: accepted unless it said
//! otherwise, a prompt given its text), recorded for the next read and for the call's round
//! trip, and counted. The count is what tells a page that shows one alert from a page that
//! keeps opening them (see `tools::guard`): a loop of dialogs is answered as fast as it
//! opens, and only the count shows it.

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

/// Dialogs kept for the next read, and for the call's round trip, at most: a page that
/// loops on them is counted, not kept.
pub(super) const DIALOGS_KEPT: usize = 20;

/// How the tab answers the JavaScript dialogs its pages open.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DialogAnswer {
    /// Dismiss (`Cancel`) instead of accepting (`OK`); an alert is closed either way.
    pub dismiss: bool,
    /// What is typed into a `prompt` before it is accepted (none: its default text).
    pub text: Option<String>,
}

/// A JavaScript dialog the tab answered.
#[derive(Debug, Clone, PartialEq)]
pub struct AnsweredDialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    /// The text the page showed.
    pub message: String,
    /// How it was answered.
    pub answer: DialogAnswer,
}

/// What the tab's dialogs are answered with, and those answered since last taken.
#[derive(Debug, Default)]
pub(super) struct DialogBook {
    pub(super) answer: Mutex<DialogAnswer>,
    pub(super) answered: Mutex<Vec<AnsweredDialog>>,
}

/// Answers every dialog `opening` announces as `book` says, keeping the first
/// [`DIALOGS_KEPT`] since the last read in `chrome` (and since the last call in `book`)
/// and counting all in `answered`.
pub(super) fn answer_all(
    page: Page,
    mut opening: EventStream<EventJavascriptDialogOpening>,
    chrome: Arc<Mutex<ChromeEvents>>,
    book: Arc<DialogBook>,
    answered: Arc<AtomicU64>,
    timeout: Duration,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(event) = opening.next().await {
            let kind = event.r#type.as_ref().to_string();
            if let Ok(mut chrome) = chrome.lock()
                && chrome.dialogs.len() < DIALOGS_KEPT
            {
                chrome.dialogs.push((kind.clone(), event.message.clone()));
            }
            let mut how = book.answer.lock().map(|a| a.clone()).unwrap_or_default();
            // Only a prompt takes text; accepted without any, it keeps its own default,
            // as a person pressing OK leaves it (the browser would give the page "").
            if kind != "prompt" || how.dismiss {
                how.text = None;
            } else if how.text.is_none() {
                how.text = Some(event.default_prompt.clone().unwrap_or_default());
            }
            if let Ok(mut log) = book.answered.lock()
                && log.len() < DIALOGS_KEPT
            {
                log.push(AnsweredDialog {
                    kind,
                    message: event.message.clone(),
                    answer: how.clone(),
                });
            }
            let mut answer = HandleJavaScriptDialogParams::new(!how.dismiss);
            answer.prompt_text = how.text;
            let _ = tokio::time::timeout(timeout, page.execute(answer)).await;
            answered.fetch_add(1, Ordering::Relaxed);
        }
    })
}
