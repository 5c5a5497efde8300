//! The journey's deadline, made hard. Rhai checks it between operations, but a journey
//! spends its time blocked in tool calls, each under bounds of its own: a page whose script
//! never returns made every later call wait its own timeout, and a journey overran its
//! deadline by each of them. Every tool call of a journey is bounded by the time the
//! journey has left; a call cut short is asked why (see `Tools::past_deadline`): a page
//! that no longer responds is `page_unresponsive`, anything else the deadline's `timeout`.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::Handle;

use crate::browser::Tab;
use crate::tools::{RoundTrip, Tools};

/// Blocks a journey's thread on its tool calls, none past the journey's deadline.
pub(super) struct Blocker<T: Tab> {
    handle: Handle,
    tools: Arc<Tools<T>>,
    at: Instant,
    deadline: Duration,
}

impl<T: Tab> Clone for Blocker<T> {
    fn clone(&self) -> Self {
        Blocker {
            handle: self.handle.clone(),
            tools: Arc::clone(&self.tools),
            at: self.at,
            deadline: self.deadline,
        }
    }
}

impl<T: Tab> Blocker<T> {
    /// For a journey that started at `start` with `deadline` to run in.
    pub(super) fn new(
        handle: Handle,
        tools: Arc<Tools<T>>,
        start: Instant,
        deadline: Duration,
    ) -> Self {
        Blocker {
            handle,
            tools,
            at: start + deadline,
            deadline,
        }
    }

    /// The round trip of `call` (the tool `tool`), or when the deadline comes first, why
    /// it did not come back.
    pub(super) fn on(
        &self,
        tool: &'static str,
        call: impl Future<Output = RoundTrip>,
    ) -> RoundTrip {
        let at = tokio::time::Instant::from_std(self.at);
        match self.handle.block_on(tokio::time::timeout_at(at, call)) {
            Ok(rt) => rt,
            Err(_) => self
                .handle
                .block_on(self.tools.past_deadline(tool, self.deadline)),
        }
    }
}
