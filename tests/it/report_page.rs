//! The HTML report and the trace viewer, checked in a real browser by waymark itself: a
//! run of four journeys (two pass, one fails on a missing control, one on a changed
//! snapshot) writes a report and traces; waymark journeys drive the report (filter, search,
//! open a folded journey) and the viewer (`waymark show`: step through a trace with a click
//! and the keyboard), through the anchors both pages carry
//! (`tests/fixtures/report/anchors.yaml`); and every text of both, light and dark, is
//! measured in the page against its background (WCAG AA: 4.5:1). Screenshots of each go to
//! `target/artifacts/` (CI keeps them).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::response::IntoResponse as _;
use serde_json::Value;
use waymark::browser::{ColorScheme, Tab};

use crate::cli::{anchors, waymark, waymark_within};

const A_PASS: &str = "navigate(\"/claims\");\nprint(\"a line longer than any screen: \" + \
    \"https://example.com/claims/1042/notes/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\");\n";
const B_PASS: &str = "navigate(\"/orders\");\n";
const BROKEN: &str = "navigate(\"/claims\");\nread_screen();\nset_action_timeout(200);\n\
    invoke(\"claims.open\", \"9999\");\n";
const FAILS: &str = "navigate(\"/claims\");\nsnapshot(\"list\");\n";

/// A run's folder: its report (`out/index.html`) and traces (`traces/`).
struct Ran {
    dir: PathBuf,
}

impl Ran {
    fn report(&self) -> PathBuf {
        self.dir.join("out")
    }

    fn traces(&self) -> PathBuf {
        self.dir.join("traces")
    }
}

/// The run every test here reads, made once, under `target/tmp/report-page/`.
fn ran() -> &'static Ran {
    static RAN: OnceLock<Ran> = OnceLock::new();
    RAN.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-page");
        let _ = std::fs::remove_dir_all(&dir);
        for (name, source) in [
            ("a_pass.rhai", A_PASS),
            ("b_pass.rhai", B_PASS),
            ("broken.rhai", BROKEN),
            ("fails.rhai", FAILS),
        ] {
            let path = dir.join("journeys").join(name);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("make the folder");
            std::fs::write(path, source).expect("write the journey");
        }
        let anchors = anchors();
        // The snapshot accepted, then changed by hand: the run sees one label differ.
        waymark(
            &dir,
            [
                "--anchors",
                &anchors,
                "run",
                "--no-trace",
                "--update-snapshots",
                "journeys/fails.rhai",
            ],
            &[],
        )
        .exits(0);
        let snap = dir.join("snapshots/fails__list.snap");
        let text = std::fs::read_to_string(&snap).expect("the snapshot");
        assert!(text.contains("label: Home"), "{text}");
        std::fs::write(&snap, text.replacen("label: Home", "label: Start", 1)).expect("edit");
        waymark(
            &dir,
            [
                "--anchors",
                &anchors,
                "run",
                "--jobs",
                "2",
                "--screenshots",
                "on",
                "--trace",
                "traces",
                "--report",
                "html=out",
            ],
            &[("CI", std::ffi::OsStr::new("1"))],
        )
        .exits(1)
        .says("2 passed, 2 failed");
        Ran { dir }
    })
}

/// `waymark show PATH`, serving until stopped; its URL is the line it prints.
struct Shown {
    child: Child,
    url: String,
}

impl Shown {
    fn start(path: &Path) -> Shown {
        let mut child = Command::new(env!("CARGO_BIN_EXE_waymark"))
            .arg("show")
            .arg(path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start waymark show");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let url = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("waymark show prints its URL");
        let url = url.trim().trim_end_matches('/').to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        Shown { child, url }
    }

    /// SIGTERM, as a CI job's end sends it: the viewer ends at once, with 143.
    fn stop(mut self) -> Option<i32> {
        let pid = libc::pid_t::try_from(self.child.id()).expect("a pid");
        // SAFETY: kill(2) on a child we started ourselves.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Some(status) = self.child.try_wait().expect("poll waymark show") {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        None
    }
}

impl Drop for Shown {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Serves the folder `dir` on 127.0.0.1 (the report as a page of an app).
fn serve(dir: PathBuf) -> String {
    crate::harness::block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("an address");
        let app = axum::Router::new().route(
            "/{*file}",
            axum::routing::get(
                move |axum::extract::Path(file): axum::extract::Path<String>| {
                    let path = dir.join(file.replace("..", ""));
                    async move {
                        match std::fs::read_to_string(&path) {
                            Ok(page) => axum::response::Html(page).into_response(),
                            Err(_) => axum::http::StatusCode::NOT_FOUND.into_response(),
                        }
                    }
                },
            ),
        );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}")
    })
}

/// Runs the journey `name` of `tests/fixtures/report/journeys` against `base`.
fn drive(base: &str, name: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report");
    let registry = root.join("anchors.yaml").display().to_string();
    let journey = root.join("journeys").join(name).display().to_string();
    let empty = tempfile::tempdir().expect("a temp dir");
    waymark_within(
        Duration::from_secs(60),
        empty.path(),
        [
            "--anchors",
            registry.as_str(),
            "--base-url",
            base,
            "run",
            "--no-trace",
            journey.as_str(),
        ],
        &[],
        &mut |_| true,
    )
    .exits(0);
}

/// The report of a real run, driven by a waymark journey: the failed journeys first and
/// open, a status filter, the search over names and codes, a folded journey opened; and in
/// its text, the changed snapshot as its one change, the failing line among its neighbours.
#[test]
fn a_journey_filters_searches_and_opens_the_report() {
    let ran = ran();
    let page = std::fs::read_to_string(ran.report().join("index.html")).expect("the report");
    assert!(
        page.contains(
            "<li class=\"change\">~ nav.home label: &quot;Start&quot; → &quot;Home&quot;</li>"
        ),
        "the snapshot's diff by control"
    );
    assert!(
        page.contains(
            "<span class=\"at\">   4  invoke(&quot;claims.open&quot;, &quot;9999&quot;);</span>"
        ),
        "the failing line, marked"
    );
    drive(&serve(ran.report()), "report.rhai");
}

/// The viewer of a real trace, driven by a waymark journey: it opens on the failed step;
/// a click, ↓, End and k choose the step shown; the screenshot and the screen by region are
/// there. `waymark show` ends on SIGTERM with 143.
#[test]
fn a_journey_steps_through_a_trace_in_the_viewer() {
    let shown = Shown::start(&ran().traces());
    drive(&shown.url, "viewer.rhai");
    assert_eq!(shown.stop(), Some(143), "waymark show ends on SIGTERM");
}

/// `waymark show` on a path without a trace is bad input, before serving anything.
#[test]
fn show_without_a_trace_exits_2() {
    let empty = tempfile::tempdir().expect("a temp dir");
    waymark(empty.path(), ["show", "."], &[])
        .exits(2)
        .says("no trace in `.`");
}

/// Every text of the page against what is behind it (its ancestors' backgrounds, alpha
/// composited), after opening every fold: `{checked, failures, overflow}`, and how far the
/// page had scrolled by itself once loaded (`scrolled`).
const CONTRAST: &str = r#"(async () => {
  if (document.readyState !== "complete") await new Promise(r => addEventListener("load", r));
  const scrolled = scrollY;
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  document.querySelectorAll("[hidden]").forEach(e => { e.hidden = false; });
  const parse = s => {
    const m = /rgba?\(([^)]*)\)/.exec(s);
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, below) => [0, 1, 2].map(i => top[i] * top[3] + below[i] * (1 - top[3])).concat([1]);
  const lum = c => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const behind = el => {
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.unshift(e);
    let bg = [255, 255, 255, 1];
    for (const e of chain) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) bg = over(c, bg);
    }
    return bg;
  };
  const failures = [];
  let checked = 0;
  const check = (el, color, text) => {
    const bg = behind(el);
    const fg = over(parse(color), bg);
    const r = ratio(fg, bg);
    checked += 1;
    if (r < 4.5) failures.push({ text: text.slice(0, 60), tag: el.tagName, class: String(el.className),
      fg: color, bg: "rgb(" + bg.slice(0, 3).map(Math.round).join(",") + ")", ratio: Math.round(r * 100) / 100 });
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.data.trim() || !el || el.closest("script,style")) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible" || el.getClientRects().length === 0) continue;
    check(el, style.color, n.data.trim());
  }
  for (const input of document.querySelectorAll("input[placeholder]")) {
    check(input, getComputedStyle(input, "::placeholder").color, input.placeholder);
  }
  return JSON.stringify({ checked, failures, scrolled,
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth });
})()"#;

/// Where a test's screenshots go for CI to keep: `target/artifacts/`.
fn artifacts() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/")
        .join("artifacts");
    std::fs::create_dir_all(&dir).expect("make target/artifacts");
    dir
}

/// Opens `url` in light and in dark, keeps a screenshot of each as
/// `target/artifacts/NAME-light.png` and `-dark.png`, and measures every text's contrast.
fn contrast_of(url: &str, name: &str) -> Vec<String> {
    let shared = crate::harness::shared();
    let mut problems = Vec::new();
    for (scheme, word) in [(ColorScheme::Light, "light"), (ColorScheme::Dark, "dark")] {
        let answer = crate::harness::block_on(async {
            let tab = shared.browser().new_tab().await.expect("a tab");
            tab.emulate_color_scheme(scheme)
                .await
                .expect("emulate the scheme");
            tab.navigate(url, Duration::from_secs(15))
                .await
                .unwrap_or_else(|e| panic!("open {url}: {e}"));
            let png = tab.screenshot().await.expect("a screenshot");
            std::fs::write(artifacts().join(format!("{name}-{word}.png")), png)
                .expect("keep the screenshot");
            let answer = tab
                .evaluate(CONTRAST, Duration::from_secs(20))
                .await
                .expect("measure the page");
            tab.close().await;
            answer
        });
        let measured: Value = serde_json::from_str(&answer).expect("JSON");
        assert!(
            measured["checked"].as_u64().unwrap_or(0) > 50,
            "{name} {word}: too few texts measured: {measured}"
        );
        for f in measured["failures"].as_array().into_iter().flatten() {
            problems.push(format!("{name} {word}: {f}"));
        }
        // The viewer once set its fragment (`#step-3`) while loading, and Chromium scrolled
        // to that step at the load, hiding the header and the failure.
        if measured["scrolled"].as_f64() != Some(0.0) {
            problems.push(format!(
                "{name} {word}: the page scrolled itself to {} px as it loaded",
                measured["scrolled"]
            ));
        }
        if measured["overflow"].as_i64().unwrap_or(0) > 0 {
            problems.push(format!(
                "{name} {word}: the page scrolls sideways by {} px",
                measured["overflow"]
            ));
        }
    }
    problems
}

/// Every text of the report and of the viewer, light and dark, at 4.5:1 or more against
/// what is behind it, and neither page scrolls sideways (a 200-character `print` line
/// wraps). Their screenshots are kept in `target/artifacts/`.
#[test]
fn every_text_of_the_report_and_the_viewer_is_aa_in_light_and_dark() {
    let ran = ran();
    let mut problems = contrast_of(&format!("{}/index.html", serve(ran.report())), "report");
    let shown = Shown::start(&ran.traces());
    problems.extend(contrast_of(
        &format!("{}/trace/broken.jsonl", shown.url),
        "viewer",
    ));
    assert!(problems.is_empty(), "{problems:#?}");
}
