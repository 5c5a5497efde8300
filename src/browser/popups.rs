//! The tabs a tab opens, and whether the page closed its own.
//!
//! A page opens a tab with `window.open`, a link with `target="_blank"` or a form posted to
//! a new window. Chromium says so twice: on the opener, `Page.windowOpen` names the address
//! (before the new tab exists), and on the browser, `Target.attachedToTarget` brings the new
//! target with the opener's id, once chromiumoxide attached to it. A tab counts the first
//! and keeps the second; the tools take them after each action ([`Tab::opened`]), waiting
//! only while an announced tab has not arrived yet, so an action that opened nothing pays
//! nothing. A tab's own end (`window.close()`, or the browser's) comes as
//! `Target.targetDestroyed`.
//!
//! [`Tab::opened`]: super::Tab::opened

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::task::Context;
use std::time::Duration;

use chromiumoxide::Browser;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::page::EventWindowOpen;
use chromiumoxide::cdp::browser_protocol::target::DisposeBrowserContextParams;
use chromiumoxide::cdp::browser_protocol::target::{
    EventAttachedToTarget, EventTargetDestroyed, GetTargetInfoParams, TargetId,
};
use chromiumoxide::listeners::EventStream;
use futures::StreamExt;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::chromium::ChromiumTab;
use super::commands::{Commands, bounded};
use super::launch::LaunchOptions;
use super::tap::{Pump, Tap, drain};
use super::{BrowserError, Opened};

/// How long a browser has to answer before a tab's end counts as the browser's: one that is
/// there answers in well under a millisecond.
const ANSWER_BOUND: Duration = Duration::from_secs(1);

/// What a tab knows of the tabs it opened and of its own end.
pub(super) struct Family {
    /// Rung at each announcement, arrival and end.
    changed: Arc<Notify>,
    /// The tab is gone: closed by its page, or by the browser.
    closed: Arc<AtomicBool>,
    /// The tab made the browser context its journey's tabs share (the journey's first).
    owner: bool,
    browser: Weak<Browser>,
    /// What a popup's tab is made with: the opener's launch options, browser context and
    /// download folder.
    options: LaunchOptions,
    context: (BrowserContextId, PathBuf),
    /// The tabs announced and arrived, not taken yet, and their events: read by a watcher
    /// and by [`Family::take`].
    openings: Arc<Tap<Openings>>,
    watchers: Vec<JoinHandle<()>>,
}

/// The tab's `Page.windowOpen` and the browser's `Target.attachedToTarget`, read into
/// [`Pending`]: by a watcher between calls, and by each call as it takes the tabs opened,
/// so that an announcement chromiumoxide handed over before the call's last answer counts
/// though the watcher has not had its turn (see `src/browser/tap.rs`).
struct Openings {
    opening: Option<EventStream<EventWindowOpen>>,
    attached: Option<EventStream<EventAttachedToTarget>>,
    opener: TargetId,
    pending: Pending,
    changed: Arc<Notify>,
}

impl Pump for Openings {
    fn pump(&mut self, cx: &mut Context<'_>) -> bool {
        let mut changed = false;
        let pending = &mut self.pending;
        let opening = drain(&mut self.opening, cx, |event| {
            if pending.early > 0 {
                pending.early -= 1;
            } else {
                pending.announced.push_back(event.url.clone());
            }
            changed = true;
        });
        let opener = &self.opener;
        let attached = drain(&mut self.attached, cx, |event| {
            let info = &event.target_info;
            if info.r#type == "page" && info.opener_id.as_ref() == Some(opener) {
                pending
                    .arrived
                    .push_back((info.target_id.clone(), info.url.clone()));
                changed = true;
            }
        });
        if changed {
            self.changed.notify_waiters();
        }
        opening && attached
    }
}

/// Tabs announced and arrived, not taken yet.
#[derive(Default)]
struct Pending {
    /// Addresses `Page.windowOpen` named, in order.
    announced: VecDeque<String>,
    /// Targets opened by the tab, attached, in order, with the address they started at.
    arrived: VecDeque<(TargetId, String)>,
    /// Tabs taken before their announcement came (the two come on different sessions, in
    /// no set order): as many announcements to come are theirs, not new tabs to wait for.
    early: usize,
}

impl Pending {
    /// The arrived tabs, each with the address it was announced with (or started at); with
    /// `timed_out`, the announcements of the `wanted` that never came are forgotten.
    fn take(&mut self, wanted: usize, timed_out: bool) -> Vec<(TargetId, String)> {
        let arrived: Vec<_> = self.arrived.drain(..).collect();
        let matched = arrived.len().min(self.announced.len());
        let mut announced: Vec<String> = self.announced.drain(..matched).collect();
        self.early += arrived.len() - matched;
        if timed_out {
            // Announced and never come (a window the browser did not open): forgotten.
            let gone = wanted.saturating_sub(matched).min(self.announced.len());
            self.announced.drain(..gone);
        }
        announced.reverse();
        arrived
            .into_iter()
            .map(|(target, started)| {
                let url = announced.pop().filter(|u| !u.is_empty());
                (target, url.unwrap_or(started))
            })
            .collect()
    }
}

impl Family {
    /// Starts listening for the tabs `page` opens and for its end.
    pub(super) async fn watch(
        page: &Page,
        browser: &Arc<Browser>,
        options: &LaunchOptions,
        (context, owner): ((BrowserContextId, PathBuf), bool),
    ) -> Result<Family, BrowserError> {
        let timeout = options.command_timeout;
        let what = "subscribing to the tabs a tab opens";
        let opening = bounded(timeout, what, page.event_listener::<EventWindowOpen>()).await?;
        let attached = bounded(
            timeout,
            what,
            browser.event_listener::<EventAttachedToTarget>(),
        )
        .await?;
        let mut destroyed = bounded(
            timeout,
            what,
            browser.event_listener::<EventTargetDestroyed>(),
        )
        .await?;
        let changed = Arc::new(Notify::new());
        let closed = Arc::new(AtomicBool::new(false));
        let me = page.target_id().clone();
        let (tap, opened) = Tap::start(Openings {
            opening: Some(opening),
            attached: Some(attached),
            opener: me.clone(),
            pending: Pending::default(),
            changed: Arc::clone(&changed),
        });
        let (gone, c) = (Arc::clone(&closed), Arc::clone(&changed));
        let end = tokio::spawn(async move {
            while let Some(event) = destroyed.next().await {
                if event.target_id == me {
                    gone.store(true, Ordering::Relaxed);
                    c.notify_waiters();
                    return;
                }
            }
            // The browser's connection ended: the tab is gone with it.
            gone.store(true, Ordering::Relaxed);
            c.notify_waiters();
        });
        Ok(Family {
            changed,
            closed,
            owner,
            browser: Arc::downgrade(browser),
            options: options.clone(),
            context,
            openings: tap,
            watchers: vec![opened, end],
        })
    }

    /// Ends the journey's browser context, when this tab made it: every tab its pages
    /// opened closes (those the journey never took among them: a page may open one as it
    /// closes), and the browser lets go of the context's cookies and storage, which a long
    /// suite's thousands of contexts would otherwise keep.
    pub(super) async fn close_context(&self) {
        if !self.owner {
            return;
        }
        let Some(browser) = self.browser.upgrade() else {
            return;
        };
        let dispose = DisposeBrowserContextParams::new(self.context.0.clone());
        let what = "closing a journey's tabs";
        let _ = browser
            .command(self.options.command_timeout, what, dispose)
            .await;
    }

    /// The tab's browser, while it is there.
    /// The browser context the tab is of.
    pub(super) fn context_id(&self) -> &BrowserContextId {
        &self.context.0
    }

    pub(super) fn browser(&self) -> Option<Arc<Browser>> {
        self.browser.upgrade()
    }

    /// Whether the tab is gone.
    pub(super) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Whether the tab's browser answers a trivial command (`Browser.getVersion`) within
    /// `bound` (see `Tab::browser_answers`).
    pub(super) async fn browser_answers(&self, bound: Duration) -> bool {
        match self.browser() {
            Some(browser) => super::chromium::answers(&browser, bound).await,
            None => false,
        }
    }

    /// What the tab's going means for a call: its page closed it, or, when the browser
    /// does not answer either, the browser went away. A browser killed under a call can
    /// end the tab before its connection is seen to end, and a call told that the page
    /// closed its tab would look for the fault in the page.
    pub(super) async fn why_gone(&self) -> BrowserError {
        if self.browser_answers(ANSWER_BOUND).await {
            BrowserError::Crashed("the page closed its tab".into())
        } else {
            BrowserError::browser_gone()
        }
    }

    /// Resolves once the tab is gone.
    pub(super) async fn gone(&self) {
        loop {
            let notified = self.changed.notified();
            if self.is_closed() {
                return;
            }
            notified.await;
        }
    }

    /// The tabs opened since the last call, each made ready to drive; waits up to `wait`
    /// for those announced that have not arrived. A tab that arrived but cannot be driven
    /// (closed already, the browser gone) is left out.
    pub(super) async fn take(&self, wait: Duration) -> Vec<Opened<ChromiumTab>> {
        let arrived = self.arrived(wait).await;
        let mut opened = Vec::new();
        for (target, url) in arrived {
            match self.adopt(target).await {
                Ok(tab) => opened.push(Opened { tab, url }),
                Err(e) => tracing::debug!("a tab the page opened could not be driven: {e}"),
            }
        }
        opened
    }

    /// The arrived tabs, each with the address it was announced with (or started at),
    /// after waiting up to `wait` for those announced when the call began (a page that
    /// keeps opening windows is not waited on for ever).
    async fn arrived(&self, wait: Duration) -> Vec<(TargetId, String)> {
        let wanted = (self.openings)
            .with(|o| o.pending.announced.len())
            .unwrap_or(0);
        let waiting = async {
            loop {
                let notified = self.changed.notified();
                let done = (self.openings)
                    .with(|o| o.pending.arrived.len() >= wanted)
                    .unwrap_or(true);
                if done || self.is_closed() {
                    return;
                }
                notified.await;
            }
        };
        let timed_out = tokio::time::timeout(wait, waiting).await.is_err();
        (self.openings)
            .with(|o| o.pending.take(wanted, timed_out))
            .unwrap_or_default()
    }

    /// The tab of a target this one opened.
    async fn adopt(&self, target: TargetId) -> Result<ChromiumTab, BrowserError> {
        let browser = self
            .browser
            .upgrade()
            .ok_or_else(|| BrowserError::Crashed("the browser is closed".into()))?;
        let timeout = self.options.command_timeout;
        let page = bounded(
            timeout,
            "taking a tab the page opened",
            browser.get_page(target),
        )
        .await?;
        let address = browser.websocket_address().clone();
        let mut tab =
            ChromiumTab::new((page, address), &self.options, self.context.clone()).await?;
        let family = (self.context.clone(), false);
        tab.family = Some(Family::watch(&tab.page, &browser, &self.options, family).await?);
        Ok(tab)
    }
}

impl ChromiumTab {
    /// `work`, unless the tab goes first: a page that closed its own tab answers nothing
    /// more, which is said at once rather than after the command's bound.
    pub(super) async fn while_open<R>(
        &self,
        work: impl Future<Output = Result<R, BrowserError>>,
    ) -> Result<R, BrowserError> {
        match &self.family {
            Some(family) => tokio::select! {
                answer = work => answer,
                () = family.gone() => Err(family.why_gone().await),
            },
            None => work.await,
        }
    }
}

/// The address and title of the tab of `page`, from the browser (the page is not asked).
pub(super) async fn describe(
    page: &Page,
    timeout: Duration,
) -> Result<(String, String), BrowserError> {
    let params = GetTargetInfoParams::builder()
        .target_id(page.target_id().clone())
        .build();
    let info = page.command(timeout, "describing a tab", params).await?;
    let info = &info.result.target_info;
    Ok((info.url.clone(), info.title.clone()))
}

impl Drop for Family {
    fn drop(&mut self) {
        for watcher in &self.watchers {
            watcher.abort();
        }
    }
}
