//! The journey's clock (issue 52, item 5): `clock_install`, `clock_set`, `clock_advance`,
//! `clock_pause`, `clock_resume`, on `clock.html` (a time shown, a countdown on timers, a
//! chain of animation frames); reads, waits and actions keep working while it is paused;
//! two journeys keep two clocks under `--jobs 2`; Playwright's `page.clock` answers the same
//! on the same page (tests/playwright/clock.mjs).

use crate::cli::waymark;
use crate::fixtures::{base, base_url, run_two_jobs};

/// The journey of the clock, as Playwright's script plays it too: what the page shows at
/// each point, one line each, in `shown`.
const PLAYED: &str = r#"
fn shown() {
    let s = read_screen();
    let text = |a| { for c in s.controls { if c.anchor == a { return c.value; } } "" };
    `${text.call("clock.now")} | ${text.call("clock.left")} | ${text.call("clock.stamp")}`
}
let seen = [];
clock_install(#{time: "2026-01-31T23:59:00"});
navigate("/clock.html");
wait_for(#{text: "23:59 31 Jan"});
clock_pause();
clock_set("2026-01-31T23:59:30");
seen.push(shown());
invoke("clock.start");
seen.push(shown());
clock_advance(3000);
seen.push(shown());
clock_advance(60000);
seen.push(shown());
clock_set("2026-02-28T12:00:00");
clock_advance(1000);
seen.push(shown());
"#;

/// What the page shows along [`PLAYED`], as both waymark and Playwright must see it (the
/// time zone is the browser's, as in the page: the run's `TZ`).
fn expected() -> Vec<String> {
    let local = |iso: &str| -> i64 {
        let out = std::process::Command::new("node")
            .arg("-e")
            .arg(format!("console.log(new Date({iso:?}).getTime())"))
            .output()
            .expect("run node");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a time")
    };
    let t = local("2026-01-31T23:59:30");
    vec![
        "23:59 31 Jan | Not started | stamp: none".to_string(),
        "23:59 31 Jan | 10 s left | stamp: none".to_string(),
        format!("23:59 31 Jan | 7 s left | stamp: {}", t + 3000),
        format!("00:00 1 Feb | Done | stamp: {}", t + 10000),
        format!("12:00 28 Feb | Done | stamp: {}", t + 10000),
    ]
}

#[test]
fn a_page_shows_the_installed_time_and_clock_advance_runs_its_countdown() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let wanted: Vec<String> = expected().iter().map(|l| format!("{l:?}")).collect();
    let source = format!(
        r#"{PLAYED}
let wanted = [{}];
for i in 0..wanted.len() {{
    expect(seen[i] == wanted[i], `step ${{i}}: ${{seen[i]}}, not ${{wanted[i]}}`);
}}

// Paused: reads, waits, actions and `eventually` run on real time all the same.
let e = #{{}};
try {{ wait_for(#{{text: "never shown", timeout_ms: 300}}); }} catch (err) {{ e = err; }}
expect(e.code == "timeout", `a wait times out while paused: ${{e}}`);
let r = invoke("clock.frame");
expect(r.ok, "an action settles while paused");
expect(read_screen().controls.len() > 0, "a read");
// Animation frames wait for the clock too: five frames, 16 ms each.
wait_for(#{{text: "frames: 0"}});
clock_advance(100);
wait_for(#{{text: "frames: 5"}});
let c = clock_advance(0);
expect(c.clock.paused && c.clock.iso.starts_with("2026-02-28"), `${{c.clock}}`);

// A navigation keeps the clock where it is.
navigate("/clock.html");
wait_for(#{{text: "12:00 28 Feb"}});
// Resumed, it runs with real time: the page's interval shows the time again.
clock_resume();
invoke("clock.start");
wait_for(#{{text: "9 s left", timeout_ms: 3000}});
let again = "";
try {{ clock_install(); }} catch (err) {{ again = err.code; }}
expect(again == "invalid_argument", `installed twice: ${{again}}`);
let bad = "";
try {{ clock_set("not a time"); }} catch (err) {{ bad = err.code; }}
expect(bad == "invalid_argument", `not a time: ${{bad}}`);
"#,
        wanted.join(", ")
    );
    std::fs::write(dir.path().join("clock.rhai"), source).expect("write the journey");
    let run = waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "run",
            "--trace",
            "traces",
            "clock.rhai",
        ],
        &[],
    );
    run.exits(0);
    // Each clock call is a step of its own in the trace, class `act`.
    let trace = std::fs::read_to_string(dir.path().join("traces/clock.jsonl")).expect("trace");
    let steps: Vec<serde_json::Value> = trace
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|l: &serde_json::Value| {
            l["action"]["verb"]
                .as_str()
                .is_some_and(|v| v.starts_with("clock_"))
        })
        .collect();
    assert!(steps.len() >= 8, "{trace}");
    for step in &steps {
        assert_eq!(step["action"]["class"], "act", "{step}");
        eprintln!(
            "{} {}: {} ms",
            step["action"]["verb"], step["action"]["target"], step["elapsed_ms"]
        );
    }
}

/// A tab the page opens gets the journey's clock as it joins (its document already loading
/// with the real one), and every document it loads after that from the start.
#[test]
fn a_popup_gets_the_journeys_clock() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
clock_install(#{time: "2030-06-15T10:30:00"});
clock_pause();
navigate("/clock.html");
wait_for(#{text: "10:30 15 Jun"});
let r = invoke("clock.popup");
switch_tab(r.opened.tab);
wait_for(#{text: "10:30 15 Jun"});
navigate("/clock.html");
wait_for(#{text: "10:30 15 Jun"});
invoke("clock.start");
clock_advance(2000);
wait_for(#{text: "8 s left"});
switch_tab(0);
invoke("clock.start");
wait_for(#{text: "10 s left"});
clock_advance(1000);
wait_for(#{text: "9 s left"});
"#;
    std::fs::write(dir.path().join("popup.rhai"), source).expect("write the journey");
    waymark(
        dir.path(),
        [
            "--base-url",
            base_url().as_str(),
            "run",
            "--no-trace",
            "popup.rhai",
        ],
        &[],
    )
    .exits(0);
}

/// The clock is in every frame: a frame's document loaded after it gets it from the start
/// (the script for new documents runs in frames too), and one already there is moved with
/// the page (its same-origin frames).
#[test]
fn a_frame_gets_the_clock_too() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
fn value(a) {
    for c in read_screen().controls { if c.anchor == a { return c.value; } }
    ()
}
clock_install(#{time: "2031-07-04T09:05:00"});
clock_pause();
navigate("/clock-framed.html");
wait_for(#{text: "outer 2031"});
wait_for(#{anchor: "clock.start"});
expect(value("clock.now") == "09:05 4 Jul", `the frame's time: ${value("clock.now")}`);
invoke("clock.start");
clock_advance(4000);
expect(value("clock.left") == "6 s left", `the frame's countdown: ${value("clock.left")}`);
clock_set("2032-02-29T18:45:00");
clock_advance(1000);
expect(value("clock.now") == "18:45 29 Feb", `moved: ${value("clock.now")}`);
"#;
    std::fs::write(dir.path().join("framed.rhai"), source).expect("write the journey");
    // Installed on a page already loaded: its frame is moved with it.
    let late = r#"
fn value(a) {
    for c in read_screen().controls { if c.anchor == a { return c.value; } }
    ()
}
navigate("/clock-framed.html");
wait_for(#{anchor: "clock.start"});
clock_install(#{time: "2031-07-04T09:05:00"});
clock_pause();
invoke("clock.start");
clock_advance(2000);
expect(value("clock.left") == "8 s left", `the frame's countdown: ${value("clock.left")}`);
eventually(|| expect(value("clock.now") == "09:05 4 Jul", `the frame's time: ${value("clock.now")}`));
"#;
    std::fs::write(dir.path().join("late.rhai"), late).expect("write the journey");
    waymark(
        dir.path(),
        ["--base-url", base_url().as_str(), "run", "--no-trace", "."],
        &[],
    )
    .exits(0)
    .says("2 passed");
}

/// Playwright's `page.clock` on the same page, the same calls (install, pauseAt,
/// setSystemTime, runFor), shows the same: tests/playwright/clock.mjs.
#[test]
fn playwright_clock_shows_what_waymark_clock_shows() {
    let url = base().join("clock.html").expect("a URL");
    let out = crate::harness::playwright_output("clock.mjs", &[url.as_str()]);
    let seen: Vec<String> = serde_json::from_slice(&out).expect("the script prints JSON");
    assert_eq!(seen, expected(), "Playwright's page.clock on the same page");
}

/// Two journeys install different clocks and wait for their own network, run together on
/// two workers: each page shows its own time and each wait finds its own request only.
#[test]
fn clocks_and_network_waits_are_per_journey_under_two_jobs() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let journey = |time: &str, shown: &str, other: &str, name: &str| {
        format!(
            r#"clock_install(#{{time: "{time}"}});
clock_pause();
navigate("/clock.html");
for i in 0..5 {{
    wait_for(#{{text: "{shown}"}});
    let e = "";
    try {{ wait_for(#{{text: "{other}", timeout_ms: 100}}); }} catch (err) {{ e = err.code; }}
    expect(e == "timeout", `the other journey's time: ${{e}}`);
    invoke("clock.start");
    clock_advance(1000);
    wait_for(#{{text: "9 s left"}});
    // Its own page's request, not the other journey's.
    request(#{{route: "/api/items?from={name}"}});
    let w = wait_for(#{{request: "/api/items?**"}});
    expect(w.exchange.url.ends_with("from={name}"), `${{w.exchange.url}}`);
    let none = "";
    try {{ wait_for(#{{request: "/api/items?**", timeout_ms: 200}}); }} catch (err) {{ none = err.code; }}
    expect(none == "timeout", `another's request seen: ${{none}}`);
    navigate("/clock.html");
}}
"#
        )
    };
    run_two_jobs(
        dir.path(),
        vec![
            (
                "morning.rhai",
                journey(
                    "2026-03-01T08:15:00",
                    "08:15 1 Mar",
                    "22:45 24 Dec",
                    "morning",
                ),
            ),
            (
                "evening.rhai",
                journey(
                    "2026-12-24T22:45:00",
                    "22:45 24 Dec",
                    "08:15 1 Mar",
                    "evening",
                ),
            ),
        ],
    )
    .exits(0)
    .says("2 passed");
}

/// The order of injection: in a document of a tab with a clock, the collector's early
/// script ran before the clock's, so what it keeps as the browser's own timers and `Date`
/// are the browser's (native), while the page's are the clock's; and they are kept for
/// good (the page cannot replace them).
#[test]
fn the_collector_keeps_the_browsers_own_timers_before_the_clock_replaces_them() {
    use std::sync::Arc;
    use waymark::tools::{Call, Gateway};

    let (tools, probe) = crate::harness::probed_tools_at(
        base(),
        Arc::clone(crate::harness::shared().registry()),
        waymark::tools::ToolOptions::default(),
    );
    let tools = Arc::new(tools);
    let gateway = Gateway::new(Arc::clone(&tools));
    let calls = [
        (
            "clock_install",
            serde_json::json!({"time": "2026-01-31T23:59:00"}),
        ),
        ("clock_pause", serde_json::json!({})),
        ("navigate", serde_json::json!({"route": "/clock.html"})),
    ];
    let native = |f: &str| {
        format!("String({f}).indexOf('[native code]') >= 0 && !/nowMs/.test(String({f}))")
    };
    let seen = crate::harness::block_on(async {
        for (tool, args) in calls {
            let call = Call::parse(tool, args).expect("arguments");
            let rt = Box::pin(gateway.call(&call)).await.expect("a round trip");
            crate::harness::ok(&rt);
        }
        let mut seen = Vec::new();
        for expr in [
            native("window.__wmReal.Date.now"),
            native("Date.now"),
            "window.__wmReal.Date === Date".to_string(),
            "(function () { try { window.__wmReal = null; } catch (e) {} return !!window.__wmReal; })()".to_string(),
            "new Date().getFullYear()".to_string(),
        ] {
            seen.push(probe.value(&expr).await);
        }
        seen
    });
    assert_eq!(
        seen,
        [
            serde_json::json!(true),
            serde_json::json!(false),
            serde_json::json!(false),
            serde_json::json!(true),
            serde_json::json!(2026)
        ]
    );
}
