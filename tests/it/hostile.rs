//! Hostile pages (`tests/fixtures/hostile/`): a page that loops on dialogs, a handler that
//! never returns, a browser killed under a run. Each ends in a clear error, on time, and
//! the run goes on.

use std::time::{Duration, Instant};

use waymark::tools::{Attribution, ErrorCode, ToolOptions};

use crate::cli::Run;
use crate::harness::{block_on, bounded, failed, ok};

/// The load timeout the dialog tests run under: short, so "within it" is measured.
const LOAD: Duration = Duration::from_secs(4);

/// Regression (issue 40): a page that showed `alert` in a loop from its first script failed
/// after ~30 s with "did not load"; it ends within the load timeout, saying it kept opening
/// dialogs and how many were answered.
#[test]
fn a_page_that_loops_on_dialogs_as_it_loads_ends_within_the_load_timeout() {
    let tools = crate::fixtures::tools_with(ToolOptions {
        load_timeout: LOAD,
        ..ToolOptions::default()
    });
    block_on(async {
        let start = Instant::now();
        let rt = bounded(
            LOAD * 4,
            "navigating to the dialog loop",
            tools.navigate("/hostile/dialog-loop.html"),
        )
        .await;
        let took = start.elapsed();
        let error = failed(&rt, ErrorCode::Timeout);
        assert_eq!(error.attribution, Attribution::App);
        assert!(
            error
                .message
                .contains("the page kept opening JavaScript dialogs during `navigate`"),
            "{}",
            error.message
        );
        assert!(error.message.contains(" answered in "), "{}", error.message);
        assert!(took < LOAD + Duration::from_secs(2), "took {took:?}");
        eprintln!("dialog loop on load: {took:?}: {}", error.message);
    });
    block_on(tools.close());
}

/// Regression (issue 40): the same loop of `confirm`s started by a click ends the click
/// within the load timeout, and the page is not read again while it loops.
#[test]
fn a_click_that_starts_a_dialog_loop_ends_within_the_load_timeout() {
    let tools = crate::fixtures::tools_with(ToolOptions {
        load_timeout: LOAD,
        ..ToolOptions::default()
    });
    block_on(async {
        ok(&tools.navigate("/hostile/dialog-click.html").await);
        let start = Instant::now();
        let rt = bounded(
            LOAD * 4,
            "pressing `dialogs.start`",
            tools.invoke("dialogs.start", None),
        )
        .await;
        let took = start.elapsed();
        let error = failed(&rt, ErrorCode::Timeout);
        assert!(
            error.message.contains(
                "the page kept opening JavaScript dialogs during `invoke` `dialogs.start`"
            ),
            "{}",
            error.message
        );
        assert!(rt.screen.is_none(), "a looping page is not read again");
        assert!(took < LOAD + Duration::from_secs(2), "took {took:?}");
        eprintln!("dialog loop on a click: {took:?}: {}", error.message);
    });
    block_on(tools.close());
}

/// A run of the binary against the fixture server, with `journeys` (name, source) in a
/// fresh folder; the JSON report it wrote, and how long it took. `during` may act on the
/// child (its pid) while it runs, until it returns true.
fn run_against_fixtures(
    journeys: &[(&str, &str)],
    flags: &[&str],
    mut during: impl FnMut(u32) -> bool,
) -> (Run, serde_json::Value, Duration) {
    let dir = tempfile::tempdir().expect("a temp dir");
    for (name, source) in journeys {
        std::fs::write(dir.path().join(name), source).expect("write a journey");
    }
    let report = dir.path().join("report.json");
    let base = crate::fixtures::base().to_string();
    let report_flag = format!("json={}", report.display());
    let mut args = vec!["--base-url", base.as_str(), "run", "--report", &report_flag];
    args.extend_from_slice(flags);
    args.push(".");
    let start = Instant::now();
    let run = crate::cli::waymark_with(dir.path(), args, &[], &mut during);
    let took = start.elapsed();
    let text = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("read the JSON report: {e}\n{}", run.all()));
    let json = serde_json::from_str(&text).expect("the report is JSON");
    (run, json, took)
}

/// A journey of a report: its name, its status, and each attempt's error code and
/// attribution (`-` when it passed).
type Reported = (String, String, Vec<(String, String)>);

/// Each journey's status, and its attempts' error codes and attributions.
fn statuses(report: &serde_json::Value) -> Vec<Reported> {
    report["journeys"]
        .as_array()
        .expect("journeys")
        .iter()
        .map(|j| {
            let attempts = j["attempts"]
                .as_array()
                .expect("attempts")
                .iter()
                .map(|a| {
                    (
                        a["error"]["code"].as_str().unwrap_or("-").to_string(),
                        a["error"]["attribution"]
                            .as_str()
                            .unwrap_or("-")
                            .to_string(),
                    )
                })
                .collect();
            (
                j["name"].as_str().unwrap_or_default().to_string(),
                j["status"].as_str().unwrap_or_default().to_string(),
                attempts,
            )
        })
        .collect()
}

/// Regression (issue 40): a click whose handler never returns made every later call wait
/// its own timeout, and the journey took 55 s under a 40 s `--journey-timeout`. The deadline
/// is hard, the hung renderer is reported once as `page_unresponsive`, and the next journey
/// runs in a fresh tab and passes.
#[test]
fn a_hung_renderer_ends_its_journey_at_the_deadline_and_the_next_one_passes() {
    let deadline = 8;
    let (run, report, took) = run_against_fixtures(
        &[
            (
                "1_spin.rhai",
                "navigate(\"/hostile/spin.html\");\ninvoke(\"spin.start\");\ninvoke(\"spin.other\");\nread_screen();\n",
            ),
            (
                "2_calm.rhai",
                "navigate(\"/hostile/calm.html\");\nlet rt = invoke(\"calm.count\");\nexpect(rt.ok, \"pressed\");\n",
            ),
        ],
        &["--journey-timeout", "8"],
        |_| true,
    );
    run.exits(1).says("page_unresponsive");
    let journeys = statuses(&report);
    assert_eq!(journeys[0].1, "failed", "{journeys:?}\n{}", run.all());
    assert_eq!(journeys[0].2, [("page_unresponsive".into(), "app".into())]);
    assert_eq!(journeys[1].1, "passed", "{journeys:?}\n{}", run.all());
    let spun = report["journeys"][0]["duration_ms"]
        .as_f64()
        .unwrap_or_default();
    let message = report["journeys"][0]["attempts"][0]["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(message.contains("stopped responding"), "{message}");
    assert_eq!(
        run.all().matches("page_unresponsive").count(),
        1,
        "reported once:\n{}",
        run.all()
    );
    assert!(
        spun < f64::from(deadline + 3) * 1000.0,
        "the journey took {spun} ms under an {deadline} s deadline"
    );
    eprintln!("hung renderer: journey {spun:.0} ms, run {took:?}: {message}");
}

/// A run of three journeys whose first is running when the test kills the browser (the
/// first loops on reads until it is killed, or 600 reads when it is not), with `flags`.
fn killed_run(flags: &[&str]) -> (Run, serde_json::Value, Duration) {
    signalled_run(flags, libc::SIGKILL)
}

/// [`killed_run`], the browser sent `signal` instead of SIGKILL.
fn signalled_run(flags: &[&str], signal: libc::c_int) -> (Run, serde_json::Value, Duration) {
    let waiting = "navigate(\"/hostile/kill-me.html\");\nfor i in 0..600 { read_screen(); }\n";
    let calm = "navigate(\"/hostile/calm.html\");\nlet rt = invoke(\"calm.count\");\nexpect(rt.ok, \"pressed\");\n";
    // One killing run at a time: each waits for the page to be served anew.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut killed = false;
    // The page may have been served to another test of this process before.
    let before = crate::fixtures::served("kill-me.html");
    let (run, report, took) = run_against_fixtures(
        &[
            ("1_killed.rhai", waiting),
            ("2_calm.rhai", calm),
            ("3_calm.rhai", calm),
        ],
        flags,
        |pid| {
            if !killed
                && crate::fixtures::served("kill-me.html") > before
                && kill_browser_asking(pid, crate::fixtures::served_to("kill-me.html"), signal)
            {
                killed = true;
            }
            killed
        },
    );
    assert!(killed, "the browser was never killed:\n{}", run.all());
    (run, report, took)
}

/// Regression (issue 40): the browser killed mid-run made every remaining journey fail
/// with `browser_crashed`. A new browser is started, the journey that was running fails as
/// the environment's fault and is retried (and passes), and the others pass.
#[test]
fn a_browser_killed_mid_run_is_replaced_and_the_remaining_journeys_pass() {
    let (run, report, took) = killed_run(&["--jobs", "1", "--retries", "1"]);
    run.exits(0).says("starting a new one");
    let journeys = statuses(&report);
    assert_eq!(journeys[0].1, "flaky", "{journeys:?}\n{}", run.all());
    assert_eq!(
        journeys[0].2[0],
        ("browser_crashed".into(), "environment".into())
    );
    assert_eq!(journeys[1].1, "passed", "{journeys:?}\n{}", run.all());
    assert_eq!(journeys[2].1, "passed", "{journeys:?}\n{}", run.all());
    let first = &report["journeys"][0]["attempts"][0];
    let message = first["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("the browser process went away during the journey"),
        "{message}"
    );
    eprintln!(
        "killed browser: run {took:?}, first attempt {} ms: {message}; {journeys:?}",
        first["duration_ms"]
    );
}

/// The killed runs' verdict: the first journey failed as the environment's fault
/// (`browser_crashed`), and the two after it passed.
fn only_the_first_failed(run: &Run, report: &serde_json::Value) {
    let journeys = statuses(report);
    assert_eq!(journeys[0].1, "failed", "{journeys:?}\n{}", run.all());
    assert_eq!(
        journeys[0].2,
        [("browser_crashed".into(), "environment".into())]
    );
    assert_eq!(journeys[1].1, "passed", "{journeys:?}\n{}", run.all());
    assert_eq!(journeys[2].1, "passed", "{journeys:?}\n{}", run.all());
}

/// Without `--retries`, the journey the browser died under fails (as the environment's
/// fault, exit 1) and the remaining journeys still run in a new browser and pass.
#[test]
fn without_retries_the_journey_a_killed_browser_ran_fails_and_the_rest_pass() {
    let (run, report, _) = killed_run(&["--jobs", "1"]);
    run.exits(1).says("starting a new one");
    only_the_first_failed(&run, &report);
}

/// With two workers, each in a browser of its own, the browser killed under the first
/// journey takes only that journey with it: the journey the other worker runs meanwhile,
/// and the one after, pass.
#[test]
fn with_two_jobs_a_killed_browser_fails_only_the_journey_it_ran() {
    let (run, report, _) = killed_run(&["--jobs", "2"]);
    run.exits(1);
    only_the_first_failed(&run, &report);
}

/// A browser that stops answering (its process stopped: SIGSTOP) keeps its connection
/// open, so it does not look gone: the journey it ran fails at its deadline, the browser is
/// then found not to answer, killed, and the remaining journeys run in a new one.
#[test]
fn a_browser_that_stops_answering_is_killed_and_the_remaining_journeys_pass() {
    let (run, report, took) =
        signalled_run(&["--jobs", "1", "--journey-timeout", "6"], libc::SIGSTOP);
    run.exits(1).says("the browser stopped answering");
    only_the_first_failed(&run, &report);
    eprintln!("stopped browser: run {took:?}: {:?}", statuses(&report));
}

/// Sends `signal` to the browser of `parent`'s that asked for a page from local `port`
/// (the browser, or its network process, holds that end of the connection): with
/// `--jobs 2`, the two browsers start side by side in no set order, so the oldest is not
/// always the one that took the first journey. The oldest, when the port's owner is not
/// found.
fn kill_browser_asking(parent: u32, port: Option<u16>, signal: libc::c_int) -> bool {
    match port.and_then(|port| browser_holding(parent, port)) {
        Some(pid) => {
            eprintln!("the browser that asked from port {port:?}: {pid}");
            // SAFETY: kill(2) on a browser the waymark child this test started launched.
            unsafe {
                libc::kill(pid, signal);
            }
            true
        }
        None => kill_browser_of(parent, signal),
    }
}

/// The child of `parent` whose process tree holds the TCP socket bound to local `port`.
fn browser_holding(parent: u32, port: u16) -> Option<i32> {
    // `sl local_address rem_address st … uid timeout inode`, addresses as `HEX_IP:HEX_PORT`.
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    let inode = table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local = fields.get(1)?;
        let (_, hex) = local.split_once(':')?;
        (u16::from_str_radix(hex, 16).ok()? == port)
            .then(|| fields.get(9).map(|s| s.to_string()))?
    })?;
    let socket = format!("socket:[{inode}]");
    let holder = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid = entry.file_name().to_string_lossy().parse::<i32>().ok()?;
            let fds = std::fs::read_dir(entry.path().join("fd")).ok()?;
            fds.flatten()
                .any(|fd| {
                    std::fs::read_link(fd.path()).is_ok_and(|l| l.to_string_lossy() == socket)
                })
                .then_some(pid)
        })?;
    // Up the tree to the child of `parent`: the browser process.
    let mut pid = holder;
    for _ in 0..8 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let close = stat.rfind(')')?;
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)?
            .parse::<i32>()
            .ok()?;
        if u32::try_from(ppid).ok()? == parent {
            return Some(pid);
        }
        pid = ppid;
    }
    None
}

/// Kills (SIGKILL) the first browser process `parent` started (its oldest child named
/// like Chromium) with `signal`: with `--jobs 2`, the one of the worker that took the
/// first journey.
pub(crate) fn kill_browser_of(parent: u32, signal: libc::c_int) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    let mut oldest: Option<(u64, i32)> = None;
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: the name may hold spaces, so read after its `)`.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = &stat[open + 1..close];
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        // Field 22 of stat (the start time) is the 20th after the name.
        let started = fields.get(19).and_then(|f| f.parse::<u64>().ok());
        if comm.contains("chrom")
            && fields.get(1) == Some(&parent.to_string().as_str())
            && let Some(started) = started
            && oldest.is_none_or(|(t, _)| started < t)
        {
            oldest = Some((started, pid));
        }
    }
    let Some((_, pid)) = oldest else {
        return false;
    };
    // SAFETY: kill(2) on a browser the waymark child this test started launched.
    unsafe {
        libc::kill(pid, signal);
    }
    true
}

/// Without a journey deadline to cut it short, a click into a handler that never returns
/// times out on its own bound and is then found unresponsive: `page_unresponsive`, not a
/// `timeout` followed by a read that waits out its own; the next call on the tab fails at
/// once with the same code instead of waiting again.
#[test]
fn a_click_into_a_handler_that_never_returns_is_page_unresponsive_and_the_next_call_fails_fast() {
    let tools = crate::fixtures::tools();
    block_on(async {
        ok(&tools.navigate("/hostile/spin.html").await);
        let start = Instant::now();
        let limit = Duration::from_secs(60);
        let rt = bounded(
            limit,
            "pressing `spin.start`",
            tools.invoke("spin.start", None),
        )
        .await;
        let took = start.elapsed();
        let error = failed(&rt, ErrorCode::PageUnresponsive);
        assert_eq!(error.attribution, Attribution::App);
        assert!(
            error
                .message
                .contains("the page stopped responding during `invoke` `spin.start`"),
            "{}",
            error.message
        );
        assert!(rt.screen.is_none(), "a hung page is not read again");
        // the tab's command bound (10 s) and the 1 s probe, nothing more
        assert!(took < Duration::from_secs(14), "took {took:?}");

        let start = Instant::now();
        let again = bounded(limit, "reading the hung page", tools.read_screen()).await;
        let error = failed(&again, ErrorCode::PageUnresponsive);
        assert!(
            error.message.contains("still does not respond"),
            "{}",
            error.message
        );
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "took {:?}",
            start.elapsed()
        );
        eprintln!("hung click: {took:?}, then {:?}", start.elapsed());
    });
    let start = Instant::now();
    block_on(tools.close());
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "closing the hung tab took {:?}",
        start.elapsed()
    );
}

/// Regression (issue 40): `waymark mcp` kept the tab of a browser killed under it, and every
/// later call failed with `browser_crashed` (saying "oneshot canceled"). The call after the
/// kill gets a tab in a new browser; a call that saw the old one go says so in words.
#[test]
fn mcp_starts_a_new_browser_for_the_call_after_its_browser_was_killed() {
    use crate::mcp::{Person, Session, ok as mcp_ok, text};
    let base = crate::fixtures::base().to_string();
    crate::mcp::run(async {
        let s = Session::start(Person::new(false, false), &["--base-url", base.as_str()]).await;
        mcp_ok(
            &s.call(
                "navigate",
                serde_json::json!({"route": "/hostile/calm.html"}),
            )
            .await,
        );
        let pid = s.pid().expect("the server's pid");
        assert!(
            kill_browser_of(pid, libc::SIGKILL),
            "the browser was not found to kill"
        );
        let mut answers = Vec::new();
        for _ in 0..5 {
            let result = s
                .call(
                    "navigate",
                    serde_json::json!({"route": "/hostile/calm.html"}),
                )
                .await;
            answers.push(text(&result));
            if result.is_error == Some(false) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let (last, before) = answers.split_last().expect("an answer");
        assert!(last.starts_with("navigate ok"), "{answers:#?}");
        for failed in before {
            assert!(failed.contains("browser_crashed"), "{failed}");
            assert!(failed.contains("the browser went away"), "{failed}");
        }
        for answer in &answers {
            assert!(!answer.contains("oneshot"), "{answer}");
        }
        let read = s.call("read_screen", serde_json::json!({})).await;
        assert_eq!(
            crate::mcp::control(mcp_ok(&read), "calm.count")["label"],
            "Press me"
        );
        eprintln!("mcp after a killed browser: {answers:?}");
        s.stop().await;
    });
}

/// A page that opens windows in a loop: the journey keeps at most `MAX_TABS`, closes the
/// rest as they come, and a call that met them says the page kept opening tabs.
#[test]
fn a_page_that_opens_windows_in_a_loop_is_cut_at_the_tab_cap() {
    use waymark::tools::MAX_TABS;
    let tools = crate::fixtures::tools_with(ToolOptions::default());
    block_on(async {
        let mut calls = vec![tools.navigate("/hostile/popup-loop.html").await];
        while calls.len() < 40 && calls.last().is_some_and(|rt| rt.ok) {
            let read = tools.read_screen();
            calls.push(bounded(LOAD * 4, "a read among the windows", read).await);
        }
        let last = calls.last().expect("a call");
        let error = failed(last, ErrorCode::Timeout);
        assert_eq!(error.attribution, Attribution::App);
        assert!(
            error
                .message
                .contains("the page kept opening tabs during `"),
            "{}",
            error.message
        );
        assert_eq!(tools.tabs().await.len(), MAX_TABS);
        assert_eq!(
            tools.current_tab(),
            0,
            "the calls stay on the journey's tab"
        );
    });
    block_on(tools.close());
}

/// Regression (issue 54): a browser whose process stopped (SIGSTOP) answers nothing, and a
/// call on it waited for its own bound — a navigation's is `--load-timeout`, which may be
/// minutes — once chromiumoxide's own request timeout no longer cut it short. The call asks
/// the browser after a few seconds (`Browser.getVersion`), and one that leaves it
/// unanswered twice ends the call with `browser_crashed`.
#[test]
fn a_call_on_a_stopped_browser_ends_as_browser_crashed_not_at_its_own_bound() {
    use std::sync::Arc;
    use waymark::browser::{Chromium, LaunchOptions};
    use waymark::registry::Registry;
    use waymark::tools::Tools;
    let base = crate::fixtures::base();
    let (rt, stopped) = block_on(async {
        let browser = Chromium::launch(LaunchOptions::default())
            .await
            .unwrap_or_else(|e| panic!("launch a browser: {e}"));
        let tab = browser.new_tab().await.expect("open a tab");
        let options = ToolOptions {
            load_timeout: Duration::from_secs(120),
            ..ToolOptions::default()
        };
        let tools = Tools::new(tab, base, Arc::new(Registry::empty()), options);
        ok(&tools.navigate("/hostile/calm.html").await);
        let pid = browser.pid().expect("a launched browser's pid");
        let pid = libc::pid_t::try_from(pid).expect("a pid fits pid_t");
        // SAFETY: kill(2) on the browser this test launched.
        unsafe {
            libc::kill(pid, libc::SIGSTOP);
        }
        let rt = tools.navigate("/hostile/calm.html").await;
        // SAFETY: as above; the stopped browser is let go of the hard way.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
        drop(tools);
        browser.close().await;
        (rt, pid)
    });
    let e = failed(&rt, ErrorCode::BrowserCrashed);
    assert_eq!(e.attribution, Attribution::Environment);
    assert!(
        e.message
            .contains("the browser stopped answering during `navigate`")
            && e.message.contains("`Browser.getVersion`"),
        "browser {stopped}: {}",
        e.message
    );
}
