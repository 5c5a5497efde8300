//! The journey's tabs: the one it started in and those its pages opened (`window.open`, a
//! link with `target="_blank"`), numbered from 0 in the order they opened. The tools act in
//! one at a time, the current one. Each has its own memory (the held read its next delta
//! applies to), its own place in the hub (a person takes or hands back each tab on its own;
//! consent questions name it) and its own screenshots; the journey's trace records every
//! call with the tab it ran in.
//!
//! An action whose page opened a tab says so in its round trip (`opened`); a tab opened off
//! the app's origin is refused (`off_origin`) and closed at once. `switch_tab(n)` moves the
//! tools; a tab its page closed (`window.close()`, as a sign-in popup does when it is done)
//! gives way to its opener, and the round trip of the call it closed under says so
//! (`closed`) and shows the opener.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::memory::Memory;
use super::{ActionClass, Attribution, ErrorCode, RoundTrip, ToolError, Tools, Verb};
use crate::browser::{Opened, Tab};
use crate::control::TabGates;
use crate::protocol::quoted;

/// One of the journey's tabs.
pub(super) struct OpenTab<T> {
    /// Its number: 0 for the journey's first, then in the order they opened.
    pub(super) number: usize,
    /// The tab whose page opened it.
    pub(super) opener: Option<usize>,
    pub(super) tab: Arc<T>,
    /// What its reads remember.
    pub(super) memory: Memory,
    /// Its place in the run's hub and the policies its calls are gated by; `None`: nobody
    /// can take it and consent is `allow`.
    pub(super) control: Option<TabGates>,
    /// How often control had come back from the person when last seen.
    pub(super) returns_seen: AtomicU64,
    /// Control came back since the last read: the next read reports what changed.
    pub(super) resumed: AtomicBool,
    /// The address it was opened at: its route until a read tells another.
    url: String,
}

impl<T> OpenTab<T> {
    pub(super) fn first(tab: T) -> OpenTab<T> {
        OpenTab {
            number: 0,
            opener: None,
            tab: Arc::new(tab),
            memory: Memory::default(),
            control: None,
            returns_seen: AtomicU64::new(0),
            resumed: AtomicBool::new(false),
            url: String::new(),
        }
    }
}

/// The journey's open tabs and which is current.
pub(super) struct TabSet<T> {
    inner: Mutex<Inner<T>>,
}

struct Inner<T> {
    open: Vec<Arc<OpenTab<T>>>,
    /// Each tab's opener, closed tabs' too: a tab whose opener closed returns to the
    /// opener's opener.
    lineage: HashMap<usize, usize>,
    /// The current tab's number.
    current: usize,
    /// The next tab's number.
    next: usize,
}

impl<T> TabSet<T> {
    pub(super) fn new(first: OpenTab<T>) -> TabSet<T> {
        TabSet {
            inner: Mutex::new(Inner {
                open: vec![Arc::new(first)],
                lineage: HashMap::new(),
                current: 0,
                next: 1,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<T>> {
        // Nothing here is left half done by a panic: a poisoned set is still whole.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current tab.
    pub(super) fn current(&self) -> Arc<OpenTab<T>> {
        let inner = self.lock();
        let found = inner.open.iter().find(|t| t.number == inner.current);
        Arc::clone(found.unwrap_or(&inner.open[0]))
    }

    /// The journey's first tab, while the tools are being built (nobody else holds it).
    pub(super) fn first_mut(&mut self) -> Option<&mut OpenTab<T>> {
        let inner = self.inner.get_mut().unwrap_or_else(|p| p.into_inner());
        inner.open.first_mut().and_then(Arc::get_mut)
    }

    /// Every open tab, in the order they opened.
    pub(super) fn all(&self) -> Vec<Arc<OpenTab<T>>> {
        self.lock().open.clone()
    }

    fn get(&self, number: usize) -> Option<Arc<OpenTab<T>>> {
        self.lock()
            .open
            .iter()
            .find(|t| t.number == number)
            .cloned()
    }

    fn set_current(&self, number: usize) {
        self.lock().current = number;
    }

    fn next_number(&self) -> usize {
        let mut inner = self.lock();
        inner.next += 1;
        inner.next - 1
    }

    fn add(&self, tab: OpenTab<T>) {
        let mut inner = self.lock();
        if let Some(opener) = tab.opener {
            inner.lineage.insert(tab.number, opener);
        }
        inner.open.push(Arc::new(tab));
    }

    /// The nearest of `number`'s openers (its opener, that one's…) still open.
    fn open_ancestor(&self, number: usize, open: impl Fn(&OpenTab<T>) -> bool) -> Option<usize> {
        let inner = self.lock();
        let mut at = number;
        while let Some(&opener) = inner.lineage.get(&at) {
            if inner.open.iter().any(|t| t.number == opener && open(t)) {
                return Some(opener);
            }
            at = opener;
        }
        None
    }

    /// Takes out the tabs `gone` says are, but the current one.
    fn remove_gone(&self, gone: impl Fn(&OpenTab<T>) -> bool) -> Vec<Arc<OpenTab<T>>> {
        let mut inner = self.lock();
        let current = inner.current;
        let (out, kept) = std::mem::take(&mut inner.open)
            .into_iter()
            .partition(|t| t.number != current && gone(t));
        inner.open = kept;
        out
    }

    /// All the tabs, the set taken apart (the tools are closing).
    pub(super) fn into_all(self) -> Vec<Arc<OpenTab<T>>> {
        self.inner
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .open
    }
}

/// A tab as `tabs()` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TabInfo {
    /// Its number (0: the journey's first).
    pub tab: usize,
    /// Its route (an address off the app whole).
    pub route: String,
    /// Its document's title.
    pub title: String,
    /// The tools act in it now.
    pub current: bool,
    /// The tab whose page opened it.
    pub opener: Option<usize>,
}

/// A tab an action's page opened, as its round trip says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TabOpened {
    /// Its number, for `switch_tab`.
    pub tab: usize,
    /// The address it was opened at.
    pub url: String,
}

/// How long a tab announced by its opener may take to arrive.
const ARRIVAL: Duration = Duration::from_secs(5);

/// Tabs a journey keeps open at most: past it, a page is opening windows in a loop, and
/// the ones past it are closed as they come.
pub const MAX_TABS: usize = 16;

impl<T: Tab> Tools<T> {
    /// The tab the tools act in now.
    pub(super) fn here(&self) -> Arc<OpenTab<T>> {
        self.tabs.current()
    }

    /// The number of the tab the tools act in now.
    pub fn current_tab(&self) -> usize {
        self.here().number
    }

    /// The journey's open tabs (see [`tabs`](Tools::tabs)) as a gated, traced call: a
    /// read of the current tab, its round trip carrying the list.
    pub async fn list_tabs(&self) -> RoundTrip {
        let work = async {
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        let mut rt = self.call(Verb::Tabs, None, None, work).await;
        if rt.ok {
            rt.tabs = Some(self.tabs().await);
            rt = rt.shown();
        }
        rt
    }

    /// The journey's open tabs, in the order they opened: route, title, which is current.
    /// Asked of the browser, not of the pages (a tab a person holds is listed untouched).
    pub async fn tabs(&self) -> Vec<TabInfo> {
        let current = self.current_tab();
        let mut listed = Vec::new();
        // A tab closed since the last call is not listed; the next call takes it out.
        for open in self.tabs.all().into_iter().filter(|t| !t.tab.is_closed()) {
            let (url, title) = open
                .tab
                .describe(self.options.script_timeout)
                .await
                .unwrap_or_else(|_| (open.url.clone(), String::new()));
            listed.push(TabInfo {
                tab: open.number,
                route: self.route_of(&url),
                title,
                current: open.number == current,
                opener: open.opener,
            });
        }
        listed
    }

    /// Moves the tools to tab `number` and reads its screen (once its document loaded).
    /// The gates are the new tab's: one a person holds refuses the read.
    pub async fn switch_tab(&self, number: usize) -> RoundTrip {
        let shown = number.to_string();
        let Some(open) = self.tabs.get(number).filter(|t| !t.tab.is_closed()) else {
            let known: Vec<String> = self
                .tabs
                .all()
                .iter()
                .map(|t| t.number.to_string())
                .collect();
            let error = ToolError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "there is no open tab {number}; the journey's tabs: {}",
                    known.join(", ")
                ),
            );
            let outcome = async { Err((None, error)) };
            return self
                .call(Verb::SwitchTab, Some(&shown), None, outcome)
                .await;
        };
        let before = self.current_tab();
        self.tabs.set_current(number);
        let work = async {
            // Shown, so its page renders and keeps its timers.
            if let Err(e) = open.tab.bring_to_front().await {
                return Err((None, super::browser_error(e)));
            }
            self.loaded(&open).await;
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        let mut rt = self.call(Verb::SwitchTab, Some(&shown), None, work).await;
        // A tab a person holds (or another run owns) is not moved to: the calls stay where
        // they were.
        let refused = [ErrorCode::PausedByUser, ErrorCode::NotOwner];
        if rt.error.as_ref().is_some_and(|e| refused.contains(&e.code)) {
            self.tabs.set_current(before);
            rt.tab = before;
        }
        rt
    }

    /// Closes tab `number` (`None`: the current one). Closing the current tab returns the
    /// calls to its opener (or the opener's, if that one closed), as when a page closes
    /// its own, and the round trip says `closed` and shows the opener. The journey's first
    /// tab, which nothing opened, stays open: the journey ends where its script does.
    pub async fn close_tab(&self, number: Option<usize>) -> RoundTrip {
        let number = number.unwrap_or_else(|| self.current_tab());
        let shown = number.to_string();
        let open = self.tabs.get(number).filter(|t| !t.tab.is_closed());
        let refused = match &open {
            None => Some(format!(
                "there is no open tab {number}; the journey's tabs: {}",
                self.numbers().join(", ")
            )),
            Some(open) if open.opener.is_none() => Some(format!(
                "tab {number} is the journey's first and stays open: the journey ends where its script does"
            )),
            Some(_) => None,
        };
        let work = async {
            let open = match (refused, open) {
                (None, Some(open)) => open,
                (why, _) => {
                    let why = why.unwrap_or_default();
                    return Err((None, ToolError::new(ErrorCode::InvalidArgument, why)));
                }
            };
            if let Err(e) = open.tab.shut().await {
                return Err((None, super::browser_error(e)));
            }
            drop(open);
            if let Ok(mut closed) = self.shared.closed_tab.lock() {
                *closed = Some(number);
            }
            // The current tab gives way to its opener; a tab closed behind it leaves.
            if self.follow_closed().is_some() {
                let _ = self.here().tab.bring_to_front().await;
            }
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        self.call(Verb::CloseTab, Some(&shown), None, work).await
    }

    /// The open tabs' numbers, for messages.
    fn numbers(&self) -> Vec<String> {
        self.tabs
            .all()
            .iter()
            .filter(|t| !t.tab.is_closed())
            .map(|t| t.number.to_string())
            .collect()
    }

    /// Waits, up to the load timeout, for a tab opened at an address to have left its
    /// first blank document and loaded the next.
    async fn loaded(&self, open: &OpenTab<T>) {
        let bound = self.options.load_timeout;
        let blank = open.url.is_empty() || open.url == "about:blank";
        // A promise on the blank document is never answered: its end (the navigation
        // committing) comes back as the context lost, and the next document is asked.
        let script = format!(
            "(function () {{ if ({wait} && location.href === 'about:blank') return new Promise(function () {{}}); \
             if (document.readyState === 'complete') return 'ok'; \
             return new Promise(function (done) {{ addEventListener('load', function () {{ done('ok'); }}); }}); }})()",
            wait = !blank
        );
        let start = Instant::now();
        while let Some(left) = bound.checked_sub(start.elapsed()) {
            match open.tab.evaluate(&script, left).await {
                Err(crate::browser::BrowserError::ContextLost) => continue,
                _ => return,
            }
        }
    }

    /// A current tab its page closed gives way to its opener (or the opener's, if that one
    /// closed too): the closed tab's number, when one did.
    pub(super) fn follow_closed(&self) -> Option<usize> {
        let here = self.here();
        let moved = match here.tab.is_closed() {
            true => self.tabs.open_ancestor(here.number, |t| !t.tab.is_closed()),
            false => None,
        };
        if let Some(to) = moved {
            self.tabs.set_current(to);
        }
        // Every tab closed since (but the current, when it has nowhere to go) leaves the
        // journey and the hub.
        for gone in self.tabs.remove_gone(|t| t.tab.is_closed()) {
            if let Some(control) = &gone.control {
                control.hub.unregister(control.tab);
            }
        }
        moved.map(|_| here.number)
    }

    /// After a call: the tabs its page opened join the journey's (see the module's words),
    /// and the current tab, if its page closed it, gives way to its opener.
    pub(super) async fn after_call(&self, rt: &mut RoundTrip, verb: Verb, started_in: usize) {
        let here = self.here();
        let opened = here.tab.opened(ARRIVAL).await;
        // A new tab comes to the front, hiding this one: it is shown again, as the calls
        // stay here.
        if !opened.is_empty() {
            let _ = here.tab.bring_to_front().await;
        }
        let mut past_cap = 0;
        for Opened { tab, url } in opened {
            if self.tabs.all().len() >= MAX_TABS {
                past_cap += 1;
                tokio::spawn(tab.close());
                continue;
            }
            self.route_joined(&tab).await;
            self.network_joined(&tab).await;
            self.context_joined(&tab).await;
            self.har_joined(&tab).await;
            match self.join(tab, &url, &here) {
                Ok(opened) => {
                    let joined = self.tabs.all().into_iter().find(|o| o.number == opened.tab);
                    if let Some(joined) = joined {
                        self.clock_joined(&joined).await;
                    }
                    rt.opened.get_or_insert(opened);
                }
                Err(error) if rt.ok => {
                    rt.ok = false;
                    rt.error = Some(error);
                }
                Err(_) => {}
            }
        }
        if past_cap > 0 {
            let error = ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "the page kept opening tabs during {}: a journey keeps {MAX_TABS} open at most, and {past_cap} more were closed",
                    verb_shown(rt)
                ),
            );
            rt.ok = false;
            rt.error = Some(error.attributed(Attribution::App));
        }
        if let Some(closed) = self.follow_closed().filter(|n| *n == started_in) {
            rt.closed = Some(closed);
            let _ = self.here().tab.bring_to_front().await;
            // What the page's end left behind is not an error of an action's: the page
            // closed itself, as the action asked it to. (A wait's condition still did not
            // hold.)
            let acted = matches!(verb.class(), ActionClass::Act | ActionClass::Type);
            if acted && rt.error.as_ref().is_some_and(|e| is_closing_error(e.code)) {
                rt.ok = true;
                rt.error = None;
            }
            match self.read().await {
                Ok(screen) => {
                    rt.route = screen.route.clone();
                    rt.screen = Some(screen);
                }
                Err(e) => {
                    rt.screen = None;
                    rt.route = self.current_route();
                    if rt.ok {
                        rt.ok = false;
                        rt.error = Some(e);
                    }
                }
            }
            rt.changes = None;
        }
    }

    /// Makes a tab `opener`'s page opened at `url` one of the journey's, or closes it when
    /// `url` is off the app's origin.
    fn join(&self, tab: T, url: &str, opener: &OpenTab<T>) -> Result<TabOpened, ToolError> {
        let on_app = url == "about:blank" || self.resolve(url).is_ok();
        if !on_app {
            let origin = self.origin();
            tokio::spawn(tab.close());
            return Err(ToolError::new(
                ErrorCode::OffOrigin,
                format!(
                    "the page opened a tab at `{}`, off the app's origin {origin}; journeys stay on the app's origin, so it was closed",
                    quoted(url)
                ),
            )
            .attributed(Attribution::App));
        }
        let number = self.tabs.next_number();
        tab.answer_dialogs(&self.dialog_answer());
        let tab = Arc::new(tab);
        let control = opener.control.as_ref().map(|c| {
            let journey = c.hub.tab(c.tab).map(|v| v.journey).unwrap_or_default();
            let id = c.hub.register(&c.run, &format!("{journey} (tab {number})"));
            c.hub
                .set_screenshot(id, crate::browser::screenshot_source(Arc::downgrade(&tab)));
            c.hub
                .set_route(id, &crate::protocol::cut(&self.route_of(url)));
            TabGates {
                tab: id,
                ..c.clone()
            }
        });
        self.tabs.add(OpenTab {
            number,
            opener: Some(opener.number),
            tab,
            memory: Memory::default(),
            control,
            returns_seen: AtomicU64::new(0),
            resumed: AtomicBool::new(false),
            url: url.to_string(),
        });
        Ok(TabOpened {
            tab: number,
            url: url.to_string(),
        })
    }

    /// Closes every tab, the journey's first last, and takes those its pages opened out of
    /// the hub.
    pub(super) async fn close_all(tabs: TabSet<T>) {
        for open in tabs.into_all().into_iter().rev() {
            if let Some(control) = open.control.as_ref().filter(|_| open.number > 0) {
                control.hub.unregister(control.tab);
            }
            if let Ok(open) = Arc::try_unwrap(open)
                && let Ok(tab) = Arc::try_unwrap(open.tab)
            {
                tab.close().await;
            }
        }
    }
}

/// The call a round trip is of, for messages: `` `invoke` `claims.open` ``.
fn verb_shown(rt: &RoundTrip) -> String {
    match &rt.anchor {
        Some(anchor) => format!("`{}` `{}`", rt.tool, quoted(anchor)),
        None => format!("`{}`", rt.tool),
    }
}

/// Errors a call gets when its tab closes under it.
fn is_closing_error(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Timeout | ErrorCode::BrowserCrashed | ErrorCode::CaptureFailed
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tab of the set: `closed` or not.
    fn tab(number: usize, opener: usize, closed: bool) -> OpenTab<bool> {
        OpenTab {
            number,
            opener: Some(opener),
            url: String::new(),
            ..OpenTab::first(closed)
        }
    }

    #[test]
    fn a_closed_tab_returns_to_its_nearest_open_opener_and_closed_tabs_leave() {
        // 0 opened 1, 1 opened 2, 2 opened 3; 1 and 2 closed, the tools on 3.
        let set = TabSet::new(OpenTab::first(false));
        set.add(tab(1, 0, true));
        set.add(tab(2, 1, true));
        set.add(tab(3, 2, false));
        set.set_current(3);
        let open = |t: &OpenTab<bool>| !*t.tab;
        assert_eq!(set.open_ancestor(3, open), Some(0));
        let gone: Vec<usize> = set
            .remove_gone(|t| *t.tab)
            .iter()
            .map(|t| t.number)
            .collect();
        assert_eq!(gone, [1, 2]);
        // Their lineage stays: 3's opener's opener is still found once they left.
        assert_eq!(set.open_ancestor(3, open), Some(0));
        let left: Vec<usize> = set.all().iter().map(|t| t.number).collect();
        assert_eq!(left, [0, 3]);
        // The current tab stays even when closed (it has to go somewhere first).
        set.add(tab(4, 3, true));
        set.set_current(4);
        assert!(set.remove_gone(|t| *t.tab).is_empty());
        assert_eq!(set.current().number, 4);
    }
}
