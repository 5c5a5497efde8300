//! Finding a Chromium to run, and making sure every one we start also dies with us.
//!
//! The runner owns the browser process: it is killed when the run ends, on Ctrl-C and on a
//! panic. Process ids are kept in a process-wide list so the panic hook and the signal
//! handler (which cannot await anything) can kill them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use super::BrowserError;

/// Chromium's headless shell, looked for on `PATH` first when the run is headless (see
/// [`find_browser`]): Debian's (`chromium-headless-shell` package), then Google's. It is
/// the same Chromium as the full browser without the browser's own user interface, which
/// a headless Chromium still builds and paints: a window of views (tab strip, toolbar,
/// omnibox) for each browser context, made when a journey's tab opens and torn down when
/// it closes. That was two thirds of the browser process's CPU in a suite of short
/// journeys, and what kept two jobs from running faster than one on two cores (see the
/// README's bench section).
const HEADLESS_SHELLS: &[&str] = &["chromium-headless-shell", "chrome-headless-shell"];

/// The binary Debian's `/usr/bin/chromium-headless-shell` script runs. The script runs it
/// without `exec`, so the process a run started, owns and kills would be the script's
/// shell, not the browser: the binary is started directly instead.
const DEBIAN_HEADLESS_SHELL: &str = "/usr/lib/chromium/chromium-headless-shell";

/// Names searched on `PATH`, in order, after the headless shells (or, headed, alone) when
/// no `--browser` is given.
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

/// The browser to run: `explicit` when given (it must exist, and not be a headless shell
/// when the run is `headed`), else for a headless run the first of [`HEADLESS_SHELLS`],
/// then the first of `chromium`, `chromium-browser`, `google-chrome`,
/// `google-chrome-stable`, `chrome` on `PATH`.
pub fn find_browser(explicit: Option<&Path>, headed: bool) -> Result<PathBuf, BrowserError> {
    if let Some(path) = explicit {
        let found = if path.is_file() {
            path.to_path_buf()
        } else {
            which::which(path).map_err(|_| BrowserError::NotFound {
                looked_for: format!("`{}` (given with `--browser`)", path.display()),
            })?
        };
        if headed && is_headless_shell(&found) {
            return Err(BrowserError::Launch {
                path: found.display().to_string(),
                reason: "it is Chromium's headless shell, which has no window to show; \
                         `--headed` needs a full Chromium (leave out `--browser`, or give \
                         `chromium`)"
                    .to_string(),
            });
        }
        return Ok(unwrapped(found));
    }
    let shells = if headed { &[][..] } else { HEADLESS_SHELLS };
    for name in shells.iter().chain(CANDIDATES) {
        if let Ok(found) = which::which(name) {
            return Ok(unwrapped(found));
        }
    }
    let names = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let looked_for = match shells {
        [] => format!("{} on PATH", names(CANDIDATES)),
        shells => format!("{}, then {} on PATH", names(shells), names(CANDIDATES)),
    };
    Err(BrowserError::NotFound { looked_for })
}

/// Debian's headless shell binary in place of its wrapper script `found` (see
/// [`DEBIAN_HEADLESS_SHELL`]); anything else as it is.
fn unwrapped(found: PathBuf) -> PathBuf {
    let script = || {
        let mut start = [0; 2];
        std::fs::File::open(&found)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut start))
            .is_ok_and(|()| &start == b"#!")
    };
    let binary = Path::new(DEBIAN_HEADLESS_SHELL);
    if found.file_name() == binary.file_name() && binary.is_file() && script() {
        binary.to_path_buf()
    } else {
        found
    }
}

/// Whether `path` is Chromium's headless shell (Debian's `chromium-headless-shell`,
/// Google's `chrome-headless-shell`), by its file name.
pub fn is_headless_shell(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.contains("headless-shell") || n.contains("headless_shell"))
}

static LAUNCHED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

pub(super) fn register(pid: u32) {
    if let Ok(mut pids) = LAUNCHED.lock() {
        pids.push(pid);
    }
}

fn unregister(pid: u32) {
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

/// Waits (at most 2 s) until the browser `pid` is gone, then stops counting it among the
/// launched ones. Its profile directory is removed right after: a browser still shutting
/// down would write its cache index back into it, and every run would leave one behind in
/// the temporary directory. Returns at once for a browser that already exited.
pub(super) fn forget_when_gone(pid: u32) {
    let until = std::time::Instant::now() + Duration::from_secs(2);
    while running(pid) && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    unregister(pid);
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
