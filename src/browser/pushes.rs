//! Strings a page sends the runner of its own accord, through a function the runner gave
//! its window: a CDP binding (`Runtime.addBinding`), whose every call comes as a
//! `Runtime.bindingCalled` event. The collector sends a document's first read this way
//! at the end of its load (see `prime` in `src/collector/js/07-collect.js`), where a read
//! the runner asked for after the load waited behind the page's first frame; and a read
//! of many controls sends its records ahead in parts this way while it makes the rest (see
//! `src/tools/parts.rs`), which [`Pushes::part`] picks out.
//!
//! The events come on the tab's own connection in the order the page sent them, but not
//! in order with anything else: the document's `load` (see `navigation.rs`), and answers
//! to evaluations made after a push, can come before it (see `first_read.rs` in
//! `src/tools/`). And the collector's early part, the script that sends it.

use std::collections::VecDeque;
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

/// A tab's pushes: the binding's name and its events, once allowed, and the pushes a
/// search for a read's part passed over (see [`Pushes::part`]), which come first.
#[derive(Default)]
pub(super) struct Pushes {
    events: tokio::sync::Mutex<Option<Events>>,
}

struct Events {
    name: String,
    stream: EventStream<EventBindingCalled>,
    passed: VecDeque<String>,
}

/// What a read's part begins with (see `sendPart` in `src/collector/js/07-collect.js`).
const PART: &str = "c:";

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
            .is_some_and(|e| e.name == name)
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
        *self.events.lock().await = Some(Events {
            name: name.to_string(),
            stream: events,
            passed: VecDeque::new(),
        });
        Ok(())
    }

    /// The next string pushed through the binding, within `bound` (see [`Tab::pushed`]).
    ///
    /// [`Tab::pushed`]: super::Tab::pushed
    pub(super) async fn next(&self, bound: Duration) -> Option<String> {
        let mut events = self.events.lock().await;
        let events = events.as_mut()?;
        if let Some(passed) = events.passed.pop_front() {
            return Some(passed);
        }
        events.next(tokio::time::Instant::now() + bound).await
    }

    /// The next part of a read pushed with `prefix` (`c:`, the read's token and `:`; see
    /// [`Tab::pushed_part`]), within `bound`, without its prefix. Any other push met on the
    /// way is kept for [`next`](Pushes::next), in its order; a part of another read (one
    /// that failed after it sent some) is dropped.
    ///
    /// [`Tab::pushed_part`]: super::Tab::pushed_part
    pub(super) async fn part(&self, prefix: &str, bound: Duration) -> Option<String> {
        let mut events = self.events.lock().await;
        let events = events.as_mut()?;
        let deadline = tokio::time::Instant::now() + bound;
        loop {
            let mut pushed = events.next(deadline).await?;
            if pushed.starts_with(prefix) {
                pushed.drain(..prefix.len());
                return Some(pushed);
            }
            if !pushed.starts_with(PART) {
                events.passed.push_back(pushed);
            }
        }
    }
}

impl Events {
    /// The next push from the stream by `deadline` (what is queued already, whatever it).
    async fn next(&mut self, deadline: tokio::time::Instant) -> Option<String> {
        loop {
            let event = match self.stream.next().now_or_never() {
                Some(event) => event,
                None if deadline <= tokio::time::Instant::now() => return None,
                None => tokio::time::timeout_at(deadline, self.stream.next())
                    .await
                    .ok()?,
            };
            // The stream ends with the tab.
            let event = event?;
            if event.name == self.name {
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
