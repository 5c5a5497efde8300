//! Event streams read in two places: by a watcher task, so that what a tab's pages do
//! between calls is handled as it comes, and by a call itself, so that what chromiumoxide
//! already handed over is the call's, whether or not the watcher task had its turn.
//!
//! Why both: chromiumoxide hands a page's events to unbounded channels (its handler task),
//! and a spawned task moves them on when a runtime worker runs it. Several journeys share
//! the runtime's two workers, so a call that reads what the watcher gathered right after
//! Chromium's last answer can come before the watcher's turn, and a `yield_now` does not
//! give it one: an uncaught error thrown by the call's click went with the next call, and
//! under `--fail-on-page-error` failed it. A [`Tap`] keeps its streams and what they fed
//! under one lock; [`Tap::with`] reads the streams first. What Chromium sent after the
//! call's last answer comes with a later call; so may what chromiumoxide's handler still
//! holds for its next turn (it hands an answer over at once, the events read with it a
//! few microseconds later), unless the caller makes a round trip first, as the console's
//! take does (`page_log` in `src/tools/console.rs`).

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use chromiumoxide::cdp::IntoEventKind;
use chromiumoxide::listeners::EventStream;
use futures::Stream;
use tokio::task::JoinHandle;

/// What a [`Tap`] keeps: its streams and what their events made of it.
pub(super) trait Pump: Send + 'static {
    /// Handles every event the streams hold; whether all of them have ended.
    fn pump(&mut self, cx: &mut Context<'_>) -> bool;
}

/// `P` read by a watcher task and by [`Tap::with`].
pub(super) struct Tap<P>(Mutex<Tapped<P>>);

struct Tapped<P> {
    pump: P,
    /// The watcher task's waker: a stream remembers the last waker that polled it, so a
    /// call polls with this one and the watcher is still woken afterwards.
    waker: Option<Waker>,
}

impl<P: Pump> Tap<P> {
    /// The tap, and its watcher task (it ends when every stream has).
    pub(super) fn start(pump: P) -> (Arc<Self>, JoinHandle<()>) {
        let tap = Arc::new(Tap(Mutex::new(Tapped { pump, waker: None })));
        let watched = Arc::clone(&tap);
        let watcher = tokio::spawn(std::future::poll_fn(move |cx| watched.watch(cx)));
        (tap, watcher)
    }

    /// Handles what the streams hold now, for a caller about to look at what they feed.
    pub(super) fn catch_up(&self) {
        self.with(|_| ());
    }

    /// `f` of what the streams fed, once it has handled what they hold now; `None` when a
    /// panic poisoned the lock.
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut P) -> R) -> Option<R> {
        let mut tapped = self.0.lock().ok()?;
        let waker = tapped
            .waker
            .clone()
            .unwrap_or_else(|| Waker::noop().clone());
        // Whether the streams have ended is the watcher's business.
        let _ = tapped.pump.pump(&mut Context::from_waker(&waker));
        Some(f(&mut tapped.pump))
    }

    fn watch(&self, cx: &mut Context<'_>) -> Poll<()> {
        let Ok(mut tapped) = self.0.lock() else {
            return Poll::Ready(());
        };
        tapped.waker = Some(cx.waker().clone());
        if tapped.pump.pump(cx) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Hands `each` event `stream` holds, and drops the stream once it has ended; whether it
/// has.
pub(super) fn drain<T: IntoEventKind + Unpin>(
    stream: &mut Option<EventStream<T>>,
    cx: &mut Context<'_>,
    mut each: impl FnMut(&T),
) -> bool {
    while let Some(open) = stream.as_mut() {
        match Pin::new(open).poll_next(cx) {
            Poll::Ready(Some(event)) => each(&event),
            Poll::Ready(None) => *stream = None,
            Poll::Pending => return false,
        }
    }
    true
}
