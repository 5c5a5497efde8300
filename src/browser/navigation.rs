//! A navigation's load, seen on the tab's own events; and what Chromium's error page stands
//! for: the address a navigation failed to load, and the network error it failed with, for
//! a round trip that says where a click tried to go.
//!
//! chromiumoxide would wait for the load itself, and misses it (issue 54): its watcher
//! reads the frame's lifecycle only between batches of the browser's messages, and a
//! `Page.frameStartedLoading` clears what it read. A page that moves to another fragment
//! just after its `load` (a hash router setting its default route from a deferred ready
//! handler, as a TodoMVC app does: `frameStartedLoading`, `navigatedWithinDocument`,
//! `frameStoppedLoading`, and no new `load`) clears it in the same batch as the `load` when
//! the browser's messages come faster than the handler reads them — one navigation in a
//! couple of hundred with two browsers busy on two cores — and the navigation's answer
//! never came: 30 s later, "Request timed out". Here the command goes on a connection of
//! waymark's own (see `wire.rs`) and the load is the new document's `load` lifecycle event
//! on a subscription taken before the command: events queue there, none is missed, and
//! nothing is read between batches.

use std::collections::HashSet;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::network::LoaderId;
use chromiumoxide::cdp::browser_protocol::page::{
    EventLifecycleEvent, EventLoadEventFired, FrameId, GetNavigationHistoryParams, NavigateParams,
    NavigateReturns,
};
use futures::StreamExt;

use super::commands::{Commands, bounded};
use super::wire::Wire;
use super::{BrowserError, ChromiumTab};

/// Chromium's error for a navigation that ended without a document: a download, a `204`,
/// a navigation another one replaced.
const ABORTED: &str = "net::ERR_ABORTED";

/// What is known of a navigation under way: the browser's answer to `Page.navigate`, and
/// the main frame's lifecycle events since it was sent.
#[derive(Debug, Default)]
pub(super) struct Load {
    answer: Option<NavigateReturns>,
    /// The document the frame committed last (its `init`), since the command.
    committed: Option<LoaderId>,
    /// The documents whose `load` came, since the command.
    loaded: HashSet<LoaderId>,
}

impl Load {
    pub(super) fn answered(&mut self, answer: NavigateReturns) {
        self.answer = Some(answer);
    }

    /// A lifecycle event of the main frame.
    pub(super) fn lifecycle(&mut self, name: &str, loader: &LoaderId) {
        match name {
            "init" => self.committed = Some(loader.clone()),
            "load" => {
                self.loaded.insert(loader.clone());
            }
            _ => {}
        }
    }

    /// How the navigation ended, once it has: loaded (or moved within its document, or
    /// became a download), or failed with the network's error once its error page loaded.
    pub(super) fn outcome(&self) -> Option<Result<(), BrowserError>> {
        let answer = self.answer.as_ref()?;
        let failed = || {
            answer
                .error_text
                .clone()
                .map_or(Ok(()), |e| Err(BrowserError::Navigation(e)))
        };
        if answer.is_download == Some(true) {
            return Some(Ok(()));
        }
        let Some(loader) = &answer.loader_id else {
            // Another fragment of the same document: nothing loads.
            return Some(failed());
        };
        if answer.error_text.as_deref() == Some(ABORTED) {
            // No document comes (a `204`, a navigation another replaced).
            return Some(failed());
        }
        // The document committed last: this navigation's, or one its page went on to
        // (a script's redirect) before it loaded. An error page commits as the
        // navigation's own document.
        let document = self.committed.as_ref().unwrap_or(loader);
        self.loaded.contains(document).then(failed)
    }

    /// What the navigation was waiting for when its bound of `after` passed: the answer
    /// to `Page.navigate` (the server sent no response), or its document's `load` (a
    /// subresource or a script held it); or the network's error, when it had failed.
    pub(super) fn late(&self, after: Duration) -> BrowserError {
        // A navigation the network failed is that failure, its error page loaded or not.
        if let Some(error) = self.answer.as_ref().and_then(|a| a.error_text.clone()) {
            return BrowserError::Navigation(error);
        }
        let what = match &self.answer {
            None => "no answer to `Page.navigate` (no response from the server yet)",
            Some(_) => "no `load` event (the document did not finish loading)",
        };
        let ms = after.as_millis();
        tracing::warn!(target: "waymark::cdp", "request timed out: navigating, {what} after {ms} ms");
        BrowserError::Timeout {
            what: what.to_string(),
            after,
        }
    }
}

impl ChromiumTab {
    /// Navigates the main frame to `url` (another document: a fragment of the one on
    /// screen is `fragment_navigation`'s) and waits until its document loaded, within
    /// `bound`. A navigation that fails with an error page returns once that page loaded.
    pub(super) async fn load(&self, url: &str, bound: Duration) -> Result<(), BrowserError> {
        let deadline = tokio::time::Instant::now() + bound;
        let what = format!("loading `{url}`");
        let main = self
            .main_frame
            .clone()
            .unwrap_or_else(|| FrameId::new(self.page.target_id().inner().clone()));
        // Before the command: the new document's events queue here from the start.
        let mut events = bounded(
            bound,
            &what,
            self.page.event_listener::<EventLifecycleEvent>(),
        )
        .await?;
        let params = serde_json::to_value(NavigateParams::new(url))
            .map_err(|e| BrowserError::Protocol(e.to_string()))?;
        let sent = async {
            let (wire, session) = self.wire().await?;
            let reply = wire.call(Some(session), "Page.navigate", params).await;
            reply.map_err(|e| match e {
                // The browser refused the address ("Cannot navigate to invalid URL").
                BrowserError::Protocol(why) => BrowserError::Navigation(why),
                other => other,
            })
        };
        let mut sent = std::pin::pin!(sent);
        let mut load = Load::default();
        let mut answered = false;
        loop {
            if let Some(outcome) = load.outcome() {
                return outcome;
            }
            tokio::select! {
                reply = &mut sent, if !answered => {
                    answered = true;
                    let answer = serde_json::from_value::<NavigateReturns>(reply?)
                        .map_err(|e| BrowserError::Protocol(format!("`Page.navigate`: {e}")))?;
                    load.answered(answer);
                }
                event = events.next() => match event {
                    Some(event) if event.frame_id == main => {
                        load.lifecycle(&event.name, &event.loader_id);
                    }
                    Some(_) => {}
                    None => {
                        let gone = "the tab closed (the browser went away)";
                        return Err(BrowserError::Crashed(gone.into()));
                    }
                },
                () = tokio::time::sleep_until(deadline) => return Err(load.late(bound)),
            }
        }
    }

    /// What resolves once the tab's main frame next fires `load` (subscribed before this
    /// returns), or the tab went away; never, when the tab could not be watched.
    pub async fn next_load(&self) -> futures::future::BoxFuture<'static, ()> {
        let subscribed = bounded(
            self.timeout,
            "subscribing to loads",
            self.page.event_listener::<EventLoadEventFired>(),
        )
        .await;
        match subscribed {
            Ok(mut loads) => Box::pin(async move {
                loads.next().await;
            }),
            Err(_) => Box::pin(std::future::pending()),
        }
    }

    /// The tab's connection and session for `Page.navigate`, made at its first navigation.
    pub(super) async fn wire(&self) -> Result<(&Wire, &str), BrowserError> {
        let (wire, session) = self
            .navigator
            .get_or_try_init(|| async {
                let wire = Wire::to(&self.address).await?;
                let session = wire.attach(self.page.target_id().inner()).await?;
                Ok::<_, BrowserError>((wire, session))
            })
            .await?;
        Ok((wire, session))
    }
}

impl ChromiumTab {
    /// On Chromium's error page: the address that failed (the history entry keeps it) and
    /// the network error (`ERR_CONNECTION_REFUSED`) the tab's watcher heard the network
    /// report for it (see `setup.rs`), as far as known. Not read off the page: the full
    /// Chromium's shows the same name, the headless shell's shows nothing.
    pub(super) async fn failed_load(
        &self,
    ) -> Result<(Option<String>, Option<String>), BrowserError> {
        let history = self
            .page
            .command(
                self.timeout,
                "reading the tab's history",
                GetNavigationHistoryParams::default(),
            )
            .await?;
        let url = usize::try_from(history.result.current_index)
            .ok()
            .and_then(|i| history.result.entries.get(i))
            .map(|e| e.url.clone())
            .filter(|u| !u.starts_with("chrome-error:"));
        let code = self
            .load_error
            .lock()
            .ok()
            .and_then(|e| e.clone())
            .map(|e| e.trim_start_matches("net::").to_string())
            .filter(|c| c.starts_with("ERR_") && c.len() < 64);
        Ok((url, code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(loader: Option<&str>, error: Option<&str>, download: bool) -> NavigateReturns {
        NavigateReturns {
            frame_id: FrameId::new("F"),
            loader_id: loader.map(LoaderId::new),
            error_text: error.map(str::to_string),
            is_download: Some(download),
        }
    }

    /// Regression (issue 54): a TodoMVC app sets its default route (`#/all`) just after its
    /// `load`; chromiumoxide's watcher read the frame's lifecycle after the fragment's
    /// `frameStartedLoading` had cleared it and waited 30 s for a `load` that had come.
    /// Events are taken in order here, so the `load` counts whatever follows it.
    #[test]
    fn a_document_that_moves_to_a_fragment_after_its_load_has_loaded() {
        let mut load = Load::default();
        load.answered(answer(Some("L"), None, false));
        assert!(load.outcome().is_none(), "not loaded before its load");
        load.lifecycle("init", &LoaderId::new("L"));
        load.lifecycle("DOMContentLoaded", &LoaderId::new("L"));
        assert!(load.outcome().is_none());
        load.lifecycle("load", &LoaderId::new("L"));
        // What came next in the same batch changes nothing: no lifecycle event at all.
        assert!(matches!(load.outcome(), Some(Ok(()))));
    }

    #[test]
    fn a_load_that_came_before_the_answer_counts_once_the_answer_comes() {
        let mut load = Load::default();
        load.lifecycle("init", &LoaderId::new("L"));
        load.lifecycle("load", &LoaderId::new("L"));
        assert!(load.outcome().is_none(), "no answer yet");
        load.answered(answer(Some("L"), None, false));
        assert!(matches!(load.outcome(), Some(Ok(()))));
    }

    #[test]
    fn the_previous_documents_load_does_not_count() {
        let mut load = Load::default();
        load.lifecycle("load", &LoaderId::new("OLD"));
        load.answered(answer(Some("L"), None, false));
        assert!(load.outcome().is_none());
    }

    #[test]
    fn a_script_redirect_before_the_load_waits_for_the_document_it_led_to() {
        let mut load = Load::default();
        load.answered(answer(Some("L"), None, false));
        load.lifecycle("init", &LoaderId::new("L"));
        load.lifecycle("init", &LoaderId::new("NEXT"));
        assert!(load.outcome().is_none());
        load.lifecycle("load", &LoaderId::new("NEXT"));
        assert!(matches!(load.outcome(), Some(Ok(()))));
    }

    #[test]
    fn a_network_error_ends_once_its_error_page_loaded() {
        let mut load = Load::default();
        load.answered(answer(
            Some("L"),
            Some("net::ERR_CONNECTION_REFUSED"),
            false,
        ));
        assert!(load.outcome().is_none());
        load.lifecycle("init", &LoaderId::new("L"));
        load.lifecycle("load", &LoaderId::new("L"));
        assert!(matches!(
            load.outcome(),
            Some(Err(BrowserError::Navigation(e))) if e == "net::ERR_CONNECTION_REFUSED"
        ));
    }

    #[test]
    fn navigations_that_bring_no_document_end_at_their_answer() {
        let mut load = Load::default();
        load.answered(answer(Some("L"), Some(ABORTED), true));
        assert!(matches!(load.outcome(), Some(Ok(()))), "a download");
        let mut load = Load::default();
        load.answered(answer(Some("L"), Some(ABORTED), false));
        assert!(
            matches!(load.outcome(), Some(Err(BrowserError::Navigation(_)))),
            "a 204"
        );
        let mut load = Load::default();
        load.answered(answer(None, None, false));
        assert!(matches!(load.outcome(), Some(Ok(()))), "another fragment");
    }

    #[test]
    fn a_late_navigation_says_what_it_was_waiting_for() {
        let mut load = Load::default();
        let e = load.late(Duration::from_secs(3));
        assert!(
            e.to_string().contains("no answer to `Page.navigate`"),
            "{e}"
        );
        load.answered(answer(Some("L"), None, false));
        let e = load.late(Duration::from_secs(3));
        assert!(e.to_string().contains("no `load` event"), "{e}");
        assert!(e.to_string().contains("3000 ms"), "{e}");
        let mut load = Load::default();
        load.answered(answer(Some("L"), Some("net::ERR_NAME_NOT_RESOLVED"), false));
        assert!(matches!(
            load.late(Duration::from_secs(3)),
            BrowserError::Navigation(e) if e == "net::ERR_NAME_NOT_RESOLVED"
        ));
    }
}
