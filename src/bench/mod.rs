//! `waymark bench ROUTE...`: how fast the tools are on real pages, measured through the
//! tools themselves, and a gate that fails when they got slower.
//!
//! Each route gets a fresh tab: `navigate` (its read is the cold `first_ms`), then warm
//! `read_screen` calls, whole reads (gathered as a first read is, on the loaded page), reads
//! right after the smallest change to the page (touched: see `Tools::touch`), then optional
//! `invoke` and `fill` round trips, and trivial in-page round trips (`ping`).
//! Absolute times depend on the machine, so every figure comes with a floor measured in the
//! same run — the collector's own in-page time for a read, one trivial round trip for an
//! action — and their ratio, which a noisy or slow machine moves far less. A second floor,
//! the page's (what the page charges for finding the controls and taking their boxes, see
//! `Tools::page_floor`), is what the collector's own in-page time and the actions are also
//! divided by: a ratio to the collector's time cannot see the collector slow down, nor a
//! ratio to a trivial round trip an action that does work per control. Every read's
//! truncation is kept: a cut read is faster because it read less, and must never pass for
//! a fast read.
//!
//! The gate itself (a saved baseline, ceilings on the ratios) lives in `gate`, the report's
//! shapes in `report`; the bench targets of a page (`--invoke auto`) are read over plain
//! HTTP by `page`, so the page in the browser is touched by nothing but the tools.

mod gate;
mod page;
mod report;
mod suite;
mod waits;

use std::path::PathBuf;

use url::Url;

use crate::browser::Tab;
use crate::control::cookies::Cookie;
use crate::exit::Exit;
use crate::screen::InferredState;
use crate::session::RunError;
use crate::tools::{Backstage, RoundTrip, ToolError};

pub(crate) use gate::load_baseline;
pub use gate::{BenchVerdict, Ceilings, Comparison, compare};
pub use report::{ActTimes, BenchReport, Cut, ReadSpread, ReadTimes, RouteReport, Spread, table};
pub use suite::suite;

/// What `waymark bench` measures and checks, from its flags.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Warm reads (and invokes, fills) per route.
    pub runs: usize,
    /// Anchor to invoke on every route; `auto` takes the page's `bench-click-target`.
    pub invoke: Option<String>,
    /// Anchor to fill on every route; `auto` takes the page's `bench-fill-target`.
    pub fill: Option<String>,
    /// Print the report as JSON instead of a table.
    pub json: bool,
    /// A saved `--json` report to compare medians with.
    pub baseline: Option<PathBuf>,
    /// How much slower (in percent) a median may be than the baseline's.
    pub threshold_pct: f64,
    /// Ceilings on the ratios.
    pub ceilings: Option<PathBuf>,
}

/// Why a bench could not run, beyond what stops any run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// The app, the browser or the registry.
    #[error(transparent)]
    Run(#[from] RunError),
    /// `--baseline FILE` is missing or not a saved `waymark bench --json` report.
    #[error("invalid baseline `{path}`: {why}")]
    Baseline {
        /// As given.
        path: String,
        /// Why.
        why: String,
    },
    /// `--ceilings FILE` is missing or invalid.
    #[error("invalid ceilings `{path}`: {why}")]
    Ceilings {
        /// As given.
        path: String,
        /// Why.
        why: String,
    },
    /// The registry a page names (`<meta name="bench-registry">`) could not be had.
    #[error("the registry `{route}` names: {why}")]
    Registry {
        /// The route.
        route: String,
        /// Why.
        why: String,
    },
    /// `--invoke auto` or `--fill auto` on a page that names no bench target.
    #[error("`--{flag} auto` on `{route}`: {why}")]
    Auto {
        /// `invoke` or `fill`.
        flag: &'static str,
        /// The route.
        route: String,
        /// Why.
        why: String,
    },
}

impl BenchError {
    /// The documented exit code for this error.
    pub fn exit(&self) -> Exit {
        match self {
            BenchError::Run(e) => e.exit(),
            _ => Exit::BadInput,
        }
    }
}

/// One route to measure, its `auto` targets resolved.
pub(crate) struct Plan {
    pub(crate) route: String,
    invoke: Option<String>,
    fill: Option<String>,
    /// The registry the page names for itself, when it does.
    pub(crate) registry: Option<std::sync::Arc<crate::registry::Registry>>,
}

/// A route that could not be measured: what was being done, and the tool's error.
pub(crate) struct RouteFailure {
    pub(crate) route: String,
    pub(crate) doing: String,
    pub(crate) error: ToolError,
}

/// The route with `--invoke auto` / `--fill auto` resolved from the page's meta tags (the
/// page fetched with `cookies`, the profile's).
pub(crate) async fn plan(
    route: &str,
    base: &Url,
    options: &BenchOptions,
    cookies: &[Cookie],
) -> Result<Plan, BenchError> {
    let auto = |flag: &Option<String>| flag.as_deref() == Some("auto");
    let flag = if auto(&options.invoke) {
        "invoke"
    } else {
        "fill"
    };
    // The page's own metas: its targets (needed for `auto`) and its registry, if it names one.
    let targets = match page::bench_targets(base, route, flag, cookies).await {
        Ok(targets) => Some(targets),
        Err(e) if auto(&options.invoke) || auto(&options.fill) => return Err(e),
        Err(_) => None,
    };
    let registry = match targets.as_ref().and_then(|t| t.registry.as_deref()) {
        Some(path) => Some(std::sync::Arc::new(
            page::registry(base, route, path, cookies).await?,
        )),
        None => None,
    };
    let pick = |flag: &'static str, given: &Option<String>, found: Option<&Option<String>>| match (
        given.as_deref(),
        found,
    ) {
        (Some("auto"), Some(Some(anchor))) => Ok(Some(anchor.clone())),
        (Some("auto"), _) => Err(BenchError::Auto {
            flag,
            route: route.to_string(),
            why: format!(
                "the page has no `<meta name=\"{}\">` naming its bench target; give an anchor instead",
                page::meta_name(flag)
            ),
        }),
        (given, _) => Ok(given.map(str::to_string)),
    };
    Ok(Plan {
        route: route.to_string(),
        invoke: pick(
            "invoke",
            &options.invoke,
            targets.as_ref().map(|t| &t.click),
        )?,
        fill: pick("fill", &options.fill, targets.as_ref().map(|t| &t.fill))?,
        registry,
    })
}

/// The truncation seen across a route's reads.
/// The route of the same page with data-anchor, for a route of a page found through
/// matchers (`matchers=1` in its query); `None` for any other route.
pub fn anchored_twin(route: &str) -> Option<String> {
    let (path, query) = route.split_once('?')?;
    let params: Vec<&str> = query.split('&').collect();
    if !params.contains(&"matchers=1") {
        return None;
    }
    let rest: Vec<&str> = params.into_iter().filter(|p| *p != "matchers=1").collect();
    Some(if rest.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", rest.join("&"))
    })
}

/// Gives each matcher route of `report` whose anchored twin was measured in the same run
/// its `anchored_*` ratios.
pub fn pair_anchored(report: &mut BenchReport) {
    let medians: Vec<(String, Option<f64>, Option<f64>)> = report
        .routes
        .iter()
        .map(|r| {
            (
                r.route.clone(),
                r.read.whole.as_ref().map(|w| w.median_ms),
                r.invoke.as_ref().map(|i| i.median_ms),
            )
        })
        .collect();
    for r in &mut report.routes {
        let Some(twin) = anchored_twin(&r.route) else {
            continue;
        };
        let Some((_, whole, invoke)) = medians.iter().find(|(route, ..)| *route == twin) else {
            continue;
        };
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(round(a / b)),
            _ => None,
        };
        r.anchored_whole_ratio = ratio(r.read.whole.as_ref().map(|w| w.median_ms), *whole);
        r.anchored_invoke_ratio = ratio(r.invoke.as_ref().map(|i| i.median_ms), *invoke);
        r.vs_route = Some(twin);
    }
}

#[derive(Default)]
struct Cuts {
    deepest: Option<Cut>,
    count: usize,
    reads: usize,
}

impl Cuts {
    fn see(&mut self, screen: &InferredState) {
        self.reads += 1;
        let Some(t) = &screen.truncation else { return };
        self.count += 1;
        if self.deepest.as_ref().is_none_or(|d| t.dropped > d.dropped) {
            self.deepest = Some(Cut {
                shown: t.shown,
                total: t.total,
                dropped: t.dropped,
                cut_at: t.cut_at.to_string(),
            });
        }
    }
}

pub(crate) async fn measure<T: Tab>(
    tools: &Backstage<T>,
    plan: &Plan,
    runs: usize,
) -> Result<RouteReport, RouteFailure> {
    let failed = |doing: String| {
        let route = plan.route.clone();
        move |error| RouteFailure {
            route,
            doing,
            error,
        }
    };
    let ping_failed = || failed("a trivial round trip".into());
    let mut cuts = Cuts::default();
    let opened = tools.navigate(&plan.route).await;
    let navigate_ms = round(opened.elapsed_ms);
    let first = screen(opened).map_err(failed("navigate".into()))?;
    cuts.see(&first);
    let first_in_page_ms = tools.last_in_page_ms().map(round);

    // The floor of an action, one trivial round trip, is sampled ten times up front and once
    // before every measured call, so it sees the same load on the machine as the calls do.
    let mut pings = Vec::with_capacity(10 + 3 * runs);
    for _ in 0..10 {
        ping(tools, &mut pings).await.map_err(ping_failed())?;
    }
    // Warm reads, whole ones (nothing reused), then touched ones (right after the smallest
    // DOM change, an attribute of <body> set and a comment put at its end outside the tools:
    // what a read costs after an action that changed little in the DOM): each read's time
    // and in-page time.
    let mut samples: [(Vec<f64>, Vec<f64>); 3] = Default::default();
    let mut floors = Vec::with_capacity(runs);
    for (kind, (times, in_page)) in ["read_screen", "a whole read", "a read after a change"]
        .into_iter()
        .zip(&mut samples)
    {
        for _ in 0..runs {
            ping(tools, &mut pings).await.map_err(ping_failed())?;
            let rt = match kind {
                "a whole read" => {
                    // Right before, so it sees the same load as the read it floors.
                    floors.extend(
                        tools
                            .page_floor()
                            .await
                            .map_err(failed("the page floor".into()))?,
                    );
                    tools.read_screen_whole().await
                }
                "a read after a change" => {
                    tools
                        .touch()
                        .await
                        .map_err(failed("changing the page".into()))?;
                    tools.read_screen().await
                }
                _ => tools.read_screen().await,
            };
            times.push(rt.elapsed_ms);
            cuts.see(&screen(rt).map_err(failed(kind.into()))?);
            in_page.extend(tools.last_in_page_ms());
        }
    }
    let [
        (reads, in_page),
        (wholes, whole_in_page),
        (touched, touched_in_page),
    ] = samples;
    // Each action the plan names: its round trips, and the page's frame after each input.
    let mut acted: [Option<ActTimes>; 2] = Default::default();
    for ((verb, target), out) in [("invoke", &plan.invoke), ("fill", &plan.fill)]
        .into_iter()
        .zip(&mut acted)
    {
        let Some(anchor) = target else { continue };
        let (mut times, mut frames) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
        for i in 0..runs {
            ping(tools, &mut pings).await.map_err(ping_failed())?;
            let rt = match verb {
                "invoke" => tools.invoke(anchor, None).await,
                // A different short value each time, so every fill changes the field.
                _ => tools.fill(anchor, &format!("{}", 41 + i)).await,
            };
            times.push(rt.elapsed_ms);
            frames.extend(tools.last_frame_ms());
            cuts.see(&screen(rt).map_err(failed(format!("{verb} `{anchor}`")))?);
        }
        *out = Some(act_times(anchor, &times, &frames));
    }
    let [invoke, fill] = acted;

    let (median_ms, min_ms, max_ms) = spread(&reads);
    let in_page_median_ms = (!in_page.is_empty()).then(|| round(spread(&in_page).0));
    let whole = read_spread(&wholes, &whole_in_page);
    let touched = read_spread(&touched, &touched_in_page);
    let round_trip = round(spread(&pings).0);
    let page_floor = (!floors.is_empty()).then(|| {
        let (median_ms, min_ms, max_ms) = spread(&floors);
        Spread {
            median_ms,
            min_ms,
            max_ms,
        }
    });
    let floor = page_floor.as_ref().map(|f| f.median_ms);
    let ratio = |over: Option<f64>, under: Option<f64>| match (over, under) {
        (Some(a), Some(b)) if b > 0.0 => Some(round(a / b)),
        _ => None,
    };
    Ok(RouteReport {
        route: plan.route.clone(),
        controls: first.controls.len(),
        truncation: cuts.deepest,
        truncated_reads: cuts.count,
        reads: cuts.reads,
        runs,
        read_ratio: ratio(Some(median_ms), in_page_median_ms),
        whole_ratio: whole
            .as_ref()
            .and_then(|w| ratio(Some(w.median_ms), w.in_page_median_ms)),
        touched_ratio: touched
            .as_ref()
            .and_then(|t| ratio(Some(t.median_ms), t.in_page_median_ms)),
        invoke_ratio: ratio(
            invoke.as_ref().map(|t: &ActTimes| t.median_ms),
            Some(round_trip),
        ),
        fill_ratio: ratio(
            fill.as_ref().map(|t: &ActTimes| t.median_ms),
            Some(round_trip),
        ),
        collector_ratio: ratio(whole.as_ref().and_then(|w| w.in_page_median_ms), floor),
        invoke_page_ratio: ratio(invoke.as_ref().map(|t| t.median_ms), floor),
        fill_page_ratio: ratio(fill.as_ref().map(|t| t.median_ms), floor),
        anchored_whole_ratio: None,
        anchored_invoke_ratio: None,
        vs_route: None,
        page_floor,
        read: ReadTimes {
            first_ms: round(first.elapsed_ms),
            first_in_page_ms,
            navigate_ms: Some(navigate_ms),
            median_ms,
            min_ms,
            max_ms,
            in_page_median_ms,
            whole,
            touched,
        },
        invoke,
        fill,
        round_trip_median_ms: Some(round_trip),
    })
}

/// The spread of a sample of reads and of their in-page times (none when nothing was read).
fn read_spread(times: &[f64], in_page: &[f64]) -> Option<ReadSpread> {
    let (median_ms, min_ms, max_ms) = (!times.is_empty()).then(|| spread(times))?;
    Some(ReadSpread {
        median_ms,
        min_ms,
        max_ms,
        in_page_median_ms: (!in_page.is_empty()).then(|| round(spread(in_page).0)),
    })
}

async fn ping<T: Tab>(tools: &Backstage<T>, pings: &mut Vec<f64>) -> Result<(), ToolError> {
    pings.push(tools.ping().await?);
    Ok(())
}

/// The screen a call left, or why it failed.
fn screen(rt: RoundTrip) -> Result<InferredState, ToolError> {
    match (rt.error, rt.screen) {
        (Some(error), _) => Err(error),
        (None, Some(screen)) => Ok(screen),
        (None, None) => Err(ToolError::new(
            crate::tools::ErrorCode::CaptureFailed,
            "the call returned no screen",
        )),
    }
}

/// An action's round trips, and the page's frames after its input (as many as the runs
/// that reported one).
fn act_times(anchor: &str, times: &[f64], frames: &[f64]) -> ActTimes {
    let (median_ms, min_ms, max_ms) = spread(times);
    ActTimes {
        anchor: anchor.to_string(),
        median_ms,
        min_ms,
        max_ms,
        frame_median_ms: (!frames.is_empty()).then(|| round(spread(frames).0)),
    }
}

/// The median of a sample (see [`spread`]); NaN when empty.
pub(super) fn median(sample: &[f64]) -> f64 {
    spread(sample).0
}

/// Median, min and max of a non-empty sample, rounded to microseconds.
fn spread(sample: &[f64]) -> (f64, f64, f64) {
    let mut v = sample.to_vec();
    v.sort_by(f64::total_cmp);
    let Some((&min, &max)) = v.first().zip(v.last()) else {
        return (f64::NAN, f64::NAN, f64::NAN);
    };
    let mid = v.len() / 2;
    let median = if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    };
    (round(median), round(min), round(max))
}

fn round(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_takes_the_middle_of_odd_and_even_samples() {
        assert_eq!(spread(&[3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(spread(&[4.0, 1.0, 2.0, 3.0]), (2.5, 1.0, 4.0));
        assert_eq!(spread(&[0.1234567]), (0.123, 0.123, 0.123));
    }
    #[test]
    fn a_matcher_route_is_compared_with_the_same_route_without_matchers() {
        assert_eq!(
            anchored_twin("/dense?n=10000&matchers=1").as_deref(),
            Some("/dense?n=10000")
        );
        assert_eq!(
            anchored_twin("/dense?matchers=1&n=5").as_deref(),
            Some("/dense?n=5")
        );
        assert_eq!(
            anchored_twin("/dense?matchers=1").as_deref(),
            Some("/dense")
        );
        assert_eq!(anchored_twin("/dense?n=10000"), None);
        assert_eq!(anchored_twin("/dense"), None);
    }
}
