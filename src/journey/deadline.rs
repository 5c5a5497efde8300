//! The journey's deadline, made hard. Rhai checks it between operations, but a journey
//! spends its time blocked in tool calls, each under bounds of its own: a page whose script
//! never returns made every later call wait its own timeout, and a journey overran its
//! deadline by each of them. Every tool call of a journey is bounded by the time the
//! journey has left; a call cut short is asked why (see `Gateway::call_until`): a page
//! that no longer responds is `page_unresponsive`, anything else the deadline's `timeout`.

use std::time::{Duration, Instant};

use tokio::runtime::Handle;

use crate::browser::Tab;
use crate::tools::{Call, Gateway, RoundTrip};

/// Blocks a journey's thread on its tool calls, none past the journey's deadline.
pub(super) struct Blocker<T: Tab> {
    handle: Handle,
    gateway: Gateway<T>,
    at: Instant,
    deadline: Duration,
}

impl<T: Tab> Clone for Blocker<T> {
    fn clone(&self) -> Self {
        Blocker {
            handle: self.handle.clone(),
            gateway: self.gateway.clone(),
            at: self.at,
            deadline: self.deadline,
        }
    }
}

impl<T: Tab> Blocker<T> {
    /// For a journey that started at `start` with `deadline` to run in.
    pub(super) fn new(
        handle: Handle,
        gateway: Gateway<T>,
        start: Instant,
        deadline: Duration,
    ) -> Self {
        Blocker {
            handle,
            gateway,
            at: start + deadline,
            deadline,
        }
    }

    /// The round trip of `call`, or when the deadline comes first, why it did not come
    /// back.
    pub(super) fn on(&self, call: &Call) -> RoundTrip {
        let at = tokio::time::Instant::from_std(self.at);
        self.handle
            .block_on(self.gateway.call_until(call, at, self.deadline))
            .unwrap_or_default()
    }

    /// The round trip of `call`, however long it takes within its own bounds: a handoff,
    /// which waits for the person up to the handoff timeout.
    pub(super) fn unbounded(&self, call: &Call) -> RoundTrip {
        self.handle
            .block_on(self.gateway.call(call))
            .unwrap_or_default()
    }
}
