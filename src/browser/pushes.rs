//! Strings a page sends the runner of its own accord, through a function the runner gave
//! its window: a CDP binding (`Runtime.addBinding`), whose every call comes as a
//! `Runtime.bindingCalled` event. The collector sends a document's first read this way
//! at the end of its load (see `prime` in `src/collector/js/07-collect.js`), where a read
//! the runner asked for after the load waited behind the page's first frame.
//!
//! The events come on the tab's own connection in the order the page sent them, but not
//! in order with anything else: the document's `load` (see `navigation.rs`), and answers
//! to evaluations made after a push, can come before it (see `first_read.rs` in
//! `src/tools/`). And the collector's early part, the script that sends it.

use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, RemoveScriptToEvaluateOnNewDocumentParams,
    ScriptIdentifier,
};
use chromiumoxide::cdp::js_protocol::runtime::{AddBindingParams, EventBindingCalled};
use chromiumoxide::listeners::EventStream;
use futures::{FutureExt, StreamExt};

use super::BrowserError;
use super::commands::{Commands, bounded};

/// A tab's pushes: the binding's name and its events, once allowed.
#[derive(Default)]
pub(super) struct Pushes {
    events: tokio::sync::Mutex<Option<(String, EventStream<EventBindingCalled>)>>,
}

impl Pushes {
    /// Gives the tab's documents from now on the function `name` (once per tab: a second
    /// call with the same name does nothing, one with another name replaces the first's
    /// subscription, not its binding).
    pub(super) async fn allow(
        &self,
        page: &Page,
        name: &str,
        timeout: Duration,
    ) -> Result<(), BrowserError> {
        if self
            .events
            .lock()
            .await
            .as_ref()
            .is_some_and(|(had, _)| had == name)
        {
            return Ok(());
        }
        let what = "subscribing to what the page sends";
        // Subscribed before the binding exists: no call is missed.
        let events = bounded(timeout, what, page.event_listener::<EventBindingCalled>()).await?;
        page.command(
            timeout,
            "giving the page a function to send with",
            AddBindingParams::new(name),
        )
        .await?;
        *self.events.lock().await = Some((name.to_string(), events));
        Ok(())
    }

    /// The next string pushed through the binding, within `bound` (see [`Tab::pushed`]).
    ///
    /// [`Tab::pushed`]: super::Tab::pushed
    pub(super) async fn next(&self, bound: Duration) -> Option<String> {
        let mut events = self.events.lock().await;
        let (name, stream) = events.as_mut()?;
        let deadline = tokio::time::Instant::now() + bound;
        loop {
            // What is queued already comes first, whatever the bound.
            let event = match stream.next().now_or_never() {
                Some(event) => event,
                None if bound.is_zero() => return None,
                None => tokio::time::timeout_at(deadline, stream.next())
                    .await
                    .ok()?,
            };
            // The stream ends with the tab.
            let event = event?;
            if event.name == *name {
                return Some(event.payload.clone());
            }
        }
    }
}

/// The collector's early part a tab's new documents get (see [`Tab::set_early`]), and the
/// browser's name for that script: given once, replaced by another.
///
/// [`Tab::set_early`]: super::Tab::set_early
#[derive(Default)]
pub(super) struct Early(tokio::sync::Mutex<Option<(String, ScriptIdentifier)>>);

impl Early {
    pub(super) async fn set(
        &self,
        page: &Page,
        source: &str,
        timeout: Duration,
    ) -> Result<(), BrowserError> {
        let mut early = self.0.lock().await;
        if early.as_ref().is_some_and(|(had, _)| had == source) {
            return Ok(());
        }
        if let Some((_, id)) = early.take() {
            let remove = RemoveScriptToEvaluateOnNewDocumentParams::new(id);
            page.command(timeout, "removing a script for new documents", remove)
                .await?;
        }
        let add = AddScriptToEvaluateOnNewDocumentParams::new(source);
        let added = page
            .command(timeout, "installing the collector for new documents", add)
            .await?;
        *early = Some((source.to_string(), added.result.identifier));
        Ok(())
    }
}
