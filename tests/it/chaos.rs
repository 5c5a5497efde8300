//! Chaos: a run of 40 journeys with two workers and one retry, while the test kills a
//! browser at 5 random moments (during a journey, between two, while a spare tab opens:
//! wherever the seed lands) and stops one with SIGSTOP. A dead or stopped browser may take
//! only the journey that was running in it: every journey is reported exactly once, the
//! JUnit report agrees with the console, no attempt that began after its browser died
//! fails with `browser_crashed`, and with the retry every journey passes.
//!
//! CI runs the seeds 1, 2 and 3; `WAYMARK_CHAOS_SEEDS=1,2,…` runs others (a long run:
//! `WAYMARK_CHAOS_SEEDS=$(seq -s, 1 50) cargo test --test it chaos::`).

use std::time::{Instant, SystemTime};

use serde_json::Value;

use crate::cli::{anchors, processes, project, run_args, send, waymark_with};

const JOURNEYS: usize = 40;
const KILLS: usize = 5;

/// Three short flows on the demo app, dealt out over the 40 journeys.
const FLOWS: [&str; 3] = [
    "navigate(\"/claims\");\nfor i in 0..10 { read_screen(); }\nlet s = read_screen();\nexpect(s.screen == \"claims-list\", s.screen);\n",
    "navigate(\"/claims\");\nfor i in 0..10 { read_screen(); }\nlet o = invoke(\"claims.open\", \"1042\");\nexpect(o.route == \"/claims/1042\", o.route);\n",
    "navigate(\"/orders\");\nfor i in 0..10 { read_screen(); }\nlet s = read_screen();\nexpect(s.screen == \"orders-list\", s.screen);\n",
];

/// A small, fixed pseudo-random sequence (xorshift), so a seed replays the same moments.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The browsers `waymark` (process `parent`) launched that still run and have run for two
/// seconds at least: its children with a waymark profile on their command line. (A browser
/// just started for a journey's retry is left alone, so that no journey meets two signals,
/// however slow the machine.)
fn browsers_of(parent: u32) -> Vec<u32> {
    let mut found: Vec<u32> = processes()
        .into_iter()
        .filter(|p| {
            p.parent == parent
                && !matches!(p.state.as_str(), "Z" | "X" | "T")
                && p.age >= 2.0
                && p.cmdline().contains("waymark-profile-")
        })
        .map(|p| p.pid)
        .collect();
    found.sort_unstable();
    found
}

fn millis(at: SystemTime) -> i64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn seeds() -> Vec<u64> {
    std::env::var("WAYMARK_CHAOS_SEEDS")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .filter(|s: &Vec<u64>| !s.is_empty())
        .unwrap_or_else(|| vec![1, 2, 3])
}

#[test]
fn killed_and_stopped_browsers_take_only_their_own_journey() {
    for seed in seeds() {
        chaos(seed);
    }
}

fn chaos(seed: u64) {
    let files: Vec<(String, &str)> = (0..JOURNEYS)
        .map(|i| (format!("j{i:02}.rhai"), FLOWS[i % FLOWS.len()]))
        .collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let dir = project(&files);
    let json = dir.path().join("run.json");
    let junit = dir.path().join("junit.xml");
    let (json_report, junit_report) = (
        format!("json={}", json.display()),
        format!("junit={}", junit.display()),
    );
    let anchors = anchors();
    let args = run_args(
        &anchors,
        &[
            "--jobs",
            "2",
            "--retries",
            "1",
            // A page that does not load fails its attempt within 4 s.
            "--load-timeout",
            "4",
            "--report",
            json_report.as_str(),
            "--report",
            junit_report.as_str(),
        ],
    );
    // The moments, in ms after the first browser is seen: five kills and one stop, one in
    // each 1.2 s of the time 40 short journeys take on two workers, at a random point of
    // its first 300 ms, the stop in a random one of the six.
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let stop = rng.below(KILLS as u64 + 1);
    let mut moments: Vec<(u64, libc::c_int)> = (0..=KILLS as u64)
        .map(|i| {
            let signal = if i == stop {
                libc::SIGSTOP
            } else {
                libc::SIGKILL
            };
            (300 + i * 1200 + rng.below(300), signal)
        })
        .collect();
    moments.sort_unstable();
    let mut pending = moments.clone();
    let mut seen: Option<Instant> = None;
    let mut sent: Vec<(SystemTime, libc::c_int, u32)> = Vec::new();
    let run = waymark_with(dir.path(), args, &[], &mut |pid| {
        let browsers = browsers_of(pid);
        // The clock starts once a browser has run two seconds (see `browsers_of`).
        let Some(first) = seen else {
            if !browsers.is_empty() {
                seen = Some(Instant::now());
            }
            return false;
        };
        let elapsed = u64::try_from(first.elapsed().as_millis()).unwrap_or(u64::MAX);
        while let Some(&(at, signal)) = pending.first() {
            if elapsed < at {
                break;
            }
            // No browser old enough yet: the signal waits for one.
            if browsers.is_empty() {
                break;
            }
            pending.remove(0);
            let target = browsers[rng.below(browsers.len() as u64) as usize];
            sent.push((SystemTime::now(), signal, target));
            send(target, signal);
        }
        pending.is_empty()
    });
    let context = format!(
        "seed {seed}: signals {sent:?} (planned {moments:?})\n{}",
        run.all()
    );
    assert!(!sent.is_empty(), "no browser was signalled: {context}");

    // Every journey reported once on the console, in the JSON and in the JUnit report.
    for i in 0..JOURNEYS {
        let name = format!("j{i:02}");
        let lines = run
            .stdout
            .lines()
            .filter(|l| {
                l.split_whitespace().nth(1) == Some(name.as_str())
                    && ["✓", "⚠", "✗"].iter().any(|m| l.starts_with(m))
            })
            .count();
        assert_eq!(lines, 1, "{name} on the console: {context}");
    }
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("the JSON report: {e}")),
    )
    .expect("the JSON report parses");
    let journeys = report["journeys"].as_array().expect("journeys");
    assert_eq!(journeys.len(), JOURNEYS, "{context}");
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    assert_eq!(xml.matches("<testcase ").count(), JOURNEYS, "{xml}");
    for journey in journeys {
        let name = journey["name"].as_str().expect("a name");
        assert_eq!(
            xml.matches(&format!("name=\"{name}\"")).count(),
            1,
            "{name} in JUnit: {xml}"
        );
    }

    // A crash is only ever the journey's whose browser died (or stopped) under it: a
    // signal came after the attempt began and before it ended (its duration is the
    // script's; opening and closing its tab add a little, hence the second's slack).
    let moments: Vec<i64> = sent.iter().map(|(at, _, _)| millis(*at)).collect();
    for journey in journeys {
        for attempt in journey["attempts"].as_array().expect("attempts") {
            if attempt["error"]["code"] != "browser_crashed" {
                continue;
            }
            let started = chrono::DateTime::parse_from_rfc3339(
                attempt["started_at"].as_str().expect("started_at"),
            )
            .expect("an RFC 3339 time")
            .timestamp_millis();
            let ended = started + attempt["duration_ms"].as_f64().unwrap_or(0.0) as i64;
            assert!(
                moments.iter().any(|&k| k >= started && k <= ended + 1000),
                "{} attempt {} began at {started} after its browser died and failed \
                 browser_crashed: {attempt}\n{context}",
                journey["name"],
                attempt["attempt"],
            );
        }
    }
    let crashed = journeys
        .iter()
        .flat_map(|j| j["attempts"].as_array().into_iter().flatten())
        .filter(|a| a["error"].is_object())
        .count();
    eprintln!(
        "chaos seed {seed}: {} signals sent of {}, {crashed} attempts failed, {} flaky",
        sent.len(),
        KILLS + 1,
        report["summary"]["flaky"]
    );
    // With the retry, all pass.
    assert_eq!(report["summary"]["failed"], 0, "{context}");
    assert_eq!(run.code, Some(0), "{context}");
}
