//! The Rust half of a read, with no browser: parse the collector's reply (its wire form,
//! records packed into one string) into a [`RawObservation`], [`infer`] the state, and
//! diff two states with [`Changes::between`], on synthetic dense screens of 1,000 / 10,000 / 50,000 controls shaped like the dense
//! bench page (40 controls per region; buttons, text fields, selects, checkboxes, links;
//! labels, values and boxes of realistic length). DESIGN's target: parse + infer of a
//! 50,000-control read under 5 ms.
//!
//! Also the description cut (`infer_budget`: a 16,000-character budget with the focus in
//! mid-page), and a page past the collection cut read as waymark reads it by default
//! (`parse_infer_cut`: the first 5,000 controls, the rest counted).
//!
//! `cargo bench --bench pure`

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use waymark::registry::Registry;
use waymark::screen::{Chrome, Facts, InferredState, RawControl, RawObservation, View, infer};
use waymark::tools::{Changes, ToolOptions};
use waymark::wire;

const SIZES: [usize; 3] = [1_000, 10_000, 50_000];
const PER_REGION: usize = 40;
const SECTIONS: [&str; 6] = [
    "Customer",
    "Billing",
    "Shipping",
    "Line items",
    "Approvals",
    "Payments",
];
const FIELDS: [&str; 8] = [
    "Account number",
    "Company name",
    "Contact email",
    "Postal code",
    "Cost centre",
    "PO reference",
    "Tracking number",
    "Unit price",
];
const BUTTONS: [&str; 6] = [
    "Save",
    "Apply",
    "Recalculate",
    "Approve",
    "Add line",
    "Export",
];
const OPTIONS: [&str; 4] = ["Draft", "Pending", "Approved", "Rejected"];
const LINKS: [&str; 4] = ["Details", "History", "Open invoice", "Related documents"];

/// A fixed LCG, so every run benches the same screen.
struct Lcg(u32);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(1_103_515_245).wrapping_add(12_345) & 0x7fff_ffff;
        self.0 as usize % n
    }
}

/// A dense screen of `n` controls, as the collector reads it.
fn observation(n: usize) -> RawObservation {
    let mut rnd = Lcg(20_240_601);
    let controls = (0..n)
        .map(|i| {
            let (k, j) = (i / PER_REGION, i % PER_REGION);
            let region = format!("region-{k}");
            let section = format!("{} {}", SECTIONS[k % SECTIONS.len()], k + 1);
            let (kind, role, label, value, checked, editable) = match (i + k) % 5 {
                0 => (
                    "button",
                    "button",
                    BUTTONS[rnd.below(BUTTONS.len())].to_string(),
                    None,
                    None,
                    false,
                ),
                1 => (
                    "input",
                    "textbox",
                    format!("{} row {}", FIELDS[rnd.below(FIELDS.len())], j / 5 + 1),
                    Some(if rnd.below(3) == 0 { "" } else { "ACME-00412" }.to_string()),
                    None,
                    true,
                ),
                2 => (
                    "select",
                    "combobox",
                    format!("Status row {}", j / 5 + 1),
                    Some(OPTIONS[rnd.below(OPTIONS.len())].to_string()),
                    None,
                    true,
                ),
                3 => (
                    "checkbox",
                    "checkbox",
                    format!("Select row {} of {section}", j / 5 + 1),
                    None,
                    Some(rnd.below(10) < 3),
                    false,
                ),
                _ => (
                    "link",
                    "link",
                    LINKS[rnd.below(LINKS.len())].to_string(),
                    None,
                    None,
                    false,
                ),
            };
            RawControl {
                facts: Facts {
                    anchor: format!("{region}.{kind}-{j}").into(),
                    key: None,
                    label: label.into(),
                    role: role.into(),
                    disabled: rnd.below(100) < 9,
                    editable,
                    value: value.map(Into::into),
                    checked,
                    region: region.into(),
                    visible: true,
                },
                secret: false,
                focused: false,
                bbox: [
                    8 + (j % 4) as i64 * 310,
                    40 + i as i64 * 6,
                    110 + rnd.below(60) as i64,
                    21,
                ],
                view: None,
            }
        })
        .collect();
    RawObservation {
        url: format!("http://127.0.0.1:8080/dense?n={n}"),
        title: format!("Dense business screen ({n} controls)"),
        status: Some(200),
        dialog: None,
        controls,
        total: n,
        dropped_by_region: BTreeMap::new(),
        dropped_by_role: BTreeMap::new(),
        viewport: [1280.0, 800.0],
        scroll: [0.0, 0.0],
        collector_ms: 12.5,
        evidence: None,
        chrome: Chrome::default(),
        audit: None,
        frames_unread: Vec::new(),
    }
}

/// `raw` as the collector sends it when it gathers at most `max` controls: the first
/// `max`, with the rest counted by region and role.
fn collection_cut(raw: &RawObservation, max: usize) -> RawObservation {
    let mut cut = raw.clone();
    for c in cut.controls.split_off(max) {
        *cut.dropped_by_region
            .entry(c.region.to_string())
            .or_insert(0) += 1;
        *cut.dropped_by_role.entry(c.role.to_string()).or_insert(0) += 1;
    }
    cut
}

/// Benches parsing `json` (a full read's reply) and inferring its state, as a read does.
fn parse_infer(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    json: &str,
    registry: &Registry,
) {
    group.bench_with_input(id, json, |b, json| {
        // The runner owns the reply it parses; the copy is the caller's, not the parse's.
        b.iter_batched(
            || json.to_string(),
            |json| {
                let raw = wire::parse_full(black_box(json)).expect("parses");
                state(&raw, registry);
            },
            BatchSize::LargeInput,
        )
    });
}

fn state(raw: &RawObservation, registry: &Registry) -> InferredState {
    infer(raw, "/dense".to_string(), registry, 1.0, &View::default())
}

fn pure(c: &mut Criterion) {
    // As the binary runs (see `keep_freed_memory`).
    waymark::keep_freed_memory();
    let registry = Registry::empty();
    let mut group = c.benchmark_group("read");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for n in SIZES {
        let raw = observation(n);
        let json = wire::encode_full(&raw);
        let parsed = wire::parse_full(json.clone()).expect("parses");
        assert_eq!(parsed, raw);
        eprintln!("read n={n}: {} KiB of JSON", json.len() / 1024);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("parse", n), &json, |b, json| {
            // The runner owns the reply it parses; the copy is the caller's, not the parse's.
            b.iter_batched(
                || json.clone(),
                |json| {
                    wire::parse_full(black_box(json)).expect("parses");
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_with_input(BenchmarkId::new("infer", n), &raw, |b, raw| {
            b.iter(|| state(black_box(raw), &registry))
        });
        // The description cut: a budget of 16,000 characters (about 100 controls) with the
        // focus in the middle of the page, so every rank of the keeping order is used.
        let mut focused = raw.clone();
        focused.controls[n / 2].focused = true;
        let view = View {
            budget: Some(16_000),
            region: None,
            ..View::default()
        };
        let cut = infer(&focused, "/dense".into(), &registry, 1.0, &view);
        let t = cut.truncation.as_ref().expect("the budget cuts");
        eprintln!(
            "infer_budget n={n}: shown {} of {}, {} dropped ({} regions)",
            t.shown,
            t.total,
            t.dropped,
            t.dropped_by_region.len()
        );
        group.bench_with_input(BenchmarkId::new("infer_budget", n), &focused, |b, raw| {
            b.iter(|| infer(black_box(raw), "/dense".into(), &registry, 1.0, &view))
        });
        parse_infer(
            &mut group,
            BenchmarkId::new("parse_infer", n),
            &json,
            &registry,
        );

        // A read of this page as waymark takes it by default: the collector cuts it at
        // `--max-controls` and counts the rest by region and role, and the runner parses,
        // infers and truncates what came. Only above the cut does it differ from `parse_infer`.
        let cut_at = ToolOptions::default().max_controls;
        if n > cut_at {
            let cut = collection_cut(&raw, cut_at);
            let json = wire::encode_full(&cut);
            parse_infer(
                &mut group,
                BenchmarkId::new("parse_infer_cut", n),
                &json,
                &registry,
            );
        }

        // The same screen after a fill, a toggle and a disabled button: three changes.
        let mut after = raw.clone();
        let last = n - 1;
        after.controls[last / 2].value = Some("42".into());
        let toggled = !after.controls[last / 3].checked.unwrap_or(false);
        after.controls[last / 3].checked = Some(toggled);
        after.controls[last].disabled = !after.controls[last].disabled;
        let (before, after) = (state(&raw, &registry), state(&after, &registry));
        assert_eq!(Changes::between(&before, &after).changed.len(), 3);
        group.bench_with_input(
            BenchmarkId::new("changes_between", n),
            &(before, after),
            |b, (before, after)| b.iter(|| Changes::between(black_box(before), black_box(after))),
        );
    }
    group.finish();
}

criterion_group!(benches, pure);
criterion_main!(benches);
