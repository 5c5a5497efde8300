//! A new document's first read, as its page sends it at the end of its load instead of
//! the runner asking for it after (see `prime` in `src/collector/js/07-collect.js`, and
//! `src/browser/pushes.rs` for how it travels). A read asked for after the load waited
//! behind the page's first frame: on a 10,000-control page 100-160 ms of paint, most of a
//! `navigate`'s read (issue 53). The page says at DOMContentLoaded, before its load, that
//! it will send it; so once the load is seen, either the announcement is there and the read
//! follows within moments, or none came and the runner asks, as it always did.

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{ToolOptions, Tools, capture_error};
use crate::browser::{BrowserError, Tab};
use crate::collector::{self, CollectorRead};
use crate::protocol::ToolError;
use crate::registry::Registry;
use crate::screen::InferredState;

/// The name of the function the runner gives every document's window to push with: one
/// per run, unguessable by a page (which never sees it: the collector takes it off the
/// window before the page's scripts run).
fn push_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(u64::from(std::process::id()));
        format!("__waymarkPush{:016x}", h.finish())
    })
}

/// Sets `tab` up before its first navigation: every document it loads gets the collector
/// before its own scripts, with the first read that `registry` and `options` ask for, and a
/// function to send that read with (see `collector::early`). Setting it up again the same
/// way does nothing; another way replaces the collector it was given. A run's session sets
/// up each tab it opens ahead of a journey while the journey before runs
/// (`session/mod.rs`), so that the journey's first `navigate` finds it done.
pub async fn prepare<T: Tab>(
    tab: &T,
    registry: &Registry,
    options: &ToolOptions,
) -> Result<(), BrowserError> {
    let push = push_name();
    let pushes = tab.allow_pushes(push).await.is_ok();
    let early = collector::early(
        registry.matchers().map(|m| m.as_ref()),
        &json!({"max": options.max_controls, "evidence": evidence_caps(options.evidence, false),
                "push": if pushes { Some(push) } else { None }}),
    );
    tab.set_early(&early).await
}

/// At most this many text runs, and this many controls without an anchor, per read.
const EVIDENCE_CAPS: (usize, usize) = (2_000, 2_000);

/// The caps of the evidence a read gathers: with `evidence` kept, or the controls without an
/// anchor asked for (`nodes`); else none.
pub(super) fn evidence_caps(evidence: bool, nodes: bool) -> serde_json::Value {
    if evidence || nodes {
        json!({"text": EVIDENCE_CAPS.0, "nodes": EVIDENCE_CAPS.1})
    } else {
        serde_json::Value::Null
    }
}

/// The document that announced its first read would come (see `prime` in
/// `src/collector/js/07-collect.js`), or an empty string.
const ANNOUNCED: &str = "(function () { var w = window.__waymark; return w && w.announced ? String(w.announced) : ''; })()";

/// One string a page pushed.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Pushed<'a> {
    /// `a:doc`: document `doc` took its first read and will send it after its load.
    Announced(&'a str),
    /// `r:doc:answer`: document `doc`'s read after its load, as a read answers.
    Read(&'a str, &'a str),
    /// `n:doc`: document `doc` could not take it; the runner asks.
    Declined(&'a str),
    /// Anything else (nothing the collector sends).
    Unknown,
}

impl<'a> Pushed<'a> {
    pub(super) fn parse(s: &'a str) -> Pushed<'a> {
        match s.split_at_checked(2) {
            Some(("a:", doc)) => Pushed::Announced(doc),
            Some(("n:", doc)) => Pushed::Declined(doc),
            Some(("r:", rest)) => match rest.split_once(':') {
                Some((doc, answer)) => Pushed::Read(doc, answer),
                None => Pushed::Unknown,
            },
            _ => Pushed::Unknown,
        }
    }
}

/// What the pushes queued so far say of the document that loaded last: the read it sent,
/// or the document that announced one still to come, or nothing (none announced, or it
/// said it could not). The last announcement is the loaded document's: one announced before
/// it went away before its load (a script sent the tab on).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) enum Awaited {
    #[default]
    Nothing,
    Coming(String),
    Came(String),
}

impl Awaited {
    pub(super) fn see(self, pushed: &str) -> Awaited {
        match (Pushed::parse(pushed), self) {
            (Pushed::Announced(doc), _) => Awaited::Coming(doc.to_string()),
            (Pushed::Read(doc, answer), Awaited::Coming(d)) if d == doc => {
                Awaited::Came(answer.to_string())
            }
            (Pushed::Declined(doc), Awaited::Coming(d)) if d == doc => Awaited::Nothing,
            (_, kept) => kept,
        }
    }
}

impl<T: Tab> Tools<T> {
    /// The read of a document that just loaded: the one its page sent at the end of the
    /// load when it did, else one asked for.
    pub(super) async fn first_read(&self) -> Result<InferredState, ToolError> {
        match self.sent_first_read().await {
            Some(sent) => sent,
            None => self.read_as(&self.view()).await,
        }
    }

    /// The read the document that just loaded sent at the end of its load, concluded; `None`
    /// when it sent none (it announced none, or could not take it, or moved within itself
    /// and loaded nothing, or it is in a frame of another site): the caller reads.
    pub(super) async fn sent_first_read(&self) -> Option<Result<InferredState, ToolError>> {
        let start = Instant::now();
        if self.acting_frame().is_some() {
            return None;
        }
        let answer = self.pushed_first_read().await?;
        Some(match collector::parse_answer::<CollectorRead>(answer) {
            // Collected in the load's last task, which the load's time holds already.
            Ok(read) => (self.conclude(read, start, &self.view(), false).await).map(|(s, _)| s),
            Err(e) => Err(capture_error(e)),
        })
    }

    /// Lets go of what every tab's documents pushed and no call took: before a navigation
    /// (nothing of an earlier document is taken for the next one's), and as each call ends
    /// (a document a click, a script or a popup loaded sends its first read as one
    /// `navigate` loaded does, and only `navigate` takes one; kept, those reads, the whole
    /// page's records each, heaped up until the tab's next `navigate`: for good in a journey
    /// that goes from page to page by its links).
    pub(super) async fn drop_unclaimed_pushes(&self) {
        for open in self.tabs.all() {
            while open.tab.pushed(Duration::ZERO).await.is_some() {}
        }
    }

    /// The first read the document that just loaded sent, when it announced one: waited for
    /// within the bound of any in-page call. None when it announced none, or said it could
    /// not take it, or it did not come in time: the caller asks for a read then.
    pub(super) async fn pushed_first_read(&self) -> Option<String> {
        let tab = &self.here().tab;
        let mut awaited = Awaited::Nothing;
        while let Some(pushed) = tab.pushed(Duration::ZERO).await {
            awaited = awaited.see(&pushed);
        }
        if awaited == Awaited::Nothing {
            // The binding's calls can come well after the page's `load` is seen, and after
            // answers to evaluations made since (one run in 25 of a small fixture page saw
            // neither the announcement nor the read until the next navigation). The page
            // says whether it announced a read: if so, it is on its way.
            let asked = tab
                .evaluate(ANNOUNCED, self.options.script_timeout)
                .await
                .ok();
            while let Some(pushed) = tab.pushed(Duration::ZERO).await {
                awaited = awaited.see(&pushed);
            }
            if let (Awaited::Nothing, Some(doc)) = (&awaited, asked.filter(|d| !d.is_empty())) {
                awaited = Awaited::Coming(doc);
            }
        }
        let deadline = tokio::time::Instant::now() + self.options.script_timeout;
        loop {
            match awaited {
                Awaited::Nothing => return None,
                Awaited::Came(answer) => return Some(answer),
                Awaited::Coming(_) => {
                    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                    let pushed = tab.pushed(left).await?;
                    awaited = awaited.see(&pushed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(pushes: &[&str]) -> Awaited {
        pushes.iter().fold(Awaited::Nothing, |a, p| a.see(p))
    }

    #[test]
    fn the_read_of_the_document_that_announced_it_is_taken() {
        assert_eq!(
            seen(&["a:x1", "r:x1:{\"token\":\"x1:1\"}\nrec:ords"]),
            Awaited::Came("{\"token\":\"x1:1\"}\nrec:ords".into())
        );
    }

    #[test]
    fn an_announced_read_not_yet_come_is_waited_for() {
        assert_eq!(seen(&["a:x1"]), Awaited::Coming("x1".into()));
    }

    #[test]
    fn a_later_announcement_replaces_an_earlier_document_and_its_read() {
        assert_eq!(
            seen(&["a:x1", "r:x1:{}", "a:x2"]),
            Awaited::Coming("x2".into())
        );
        assert_eq!(
            seen(&["a:x1", "a:x2", "r:x1:{}"]),
            Awaited::Coming("x2".into())
        );
    }

    #[test]
    fn a_document_that_could_not_read_leaves_the_read_to_the_runner() {
        assert_eq!(seen(&["a:x1", "n:x1"]), Awaited::Nothing);
        assert_eq!(seen(&["r:x1:{}"]), Awaited::Nothing);
        assert_eq!(seen(&["junk", "a"]), Awaited::Nothing);
    }

    #[test]
    fn the_name_is_one_per_run() {
        assert_eq!(push_name(), push_name());
        assert!(push_name().starts_with("__waymarkPush"));
    }
}
