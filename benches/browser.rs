//! The tools against a real Chromium and the embedded demo app's dense screen
//! (`/dense?n=N`, byte for byte the shared `gen-dense.py` page): one CDP round trip,
//! `read_screen` on 1,000 and 10,000 controls, and `invoke` on the page's last button.
//! Every read reports the truncation it saw, so a cut read can never look fast by accident.
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

fn browser(c: &mut Criterion) {
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

    let mut group = c.benchmark_group("read_screen");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for n in [1_000usize, 10_000] {
        let tools = bench.tools();
        let first = bench.rt.block_on(tools.navigate(&format!("/dense?n={n}")));
        let screen = first.screen.expect("the dense page reads");
        eprintln!(
            "read_screen n={n}: first read {:.1} ms, {} controls, truncation {:?}",
            screen.elapsed_ms,
            screen.controls.len(),
            screen
                .truncation
                .as_ref()
                .map(|t| (t.shown, t.total, t.dropped))
        );
        group.bench_function(format!("dense_{n}"), |b| {
            b.iter(|| {
                let rt = bench.rt.block_on(tools.read_screen());
                assert!(rt.ok && rt.screen.as_ref().is_some_and(|s| s.truncation.is_none()));
            })
        });
        bench.rt.block_on(tools.close());
    }
    group.finish();

    let mut group = c.benchmark_group("invoke");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let n = 10_000;
    let target = bench.meta(n, "bench-click-target");
    let tools = bench.tools();
    bench.rt.block_on(tools.navigate(&format!("/dense?n={n}")));
    group.bench_function(format!("dense_{n}_last_button"), |b| {
        b.iter(|| {
            let rt = bench.rt.block_on(tools.invoke(&target, None));
            assert!(rt.ok, "{:?}", rt.error);
        })
    });
    let fill_target = bench.meta(n, "bench-fill-target");
    group.bench_function(format!("fill_dense_{n}_last_input"), |b| {
        b.iter(|| {
            let rt = bench.rt.block_on(tools.fill(&fill_target, "42"));
            assert!(rt.ok, "{:?}", rt.error);
        })
    });
    group.finish();

    bench.rt.block_on(async {
        tools.close().await;
        raw.close().await;
    });
    let Bench { rt, demo, browser } = bench;
    rt.block_on(browser.close());
    drop(demo);
}

criterion_group!(benches, browser);
criterion_main!(benches);
