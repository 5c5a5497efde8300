//! Finding a Chromium to run, and making sure every one we start also dies with us.
//!
//! The runner owns the browser process: it is killed when the run ends, on Ctrl-C and on a
//! panic. Process ids are kept in a process-wide list so the panic hook and the signal
//! handler (which cannot await anything) can kill them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use super::BrowserError;

/// Names searched on `PATH`, in order, when no `--browser` is given.
const CANDIDATES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// Chromium features a run turns off, in every browser it starts or asks a Grid for. Each
/// costs CPU in a run of many journeys, measured on a 2-core machine with
/// `scripts/cpu-by-process` (see the README's bench section), and none is one a journey
/// can tell from a user's browser:
/// - `SpareRendererForSitePerProcess`: after each navigation Chromium starts a spare
///   renderer process for the next, in the browser context it happened in; a journey's
///   context is gone before the spare is used, so each journey paid for two or three
///   renderer processes started for nothing (30 for the shipped suite, 12 without).
/// - `BackForwardCache` and `RenderDocument`: each navigation keeps the page it left frozen
///   in memory and makes a new frame host for the next document; journeys only go
///   forward, and the two together cost a fifth of a navigation's CPU.
/// - Translate, the media router and optimization hints: services a journey never uses.
/// - The omnibox popups: web pages each window (one per tab's browser context) loads in a
///   renderer of its own.
pub(super) const DISABLED_FEATURES: &[&str] = &[
    "SpareRendererForSitePerProcess",
    "BackForwardCache",
    "RenderDocument",
    "Translate",
    "MediaRouter",
    "OptimizationHints",
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
];

/// How to start the browser.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// The executable; `None` searches `PATH` (see [`find_browser`]).
    pub executable: Option<PathBuf>,
    /// Show the window instead of running headless.
    pub headed: bool,
    /// Viewport width and height in CSS pixels.
    pub viewport: (u32, u32),
    /// Device pixels per CSS pixel.
    pub device_scale: f64,
    /// A mobile viewport with touch (a phone or a tablet).
    pub mobile: bool,
    /// The named device the viewport, density and touch came from (`--device`), if any.
    pub device: Option<String>,
    /// Bound on every CDP command.
    pub command_timeout: Duration,
    /// Bound on starting the browser (or on getting one from `remote`).
    pub launch_timeout: Duration,
    /// A browser elsewhere to use instead of launching one.
    pub remote: Option<super::Remote>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            executable: None,
            headed: false,
            viewport: (1280, 800),
            device_scale: 1.0,
            mobile: false,
            device: None,
            command_timeout: Duration::from_secs(10),
            launch_timeout: Duration::from_secs(20),
            remote: None,
        }
    }
}

/// The browser to run: `explicit` when given (it must exist), else the first of
/// `chromium`, `chromium-browser`, `google-chrome`, `google-chrome-stable`, `chrome` on `PATH`.
pub fn find_browser(explicit: Option<&Path>) -> Result<PathBuf, BrowserError> {
    if let Some(path) = explicit {
        if path.is_file() {
            return Ok(path.to_path_buf());
        }
        if let Ok(found) = which::which(path) {
            return Ok(found);
        }
        return Err(BrowserError::NotFound {
            looked_for: format!("`{}` (given with `--browser`)", path.display()),
        });
    }
    for name in CANDIDATES {
        if let Ok(found) = which::which(name) {
            return Ok(found);
        }
    }
    let names = CANDIDATES
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Err(BrowserError::NotFound {
        looked_for: format!("{names} on PATH"),
    })
}

static LAUNCHED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

pub(super) fn register(pid: u32) {
    if let Ok(mut pids) = LAUNCHED.lock() {
        pids.push(pid);
    }
}

pub(super) fn unregister(pid: u32) {
    if let Ok(mut pids) = LAUNCHED.lock() {
        pids.retain(|p| *p != pid);
    }
}

/// Whether process `pid` still runs: not gone, not a zombie (a killed child nobody reaped
/// yet). Read from `/proc`; where there is none, every process counts as running.
pub(super) fn running(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (comm) state …`: the name may hold spaces, so the state is read after its `)`.
    let state = stat
        .rfind(')')
        .and_then(|at| stat[at + 1..].split_whitespace().next());
    !matches!(state, Some("Z" | "X" | "x"))
}

/// Kills (SIGKILL) every browser this process started and has not closed yet. Safe to call
/// from a panic hook or a signal handler path: it neither awaits nor allocates much.
pub fn kill_launched_browsers() {
    let pids = match LAUNCHED.lock() {
        Ok(mut pids) => std::mem::take(&mut *pids),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    for pid in pids {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            continue;
        };
        // SAFETY: kill(2) with a pid we spawned ourselves; a stale pid only yields ESRCH.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}
