//! The tools against a real Chromium and the embedded demo app's dense screen
//! (`/dense?n=N`, byte for byte the shared `gen-dense.py` page): one CDP round trip,
//! `read_screen` on 1,000 and 10,000 controls (warm, and whole: nothing reused), `invoke`
//! on the page's last button and `fill` on its last input (each fill types a new value,
//! and the round trip's diff must name exactly that field), and the naive per-element CDP
//! read of 100 controls of the 1,000-control page as the contrast (three CDP commands per
//! element). Every read and action prints the truncation it saw, so a cut read can never
//! look fast by accident, and each action the page's own frame after its input (the part of
//! its time that is the app's rendering).
//!
//! The 50,000-control page is a separate, slower group: `WAYMARK_BENCH_50K=1`.
//!
//! `cargo bench --bench browser`

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tokio::runtime::Runtime;
use url::Url;
use waymark::browser::{Chromium, ChromiumTab, LaunchOptions, Tab};
use waymark::demo::DemoApp;
use waymark::registry::Registry;
use waymark::screen::InferredState;
use waymark::tools::{ToolOptions, Tools};

struct Bench {
    rt: Runtime,
    demo: DemoApp,
    browser: Chromium,
}

impl Bench {
    fn start() -> Bench {
        let rt = Runtime::new().expect("a tokio runtime");
        let (demo, browser) = rt.block_on(async {
            let demo = DemoApp::start().await.expect("the demo app starts");
            let browser = Chromium::launch(LaunchOptions::default())
                .await
                .expect("Chromium starts");
            (demo, browser)
        });
        Bench { rt, demo, browser }
    }

    fn tools(&self) -> Tools<ChromiumTab> {
        let options = ToolOptions {
            max_controls: 100_000,
            ..ToolOptions::default()
        };
        let tab = self.rt.block_on(self.browser.new_tab()).expect("a tab");
        let base = Url::parse(self.demo.base_url()).expect("the demo URL parses");
        Tools::new(tab, base, Arc::new(Registry::empty()), options)
    }

    /// The anchor a `<meta name=…>` of the dense page names.
    fn meta(&self, n: usize, name: &str) -> String {
        self.rt.block_on(async {
            let tab = self.browser.new_tab().await.expect("a tab");
            let url = format!("{}/dense?n={n}", self.demo.base_url());
            tab.navigate(&url, Duration::from_secs(60))
                .await
                .expect("the page loads");
            let expr = format!("document.querySelector('meta[name={name}]').content");
            let anchor = tab
                .evaluate(&expr, Duration::from_secs(10))
                .await
                .expect("the meta");
            tab.close().await;
            anchor
        })
    }
}

/// What a screen's truncation says, for the bench output.
fn cut(screen: &InferredState) -> String {
    match &screen.truncation {
        None => format!("{} shown, nothing cut", screen.controls.len()),
        Some(t) => format!(
            "{} shown of {} ({} dropped, cut at {})",
            t.shown, t.total, t.dropped, t.cut_at
        ),
    }
}

/// Warm reads of `/dense?n=N`, after the first (cold) one, which is printed.
fn reads(c: &mut Criterion, bench: &Bench, group: &str, sizes: &[usize]) {
    let mut group = c.benchmark_group(group);
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for &n in sizes {
        let tools = bench.tools();
        let first = bench.rt.block_on(tools.navigate(&format!("/dense?n={n}")));
        let screen = first.screen.expect("the dense page reads");
        eprintln!(
            "read_screen n={n}: first read {:.1} ms (in page {:.1} ms), {}",
            screen.elapsed_ms,
            tools.last_in_page_ms().unwrap_or(f64::NAN),
            cut(&screen)
        );
        // Warm reads, then the same page gathered as a first read does, nothing reused:
        // what a read costs when the whole screen changed.
        for (name, whole) in [("dense", false), ("whole_dense", true)] {
            let mut last = None;
            group.bench_function(format!("{name}_{n}"), |b| {
                b.iter(|| {
                    let rt = if whole {
                        bench.rt.block_on(tools.read_screen_whole())
                    } else {
                        bench.rt.block_on(tools.read_screen())
                    };
                    assert!(rt.ok && rt.screen.as_ref().is_some_and(|s| s.truncation.is_none()));
                    last = rt.screen;
                })
            });
            if let Some(screen) = &last {
                eprintln!(
                    "read_screen n={n}: {} read in page {:.2} ms, {}",
                    if whole { "whole" } else { "warm" },
                    tools.last_in_page_ms().unwrap_or(f64::NAN),
                    cut(screen)
                );
            }
        }
        bench.rt.block_on(tools.close());
    }
    group.finish();
}

/// The median of the page's frames after an action's input (see `Tools::last_frame_ms`), as
/// `N.N ms (median of K)`, or `unknown` when no run reported one.
fn median_ms(frames: &mut [f64]) -> String {
    frames.sort_by(f64::total_cmp);
    match frames.get(frames.len() / 2) {
        Some(ms) => format!("{ms:.1} ms (median of {})", frames.len()),
        None => "unknown".into(),
    }
}

/// `invoke` on the last button and `fill` on the last input of `/dense?n=N`. Every fill
/// types a value the field did not hold, so the round trip's diff must name that field
/// (the diff after an action, measured with it).
fn actions(c: &mut Criterion, bench: &Bench, group: &str, n: usize) {
    let mut group = c.benchmark_group(group);
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let target = bench.meta(n, "bench-click-target");
    let fill_target = bench.meta(n, "bench-fill-target");
    let tools = bench.tools();
    bench.rt.block_on(tools.navigate(&format!("/dense?n={n}")));
    let mut seen = None;
    let mut frames = Vec::new();
    group.bench_function(format!("dense_{n}_last_button"), |b| {
        b.iter(|| {
            let rt = bench.rt.block_on(tools.invoke(&target, None));
            assert!(rt.ok, "{:?}", rt.error);
            frames.extend(tools.last_frame_ms());
            seen = rt.screen;
        })
    });
    if let Some(screen) = &seen {
        eprintln!(
            "invoke n={n}: the page's frame after the click {}; the screen after it: {}",
            median_ms(&mut frames),
            cut(screen)
        );
    }
    frames.clear();
    let mut typed = 0u64;
    let mut changed = None;
    group.bench_function(format!("fill_dense_{n}_last_input"), |b| {
        b.iter(|| {
            typed += 1;
            let rt = bench
                .rt
                .block_on(tools.fill(&fill_target, &typed.to_string()));
            assert!(rt.ok, "{:?}", rt.error);
            frames.extend(tools.last_frame_ms());
            let changes = rt
                .changes
                .as_ref()
                .expect("a fill that stays says what changed");
            assert_eq!(
                changes.changed,
                [fill_target.as_str()],
                "the diff names the field"
            );
            changed = Some((changes.clone(), rt.screen));
        })
    });
    if let Some((changes, Some(screen))) = &changed {
        eprintln!(
            "fill n={n}: the page's frame after the typing {}; changes.changed {:?}, added {}, removed {}; the screen after it: {}",
            median_ms(&mut frames),
            changes.changed,
            changes.added.len(),
            changes.removed.len(),
            cut(screen)
        );
    }
    group.finish();
    bench.rt.block_on(tools.close());
}

fn browser(c: &mut Criterion) {
    // As the binary runs (see `keep_freed_memory`).
    waymark::keep_freed_memory();
    let bench = Bench::start();

    let raw = bench.rt.block_on(bench.browser.new_tab()).expect("a tab");
    c.bench_function("cdp/evaluate_round_trip", |b| {
        b.iter(|| {
            bench
                .rt
                .block_on(raw.evaluate("'x'", Duration::from_secs(5)))
                .expect("a trivial evaluate")
        })
    });

    reads(c, &bench, "read_screen", &[1_000, 10_000]);
    actions(c, &bench, "invoke", 10_000);

    // The contrast: one CDP command per property per element, 100 elements of the 1k page.
    let mut group = c.benchmark_group("naive_cdp");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let url = format!("{}/dense?n=1000", bench.demo.base_url());
    bench
        .rt
        .block_on(raw.navigate(&url, Duration::from_secs(60)))
        .expect("the page loads");
    let sample = bench
        .rt
        .block_on(raw.naive_read("[data-anchor]", 100))
        .expect("the naive read");
    eprintln!(
        "naive_cdp n=1000: read {} of 1000 controls (3 CDP commands each), {}",
        sample.len(),
        if sample.len() < 1000 {
            "cut at 100 on purpose: the whole page this way takes ten times as long"
        } else {
            "nothing cut"
        }
    );
    group.bench_function("dense_1000_first_100", |b| {
        b.iter(|| {
            let read = bench
                .rt
                .block_on(raw.naive_read("[data-anchor]", 100))
                .expect("the naive read");
            assert_eq!(read.len(), 100);
        })
    });
    group.finish();

    if std::env::var_os("WAYMARK_BENCH_50K").is_some() {
        reads(c, &bench, "read_screen_50k", &[50_000]);
        actions(c, &bench, "invoke_50k", 50_000);
    }

    bench.rt.block_on(raw.close());
    let Bench { rt, demo, browser } = bench;
    rt.block_on(browser.close());
    drop(demo);
}

criterion_group!(benches, browser);
criterion_main!(benches);
