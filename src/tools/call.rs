//! The one place every tool call begins and ends: the gates before it (a refused call never
//! touches the page), the trace after it. A call reads as: check the gates → act through
//! the tab → read back → record.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::Screenshots;
use super::consent::Subject;
use super::gate::{self, Action, AllowedSet, Gate, GateContext, Passage};
use super::timing::Phase;
use super::verbs::Verb;
use super::{ActionClass, Outcome, RoundTrip, Tools, ms_since};
use crate::browser::Tab;
use crate::control::{ConsentPolicy, JourneyKind, TabGates};
use crate::tools::trace::{Trace, Viewport};

/// What the gates consult beside the call itself: the classes permitted now, the run's
/// hub, tab and policies, and what the page and the person did since the last call.
#[derive(Default)]
pub(super) struct GateState {
    /// The action classes permitted for the following calls.
    pub(super) allowed: Mutex<AllowedSet>,
    /// A read returned untrusted page text (typing asks after it, for agents).
    pub(super) untrusted_read: AtomicBool,
}

impl<T: Tab> Tools<T> {
    /// The same tools, recording every call in `trace`.
    pub fn with_trace(mut self, trace: Arc<Trace>) -> Tools<T> {
        self.trace = Some(trace);
        self
    }

    /// The same tools, gated by the run's hub (tab control), consent and guardrail; the
    /// tabs its pages open get places of their own in the hub, with the same policies.
    pub fn with_control(mut self, control: TabGates) -> Tools<T> {
        if let Some(first) = self.tabs.first_mut() {
            first.control = Some(control);
        }
        self
    }

    /// The hub, tab and policies the current tab's calls are gated by, if any.
    pub fn control(&self) -> Option<TabGates> {
        self.here().control.clone()
    }

    /// The trace the calls are recorded in, if any.
    pub fn trace(&self) -> Option<&Arc<Trace>> {
        self.trace.as_ref()
    }

    /// Permits exactly `classes` for the following calls; a call outside them is refused
    /// with `not_allowed` and recorded as an `unauthorized_action`.
    pub fn allow(&self, classes: AllowedSet) {
        if let Ok(mut allowed) = self.gates.allowed.lock() {
            *allowed = classes;
        }
        if let Some(trace) = &self.trace {
            trace.allowed_set(classes);
        }
    }

    /// The classes permitted now.
    pub fn allowed(&self) -> AllowedSet {
        // A poisoned lock permits nothing rather than everything.
        self.gates
            .allowed
            .lock()
            .map(|a| *a)
            .unwrap_or_else(|_| AllowedSet::from_classes([]))
    }

    /// The tab's viewport and device scale, asked of the page (for a trace's header).
    pub async fn viewport(&self) -> Option<Viewport> {
        let json = self
            // A mobile device's viewport is its screen: a page without a viewport `<meta>`
            // (the blank one the tab starts on) is laid out 980 pixels wide on it.
            .evaluate(
                "(function (m) { return JSON.stringify([m ? screen.width : innerWidth, \
                 m ? screen.height : innerHeight, devicePixelRatio, navigator.maxTouchPoints]); \
                 })(navigator.maxTouchPoints > 0)",
            )
            .await
            .ok()?;
        let [width, height, device_scale, touch]: [f64; 4] = serde_json::from_str(&json).ok()?;
        Some(Viewport {
            size: [width, height],
            device_scale,
            mobile: touch > 0.0,
        })
    }

    /// Runs `work` (the call's own future, not yet started) if the gates let `verb` on
    /// `target` through, and records the call. A refused call's round trip has no screen:
    /// nothing was read, because nothing may touch the page; its route is the last one read.
    /// The round trip returned is [shown](RoundTrip::shown): its page text and inputs cut.
    ///
    /// Not an `async fn`: one would hold `work` twice (its argument, and `call_as`'s) in
    /// the future of every call.
    pub(super) fn call<'a>(
        &'a self,
        verb: Verb,
        target: Option<&'a str>,
        subject: Option<Subject<'a>>,
        work: impl Future<Output = Outcome> + 'a,
    ) -> impl Future<Output = RoundTrip> + 'a {
        self.call_as(verb, verb.class(), target, subject, work)
    }

    /// [`call`](Tools::call) of a verb whose class this call decides (`request`: a read
    /// for `GET`, an act for `POST`).
    pub(super) async fn call_as(
        &self,
        verb: Verb,
        class: ActionClass,
        target: Option<&str>,
        subject: Option<Subject<'_>>,
        work: impl Future<Output = Outcome>,
    ) -> RoundTrip {
        let start = Instant::now();
        // A tab its page closed since the last call gives way to its opener first.
        let closed_before = self.follow_closed();
        if closed_before.is_some() {
            let _ = self.here().tab.bring_to_front().await;
        }
        let started_in = self.current_tab();
        let route_before = self.current_route();
        let action = Action {
            class,
            ..Action::new(verb, target.map(str::to_string))
        };
        let allowed = self.allowed();
        self.timing_reset();
        // Check the gates.
        let gates = Instant::now();
        let passage = self
            .pass_gates(&action, allowed, subject, &route_before)
            .await;
        self.timed(Phase::Gates, gates);
        let reads = self.here().memory.reads.load(Ordering::Relaxed);
        // The control an action targets: not a tab, an answer, a pattern or a request.
        let anchor = match verb {
            Verb::Invoke | Verb::Press | Verb::Fill | Verb::Drag | Verb::Upload | Verb::Hover => {
                action.target.clone()
            }
            Verb::ScrollTo => action.target.clone(),
            _ => None,
        };
        let mut rt = match &passage.refusal {
            Some(refusal) => RoundTrip {
                tool: verb.tool(),
                ok: false,
                anchor,
                label: None,
                route: route_before.clone(),
                route_before,
                screen: None,
                changes: None,
                error: Some(refusal.clone()),
                elapsed_ms: ms_since(start),
                ..RoundTrip::default()
            },
            // Act through the tab and read back.
            None => {
                if let Ok(mut waited) = self.shared.waited_ms.lock() {
                    *waited = 0.0;
                }
                let outcome = self.guarded(&action, work).await;
                let mut rt = self
                    .finish(verb.tool(), anchor, route_before, outcome, start)
                    .await;
                self.after_call(&mut rt, verb, started_in).await;
                rt
            }
        };
        rt.tab = self.current_tab();
        let closed_now = self
            .shared
            .closed_tab
            .lock()
            .ok()
            .and_then(|mut c| c.take());
        rt.closed = closed_now.or(rt.closed).or(closed_before);
        rt.dialogs = self.take_dialogs();
        self.take_console(&action, &mut rt).await;
        self.drop_unclaimed_pushes().await;
        rt.waited_ms = self.shared.waited_ms.lock().map(|w| *w).unwrap_or(0.0);
        rt.timing = self.timing().of_call(rt.elapsed_ms);
        (rt.routed, rt.routed_requests) = self.take_routed();
        // A handoff answers only where the page is: nothing of the person's time with it.
        let handed = verb == Verb::Handoff;
        if handed {
            rt.screen = None;
            rt.changes = None;
        }
        if rt.screen.is_some() {
            self.gates.untrusted_read.store(true, Ordering::Relaxed);
        }
        // What leaves the gateway, the trace and the control page show it cut.
        let mut rt = rt.shown();
        if let Some(control) = &self.here().control {
            control.hub.set_route(control.tab, &rt.route);
        }
        // Record.
        if self.trace.is_some() {
            let reads_before = if handed {
                self.here().memory.reads.load(Ordering::Relaxed)
            } else {
                reads
            };
            let acted = passage.refusal.is_none()
                && matches!(
                    class,
                    ActionClass::Navigate | ActionClass::Act | ActionClass::Type
                );
            let shooting = Instant::now();
            let shot = match self.options.screenshots {
                Screenshots::On if acted => self.safe_screenshot().await,
                _ => None,
            };
            // Taken after the call: not in its `elapsed_ms`.
            if shot.is_some() {
                rt.timing = rt.timing.with_screenshot(ms_since(shooting));
            }
            self.record(&action, &passage, reads_before, &rt, allowed, shot);
        }
        rt
    }

    /// The gates, in their fixed order (tab control, the allowed set, consent and the
    /// guardrail), for `action`: asks the person when a gate says so, and checks the tab is
    /// still the run's once the answer came. Notes when the person gave the tab back.
    async fn pass_gates(
        &self,
        action: &Action,
        allowed: AllowedSet,
        subject: Option<Subject<'_>>,
        route_before: &str,
    ) -> Passage {
        let here = self.here();
        let control = here.control.as_ref();
        let state = control.map(|c| c.hub.check(c.tab, &c.run));
        let agent = control.is_some_and(|c| c.kind == JourneyKind::Agent);
        let cx = GateContext {
            allowed,
            control: state.clone(),
            read_only: self.options.read_only,
            guardrail: control.and_then(|c| c.guardrail.as_deref()),
            route: route_before,
            consent: match control.map_or(ConsentPolicy::Allow, |c| c.consent) {
                // An agent's upload always asks, naming the file (`deny` still refuses).
                ConsentPolicy::Allow if agent && action.verb == Verb::Upload => ConsentPolicy::Ask,
                policy => policy,
            },
            untrusted_read: agent && self.gates.untrusted_read.load(Ordering::Relaxed),
        };
        let mut passage = gate::pass(action, &cx);
        if let (Some(why), Some(control)) = (passage.ask.clone(), control) {
            let question = self.question(action, subject, route_before);
            let verdict = self.ask(control, &question, &why).await;
            passage.answered(verdict);
            // The person may have taken the tab while the question waited: an action
            // queued behind a question does not run then.
            if passage.refusal.is_none() {
                let now = GateContext {
                    control: Some(control.hub.check(control.tab, &control.run)),
                    ..GateContext::new(AllowedSet::default())
                };
                let again = gate::pass(action, &now);
                if let (Some(Gate::Control), Some(refusal)) = (again.refused_by(), again.refusal) {
                    passage.refused_late(Gate::Control, refusal);
                }
            }
        }
        if let Some(Ok(returns)) = state
            && returns > self.here().returns_seen.swap(returns, Ordering::Relaxed)
        {
            self.here().resumed.store(true, Ordering::Relaxed);
        }
        passage
    }

    /// Writes the call's step: the raw layer is the last read the call made (the held one,
    /// or a region read's, if the count of reads moved since the call began), else none.
    fn record(
        &self,
        action: &Action,
        passage: &Passage,
        reads_before: u64,
        rt: &RoundTrip,
        allowed: AllowedSet,
        shot: Option<Vec<u8>>,
    ) {
        let Some(trace) = &self.trace else { return };
        let refused_with = (passage.refused_by() == Some(Gate::Allowed)).then_some(allowed);
        let reads = self.here().memory.reads.load(Ordering::Relaxed);
        let here = self.here();
        let held = here.memory.held.lock();
        let region = here.memory.region_raw.lock();
        // A whole read with frames of another site: the evidence holds their controls too.
        let framed = here.memory.framed.lock();
        let raw = match (&held, &region) {
            _ if reads == reads_before => None,
            (_, Ok(region)) if region.as_ref().is_some_and(|(n, _)| *n == reads) => {
                region.as_ref().map(|(_, raw)| raw)
            }
            _ if framed.as_ref().is_ok_and(|f| f.is_some()) => {
                framed.as_ref().ok().and_then(|f| f.as_ref())
            }
            (Ok(held), _) => held.as_ref().map(|h| &h.raw),
            _ => None,
        };
        trace.step(
            action,
            &passage.verdicts,
            raw,
            rt,
            refused_with,
            shot.as_deref(),
        );
    }
}
