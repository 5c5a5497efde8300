//! What `waymark bench` reports: the `--json` shape (docs/design.md's, read back by
//! `--baseline`) and the table a person reads.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// `waymark bench --json`: one entry per route measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// The routes, in the order given.
    pub routes: Vec<RouteReport>,
}

/// The figures of one route. Times are wall-clock milliseconds of whole tool calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteReport {
    /// The route as given.
    pub route: String,
    /// Controls the reads gathered.
    pub controls: usize,
    /// The deepest cut any read of the route saw; `null` when every read was complete.
    pub truncation: Option<Cut>,
    /// How many of the route's reads (navigate, warm reads, actions) were cut…
    #[serde(default)]
    pub truncated_reads: usize,
    /// …of how many reads in all.
    #[serde(default)]
    pub reads: usize,
    /// Warm reads (and actions) measured.
    #[serde(default)]
    pub runs: usize,
    /// `navigate` and `read_screen`.
    pub read: ReadTimes,
    /// `invoke` round trips, when `--invoke` was given.
    pub invoke: Option<ActTimes>,
    /// `fill` round trips, when `--fill` was given.
    pub fill: Option<ActTimes>,
    /// Median of one trivial in-page round trip: the floor of an action.
    #[serde(default)]
    pub round_trip_median_ms: Option<f64>,
    /// `read.median_ms / read.in_page_median_ms`.
    #[serde(default)]
    pub read_ratio: Option<f64>,
    /// `read.whole.median_ms / read.whole.in_page_median_ms`: what a read costs beyond the
    /// page's own work when the page gathers everything.
    #[serde(default)]
    pub whole_ratio: Option<f64>,
    /// `read.touched.median_ms / read.touched.in_page_median_ms`: the same for a read right
    /// after a small DOM change.
    #[serde(default)]
    pub touched_ratio: Option<f64>,
    /// `invoke.median_ms / round_trip_median_ms`.
    #[serde(default)]
    pub invoke_ratio: Option<f64>,
    /// `fill.median_ms / round_trip_median_ms`.
    #[serde(default)]
    pub fill_ratio: Option<f64>,
    /// The page's own cost of the least a read does, in its own clock: the anchored
    /// controls found and the box of each taken, up to the collection cap (see
    /// `Tools::page_floor`); sampled before each whole read.
    #[serde(default)]
    pub page_floor: Option<Spread>,
    /// `read.whole.in_page_median_ms / page_floor.median_ms`: the collector's own code
    /// against what the page charges any collector. Both are in-page times of the same
    /// page in the same run, so this moves when the collector does, not the machine.
    #[serde(default)]
    pub collector_ratio: Option<f64>,
    /// `invoke.median_ms / page_floor.median_ms`: an action against the page's size,
    /// which catches work an action does per control (a whole read after every action).
    #[serde(default)]
    pub invoke_page_ratio: Option<f64>,
    /// `fill.median_ms / page_floor.median_ms`.
    #[serde(default)]
    pub fill_page_ratio: Option<f64>,
    /// On a page found through matchers (`&matchers=1`), its whole read's median against
    /// the same page's with data-anchor, measured in the same run (`vs_route`): what
    /// resolving anchors by matcher costs a read that reuses nothing.
    #[serde(default)]
    pub anchored_whole_ratio: Option<f64>,
    /// The same for an invoke.
    #[serde(default)]
    pub anchored_invoke_ratio: Option<f64>,
    /// The route the `anchored_*` ratios compare with.
    #[serde(default)]
    pub vs_route: Option<String>,
}

/// Median, fastest and slowest of a sample, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Median.
    pub median_ms: f64,
    /// Fastest.
    pub min_ms: f64,
    /// Slowest.
    pub max_ms: f64,
}

/// A read that did not gather every control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cut {
    /// Controls in the read.
    pub shown: usize,
    /// Controls on the page.
    pub total: usize,
    /// Controls not in the read.
    pub dropped: usize,
    /// `collection` or `description`.
    pub cut_at: String,
}

/// Read times of a route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadTimes {
    /// The read `navigate` made on the cold page, once it had loaded: the load is not
    /// counted. The page sends it at the end of its load (see `tools/first_read.rs`); a
    /// read asked for after the load waited behind the page's first frame (on a
    /// 10,000-control page, 100-300 ms of frames any tool's first call waits for).
    pub first_ms: f64,
    /// The collector's own in-page time in that first read (colder than a whole read's),
    /// when the page reported it.
    #[serde(default)]
    pub first_in_page_ms: Option<f64>,
    /// The whole `navigate` the first read is part of: the load and that read. The page
    /// takes its first read as its DOM is parsed, during the load (see `prime` in the
    /// collector), so work moved out of the first read shows here if it only moved.
    #[serde(default)]
    pub navigate_ms: Option<f64>,
    /// Median of the warm `read_screen` calls.
    pub median_ms: f64,
    /// Fastest warm read.
    pub min_ms: f64,
    /// Slowest warm read.
    pub max_ms: f64,
    /// Median of the collector's own in-page time in those reads: the floor of a read.
    pub in_page_median_ms: Option<f64>,
    /// Whole reads of the loaded page: gathered as a first read is, reusing nothing the page
    /// kept (what a warm read saves, and what a read costs on a screen that changed).
    #[serde(default)]
    pub whole: Option<ReadSpread>,
    /// Reads right after the smallest change to the page's `<body>` (see `Tools::touch`):
    /// what the read after an action that changed little in the DOM costs (the page takes
    /// every control's box and visibility again, and gathers again only what the mutation
    /// reached: here none).
    #[serde(default)]
    pub touched: Option<ReadSpread>,
}

/// A sample of reads of one kind: whole reads (`Tools::read_screen_whole`) or touched ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadSpread {
    /// Median round trip.
    pub median_ms: f64,
    /// Fastest.
    pub min_ms: f64,
    /// Slowest.
    pub max_ms: f64,
    /// Median of the collector's own in-page time in those reads.
    pub in_page_median_ms: Option<f64>,
}

/// Round trips of one action on a route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActTimes {
    /// The control acted on.
    pub anchor: String,
    /// Median round trip.
    pub median_ms: f64,
    /// Fastest.
    pub min_ms: f64,
    /// Slowest.
    pub max_ms: f64,
    /// Median of the page's own frame after the action's input (see
    /// `Tools::last_frame_ms`): the part of the round trip that is the app's rendering, which
    /// no tool sending the input goes below. None when no run reported one.
    #[serde(default)]
    pub frame_median_ms: Option<f64>,
}

/// The report as a person reads it: a row per measure, the floor each is divided by, and
/// any cut read called out.
pub fn table(report: &BenchReport) -> String {
    if report.routes.is_empty() {
        return String::new();
    }
    let head = [
        "ROUTE", "CONTROLS", "MEASURE", "MEDIAN", "MIN", "MAX", "FLOOR", "RATIO", "NOTE",
    ];
    let ms = |v: f64| format!("{v:.1}");
    let opt =
        |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    let mut rows: Vec<[String; 9]> = Vec::new();
    for r in &report.routes {
        let controls = match &r.truncation {
            Some(t) => format!("{} of {} CUT", t.shown, t.total),
            None => r.controls.to_string(),
        };
        rows.push([
            r.route.clone(),
            controls,
            "read".into(),
            ms(r.read.median_ms),
            ms(r.read.min_ms),
            ms(r.read.max_ms),
            opt(r.read.in_page_median_ms, 1),
            opt(r.read_ratio, 2),
            format!(
                "first read {:.1}{}{}; floor: in-page collector",
                r.read.first_ms,
                r.read
                    .first_in_page_ms
                    .map_or(String::new(), |page| format!(" (in page {page:.1})")),
                r.read
                    .navigate_ms
                    .map_or(String::new(), |nav| format!(", its navigate {nav:.1}")),
            ),
        ]);
        // A measure's row under its route: times (min and max `-` when not kept), then its
        // floor, ratio and note.
        let sub = |what: &str,
                   (median, min, max): (f64, Option<f64>, Option<f64>),
                   floor,
                   ratio,
                   note| {
            [
                String::new(),
                String::new(),
                what.to_string(),
                ms(median),
                opt(min, 1),
                opt(max, 1),
                floor,
                ratio,
                note,
            ]
        };
        for (what, reads, ratio, note) in [
            (
                "whole read",
                &r.read.whole,
                r.whole_ratio,
                "nothing reused; floor: in-page collector",
            ),
            (
                "touched read",
                &r.read.touched,
                r.touched_ratio,
                "after an attribute and a comment of <body> changed; floor: in-page collector",
            ),
        ] {
            if let Some(t) = reads {
                rows.push(sub(
                    what,
                    (t.median_ms, Some(t.min_ms), Some(t.max_ms)),
                    opt(t.in_page_median_ms, 1),
                    opt(ratio, 2),
                    note.into(),
                ));
            }
        }
        if let Some(f) = &r.page_floor {
            rows.push(sub(
                "page floor",
                (f.median_ms, Some(f.min_ms), Some(f.max_ms)),
                "-".into(),
                "-".into(),
                "in page: the anchored controls found and a box taken of each gathered".into(),
            ));
            if let Some(collector) = r.read.whole.as_ref().and_then(|w| w.in_page_median_ms) {
                rows.push(sub(
                    "collector",
                    (collector, None, None),
                    ms(f.median_ms),
                    opt(r.collector_ratio, 2),
                    "a whole read's time in page; floor: page floor".into(),
                ));
            }
        }
        for (what, times, ratio, page_ratio) in [
            ("invoke", &r.invoke, r.invoke_ratio, r.invoke_page_ratio),
            ("fill", &r.fill, r.fill_ratio, r.fill_page_ratio),
        ] {
            if let Some(t) = times {
                let page = page_ratio.map_or(String::new(), |p| format!("; {p:.2} x page floor"));
                let frame = t.frame_median_ms.map_or(String::new(), |f| {
                    format!("; the page's frame after the input {f:.1}")
                });
                rows.push(sub(
                    what,
                    (t.median_ms, Some(t.min_ms), Some(t.max_ms)),
                    opt(r.round_trip_median_ms, 2),
                    opt(ratio, 1),
                    format!("`{}`; floor: trivial round trip{page}{frame}", t.anchor),
                ));
            }
        }
        if let Some(vs) = &r.vs_route {
            for (what, ratio) in [
                ("whole read", r.anchored_whole_ratio),
                ("invoke", r.anchored_invoke_ratio),
            ] {
                rows.push([
                    String::new(),
                    String::new(),
                    format!("{what} vs"),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    opt(ratio, 2),
                    format!("by matcher: median over `{vs}`'s (data-anchor), this run"),
                ]);
            }
        }
    }
    let mut widths = head.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let numeric = |i: usize| (3..=7).contains(&i);
    let head = head.map(String::from);
    for row in std::iter::once(&head).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i == 8 {
                line.push_str(cell);
            } else if numeric(i) {
                let _ = write!(line, "{cell:>w$}  ");
            } else {
                let _ = write!(line, "{cell:<w$}  ");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(
        out,
        "times in ms, the median of {} run(s); ratio = median / floor",
        report.routes.first().map_or(0, |r| r.runs)
    );
    for r in &report.routes {
        if let Some(t) = &r.truncation {
            let _ = writeln!(
                out,
                "TRUNCATED: {} — {} of {} read(s) cut at {}: shown {} of {} controls, {} dropped; \
                 these times cover only what was read (raise --max-controls)",
                r.route, r.truncated_reads, r.reads, t.cut_at, t.shown, t.total, t.dropped
            );
        }
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::bench) fn route(name: &str, read_median: f64) -> RouteReport {
        RouteReport {
            route: name.into(),
            controls: 1000,
            truncation: None,
            truncated_reads: 0,
            reads: 16,
            runs: 5,
            read: ReadTimes {
                first_ms: 40.0,
                first_in_page_ms: Some(30.0),
                navigate_ms: Some(90.0),
                median_ms: read_median,
                min_ms: read_median - 1.0,
                max_ms: read_median + 1.0,
                in_page_median_ms: Some(read_median / 2.0),
                whole: Some(ReadSpread {
                    median_ms: read_median * 10.0,
                    min_ms: read_median * 9.0,
                    max_ms: read_median * 11.0,
                    in_page_median_ms: Some(read_median * 8.0),
                }),
                touched: Some(ReadSpread {
                    median_ms: read_median * 9.0,
                    min_ms: read_median * 8.0,
                    max_ms: read_median * 10.0,
                    in_page_median_ms: Some(read_median * 8.0),
                }),
            },
            invoke: Some(ActTimes {
                anchor: "region-24.button-3".into(),
                median_ms: 30.0,
                min_ms: 29.0,
                max_ms: 31.0,
                frame_median_ms: Some(21.5),
            }),
            fill: None,
            round_trip_median_ms: Some(0.5),
            read_ratio: Some(2.0),
            whole_ratio: Some(1.25),
            touched_ratio: Some(1.13),
            invoke_ratio: Some(60.0),
            fill_ratio: None,
            page_floor: Some(Spread {
                median_ms: read_median * 2.0,
                min_ms: read_median * 1.5,
                max_ms: read_median * 3.0,
            }),
            collector_ratio: Some(4.0),
            invoke_page_ratio: Some(1.5),
            fill_page_ratio: None,
            anchored_whole_ratio: None,
            anchored_invoke_ratio: None,
            vs_route: None,
        }
    }

    #[test]
    fn json_keeps_the_design_shape_and_reads_back() {
        let report = BenchReport {
            routes: vec![route("/dense?n=1000", 10.0)],
        };
        let value = serde_json::to_value(&report).expect("serializes");
        let r = &value["routes"][0];
        for key in ["route", "controls", "truncation", "read", "invoke", "fill"] {
            assert!(r.get(key).is_some(), "no `{key}` in {r}");
        }
        for key in [
            "first_ms",
            "median_ms",
            "min_ms",
            "max_ms",
            "in_page_median_ms",
        ] {
            assert!(r["read"].get(key).is_some(), "no `read.{key}` in {r}");
        }
        assert_eq!(r["read"]["whole"]["median_ms"], 100.0);
        assert_eq!(r["whole_ratio"], 1.25);
        assert_eq!(r["read"]["touched"]["median_ms"], 90.0);
        assert_eq!(r["touched_ratio"], 1.13);
        let text = table(&report);
        assert!(
            text.lines()
                .any(|l| l.contains("touched read") && l.contains("90.0") && l.contains("1.13")),
            "{text}"
        );
        assert_eq!(r["page_floor"]["median_ms"], 20.0);
        assert_eq!(
            (&r["collector_ratio"], &r["invoke_page_ratio"]),
            (&serde_json::json!(4.0), &serde_json::json!(1.5))
        );
        assert!(
            text.lines()
                .any(|l| l.contains("page floor") && l.contains("20.0")),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.contains("collector") && l.contains("80.0") && l.contains("4.00")),
            "{text}"
        );
        assert!(
            text.lines().any(|l| l.contains("invoke")
                && l.contains("1.50 x page floor; the page's frame after the input 21.5")),
            "{text}"
        );
        assert_eq!(r["invoke"]["anchor"], "region-24.button-3");
        assert_eq!(r["invoke"]["frame_median_ms"], 21.5);
        // A baseline saved before the frame was reported still reads.
        let mut old = r["invoke"].clone();
        old.as_object_mut().map(|o| o.remove("frame_median_ms"));
        let old: ActTimes = serde_json::from_value(old).expect("an older report reads");
        assert_eq!(old.frame_median_ms, None);
        assert!(r["truncation"].is_null() && r["fill"].is_null());
        let back: BenchReport = serde_json::from_value(value).expect("reads back");
        assert_eq!(back, report);
    }

    #[test]
    fn a_cut_route_is_called_out_in_the_table() {
        let mut r = route("/dense?n=10000", 100.0);
        r.truncation = Some(Cut {
            shown: 5000,
            total: 10000,
            dropped: 5000,
            cut_at: "collection".into(),
        });
        r.truncated_reads = 6;
        let text = table(&BenchReport { routes: vec![r] });
        assert!(text.contains("5000 of 10000 CUT"), "{text}");
        assert!(text.contains("TRUNCATED: /dense?n=10000"), "{text}");
    }
}
