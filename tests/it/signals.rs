//! A stopped waymark leaves nothing behind (see `src/signals.rs`): every command that starts
//! a browser or a server, sent SIGTERM mid-work, exits 143 with no browser process and no
//! profile directory left; `run` writes the reports of what finished first; a second
//! signal ends a run at once; and a waymark killed outright (SIGKILL) takes its browsers
//! with it within 2 s, through the parent-death signal they were started with.
//!
//! Each run gets a `TMPDIR` of its own: every browser it starts has its profile there, so
//! a process whose command line names that folder is one of its browsers (or their
//! renderers), whoever its parent is now.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli::{Run, anchors, processes, project, run_args, send, waymark_with};

/// A server that takes connections and never answers: a page on it never loads, so a
/// command that opens it is mid-work for as long as its load timeout.
fn silent_app() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let url = format!("http://{}", listener.local_addr().expect("its address"));
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    url
}

/// The processes whose command line names `dir`, as `pid: command line`.
fn processes_naming(dir: &Path) -> Vec<String> {
    let needle = dir.display().to_string();
    processes()
        .into_iter()
        .filter(|p| p.cmdline().contains(&needle))
        .map(|p| format!("{}: {}", p.pid, p.cmdline()))
        .collect()
}

/// The profile directories left in `dir`.
fn profiles_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("waymark-profile-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Waits (at most `bound`) until no process names `dir`; the ones left otherwise.
fn none_left_within(dir: &Path, bound: Duration) -> Vec<String> {
    let start = Instant::now();
    loop {
        let left = processes_naming(dir);
        if left.is_empty() || start.elapsed() > bound {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs waymark with `args` in `dir`, its temporary files in `tmp`, and sends it `signal`
/// once a browser of its is up (and `settle` after, so the command is at work).
fn stopped(dir: &Path, tmp: &Path, args: &[&str], signal: libc::c_int, settle: Duration) -> Run {
    let mut sent = None;
    let run = waymark_with(dir, args, &[("TMPDIR", tmp.as_os_str())], &mut |pid| {
        match sent {
            None if !processes_naming(tmp).is_empty() => sent = Some(Instant::now()),
            Some(at) if at.elapsed() >= settle => {
                send(pid, signal);
                return true;
            }
            _ => {}
        }
        false
    });
    assert!(
        sent.is_some(),
        "no browser was seen before it ended:\n{}",
        run.all()
    );
    run
}

/// Nothing of the stopped command is left: no browser process, no profile directory.
#[track_caller]
fn nothing_left(what: &str, tmp: &Path, run: &Run) {
    let left = none_left_within(tmp, Duration::from_secs(2));
    assert!(
        left.is_empty(),
        "{what}: browsers left: {left:#?}\n{}",
        run.all()
    );
    let profiles = profiles_in(tmp);
    assert!(
        profiles.is_empty(),
        "{what}: profiles left: {profiles:?}\n{}",
        run.all()
    );
}

/// A journey that finishes at once, and one that waits (reading) until it is stopped.
const QUICK: &str =
    "navigate(\"/claims\");\nexpect(read_screen().screen == \"claims-list\", \"the list\");\n";
const WAITS: &str = "navigate(\"/claims\");\nfor i in 0..100000 { read_screen(); }\n";

#[test]
fn sigterm_stops_a_run_in_order_reports_what_finished_and_leaves_nothing() {
    let dir = project(&[("a_quick.rhai", QUICK), ("b_waits.rhai", WAITS)]);
    let tmp = tempfile::tempdir().expect("a temp dir");
    let junit = dir.path().join("junit.xml");
    let report = format!("junit={}", junit.display());
    let anchors = anchors();
    let args = run_args(&anchors, &["--jobs", "1", "--report", report.as_str()]);
    // The quick journey is done well within the 3 s the waiting one is given.
    let run = stopped(
        dir.path(),
        tmp.path(),
        &args,
        libc::SIGTERM,
        Duration::from_secs(3),
    );
    run.exits(143)
        .says("interrupted by SIGTERM")
        .says("✓ a_quick")
        .says("SIGTERM: 1 of 2 journeys finished; not run to the end: b_waits");
    nothing_left("run", tmp.path(), &run);
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report is written");
    assert!(xml.contains("a_quick"), "{xml}");
    assert!(xml.contains("b_waits"), "{xml}");
}

#[test]
fn a_second_signal_ends_a_run_at_once_and_kills_its_browsers() {
    let dir = project(&[("waits.rhai", WAITS)]);
    let tmp = tempfile::tempdir().expect("a temp dir");
    let anchors = anchors();
    let args = run_args(&anchors, &[]);
    let mut sent = 0;
    let run = waymark_with(
        dir.path(),
        args,
        &[("TMPDIR", tmp.path().as_os_str())],
        &mut |pid| {
            if processes_naming(tmp.path()).is_empty() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(500));
            send(pid, libc::SIGINT);
            send(pid, libc::SIGINT);
            sent = 2;
            true
        },
    );
    assert_eq!(sent, 2, "{}", run.all());
    run.exits(130).says("interrupted by SIGINT");
    nothing_left("run", tmp.path(), &run);
}

/// `read`, `check`, `suggest`, `state save` and `bench`, each stopped while its browser
/// waits for a page that never loads.
#[test]
fn sigterm_stops_every_command_with_a_browser_and_leaves_nothing() {
    let app = silent_app();
    let dir = project(&[]);
    let anchors = anchors();
    let state = dir.path().join("state.json");
    let state = state.display().to_string();
    let commands: [&[&str]; 5] = [
        &["read", "/claims"],
        &["check"],
        &["suggest", "/claims"],
        &["state", "save", state.as_str()],
        &["bench", "/claims", "--runs", "1"],
    ];
    for command in commands {
        let tmp = tempfile::tempdir().expect("a temp dir");
        let mut args = vec!["--anchors", anchors.as_str(), "--base-url", app.as_str()];
        args.extend_from_slice(command);
        let run = stopped(
            dir.path(),
            tmp.path(),
            &args,
            libc::SIGTERM,
            Duration::from_millis(500),
        );
        assert_eq!(run.code, Some(143), "{command:?}:\n{}", run.all());
        nothing_left(&format!("{command:?}"), tmp.path(), &run);
    }
    // Stopped the moment its browser process appears: mid-launch, before the browser
    // listens, and before waymark knows more of it than its pid.
    for _ in 0..3 {
        let tmp = tempfile::tempdir().expect("a temp dir");
        let args = [
            "--anchors",
            anchors.as_str(),
            "--base-url",
            app.as_str(),
            "read",
            "/",
        ];
        let run = stopped(dir.path(), tmp.path(), &args, libc::SIGTERM, Duration::ZERO);
        assert_eq!(run.code, Some(143), "mid-launch:\n{}", run.all());
        nothing_left("read, stopped mid-launch", tmp.path(), &run);
    }
}

#[test]
fn sigterm_stops_the_demo_server() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_waymark"))
        .arg("demo")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start waymark demo");
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut url)
        .expect("the demo prints its URL");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    send(child.id(), libc::SIGTERM);
    assert_eq!(
        exited_within(&mut child, Duration::from_secs(10)),
        Some(143)
    );
}

/// The exit code of `child` once it ends within `bound` (killed and `None` otherwise).
fn exited_within(child: &mut Child, bound: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("poll the child") {
            return status.code();
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `waymark mcp` with a browser open: `navigate` to a page that never loads.
fn mcp_at_work(tmp: &Path, app: &str) -> Child {
    let anchors = anchors();
    let mut child = Command::new(env!("CARGO_BIN_EXE_waymark"))
        .args(["--anchors", &anchors, "--base-url", app, "mcp"])
        .env("TMPDIR", tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start waymark mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "navigate", "arguments": {"route": "/"}}}),
    ];
    for line in lines {
        writeln!(stdin, "{line}").expect("write a line");
    }
    stdin.flush().expect("flush");
    // Kept open: a closed input would end the server.
    std::mem::forget(stdin);
    let start = Instant::now();
    while processes_naming(tmp).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "waymark mcp opened no browser"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    child
}

#[test]
fn sigterm_stops_the_mcp_server_and_leaves_nothing() {
    let app = silent_app();
    let tmp = tempfile::tempdir().expect("a temp dir");
    let mut child = mcp_at_work(tmp.path(), &app);
    send(child.id(), libc::SIGTERM);
    assert_eq!(
        exited_within(&mut child, Duration::from_secs(15)),
        Some(143)
    );
    let left = none_left_within(tmp.path(), Duration::from_secs(2));
    assert!(left.is_empty(), "browsers left: {left:#?}");
    assert!(profiles_in(tmp.path()).is_empty());
}

/// SIGKILL cannot be handled: the browsers die by the parent-death signal.
#[test]
fn a_killed_waymark_takes_its_browsers_with_it_within_2_s() {
    let app = silent_app();
    // `waymark mcp` mid-call.
    let tmp = tempfile::tempdir().expect("a temp dir");
    let mut child = mcp_at_work(tmp.path(), &app);
    send(child.id(), libc::SIGKILL);
    let _ = child.wait();
    let left = none_left_within(tmp.path(), Duration::from_secs(2));
    assert!(left.is_empty(), "browsers outlived waymark mcp: {left:#?}");

    // `waymark run` mid-journey, two workers.
    let dir = project(&[("a.rhai", WAITS), ("b.rhai", WAITS)]);
    let tmp = tempfile::tempdir().expect("a temp dir");
    let anchors = anchors();
    let args = run_args(&anchors, &["--jobs", "2"]);
    let run = stopped(
        dir.path(),
        tmp.path(),
        &args,
        libc::SIGKILL,
        Duration::from_secs(1),
    );
    assert_eq!(run.code, None, "killed:\n{}", run.all());
    let left = none_left_within(tmp.path(), Duration::from_secs(2));
    assert!(left.is_empty(), "browsers outlived waymark run: {left:#?}");
}
