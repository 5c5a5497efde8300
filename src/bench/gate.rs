//! The bench gate: a run compared with a saved baseline (medians, in percent), and the
//! ratios held under ceilings.
//!
//! Medians move with the machine, so a baseline only means something on the machine that
//! saved it. Ratios divide each time by a floor measured in the same run, so they travel:
//! ceilings on them are what CI checks.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::{BenchError, BenchReport, RouteReport};

/// A saved `waymark bench --json` report, with the path it came from.
pub(crate) fn load_baseline(path: &Path) -> Result<(PathBuf, BenchReport), BenchError> {
    let bad = |why: String| BenchError::Baseline {
        path: path.display().to_string(),
        why,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let report: BenchReport = serde_json::from_str(&text)
        .map_err(|e| bad(format!("not a `waymark bench --json` report: {e}")))?;
    if report.routes.is_empty() {
        return Err(bad("it has no routes".into()));
    }
    Ok((path.to_path_buf(), report))
}

/// One figure of one route set against its bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The route.
    pub route: String,
    /// What was compared (`read.median_ms`, `invoke_ratio`…).
    pub measure: String,
    /// Measured now; `None` when it could not be.
    pub now: Option<f64>,
    /// The bound it is held to (a baseline's figure or a ceiling).
    pub bound: f64,
    /// Whether it stayed within.
    pub ok: bool,
    /// Why, in words, when not plain arithmetic.
    pub note: Option<String>,
}

/// Everything one check compared, and what it could not.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BenchVerdict {
    /// How many routes were compared.
    pub compared: usize,
    /// The figures compared.
    pub comparisons: Vec<Comparison>,
    /// Routes or figures skipped, and why.
    pub notes: Vec<String>,
    /// `(threshold in percent)` for a baseline, `None` for ceilings.
    threshold_pct: Option<f64>,
}

impl BenchVerdict {
    /// Every figure stayed within its bound.
    pub fn passed(&self) -> bool {
        self.comparisons.iter().all(|c| c.ok)
    }

    /// One line per figure (failures marked), then the notes and the outcome.
    pub fn render(&self, against: &str) -> String {
        let mut out = String::new();
        for c in &self.comparisons {
            let mark = if c.ok { "ok  " } else { "FAIL" };
            let shown = c
                .now
                .map_or("not measured".to_string(), |v| format!("{v:.2}"));
            let relation = match (self.threshold_pct, c.now) {
                _ if c.measure == "controls" => {
                    format!("{} vs {}", c.now.unwrap_or_default(), c.bound)
                }
                (Some(_), Some(now)) => format!(
                    "{shown} vs {:.2} ({:+.1} %)",
                    c.bound,
                    (now / c.bound - 1.0) * 100.0
                ),
                (None, Some(_)) if c.ok => format!("{shown} <= ceiling {:.2}", c.bound),
                (None, Some(_)) => format!("{shown} > ceiling {:.2}", c.bound),
                (_, None) => format!("{shown} (bound {:.2})", c.bound),
            };
            let note = c
                .note
                .as_deref()
                .map_or(String::new(), |n| format!(" — {n}"));
            let _ = writeln!(out, "{mark} {} {} {relation}{note}", c.route, c.measure);
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        let failed = self.comparisons.iter().filter(|c| !c.ok).count();
        let limit = self
            .threshold_pct
            .map_or(String::new(), |t| format!(" (threshold {t} %)"));
        if failed == 0 {
            let _ = writeln!(
                out,
                "{against}: {} figure(s) within{limit}",
                self.comparisons.len()
            );
        } else {
            let _ = writeln!(
                out,
                "{against}: {failed} of {} figure(s) over{limit}: {}",
                self.comparisons.len(),
                self.comparisons
                    .iter()
                    .filter(|c| !c.ok)
                    .map(|c| format!("{} {}", c.route, c.measure))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        out
    }
}

/// The medians of `now` against those of `baseline`, route by route: a median more than
/// `threshold_pct` percent above the baseline's is a regression. A route that read a
/// different number of controls than its baseline (a cut read, another page) cannot be
/// compared and fails: fewer controls would look fast by accident.
pub fn compare(baseline: &BenchReport, now: &BenchReport, threshold_pct: f64) -> BenchVerdict {
    let mut verdict = BenchVerdict {
        threshold_pct: Some(threshold_pct),
        ..BenchVerdict::default()
    };
    let limit = 1.0 + threshold_pct / 100.0;
    for r in &now.routes {
        let Some(base) = baseline.routes.iter().find(|b| b.route == r.route) else {
            verdict
                .notes
                .push(format!("{} is not in the baseline; not compared", r.route));
            continue;
        };
        verdict.compared += 1;
        if (base.controls, base.truncation.is_some()) != (r.controls, r.truncation.is_some()) {
            verdict.comparisons.push(Comparison {
                route: r.route.clone(),
                measure: "controls".into(),
                now: Some(r.controls as f64),
                bound: base.controls as f64,
                ok: false,
                note: Some(
                    "the reads gathered other controls than the baseline's; not comparable".into(),
                ),
            });
            continue;
        }
        let mut pairs = vec![
            (
                "read.median_ms",
                Some(base.read.median_ms),
                Some(r.read.median_ms),
            ),
            (
                "read.in_page_median_ms",
                base.read.in_page_median_ms,
                r.read.in_page_median_ms,
            ),
            (
                "read.whole.median_ms",
                base.read.whole.as_ref().map(|w| w.median_ms),
                r.read.whole.as_ref().map(|w| w.median_ms),
            ),
            (
                "read.touched.median_ms",
                base.read.touched.as_ref().map(|w| w.median_ms),
                r.read.touched.as_ref().map(|w| w.median_ms),
            ),
        ];
        for (what, median, frame, b, n) in [
            (
                "invoke",
                "invoke.median_ms",
                "invoke.frame_median_ms",
                &base.invoke,
                &r.invoke,
            ),
            (
                "fill",
                "fill.median_ms",
                "fill.frame_median_ms",
                &base.fill,
                &r.fill,
            ),
        ] {
            match (b, n) {
                (Some(b), Some(n)) if b.anchor == n.anchor => {
                    pairs.push((median, Some(b.median_ms), Some(n.median_ms)));
                    // The app's own answer to the input: a regression there is the app's.
                    pairs.push((frame, b.frame_median_ms, n.frame_median_ms));
                }
                (Some(_), Some(_)) => verdict.notes.push(format!(
                    "{} {what}: another anchor than the baseline's; not compared",
                    r.route
                )),
                _ => {}
            }
        }
        for (measure, b, n) in pairs {
            let (Some(b), Some(n)) = (b, n) else { continue };
            if b <= 0.0 {
                continue;
            }
            verdict.comparisons.push(Comparison {
                route: r.route.clone(),
                measure: measure.into(),
                now: Some(n),
                bound: b,
                ok: n <= b * limit,
                note: None,
            });
        }
    }
    verdict
}

/// Ceilings on the ratios of a bench, per route pattern with a default. The file (JSON):
///
/// ```json
/// {"about": "why these numbers",
///  "default": {"read_ratio": 3.0, "whole_ratio": 2.0, "invoke_ratio": 400.0, "fill_ratio": 400.0},
///  "routes": [{"route": "/dense?n=*", "read_ratio": 4.0, "collector_ratio": 6.0,
///              "invoke_page_ratio": 3.0, "fill_page_ratio": 3.0}]}
/// ```
///
/// A route pattern is the route as given, where `*` stands for any run of characters (query
/// included). For each ratio the first pattern matching the route that sets it wins, else
/// `default`'s, else the ratio has no ceiling. `about` is free text for the reasoning.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ceilings {
    #[serde(default, rename = "about")]
    _about: IgnoredAny,
    #[serde(default)]
    default: Limits,
    #[serde(default)]
    routes: Vec<RouteLimits>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Limits {
    read_ratio: Option<f64>,
    whole_ratio: Option<f64>,
    invoke_ratio: Option<f64>,
    fill_ratio: Option<f64>,
    collector_ratio: Option<f64>,
    invoke_page_ratio: Option<f64>,
    fill_page_ratio: Option<f64>,
    anchored_whole_ratio: Option<f64>,
    anchored_invoke_ratio: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RouteLimits {
    route: RoutePattern,
    read_ratio: Option<f64>,
    whole_ratio: Option<f64>,
    invoke_ratio: Option<f64>,
    fill_ratio: Option<f64>,
    collector_ratio: Option<f64>,
    invoke_page_ratio: Option<f64>,
    fill_page_ratio: Option<f64>,
    anchored_whole_ratio: Option<f64>,
    anchored_invoke_ratio: Option<f64>,
}

/// What a run must have done for a ratio to be measured.
#[derive(Debug, Clone, Copy)]
enum Needs {
    Read,
    WholeRead,
    Invoke,
    Fill,
    /// The same page with data-anchor measured in the run (see `vs_route`).
    Anchored,
}

impl Needs {
    /// The verb of "the run did not …".
    fn verb(self) -> &'static str {
        match self {
            Needs::Read => "read",
            Needs::WholeRead => "read whole",
            Needs::Invoke => "invoke",
            Needs::Fill => "fill",
            Needs::Anchored => "measure the same page with data-anchor",
        }
    }

    /// Whether the run of `r` did it.
    fn done(self, r: &RouteReport) -> bool {
        match self {
            Needs::Read => true,
            Needs::WholeRead => r.read.whole.is_some(),
            Needs::Invoke => r.invoke.is_some(),
            Needs::Fill => r.fill.is_some(),
            Needs::Anchored => r.vs_route.is_some(),
        }
    }
}

/// Each ratio, with what the run must have done for it to be measured. The page ratios
/// also need a page floor (see [`Ceilings::check`]).
const RATIOS: [(&str, Needs); 9] = [
    ("read_ratio", Needs::Read),
    ("whole_ratio", Needs::WholeRead),
    ("invoke_ratio", Needs::Invoke),
    ("fill_ratio", Needs::Fill),
    ("collector_ratio", Needs::WholeRead),
    ("invoke_page_ratio", Needs::Invoke),
    ("fill_page_ratio", Needs::Fill),
    ("anchored_whole_ratio", Needs::Anchored),
    ("anchored_invoke_ratio", Needs::Anchored),
];

/// Where the ratios over the page floor are in [`RATIOS`].
const PAGE_RATIOS: std::ops::Range<usize> = 4..7;

impl Ceilings {
    /// Loads and checks a ceilings file.
    pub fn load(path: &Path) -> Result<Ceilings, BenchError> {
        let text = std::fs::read_to_string(path).map_err(|e| BenchError::Ceilings {
            path: path.display().to_string(),
            why: e.to_string(),
        })?;
        Ceilings::parse(&text).map_err(|why| BenchError::Ceilings {
            path: path.display().to_string(),
            why,
        })
    }

    /// Parses ceilings; every ceiling must be a positive number.
    pub fn parse(text: &str) -> Result<Ceilings, String> {
        let ceilings: Ceilings = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut all = vec![("default", ceilings.default.get_all())];
        all.extend(
            ceilings
                .routes
                .iter()
                .map(|r| (r.route.text.as_str(), r.get_all())),
        );
        if all
            .iter()
            .all(|(_, values)| values.iter().all(Option::is_none))
        {
            return Err("it sets no ceiling (`default` or `routes` with a `*_ratio`)".into());
        }
        for (scope, values) in all {
            for ((name, _), value) in RATIOS.iter().zip(values) {
                if value.is_some_and(|v| !(v.is_finite() && v > 0.0)) {
                    return Err(format!("`{name}` of `{scope}` must be a positive number"));
                }
            }
        }
        if let Some(r) = ceilings.routes.iter().find(|r| r.route.text.is_empty()) {
            return Err(format!(
                "a route pattern is empty (ceilings {:?})",
                r.get_all()
            ));
        }
        Ok(ceilings)
    }

    /// The ceiling on `ratio` for `route`, and the pattern (or `default`) that set it.
    fn ceiling(&self, route: &str, ratio: usize) -> Option<(f64, &str)> {
        self.routes
            .iter()
            .filter(|r| r.route.matcher.is_match(route))
            .find_map(|r| r.get_all()[ratio].map(|v| (v, r.route.text.as_str())))
            .or_else(|| self.default.get_all()[ratio].map(|v| (v, "default")))
    }

    /// Every ratio of `report` that has a ceiling, against it. A ratio of something the
    /// run measured that could not be computed (no in-page time) fails; invoke and fill
    /// ceilings are skipped, with a note, when the run did not invoke or fill, and the
    /// page ratios when the page floor was under the page clock's resolution.
    pub fn check(&self, report: &BenchReport) -> BenchVerdict {
        let mut verdict = BenchVerdict::default();
        for r in &report.routes {
            verdict.compared += 1;
            if (0..RATIOS.len()).all(|i| self.ceiling(&r.route, i).is_none()) {
                verdict
                    .notes
                    .push(format!("{}: no ceiling applies; not checked", r.route));
                continue;
            }
            // A page floor under the page clock's resolution (a page of a few controls)
            // divides nothing: its ratios are left unchecked, with a note.
            let floored = r.page_floor.as_ref().is_some_and(|f| f.median_ms > 0.0);
            for (i, now) in ratios(r).into_iter().enumerate() {
                let Some((ceiling, pattern)) = self.ceiling(&r.route, i) else {
                    continue;
                };
                let (name, needs) = RATIOS[i];
                let why = if !needs.done(r) {
                    Some(format!("the run did not {}", needs.verb()))
                } else if PAGE_RATIOS.contains(&i) && !floored {
                    Some("no page floor above the clock's resolution".to_string())
                } else {
                    None
                };
                if let Some(why) = why {
                    verdict
                        .notes
                        .push(format!("{} {name}: not checked, {why}", r.route));
                    continue;
                }
                verdict.comparisons.push(Comparison {
                    route: r.route.clone(),
                    measure: name.into(),
                    now,
                    bound: ceiling,
                    ok: now.is_some_and(|v| v <= ceiling),
                    note: (pattern != r.route).then(|| format!("ceiling from `{pattern}`")),
                });
            }
        }
        verdict
    }
}

impl Limits {
    fn get_all(&self) -> [Option<f64>; 9] {
        [
            self.read_ratio,
            self.whole_ratio,
            self.invoke_ratio,
            self.fill_ratio,
            self.collector_ratio,
            self.invoke_page_ratio,
            self.fill_page_ratio,
            self.anchored_whole_ratio,
            self.anchored_invoke_ratio,
        ]
    }
}

impl RouteLimits {
    fn get_all(&self) -> [Option<f64>; 9] {
        [
            self.read_ratio,
            self.whole_ratio,
            self.invoke_ratio,
            self.fill_ratio,
            self.collector_ratio,
            self.invoke_page_ratio,
            self.fill_page_ratio,
            self.anchored_whole_ratio,
            self.anchored_invoke_ratio,
        ]
    }
}

fn ratios(r: &RouteReport) -> [Option<f64>; 9] {
    [
        r.read_ratio,
        r.whole_ratio,
        r.invoke_ratio,
        r.fill_ratio,
        r.collector_ratio,
        r.invoke_page_ratio,
        r.fill_page_ratio,
        r.anchored_whole_ratio,
        r.anchored_invoke_ratio,
    ]
}

/// A ceiling's route pattern: `*` is any run of characters (`/` and `?` included), and
/// every other character stands for itself, so a route's `?`, `[` or `{` needs no escaping.
#[derive(Debug, Clone)]
struct RoutePattern {
    text: String,
    matcher: GlobMatcher,
}

impl RoutePattern {
    fn new(text: &str) -> Result<RoutePattern, globset::Error> {
        // A run of `*` is one `*` (globset gives `**` a meaning of its own), and everything
        // between the stars is escaped into a literal.
        let mut glob = String::new();
        for (i, part) in text.split('*').enumerate() {
            if i > 0 && !glob.ends_with('*') {
                glob.push('*');
            }
            glob.push_str(&globset::escape(part));
        }
        let matcher = GlobBuilder::new(&glob)
            .literal_separator(false)
            .backslash_escape(false)
            .build()?
            .compile_matcher();
        Ok(RoutePattern {
            text: text.to_string(),
            matcher,
        })
    }
}

impl<'de> Deserialize<'de> for RoutePattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RoutePattern, D::Error> {
        let text = String::deserialize(d)?;
        RoutePattern::new(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::super::report::tests::route;
    use super::*;
    use crate::bench::Spread;

    fn report(routes: Vec<RouteReport>) -> BenchReport {
        BenchReport { routes }
    }

    fn glob(pattern: &str, text: &str) -> bool {
        RoutePattern::new(pattern).unwrap().matcher.is_match(text)
    }

    #[test]
    fn glob_matches_stars_across_path_and_query() {
        assert!(glob("/dense?n=1000", "/dense?n=1000"));
        assert!(!glob("/dense?n=1000", "/dense?n=10000"));
        assert!(glob("/dense?n=*", "/dense?n=10000"));
        assert!(glob("*", "/anything"));
        assert!(glob("/d*?n=*0", "/dense?n=10"));
        assert!(!glob("/d*?n=*0", "/dense?n=11"));
        assert!(!glob("/a*a", "/a"));
    }

    #[test]
    fn a_route_pattern_is_literal_but_for_its_stars() {
        assert!(glob("/d**e", "/dense"));
        assert!(glob("**", "/anything"));
        assert!(glob("/x?y=[1]{a,b}", "/x?y=[1]{a,b}"));
        assert!(!glob("/x?y", "/xzy"));
        assert!(!glob("/[ab]", "/a"));
        assert!(!glob("/{a,b}", "/a"));
        assert!(glob("/a\\*", "/a\\b"));
        assert!(!glob("/a\\*", "/a*"));
    }

    #[test]
    fn a_median_over_the_threshold_is_a_regression_named_in_the_verdict() {
        let base = report(vec![route("/a", 10.0), route("/b", 10.0)]);
        let now = report(vec![route("/a", 11.9), route("/b", 12.5)]);
        let verdict = compare(&base, &now, 20.0);
        assert!(!verdict.passed());
        assert_eq!(verdict.compared, 2);
        let failed: Vec<_> = verdict.comparisons.iter().filter(|c| !c.ok).collect();
        // /b's read median, its in-page median, its whole and its touched reads' medians
        assert_eq!(failed.len(), 4, "{failed:?}");
        assert!(failed.iter().all(|c| c.route == "/b"));
        let text = verdict.render("baseline `x.json`");
        assert!(
            text.contains("FAIL /b read.median_ms 12.50 vs 10.00 (+25.0 %)"),
            "{text}"
        );
        assert!(
            text.contains("4 of 12 figure(s) over (threshold 20 %)"),
            "{text}"
        );
    }

    #[test]
    fn the_apps_own_frame_after_an_action_is_compared_with_its_baseline() {
        let base = report(vec![route("/a", 10.0)]);
        let mut slower = route("/a", 10.0);
        if let Some(invoke) = slower.invoke.as_mut() {
            invoke.frame_median_ms = Some(30.0);
        }
        let verdict = compare(&base, &report(vec![slower]), 20.0);
        let text = verdict.render("baseline `x.json`");
        assert!(
            text.contains("FAIL /a invoke.frame_median_ms 30.00 vs 21.50 (+39.5 %)"),
            "{text}"
        );
        assert!(text.contains("1 of 6 figure(s) over"), "{text}");
        // A baseline saved before frames were reported compares the rest.
        let mut old = route("/a", 10.0);
        if let Some(invoke) = old.invoke.as_mut() {
            invoke.frame_median_ms = None;
        }
        let verdict = compare(&report(vec![old]), &report(vec![route("/a", 10.0)]), 20.0);
        assert!(
            verdict.passed() && verdict.comparisons.len() == 5,
            "{verdict:?}"
        );
    }

    #[test]
    fn a_route_that_read_other_controls_is_not_comparable() {
        let base = report(vec![route("/a", 10.0)]);
        let mut cut = route("/a", 5.0);
        cut.controls = 500;
        let verdict = compare(&base, &report(vec![cut]), 20.0);
        assert!(!verdict.passed());
        assert_eq!(verdict.comparisons[0].measure, "controls");
    }

    #[test]
    fn a_route_missing_from_the_baseline_is_noted_not_compared() {
        let verdict = compare(
            &report(vec![route("/a", 1.0)]),
            &report(vec![route("/b", 9.0)]),
            20.0,
        );
        assert_eq!(verdict.compared, 0);
        assert!(verdict.passed());
        assert_eq!(verdict.notes.len(), 1);
    }

    #[test]
    fn the_first_matching_pattern_sets_a_ceiling_else_the_default() {
        let ceilings = Ceilings::parse(
            r#"{"about": ["why"], "default": {"read_ratio": 3.0, "invoke_ratio": 100.0},
                "routes": [{"route": "/dense?n=1*", "read_ratio": 1.5},
                           {"route": "*", "read_ratio": 9.0, "invoke_ratio": 50.0}]}"#,
        )
        .expect("valid");
        assert_eq!(
            ceilings.ceiling("/dense?n=1000", 0),
            Some((1.5, "/dense?n=1*"))
        );
        assert_eq!(ceilings.ceiling("/dense?n=1000", 2), Some((50.0, "*")));
        assert_eq!(ceilings.ceiling("/x", 3), None);
        let verdict = ceilings.check(&report(vec![route("/dense?n=1000", 10.0)]));
        // read_ratio 2.0 > 1.5; invoke_ratio 60 > 50; no fill measured, no fill ceiling
        assert_eq!(verdict.comparisons.len(), 2);
        assert!(verdict.comparisons.iter().all(|c| !c.ok));
        let text = verdict.render("ceilings");
        assert!(
            text.contains("FAIL /dense?n=1000 read_ratio 2.00 > ceiling 1.50"),
            "{text}"
        );
    }

    #[test]
    fn whole_reads_have_their_own_ceiling_and_a_run_without_them_is_noted() {
        let ceilings = Ceilings::parse(r#"{"default": {"whole_ratio": 1.2}}"#).expect("valid");
        // route() reads whole at 1.25 times its in-page time
        let verdict = ceilings.check(&report(vec![route("/a", 10.0)]));
        let text = verdict.render("ceilings");
        assert!(
            text.contains("FAIL /a whole_ratio 1.25 > ceiling 1.20"),
            "{text}"
        );
        let mut old = route("/a", 10.0);
        old.read.whole = None;
        old.whole_ratio = None;
        let verdict = ceilings.check(&report(vec![old]));
        assert!(verdict.passed() && verdict.comparisons.is_empty());
        assert!(
            verdict.notes[0].contains("whole_ratio: not checked, the run did not read whole"),
            "{:?}",
            verdict.notes
        );
    }

    #[test]
    fn page_ratios_have_ceilings_and_a_floor_under_the_clock_is_noted() {
        let ceilings = Ceilings::parse(
            r#"{"default": {"collector_ratio": 3.5, "invoke_page_ratio": 2.0, "fill_page_ratio": 2.0}}"#,
        )
        .expect("valid");
        // route() has a whole read 4 times its page floor, an invoke 1.5 times, no fill.
        let verdict = ceilings.check(&report(vec![route("/a", 10.0)]));
        let text = verdict.render("ceilings");
        assert!(
            text.contains("FAIL /a collector_ratio 4.00 > ceiling 3.50"),
            "{text}"
        );
        assert!(
            text.contains("ok   /a invoke_page_ratio 1.50 <= ceiling 2.00"),
            "{text}"
        );
        assert!(
            verdict.notes[0].contains("fill_page_ratio: not checked, the run did not fill"),
            "{:?}",
            verdict.notes
        );
        let mut tiny = route("/a", 10.0);
        tiny.page_floor = Some(Spread {
            median_ms: 0.0,
            min_ms: 0.0,
            max_ms: 0.1,
        });
        (tiny.collector_ratio, tiny.invoke_page_ratio) = (None, None);
        let verdict = ceilings.check(&report(vec![tiny]));
        assert!(verdict.passed() && verdict.comparisons.is_empty());
        assert_eq!(verdict.notes.len(), 3, "{:?}", verdict.notes);
        assert!(
            verdict.notes[0].contains(
                "collector_ratio: not checked, no page floor above the clock's resolution"
            ),
            "{:?}",
            verdict.notes
        );
    }

    #[test]
    fn a_ratio_that_could_not_be_measured_fails_its_ceiling() {
        let ceilings = Ceilings::parse(r#"{"default": {"read_ratio": 3.0, "fill_ratio": 3.0}}"#)
            .expect("valid");
        let mut r = route("/a", 10.0);
        r.read_ratio = None;
        let verdict = ceilings.check(&report(vec![r]));
        assert!(!verdict.passed());
        assert!(verdict.render("ceilings").contains("not measured"));
        assert_eq!(
            verdict.notes.len(),
            1,
            "fill was not run: {:?}",
            verdict.notes
        );
    }

    #[test]
    fn ceilings_reject_unknown_keys_non_positive_values_and_no_ceiling_at_all() {
        assert!(Ceilings::parse(r#"{"default": {"read_ratoi": 3.0}}"#).is_err());
        assert!(Ceilings::parse(r#"{"about": "x", "routes": [{"route": "*"}]}"#).is_err());
        let e =
            Ceilings::parse(r#"{"routes": [{"route": "/a", "fill_ratio": 0}]}"#).expect_err("zero");
        assert!(e.contains("`fill_ratio` of `/a`"), "{e}");
    }
}
