//! How a command is asked to stop: SIGINT (Ctrl-C) and SIGTERM (a cancelled CI pipeline,
//! `timeout`, a pod ending) take one path (`cmd::main`). The command is told to stop
//! ([`Stop`]) and given [`GRACE`] to end in order: `run` stops starting journeys, drops
//! those running, closes its browsers and writes the reports of what finished; the other
//! commands are simply dropped, which closes their browsers. A second signal, or the grace
//! running out, kills the browsers at once. Either way the exit code is the shell's
//! 128 + the signal's number (130, 143).
//!
//! What no handler can see (SIGKILL, the OOM killer) the kernel answers: every browser is
//! started with the parent-death signal (`src/browser/launch.rs`).

use std::time::Duration;

use tokio::sync::watch;

use crate::exit::Exit;

/// How long a command has to end in order once asked to stop.
pub const GRACE: Duration = Duration::from_secs(10);

/// A signal asking the process to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT: Ctrl-C at a terminal.
    Interrupt,
    /// SIGTERM: a supervisor's request to stop.
    Terminate,
}

impl Signal {
    /// The signal's name, as a person reads it in a log.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }

    /// The code the process exits with when stopped by this signal.
    pub fn exit(self) -> Exit {
        match self {
            Signal::Interrupt => Exit::Interrupted,
            Signal::Terminate => Exit::Terminated,
        }
    }
}

/// The process's SIGINT and SIGTERM, heard from the moment [`Signals::listen`] returns
/// (their default action, dying at once, is replaced then).
pub struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    /// Starts listening. Needs a Tokio runtime.
    pub fn listen() -> std::io::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// Runs `work` until it ends or a signal stops it: on SIGINT or SIGTERM, the [`Stop`]
    /// `work` was given is asked and `work` has [`GRACE`] to end in order; a second signal,
    /// or the grace running out, calls `kill` (the browsers) and `work` is dropped. A
    /// stopped `work` exits with the signal's code, whatever it returned.
    pub async fn stop_on<F>(mut self, work: impl FnOnce(Stop) -> F, kill: impl Fn()) -> Exit
    where
        F: std::future::Future<Output = Exit>,
    {
        let (request, stop) = stop_channel();
        let work = work(stop);
        tokio::pin!(work);
        let signal = tokio::select! {
            code = &mut work => return code,
            signal = self.next() => signal,
        };
        eprintln!(
            "interrupted by {}: stopping (a second signal, or {} s without an end, kills the browsers)",
            signal.name(),
            GRACE.as_secs()
        );
        request.request(signal);
        tokio::select! {
            _ = &mut work => {}
            second = self.next() => eprintln!("{}: killing the browsers", second.name()),
            () = tokio::time::sleep(GRACE) => {
                eprintln!("not stopped within {} s: killing the browsers", GRACE.as_secs());
            }
        }
        kill();
        signal.exit()
    }

    /// The next signal.
    pub async fn next(&mut self) -> Signal {
        tokio::select! {
            Some(()) = self.interrupt.recv() => Signal::Interrupt,
            Some(()) = self.terminate.recv() => Signal::Terminate,
            else => std::future::pending().await,
        }
    }
}

/// A command's side of a request to stop: cheap to clone, asked with [`Stop::requested`].
#[derive(Debug, Clone)]
pub struct Stop(watch::Receiver<Option<Signal>>);

/// The side that asks (`cmd::main`).
#[derive(Debug)]
pub struct StopRequest(watch::Sender<Option<Signal>>);

/// A request to stop and what it reaches.
pub fn stop_channel() -> (StopRequest, Stop) {
    let (tx, rx) = watch::channel(None);
    (StopRequest(tx), Stop(rx))
}

impl StopRequest {
    /// Asks every [`Stop`] of the channel to stop, for `signal`.
    pub fn request(&self, signal: Signal) {
        self.0.send_replace(Some(signal));
    }
}

impl Stop {
    /// A stop that is never asked (a bench, a test).
    pub fn never() -> Stop {
        stop_channel().1
    }

    /// The signal that asked to stop, if one did.
    pub fn signal(&self) -> Option<Signal> {
        *self.0.borrow()
    }

    /// Resolves once a stop is asked, with its signal; never when it cannot be any more.
    pub async fn requested(&self) -> Signal {
        let mut rx = self.0.clone();
        let asked = rx.wait_for(Option::is_some).await.map(|s| *s);
        match asked {
            Ok(signal) => signal.unwrap_or(Signal::Interrupt),
            Err(_) => std::future::pending().await,
        }
    }

    /// Runs `work` until it ends or a stop is asked, whichever comes first (`work` is then
    /// dropped, which ends what it started): `None` when stopped.
    pub async fn cut<F: std::future::Future>(&self, work: F) -> Option<F::Output> {
        tokio::select! {
            out = work => Some(out),
            _ = self.requested() => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stop_asked_reaches_every_clone_and_cuts_work() {
        let (request, stop) = stop_channel();
        let other = stop.clone();
        assert_eq!(stop.signal(), None);
        let work = tokio::spawn(async move { other.cut(std::future::pending::<()>()).await });
        request.request(Signal::Terminate);
        assert_eq!(work.await.expect("joined"), None);
        assert_eq!(stop.requested().await, Signal::Terminate);
        assert_eq!(Signal::Terminate.exit().code(), 143);
    }

    #[tokio::test]
    async fn a_stop_never_asked_lets_work_end() {
        assert_eq!(Stop::never().cut(async { 7 }).await, Some(7));
    }
}
