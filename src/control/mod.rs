//! The person's side of every gate: who controls each tab, the consent questions waiting
//! for an answer, and the handoffs waiting for the person to finish.
//!
//! One [`Hub`] per run. The tools ask it before every call (tab control, consent) and the
//! control page (or the terminal) answers through it. Nothing here touches a browser.

pub mod cookies;
pub mod guardrail;
pub mod page;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::{oneshot, watch};

pub use crate::protocol::ScreenshotSource;
pub use guardrail::{Guardrail, GuardrailError, GuardrailVerdict, Rule};

/// Names a tab within a run.
pub type TabId = u64;

/// Who has a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TabState {
    /// Nobody drives it.
    Idle,
    /// Driven by its run.
    Agent,
    /// Waiting for the person to finish something the run handed over (a login, a 2FA code).
    Handoff,
    /// The person took it; the run waits.
    User,
}

/// A tab as the control page lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TabView {
    /// The tab's id.
    pub id: TabId,
    /// The run that owns it.
    pub owner: String,
    /// The journey driving it.
    pub journey: String,
    /// Who has it.
    pub state: TabState,
    /// Its route as of the last read.
    pub route: String,
    /// Why the run handed it over, during a handoff.
    pub handoff_reason: Option<String>,
}

/// A consent question waiting for the person.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Question {
    /// The question's id, for the answer.
    pub id: u64,
    /// The tab it is about.
    pub tab: TabId,
    /// The question, naming the control in the words on screen.
    pub text: String,
}

/// How a consent question was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Yes, by whom (`control page`, `terminal`).
    Approved(&'static str),
    /// No, by whom.
    Denied(&'static str),
    /// Nobody could be asked, or nobody answered in time: why.
    Unavailable(String),
}

/// Why the hub refused a request from the person's side.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HubError {
    /// No tab with this id.
    #[error("no tab {0}")]
    NoTab(TabId),
    /// No pending question with this id.
    #[error("no pending question {0}")]
    NoQuestion(u64),
    /// The request does not fit the tab's state.
    #[error("tab {tab} is {state:?}: {why}")]
    State {
        /// The tab.
        tab: TabId,
        /// Its state.
        state: TabState,
        /// What did not fit.
        why: &'static str,
    },
}

/// Why a call on a tab may not go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    /// The person has the tab (or it is handed over).
    PausedByUser(TabState),
    /// Another run owns the tab.
    NotOwner(String),
    /// The tab is not known to the hub.
    Unknown,
}

struct TabEntry {
    view: TabView,
    /// How often control came back to the run: a read after a change reports what the
    /// person did.
    returns: u64,
    /// The handoff waiting for Done, with the state to go back to.
    handoff: Option<oneshot::Sender<()>>,
}

struct Pending {
    question: Question,
    answer: oneshot::Sender<bool>,
}

#[derive(Default)]
struct State {
    tabs: BTreeMap<TabId, TabEntry>,
    questions: BTreeMap<u64, Pending>,
    next_tab: TabId,
    next_question: u64,
    /// The last time the person's page asked for the state.
    seen: Option<Instant>,
    /// How to show each tab to the person on the control page.
    screenshots: BTreeMap<TabId, ScreenshotSource>,
}

/// The run's control state. Cheap to share (`Arc<Hub>`).
pub struct Hub {
    state: Mutex<State>,
    changed: watch::Sender<u64>,
    /// A page that asked for the state this recently is someone who can answer.
    presence: Duration,
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

impl Hub {
    /// A hub with no tabs.
    pub fn new() -> Hub {
        Hub {
            state: Mutex::new(State {
                next_tab: 1,
                next_question: 1,
                ..State::default()
            }),
            changed: watch::channel(0).0,
            presence: Duration::from_secs(10),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is plain data: a panic elsewhere cannot leave it half-written in a
        // way that matters more than refusing everything would.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Notified whenever anything changes (for the control page's long poll).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// A new tab driven by `owner`'s `journey`.
    pub fn register(&self, owner: &str, journey: &str) -> TabId {
        let mut s = self.lock();
        let id = s.next_tab;
        s.next_tab += 1;
        s.tabs.insert(
            id,
            TabEntry {
                view: TabView {
                    id,
                    owner: owner.to_string(),
                    journey: journey.to_string(),
                    state: TabState::Agent,
                    route: "about:blank".to_string(),
                    handoff_reason: None,
                },
                returns: 0,
                handoff: None,
            },
        );
        drop(s);
        self.bump();
        id
    }

    /// The tab is closed: it leaves the list, and its pending questions are answered no.
    pub fn unregister(&self, tab: TabId) {
        let mut s = self.lock();
        s.tabs.remove(&tab);
        s.questions.retain(|_, p| p.question.tab != tab);
        drop(s);
        self.bump();
    }

    /// Records the tab's route (after a read).
    pub fn set_route(&self, tab: TabId, route: &str) {
        let mut s = self.lock();
        if let Some(t) = s.tabs.get_mut(&tab)
            && t.view.route != route
        {
            t.view.route = route.to_string();
            drop(s);
            self.bump();
        }
    }

    /// Whether `run` may drive `tab` now; when it may, how often control has come back
    /// to it so far.
    pub fn check(&self, tab: TabId, run: &str) -> Result<u64, Blocked> {
        let s = self.lock();
        let t = s.tabs.get(&tab).ok_or(Blocked::Unknown)?;
        if t.view.owner != run {
            return Err(Blocked::NotOwner(t.view.owner.clone()));
        }
        match t.view.state {
            TabState::Agent | TabState::Idle => Ok(t.returns),
            other => Err(Blocked::PausedByUser(other)),
        }
    }

    /// The person takes the tab: from now on every call of its run is refused, reads
    /// included, until control is returned.
    pub fn take(&self, tab: TabId) -> Result<(), HubError> {
        let mut s = self.lock();
        let t = s.tabs.get_mut(&tab).ok_or(HubError::NoTab(tab))?;
        match t.view.state {
            TabState::User => {}
            _ => t.view.state = TabState::User,
        }
        drop(s);
        self.bump();
        Ok(())
    }

    /// The person gives the tab back (to the handoff still waiting, if one is).
    pub fn give_back(&self, tab: TabId) -> Result<(), HubError> {
        let mut s = self.lock();
        let t = s.tabs.get_mut(&tab).ok_or(HubError::NoTab(tab))?;
        if t.view.state != TabState::User {
            return Err(HubError::State {
                tab,
                state: t.view.state,
                why: "only a tab the person took can be given back",
            });
        }
        t.view.state = if t.handoff.is_some() {
            TabState::Handoff
        } else {
            TabState::Agent
        };
        t.returns += 1;
        drop(s);
        self.bump();
        Ok(())
    }

    /// Hands the tab to the person for `reason` and waits until they press Done, or
    /// `timeout` passes. True when they finished.
    pub async fn handoff(&self, tab: TabId, reason: &str, timeout: Duration) -> bool {
        let (done, wait) = oneshot::channel();
        {
            let mut s = self.lock();
            let Some(t) = s.tabs.get_mut(&tab) else {
                return false;
            };
            t.view.state = TabState::Handoff;
            t.view.handoff_reason = Some(reason.to_string());
            t.handoff = Some(done);
        }
        self.bump();
        let finished = matches!(tokio::time::timeout(timeout, wait).await, Ok(Ok(())));
        {
            let mut s = self.lock();
            if let Some(t) = s.tabs.get_mut(&tab) {
                t.handoff = None;
                t.view.handoff_reason = None;
                t.view.state = TabState::Agent;
                t.returns += 1;
            }
        }
        self.bump();
        finished
    }

    /// The person finished the handoff on `tab`.
    pub fn done(&self, tab: TabId) -> Result<(), HubError> {
        let mut s = self.lock();
        let t = s.tabs.get_mut(&tab).ok_or(HubError::NoTab(tab))?;
        let done = t.handoff.take().ok_or(HubError::State {
            tab,
            state: t.view.state,
            why: "no handoff is waiting",
        })?;
        drop(s);
        let _ = done.send(());
        Ok(())
    }

    /// Asks the person `text` about `tab` through the control page, and waits up to
    /// `timeout` for the answer. Without a page open (none asked for the state lately) the
    /// answer is [`Answer::Unavailable`] at once: never a silent yes.
    pub async fn ask(&self, tab: TabId, text: &str, timeout: Duration) -> Answer {
        if !self.present() {
            return Answer::Unavailable("no control page is open".to_string());
        }
        let (answer, wait) = oneshot::channel();
        let id = {
            let mut s = self.lock();
            let id = s.next_question;
            s.next_question += 1;
            s.questions.insert(
                id,
                Pending {
                    question: Question {
                        id,
                        tab,
                        text: text.to_string(),
                    },
                    answer,
                },
            );
            id
        };
        self.bump();
        let got = tokio::time::timeout(timeout, wait).await;
        self.lock().questions.remove(&id);
        self.bump();
        match got {
            Ok(Ok(true)) => Answer::Approved("control page"),
            Ok(Ok(false)) => Answer::Denied("control page"),
            Ok(Err(_)) => Answer::Unavailable("the tab closed before an answer".to_string()),
            Err(_) => Answer::Unavailable(format!(
                "nobody answered on the control page within {} s",
                timeout.as_secs()
            )),
        }
    }

    /// Answers question `id`.
    pub fn answer(&self, id: u64, approve: bool) -> Result<(), HubError> {
        let pending = self
            .lock()
            .questions
            .remove(&id)
            .ok_or(HubError::NoQuestion(id))?;
        let _ = pending.answer.send(approve);
        self.bump();
        Ok(())
    }

    /// The person's page asked for the state: someone is there to answer.
    pub fn touch(&self) {
        self.lock().seen = Some(Instant::now());
    }

    /// Someone is there to answer (a page asked for the state lately).
    pub fn present(&self) -> bool {
        self.lock()
            .seen
            .is_some_and(|t| t.elapsed() <= self.presence)
    }

    /// Every tab, by id.
    pub fn tabs(&self) -> Vec<TabView> {
        self.lock().tabs.values().map(|t| t.view.clone()).collect()
    }

    /// One tab.
    pub fn tab(&self, tab: TabId) -> Option<TabView> {
        self.lock().tabs.get(&tab).map(|t| t.view.clone())
    }

    /// The questions waiting, oldest first.
    pub fn questions(&self) -> Vec<Question> {
        self.lock()
            .questions
            .values()
            .map(|p| p.question.clone())
            .collect()
    }

    /// Registers how the control page shows `tab` (see [`crate::browser::screenshot_source`]).
    pub fn set_screenshot(&self, tab: TabId, source: ScreenshotSource) {
        let mut s = self.lock();
        if s.tabs.contains_key(&tab) {
            s.screenshots.insert(tab, source);
        }
    }

    /// How to show `tab`, while it is registered.
    pub fn screenshot(&self, tab: TabId) -> Option<ScreenshotSource> {
        let mut s = self.lock();
        if !s.tabs.contains_key(&tab) {
            // Its tab was unregistered: let go of it.
            s.screenshots.remove(&tab);
            return None;
        }
        s.screenshots.get(&tab).cloned()
    }
}

/// Consent policy: what happens before an acting call (invoke, press, fill).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ConsentPolicy {
    /// Ask the person; nobody to ask means `consent_unavailable`.
    Ask,
    /// Go on without asking (the script's author already decided).
    Allow,
    /// Refuse every acting call.
    Deny,
}

/// Who drives a journey: its default consent policy follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JourneyKind {
    /// A Rhai script: `allow` by default.
    Script,
    /// An agent's tool calls: `ask` by default; `fill` asks after untrusted text was read.
    Agent,
}

impl JourneyKind {
    /// The consent policy when none is given.
    pub fn default_consent(self) -> ConsentPolicy {
        match self {
            JourneyKind::Script => ConsentPolicy::Allow,
            JourneyKind::Agent => ConsentPolicy::Ask,
        }
    }
}

/// Asks the person a consent question some other way than the control page or the
/// terminal (an MCP client's elicitation). [`Answer::Unavailable`] lets the next way try.
pub type Asker = Arc<dyn Fn(String) -> futures::future::BoxFuture<'static, Answer> + Send + Sync>;

/// Everything the gates of one journey's tools consult: the hub and the tab, the run that
/// owns it, the consent policy and who can answer, the guardrail.
#[derive(Clone)]
pub struct TabGates {
    /// The run's hub.
    pub hub: Arc<Hub>,
    /// The journey's tab in the hub.
    pub tab: TabId,
    /// The run driving it.
    pub run: String,
    /// Who drives the journey.
    pub kind: JourneyKind,
    /// The consent policy.
    pub consent: ConsentPolicy,
    /// Ask on the terminal when no control page is open (stdin is a TTY).
    pub terminal: bool,
    /// How long a question waits for its answer.
    pub consent_timeout: Duration,
    /// The second gate, from a file.
    pub guardrail: Option<Arc<Guardrail>>,
    /// Asked first, before the control page and the terminal, when there is one.
    pub asker: Option<Asker>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_tab_blocks_its_run_and_another_run_is_not_its_owner() {
        let hub = Hub::new();
        let tab = hub.register("run-1", "j");
        assert_eq!(hub.check(tab, "run-1"), Ok(0));
        assert_eq!(
            hub.check(tab, "run-2"),
            Err(Blocked::NotOwner("run-1".into()))
        );
        hub.take(tab).unwrap();
        assert_eq!(
            hub.check(tab, "run-1"),
            Err(Blocked::PausedByUser(TabState::User))
        );
        hub.give_back(tab).unwrap();
        assert_eq!(hub.check(tab, "run-1"), Ok(1), "control came back once");
        assert!(
            hub.give_back(tab).is_err(),
            "only a taken tab is given back"
        );
        assert_eq!(hub.check(99, "run-1"), Err(Blocked::Unknown));
    }

    #[tokio::test]
    async fn without_a_page_nobody_is_asked_and_with_one_the_answer_comes_back() {
        let hub = Arc::new(Hub::new());
        let tab = hub.register("run", "j");
        let a = hub.ask(tab, "Press?", Duration::from_secs(5)).await;
        assert!(matches!(a, Answer::Unavailable(_)), "{a:?}");
        hub.touch();
        let asker = Arc::clone(&hub);
        let asked =
            tokio::spawn(async move { asker.ask(tab, "Press?", Duration::from_secs(5)).await });
        let id = loop {
            if let Some(q) = hub.questions().first() {
                break q.id;
            }
            tokio::task::yield_now().await;
        };
        hub.answer(id, false).unwrap();
        assert_eq!(asked.await.unwrap(), Answer::Denied("control page"));
        assert!(hub.questions().is_empty());
        let a = hub.ask(tab, "Press?", Duration::from_millis(20)).await;
        assert!(
            matches!(a, Answer::Unavailable(ref why) if why.contains("nobody answered")),
            "{a:?}"
        );
    }

    #[tokio::test]
    async fn a_handoff_ends_with_done_or_times_out() {
        let hub = Arc::new(Hub::new());
        let tab = hub.register("run", "j");
        let waiter = Arc::clone(&hub);
        let waiting =
            tokio::spawn(
                async move { waiter.handoff(tab, "log in", Duration::from_secs(5)).await },
            );
        while hub.tab(tab).map(|t| t.state) != Some(TabState::Handoff) {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            hub.tab(tab).unwrap().handoff_reason.as_deref(),
            Some("log in")
        );
        assert!(matches!(
            hub.check(tab, "run"),
            Err(Blocked::PausedByUser(TabState::Handoff))
        ));
        hub.done(tab).unwrap();
        assert!(waiting.await.unwrap());
        assert_eq!(hub.tab(tab).unwrap().state, TabState::Agent);
        assert!(!hub.handoff(tab, "2FA", Duration::from_millis(20)).await);
        assert!(hub.done(tab).is_err(), "no handoff is waiting");
    }
}
