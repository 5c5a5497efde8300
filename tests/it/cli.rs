//! The `waymark` binary: exit codes (0 passed, 1 failed, 2 bad input, 3 environment) and
//! messages that say what went wrong and where. Every run is bounded: a child that does
//! not end within two minutes is killed with its whole process group and the test fails.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(120);

/// What one run of the binary printed and how it ended.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    pub(crate) fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    #[track_caller]
    pub(crate) fn exits(&self, code: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    #[track_caller]
    pub(crate) fn says(&self, text: &str) -> &Run {
        assert!(self.all().contains(text), "no `{text}` in:\n{}", self.all());
        self
    }
}

fn package_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn anchors() -> String {
    package_root().join("anchors.yaml").display().to_string()
}

/// `--anchors ANCHORS run --no-trace` and then `extra`: a run's arguments.
pub(crate) fn run_args<'a>(anchors: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--anchors", anchors, "run", "--no-trace"];
    args.extend_from_slice(extra);
    args
}

/// A process as `/proc` shows it.
pub(crate) struct Process {
    pub(crate) pid: u32,
    /// The name (`comm`).
    pub(crate) name: String,
    /// `R`, `S`, `T` (stopped), `Z` (a zombie)…
    pub(crate) state: String,
    pub(crate) parent: u32,
    /// How long it has run, in seconds.
    pub(crate) age: f64,
    /// Its arguments.
    pub(crate) args: Vec<String>,
}

impl Process {
    /// Its command line, the arguments joined by spaces.
    pub(crate) fn cmdline(&self) -> String {
        self.args.join(" ")
    }
}

/// Every process of the machine that `/proc` shows now.
pub(crate) fn processes() -> Vec<Process> {
    // SAFETY: sysconf(3) has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|u| u.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (name) state ppid …`: the name may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        // After the name: state (3), ppid (4), …, starttime (22).
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        found.push(Process {
            pid,
            name: stat[open + 1..close].to_string(),
            state: fields.first().copied().unwrap_or_default().to_string(),
            parent: fields.get(1).and_then(|p| p.parse().ok()).unwrap_or(0),
            age: fields
                .get(19)
                .and_then(|t| t.parse::<f64>().ok())
                .map_or(0.0, |start| uptime - start / ticks),
            args: String::from_utf8_lossy(&cmdline)
                .split('\0')
                .filter(|a| !a.is_empty())
                .map(str::to_string)
                .collect(),
        });
    }
    found
}

/// Sends `signal` to process `pid` (a child the test started).
pub(crate) fn send(pid: u32, signal: libc::c_int) {
    // SAFETY: kill(2) on a process the test started; a pid gone yields ESRCH.
    unsafe {
        libc::kill(pid as libc::pid_t, signal);
    }
}

/// Runs the binary in `cwd` with `args` (and `env` on top of a `WAYMARK_*`-free
/// environment), killing it and failing after [`LIMIT`].
pub(crate) fn waymark<I, S>(cwd: &Path, args: I, env: &[(&str, &OsStr)]) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    waymark_with(cwd, args, env, &mut |_| true)
}

/// [`waymark`], calling `during` with the child's pid while it runs (every 25 ms) until
/// `during` returns true: a test that acts on the run from outside (kills its browser).
pub(crate) fn waymark_with<I, S>(
    cwd: &Path,
    args: I,
    env: &[(&str, &OsStr)],
    during: &mut dyn FnMut(u32) -> bool,
) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    waymark_within(LIMIT, cwd, args, env, during)
}

/// [`waymark_with`], killed and failed after `limit` instead of [`LIMIT`] (a soak's run).
pub(crate) fn waymark_within<I, S>(
    limit: Duration,
    cwd: &Path,
    args: I,
    env: &[(&str, &OsStr)],
    during: &mut dyn FnMut(u32) -> bool,
) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_waymark"));
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // its own process group, so a hung run is killed with the browser it started
        .process_group(0);
    // WAYMARK_* would change the flags; CI and INSTA_UPDATE would change how snapshots
    // are written. Tests that want them say so in `env`.
    for (key, _) in std::env::vars_os() {
        let key_text = key.to_string_lossy();
        if key_text.starts_with("WAYMARK_") || key_text == "CI" || key_text == "INSTA_UPDATE" {
            cmd.env_remove(key);
        }
    }
    for (key, value) in env {
        cmd.env(key, value);
    }
    let mut child = cmd.spawn().expect("start the waymark binary");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let start = Instant::now();
    let mut acted = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll the waymark binary") {
            break Some(status);
        }
        if !acted {
            acted = during(child.id());
        }
        if start.elapsed() > limit {
            let group = libc::pid_t::try_from(child.id()).expect("a pid fits pid_t");
            // SAFETY: kill(2) on the process group of a child we started ourselves.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(25));
    };
    let run = Run {
        code: status.and_then(|s| s.code()),
        stdout: stdout.join().expect("read stdout"),
        stderr: stderr.join().expect("read stderr"),
    };
    assert!(
        status.is_some(),
        "waymark did not end within {} s; stdout:\n{}\nstderr:\n{}",
        limit.as_secs(),
        run.stdout,
        run.stderr
    );
    run
}

/// A project folder with `journeys/<name>` for each file.
pub(crate) fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    for (name, source) in files {
        let path = dir.path().join("journeys").join(name);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("make the folder");
        std::fs::write(path, source).expect("write the journey");
    }
    dir
}

/// A temp dir holding one journey file.
pub(crate) fn journey(name: &str, source: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join(name), source).expect("write the journey");
    dir
}

pub(crate) fn run_journey(dir: &Path, name: &str, extra: &[&str]) -> Run {
    let anchors = anchors();
    let mut args = vec!["--anchors", anchors.as_str()];
    args.extend_from_slice(extra);
    args.extend(["run", name]);
    waymark(dir, args, &[])
}

/// A journey that passes: it opens a claim, reads it, and catches the error of a disabled
/// control.
const OPEN_CLAIM: &str = r#"navigate("/claims");
let opened = invoke("claims.open", "1042");
expect(opened.route == "/claims/1042", "claim 1042 opens");
let screen = read_screen();
expect(screen.screen == "claim-detail", "the claim detail screen");
let code = "none";
try { invoke("claim.escalate"); } catch (e) { code = e.code; }
expect(code == "disabled", "escalate is disabled");
"#;

#[test]
fn a_passing_journey_exits_0_with_a_summary_last() {
    let dir = journey("open_claim.rhai", OPEN_CLAIM);
    let run = run_journey(dir.path(), "open_claim.rhai", &[]);
    run.exits(0);
    assert_eq!(
        run.stdout.lines().last().map(str::trim),
        Some("1 passed, 0 failed"),
        "{}",
        run.all()
    );
}

/// A headless run uses Chromium's headless shell when there is one, and the full Chromium
/// runs the same journey the same way: it is what `--headed` and a machine without the
/// shell use. Which one ran, the run's first line says (`HeadlessChrome/…` is the shell's).
/// A reader that stops reading (`waymark run | head -1`) is not a panic: the run goes on to
/// its end and its exit code, its browser closed, with nothing on stderr but what it says.
#[test]
fn a_closed_stdout_ends_the_run_as_usual_not_in_a_panic() {
    let dir = journey("open_claim.rhai", OPEN_CLAIM);
    let anchors = anchors();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_waymark"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("WAYMARK_") {
            cmd.env_remove(key);
        }
    }
    let mut child = cmd
        .args(["--anchors", anchors.as_str(), "run", "open_claim.rhai"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("start the waymark binary");
    // Closed before the first line is written, as `head -1` closes it after the first.
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait for waymark");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn a_headless_run_uses_the_headless_shell_when_there_is_one_and_the_full_chromium_too() {
    let dir = journey("open_claim.rhai", OPEN_CLAIM);
    let default = waymark::browser::find_browser(None, false).expect("a Chromium");
    let full = waymark::browser::find_browser(None, true).expect("a full Chromium");
    let shell = waymark::browser::is_headless_shell(&default);
    if !shell {
        eprintln!(
            "no headless shell here (Debian's chromium-headless-shell package): both runs use `{}`",
            full.display()
        );
    }
    let product = if shell {
        "HeadlessChrome/"
    } else {
        "in Chrome/"
    };
    run_journey(dir.path(), "open_claim.rhai", &[])
        .exits(0)
        .says(product);
    let full = full.display().to_string();
    run_journey(dir.path(), "open_claim.rhai", &["--browser", &full])
        .exits(0)
        .says("in Chrome/");
}

/// The headless shell has no window: `--headed` with it is refused before anything starts.
#[test]
fn headed_with_the_headless_shell_exits_3_saying_why() {
    let dir = journey("noop.rhai", "navigate(\"/\");\n");
    let shell = dir.path().join("chrome-headless-shell");
    std::fs::write(&shell, "#!/bin/sh\nexit 1\n").expect("write the stand-in");
    let shell = shell.display().to_string();
    run_journey(dir.path(), "noop.rhai", &["--headed", "--browser", &shell])
        .exits(3)
        .says("headless shell, which has no window to show")
        .says("`--headed` needs a full Chromium");
}

#[test]
fn a_failing_expect_exits_1_naming_the_journey_line() {
    let dir = journey(
        "count.rhai",
        "navigate(\"/claims\");\nlet s = read_screen();\nexpect(s.controls.len() == 99, \"the list shows 99 controls\");\n",
    );
    run_journey(dir.path(), "count.rhai", &[])
        .exits(1)
        .says("the list shows 99 controls")
        .says("count.rhai:3")
        .says("0 passed, 1 failed");
}

#[test]
fn an_uncaught_tool_error_exits_1_with_its_code_and_place() {
    let dir = journey(
        "escalate.rhai",
        "navigate(\"/claims/1046\");\ninvoke(\"claim.escalate\");\n",
    );
    run_journey(dir.path(), "escalate.rhai", &[])
        .exits(1)
        .says("disabled")
        .says("claim.escalate")
        .says("escalate.rhai:2");
}

#[test]
fn a_syntax_error_exits_2_naming_file_line_and_column() {
    let dir = journey("broken.rhai", "navigate(\"/claims\");\nlet x = ;\n");
    run_journey(dir.path(), "broken.rhai", &[])
        .exits(2)
        .says("broken.rhai:2:9");
}

#[test]
fn an_endless_loop_ends_at_the_operation_limit() {
    let dir = journey("spin.rhai", "loop { }\n");
    run_journey(dir.path(), "spin.rhai", &[])
        .exits(1)
        .says("operations")
        .says("spin.rhai:1");
}

#[test]
fn a_journey_past_its_deadline_ends() {
    let dir = journey(
        "reread.rhai",
        "navigate(\"/widgets\");\nwhile true { read_screen(); }\n",
    );
    run_journey(dir.path(), "reread.rhai", &["--journey-timeout", "3"])
        .exits(1)
        .says("deadline")
        .says("3 s")
        .says("reread.rhai:2");
}

#[test]
fn a_page_slower_than_the_load_timeout_fails_the_read_saying_so() {
    let dir = tempfile::tempdir().expect("a temp dir");
    waymark(
        dir.path(),
        ["read", "/slow?ms=4000", "--load-timeout", "1"],
        &[],
    )
    .exits(1)
    .says("timeout")
    .says("`/slow?ms=4000` did not load within 1000 ms");
}

#[test]
fn a_missing_browser_exits_3_saying_what_was_looked_for() {
    let dir = journey("noop.rhai", "navigate(\"/\");\n");
    run_journey(
        dir.path(),
        "noop.rhai",
        &["--browser", "/nonexistent/chromium"],
    )
    .exits(3)
    .says("/nonexistent/chromium")
    .says("apt-get install chromium");
}

#[test]
fn no_chromium_on_path_exits_3_naming_chromium() {
    let empty = tempfile::tempdir().expect("a temp dir");
    waymark(
        empty.path(),
        ["read", "/claims"],
        &[("PATH", empty.path().as_os_str())],
    )
    .exits(3)
    .says("`chromium`")
    .says("PATH");
}

#[test]
fn an_unreachable_base_url_exits_3() {
    let dir = journey("noop.rhai", "navigate(\"/\");\n");
    run_journey(
        dir.path(),
        "noop.rhai",
        &["--base-url", "http://127.0.0.1:1"],
    )
    .exits(3)
    .says("127.0.0.1:1");
}

#[test]
fn an_invalid_registry_exits_2_naming_file_line_and_column() {
    let dir = journey("noop.rhai", "navigate(\"/\");\n");
    let registry = "app: demo\nscreens:\n  - id: home\n    route: /\nanchors:\n  - id: home.claims\n    description: Opens the claims.\n    screens: [home]\n  - id: home.claims\n    description: Opens the claims again.\n    screens: [home]\n";
    std::fs::write(dir.path().join("dup.yaml"), registry).expect("write the registry");
    waymark(
        dir.path(),
        ["--anchors", "dup.yaml", "run", "noop.rhai"],
        &[],
    )
    .exits(2)
    .says("home.claims")
    .says("dup.yaml:9:9");
}

#[test]
fn bad_usage_exits_2() {
    let dir = tempfile::tempdir().expect("a temp dir");
    waymark(dir.path(), ["--journey-timeout", "0", "run"], &[]).exits(2);
    waymark(dir.path(), ["run", "no/such/journeys"], &[])
        .exits(2)
        .says("no/such/journeys");
    // Milliseconds given to a flag in seconds: refused, naming the flag and its range.
    waymark(dir.path(), ["--load-timeout", "5000", "run"], &[])
        .exits(2)
        .says("--load-timeout")
        .says("1..=600");
}

#[test]
fn read_json_prints_the_inferred_screen() {
    let run = waymark(&package_root(), ["read", "/claims", "--json"], &[]);
    run.exits(0);
    let screen: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", run.stdout));
    assert_eq!(screen["route"], "/claims");
    assert_eq!(screen["screen"], "claims-list");
    assert_eq!(screen["app"], "demo");
    assert_eq!(screen["untrusted"], true);
    assert!(screen["elapsed_ms"].is_number(), "{}", screen["elapsed_ms"]);
    let controls = screen["controls"].as_array().expect("controls is an array");
    let claims = controls
        .iter()
        .filter(|c| c["anchor"] == "claims.open")
        .count();
    assert_eq!(claims, 10);
}

#[test]
fn read_prints_a_table_with_keyed_references() {
    waymark(&package_root(), ["read", "/claims"], &[])
        .exits(0)
        .says("claims.open[1042]")
        .says("claims-list");
}
