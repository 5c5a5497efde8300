//! Loading `anchors.yaml`: [`Registry::parse`] of a registry of 10,000 anchors (200
//! screens with examples; a third of the anchors with a matcher, some keyed), as a large app
//! writes it: `parse/valid`. The same registry with an unknown field in its last anchor
//! (`parse/syntax_error`) and a screen it does not declare (`parse/unknown_screen`): a
//! registry with a problem is read no more slowly than one without.
//!
//! `yaml/*`: the two maintained YAML crates weighed for reading it (docs/design.md, "Why
//! yaml_serde"), each reading the same text into the same shape, with no check of ours:
//! yaml_serde (what `Registry::parse` reads with), serde-saphyr, and serde-saphyr with
//! every anchor's fields `Spanned` (what would replace `registry/locate.rs`).
//!
//! `cargo bench --bench registry`

use std::fmt::Write;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use waymark::registry::Registry;

const SCREENS: usize = 200;
const ANCHORS: usize = 10_000;

/// The registry's text; `last` is written as the last anchor's last line.
fn registry(last: &str) -> String {
    let mut text = String::from("# a large app's registry\napp: bench\nscreens:\n");
    for s in 0..SCREENS {
        let _ = write!(
            text,
            "  - id: screen-{s}\n    route: /area-{s}/items/{{id}}\n    description: \
             Screen {s}, where the items of area {s} are reviewed.\n    example: {{id: \"{s}\"}}\n"
        );
    }
    text.push_str("anchors:\n");
    for a in 0..ANCHORS {
        let (s, t) = (a % SCREENS, (a * 7 + 3) % SCREENS);
        let _ = write!(
            text,
            "  - id: area{s}.control-{a}\n    description: \"Does step {a} of the review, \
             then shows the result.\"\n    screens: [screen-{s}, screen-{t}]\n"
        );
        match a % 6 {
            0 => {
                let _ = writeln!(text, "    match: {{role: button, name: Save {a}}}");
            }
            2 => {
                let _ = writeln!(
                    text,
                    "    match: {{role: row, name: /^Item {a}/i}}\n    key: {{attribute: data-id}}"
                );
            }
            4 => text.push_str("    keyed: true\n    volatile: false\n"),
            _ => {}
        }
    }
    text.push_str(last);
    text
}

fn bench(c: &mut Criterion) {
    let valid = registry("");
    Registry::parse(&valid, "anchors.yaml").unwrap_or_else(|e| panic!("{e}"));
    let syntax = registry("    descripton: misspelt\n");
    let unknown = registry("  - id: last.one\n    description: d\n    screens: [screen-x]\n");
    for bad in [&syntax, &unknown] {
        assert!(Registry::parse(bad, "anchors.yaml").is_err());
    }

    let mut group = c.benchmark_group("parse");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Bytes(valid.len() as u64));
    for (name, text) in [
        ("valid", &valid),
        ("syntax_error", &syntax),
        ("unknown_screen", &unknown),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| Registry::parse(black_box(text), "anchors.yaml"))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("yaml");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Bytes(valid.len() as u64));
    group.bench_function("yaml_serde", |b| {
        b.iter(|| yaml_serde::from_str::<Shape<Plain>>(black_box(&valid)).map(|_| ()))
    });
    group.bench_function("serde_saphyr", |b| {
        b.iter(|| serde_saphyr::from_str::<Shape<Plain>>(black_box(&valid)).map(|_| ()))
    });
    group.bench_function("serde_saphyr_spanned", |b| {
        b.iter(|| serde_saphyr::from_str::<Shape<Spanned>>(black_box(&valid)).map(|_| ()))
    });
    group.finish();
}

/// The registry's shape as both crates read it: its screens and anchors as maps of field
/// to value (`V`: any value, or any value with its place).
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Shape<V> {
    app: String,
    screens: Vec<std::collections::BTreeMap<String, V>>,
    anchors: Vec<std::collections::BTreeMap<String, V>>,
}

/// Any value, read and dropped.
#[derive(serde::Deserialize)]
struct Plain(#[allow(dead_code)] serde::de::IgnoredAny);

/// Any value, with the place serde-saphyr read it at.
#[derive(serde::Deserialize)]
struct Spanned(#[allow(dead_code)] serde_saphyr::Spanned<serde::de::IgnoredAny>);

criterion_group!(benches, bench);
criterion_main!(benches);
