//! Finding a Chromium to run, starting it, and making sure every one we start also dies
//! with us.
//!
//! The runner owns the browser process: it is closed when the run ends, killed on a
//! signal (SIGINT, SIGTERM: see `src/signals.rs`) and on a panic. Process ids are kept in a
//! process-wide list so the panic hook and the signal path (which cannot await anything)
//! can kill them. A waymark killed outright (SIGKILL, the OOM killer) runs none of that, so
//! each browser is started with the parent-death signal set ([`spawn`]): the kernel kills
//! it when waymark is gone, whatever killed waymark.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
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
    /// The colour scheme pages see (`--color-scheme`).
    pub color_scheme: super::ColorScheme,
    /// The network every tab starts with (`--network`).
    pub network: super::NetworkConditions,
    /// Credentials, headers, locale and time zone every tab starts with.
    pub context: super::ContextSettings,
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
            color_scheme: super::ColorScheme::Light,
            network: super::NetworkConditions::default(),
            context: super::ContextSettings::default(),
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

/// Whether the browser `pid` is gone within `bound` (polled every 5 ms).
fn gone_within(pid: u32, bound: Duration) -> bool {
    let until = std::time::Instant::now() + bound;
    while running(pid) {
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

/// Waits (at most 2 s) until the browser `pid` is gone, then stops counting it among the
/// launched ones. Its profile directory is removed right after: a browser still shutting
/// down would write its cache index back into it, and every run would leave one behind in
/// the temporary directory. Returns at once for a browser that already exited.
fn forget_when_gone(pid: u32) {
    gone_within(pid, Duration::from_secs(2));
    unregister(pid);
}

/// Ends the browser `pid` this run launched, with its profile `files`: kills it and its
/// process group, then waits until it is gone and its profile removed. Blocking: off the
/// runtime's threads.
pub(super) fn put_down(pid: u32, files: Option<&Files>) {
    kill(pid);
    forget_when_gone(pid);
    if let Some(files) = files {
        files.removed_within(Duration::from_secs(2));
    }
}

/// Kills (SIGKILL) every browser this process started and has not closed yet. Safe to call
/// from a panic hook or a signal handler path: it neither awaits nor allocates much.
pub fn kill_launched_browsers() {
    let pids = match LAUNCHED.lock() {
        Ok(mut pids) => std::mem::take(&mut *pids),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    pids.into_iter().for_each(kill);
}

/// The switches every browser this run starts gets besides waymark's own: chromiumoxide's
/// defaults (Puppeteer's list, which `Browser::launch` used to add), so that a journey sees
/// the browser it always saw. `--disable-features` is not among them: Puppeteer's
/// `TranslateUI` is in the one list [`switches`] gives.
const DEFAULT_SWITCHES: &[&str] = &[
    "--disable-background-networking",
    // Every frame of another origin in a process of its own, as Chrome on a desktop puts
    // every frame of another site (the headless shell isolates nothing by default): such a
    // frame is then reached as a target of its own (see `frames.rs`). StrictOriginIsolation
    // goes further than Chrome by default: two ports of one host are two processes too.
    "--enable-features=NetworkService,NetworkServiceInProcess,StrictOriginIsolation",
    "--site-per-process",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-renderer-backgrounding",
    "--disable-sync",
    "--force-color-profile=srgb",
    "--metrics-recording-only",
    "--no-first-run",
    "--enable-automation",
    "--password-store=basic",
    "--use-mock-keychain",
    "--enable-blink-features=IdleDetection",
    "--lang=en_US",
    "--disable-extensions",
    "--disable-gpu",
    "--disable-quic",
    "--disable-component-update",
    // A port the system picks, announced on standard error (read by `spawn`).
    "--remote-debugging-port=0",
];

/// The command line of a browser `options` describe, started on `executable` with its
/// profile in `profile`.
pub(super) fn switches(options: &LaunchOptions, executable: &Path, profile: &Path) -> Vec<String> {
    let (width, height) = options.viewport;
    let mut args: Vec<String> = DEFAULT_SWITCHES.iter().map(|s| s.to_string()).collect();
    args.push(format!(
        "--disable-features=TranslateUI,{}",
        DISABLED_FEATURES.join(",")
    ));
    args.push(format!("--user-data-dir={}", profile.display()));
    args.push(format!("--window-size={width},{height}"));
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        // Chromium refuses to start its sandbox as root.
        args.extend(["--no-sandbox".into(), "--disable-setuid-sandbox".into()]);
    }
    if !options.headed {
        args.extend(["--headless", "--hide-scrollbars", "--mute-audio"].map(String::from));
    }
    if !is_headless_shell(executable) {
        // The window the full Chromium opens at start shows `data:,` instead of the
        // new-tab page, a WebUI app that kept its renderer and the browser busy for a
        // second of CPU after the launch, while the first journeys ran. (Without a
        // startup window at all, the browser quits when a popup closes itself.) The
        // headless shell has no windows and starts on `about:blank`.
        args.push("--app=data:,".into());
    }
    args
}

/// A browser process [`spawn`] started: its pid, the address of its DevTools socket, and
/// its profile directory.
pub(super) struct Spawned {
    pub pid: u32,
    pub ws: String,
    pub files: Files,
}

/// Where a browser keeps its files, on this machine.
pub(super) enum Files {
    /// A launched browser's profile directory. Its thread (see [`spawn`]) removes it once
    /// the browser has exited, so that a browser still writing its cache index back cannot
    /// bring it back, whoever stopped the browser and whenever; `removed` says it is done.
    Profile {
        path: PathBuf,
        removed: Arc<AtomicBool>,
    },
    /// A folder removed when dropped (a remote browser's downloads).
    Temporary(tempfile::TempDir),
}

impl Files {
    pub(super) fn path(&self) -> &Path {
        match self {
            Files::Profile { path, .. } => path,
            Files::Temporary(dir) => dir.path(),
        }
    }

    /// Waits (at most `bound`) until a profile is removed (its browser exited).
    pub(super) fn removed_within(&self, bound: Duration) {
        if let Files::Profile { removed, .. } = self {
            settle_flags(std::slice::from_ref(removed), bound);
        }
    }
}

/// The removal flags of every profile of this process's browsers (see [`Files::Profile`]).
static PROFILES: Mutex<Vec<Arc<AtomicBool>>> = Mutex::new(Vec::new());

/// Kills every browser this process started and has not closed yet, and waits (at most
/// 2 s) until each is gone and its profile directory removed: what a process does last, as
/// it exits (its threads, which remove the profiles, end with it; statics, a test binary's
/// shared browser among them, are never dropped).
pub fn put_down_launched_browsers() {
    kill_launched_browsers();
    let flags = PROFILES.lock().map(|f| f.clone()).unwrap_or_default();
    settle_flags(&flags, Duration::from_secs(2));
}

fn settle_flags(flags: &[Arc<AtomicBool>], bound: Duration) {
    let until = std::time::Instant::now() + bound;
    while flags.iter().any(|f| !f.load(Ordering::Acquire)) && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Starts `executable` with `args` so that it cannot outlive this process, and waits (at
/// most `bound`) for the address of its DevTools socket.
///
/// On Linux the browser gets the parent-death signal (`PR_SET_PDEATHSIG`, SIGKILL): the
/// kernel kills it the moment its parent is gone, however that went (SIGKILL, the OOM
/// killer, a crash). The signal follows the *thread* that started the process, not the
/// process, so each browser is started by a thread of its own that lives exactly as long
/// as the browser: it starts it, reads its socket's address, then waits for it to exit
/// (reaping it). A browser started by a runtime's thread would die when that thread did
/// (a test's thread, a blocking pool's idle thread). The browser also gets a process group
/// of its own, so a Ctrl-C at the terminal reaches waymark alone, which closes its
/// browsers in order (reports first).
///
/// Why [`spawn`] has no browser to give.
pub(super) struct SpawnFailed {
    /// The reason, with the end of what the browser printed.
    pub reason: String,
    /// It started, then was killed by a signal before it listened: another may start.
    pub killed: bool,
}

impl SpawnFailed {
    fn new(reason: impl Into<String>) -> SpawnFailed {
        SpawnFailed {
            reason: reason.into(),
            killed: false,
        }
    }
}

pub(super) async fn spawn(
    executable: &Path,
    args: Vec<String>,
    profile: tempfile::TempDir,
    bound: Duration,
) -> Result<Spawned, SpawnFailed> {
    let removed = Arc::new(AtomicBool::new(false));
    if let Ok(mut flags) = PROFILES.lock() {
        flags.retain(|f| !f.load(Ordering::Acquire));
        flags.push(Arc::clone(&removed));
    }
    let files = Files::Profile {
        path: profile.path().to_path_buf(),
        removed: Arc::clone(&removed),
    };
    let (started, pid) = tokio::sync::oneshot::channel();
    let (listening, ws) = tokio::sync::oneshot::channel();
    let mut command = std::process::Command::new(executable);
    command
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
        #[cfg(target_os = "linux")]
        {
            // SAFETY: getpid(2) cannot fail.
            let parent = unsafe { libc::getpid() };
            // SAFETY: the closure runs in the child between fork and exec and calls only
            // async-signal-safe functions (prctl, getppid), allocating nothing.
            unsafe {
                command.pre_exec(move || {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // The parent died before the signal was set: nobody would kill us.
                    if libc::getppid() != parent {
                        return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                    }
                    Ok(())
                });
            }
        }
    }
    let done = Arc::clone(&removed);
    std::thread::Builder::new()
        .name("waymark-browser".into())
        .spawn(move || {
            keep(command, started, listening);
            // Gone (or never started): nothing writes to its profile any more.
            drop(profile);
            done.store(true, Ordering::Release);
        })
        .map_err(|e| {
            removed.store(true, Ordering::Release);
            SpawnFailed::new(format!("cannot start a thread for it: {e}"))
        })?;
    let pid = pid
        .await
        .map_err(|_| SpawnFailed::new("its thread ended before it started"))?
        .map_err(SpawnFailed::new)?;
    match tokio::time::timeout(bound, ws).await {
        Ok(Ok(Ok(ws))) => Ok(Spawned { pid, ws, files }),
        Ok(Ok(Err(failed))) => Err(failed),
        Ok(Err(_)) => Err(SpawnFailed::new("its thread ended before it listened")),
        Err(_) => {
            kill(pid);
            Err(SpawnFailed::new(format!(
                "it did not open its DevTools socket within {} ms",
                bound.as_millis()
            )))
        }
    }
}

/// The thread of one browser (see [`spawn`]): starts it, says its pid, then the address of
/// its DevTools socket (or why there is none), and waits for it to exit. A browser whose
/// launch was given up before it was told either (the command stopped mid-launch) is
/// killed: nobody else knows it is there.
fn keep(
    mut command: std::process::Command,
    started: tokio::sync::oneshot::Sender<Result<u32, String>>,
    listening: tokio::sync::oneshot::Sender<Result<String, SpawnFailed>>,
) {
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            let _ = started.send(Err(e.to_string()));
            return;
        }
    };
    register(child.id());
    if started.send(Ok(child.id())).is_err() {
        kill(child.id());
    }
    let mut printed: Vec<String> = Vec::new();
    let found = child.stderr.take().and_then(|stderr| {
        std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .find_map(|line| {
                let ws = line
                    .rsplit_once("listening on ")
                    .map(|(_, ws)| ws.trim().to_string())
                    .filter(|ws| ws.starts_with("ws") && ws.contains("devtools/browser"));
                if ws.is_none() {
                    printed.push(line);
                }
                ws
            })
        // The pipe is closed here: Chromium ignores SIGPIPE, and what it prints later
        // nobody reads (as with chromiumoxide's own launch).
    });
    let found = found.ok_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        // Its output ended: it is exiting (or gone), so this wait is short.
        let status = child.wait().ok();
        let tail = printed.len().saturating_sub(8);
        SpawnFailed {
            reason: format!(
                "{} before it listened: {}",
                status.map_or_else(
                    || "it closed its output".to_string(),
                    |s| format!("it exited ({s})")
                ),
                printed[tail..].join(" / ")
            ),
            killed: status.is_some_and(|s| s.signal().is_some()),
        }
    });
    if listening.send(found).is_err() {
        kill(child.id());
    }
    let _ = child.wait();
}

/// Sends SIGKILL to the browser `pid` this run started and to the rest of its process
/// group (its zygotes, renderers, GPU and network processes: [`spawn`] made it the group's
/// leader), so that none outlives it to write into its profile while that is removed.
pub(super) fn kill(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) on the group of a browser process this run started (its pid is the
    // group's id while any of its processes lives); a stale one yields ESRCH.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}
