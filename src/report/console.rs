//! What a run prints as it goes: its notes (the shard, what `--last-failed` chose), a line
//! per journey (✓ passed, ⚠ flaky, ✗ failed; name, duration; for a failed attempt its
//! code, message, place, attribution and trace file), a line per attempt that is retried,
//! the summary line, and a progress bar on a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use url::Url;

use crate::journey::Failure;
use crate::suite::{Attempt, Counts, JourneyRun, Status};

/// Prints a run as it goes.
pub struct Reporter {
    total: usize,
    bar: Option<ProgressBar>,
    /// The journeys in flight, as the bar names them (with their attempt past the first).
    flight: std::sync::Mutex<Vec<(String, u32)>>,
}

impl Reporter {
    /// A reporter for `total` journeys; a progress bar only when stdout is a terminal.
    pub fn new(total: usize) -> Reporter {
        let bar = std::io::stdout().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} {msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        Reporter {
            total,
            bar,
            flight: std::sync::Mutex::new(Vec::new()),
        }
    }

    fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => crate::out::outln!("{text}"),
        }
    }

    /// A line of its own: what the run chose before it started (its shard, say).
    pub fn note(&self, text: &str) {
        self.line(text);
    }

    /// The opening line: how many journeys, against what, in which browser.
    pub fn start(&self, base: &Url, browser: &str) {
        let s = if self.total == 1 { "" } else { "s" };
        self.line(&format!(
            "running {} journey{s} against {} in {browser}",
            self.total,
            base.as_str().trim_end_matches('/')
        ));
    }

    /// A journey starts (or starts again: `attempt` counts from 1).
    pub fn begin(&self, name: &str, attempt: u32) {
        self.in_flight(|flight| match flight.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = attempt,
            None => flight.push((name.to_string(), attempt)),
        });
    }

    /// A journey ended (its line comes in order, with those before it).
    pub fn end(&self, name: &str) {
        self.in_flight(|flight| flight.retain(|(n, _)| n != name));
    }

    /// Changes the journeys in flight and names them on the bar.
    fn in_flight(&self, change: impl FnOnce(&mut Vec<(String, u32)>)) {
        let Some(bar) = &self.bar else { return };
        let mut flight = self.flight.lock().unwrap_or_else(|e| e.into_inner());
        change(&mut flight);
        bar.set_message(flight_message(&flight));
    }

    /// An attempt failed and the journey is run again: `attempt` of `of`.
    pub fn retrying(&self, name: &str, attempt: &Attempt, number: u32, of: u32) {
        let what = attempt
            .outcome
            .failure
            .as_ref()
            .map(|f| f.to_string())
            .unwrap_or_default();
        let first = what.lines().next().unwrap_or_default();
        self.line(&format!(
            "↻ {name:<40} {:>8}  attempt {number} of {of} failed, retrying: {first}",
            duration(attempt.outcome.elapsed)
        ));
    }

    /// A journey ended (all its attempts, of `allowed`): its line, and what failed.
    pub fn finish(&self, journey: &JourneyRun, allowed: u32) {
        let status = journey.status();
        let (mark, tail) = match status {
            Status::Passed => ("✓", String::new()),
            Status::Skipped => return,
            Status::Flaky => (
                "⚠",
                format!(
                    "  flaky: passed on attempt {} of {allowed}",
                    journey.attempts.len()
                ),
            ),
            Status::Failed if journey.attempts.len() > 1 => (
                "✗",
                format!("  failed all {} attempts", journey.attempts.len()),
            ),
            Status::Failed => ("✗", String::new()),
            Status::Expected => {
                let x = journey
                    .last()
                    .and_then(|a| a.outcome.expected_failure.as_ref());
                (
                    "⊘",
                    x.map(|x| {
                        format!(
                            "  expected failure on the `{}` layout: {}",
                            x.layout, x.reason
                        )
                    })
                    .unwrap_or_default(),
                )
            }
        };
        let tail = match journey.last().and_then(|a| a.outcome.failure.as_ref()) {
            Some(f) if f.code == Some(crate::protocol::FailureCode::UnexpectedPass) => {
                format!("{tail}  unexpected pass")
            }
            _ => tail,
        };
        self.line(&format!(
            "{mark} {:<40} {:>8}{tail}",
            journey.id.name,
            duration(journey.elapsed())
        ));
        // How an expected failure failed, so a reader sees it failed the way the mark says.
        if let Some(x) = journey
            .last()
            .and_then(|a| a.outcome.expected_failure.as_ref())
        {
            let text = x.failure.to_string();
            let first = text.lines().next().unwrap_or_default();
            let attribution = serde_json::to_value(x.failure.attribution)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            self.line(&format!("    {first} [{attribution}]"));
        }
        let numbered = journey.attempts.len() > 1;
        let mut previous: Option<String> = None;
        for (n, attempt) in journey.attempts.iter().enumerate() {
            let Some(f) = &attempt.outcome.failure else {
                continue;
            };
            let text = f.to_string();
            let same = previous.as_ref() == Some(&text);
            if same {
                self.line(&format!("  attempt {}: the same failure", n + 1));
            } else if numbered {
                self.line(&format!("  attempt {}:", n + 1));
            }
            self.failure(f, &text, same, attempt);
            previous = Some(text);
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// A failed attempt: what failed (unless `same` as the attempt before), its trace file
    /// and what the script printed.
    fn failure(&self, f: &Failure, text: &str, same: bool, attempt: &Attempt) {
        if !same {
            let attribution = serde_json::to_value(f.attribution)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
            self.line(&format!("    {first} [{attribution}]"));
            if let Some(snippet) = snippet(f) {
                self.line(&snippet);
            }
            for more in rest.lines() {
                self.line(&format!("      {more}"));
            }
        }
        if let Some(trace) = &attempt.trace {
            self.line(&format!("    trace: {}", trace.display()));
        }
        for printed in &attempt.outcome.output {
            self.line(&format!("    | {printed}"));
        }
    }

    /// The five slowest journeys of a run of more than five, slowest first (on stdout,
    /// before the summary).
    pub fn slowest(&self, journeys: &[JourneyRun]) {
        if let Some(line) = slowest_line(journeys) {
            if let Some(bar) = &self.bar {
                bar.suspend(|| crate::out::outln!("{line}"));
            } else {
                crate::out::outln!("{line}");
            }
        }
    }

    /// The closing line: `N passed, N failed`, then `, N flaky` and `, N skipped` when
    /// there are any.
    pub fn summary(&self, counts: Counts) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        crate::out::outln!("{}", summary_line(counts));
    }
}

/// `slowest: a 3.2 s, b 2.1 s, …` for a run of more than five journeys that ran.
fn slowest_line(journeys: &[JourneyRun]) -> Option<String> {
    let mut ran: Vec<&JourneyRun> = journeys.iter().filter(|j| !j.attempts.is_empty()).collect();
    if ran.len() <= 5 {
        return None;
    }
    ran.sort_by_key(|j| std::cmp::Reverse(j.elapsed()));
    let names: Vec<String> = ran
        .iter()
        .take(5)
        .map(|j| format!("{} {}", j.id.name, duration(j.elapsed())))
        .collect();
    Some(format!("slowest: {}", names.join(", ")))
}

/// `3 passed, 1 failed, 1 flaky, 2 skipped`: flaky journeys are not counted as passed.
pub fn summary_line(counts: Counts) -> String {
    let mut line = format!("{} passed, {} failed", counts.passed, counts.failed);
    if counts.flaky > 0 {
        line.push_str(&format!(", {} flaky", counts.flaky));
    }
    if counts.expected > 0 {
        line.push_str(&format!(", {} expected to fail", counts.expected));
    }
    if counts.skipped > 0 {
        line.push_str(&format!(", {} skipped", counts.skipped));
    }
    line
}

/// Characters of the failing line shown at most: a longer one (a generated or minified
/// journey) is shown around the column, its cut ends marked `…`.
const SNIPPET_MOST: usize = 120;

/// The failing line of the journey with a caret under the column, when both are known.
fn snippet(f: &Failure) -> Option<String> {
    let line = f.line?;
    let source = std::fs::read_to_string(&f.file).ok()?;
    let text = source.lines().nth(line.checked_sub(1)?)?;
    Some(snippet_of(line, text, f.column))
}

/// `text`, line `line` of a journey, as [`snippet`] shows it: cut to [`SNIPPET_MOST`]
/// characters around `column`, with a caret under it.
fn snippet_of(line: usize, text: &str, column: Option<usize>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = column.unwrap_or(1).saturating_sub(1).min(chars.len());
    let start = if chars.len() <= SNIPPET_MOST {
        0
    } else {
        at.saturating_sub(SNIPPET_MOST / 2)
            .min(chars.len() - SNIPPET_MOST)
    };
    let end = (start + SNIPPET_MOST).min(chars.len());
    let shown: String = chars[start..end].iter().collect();
    let (head, tail) = (
        if start > 0 { "…" } else { "" },
        if end < chars.len() { "…" } else { "" },
    );
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    let mut out = format!("      {number} | {head}{shown}{tail}");
    if column.is_some() {
        let indent: String = head
            .chars()
            .map(|_| ' ')
            .chain(
                chars[start..at]
                    .iter()
                    .map(|&c| if c == '\t' { '\t' } else { ' ' }),
            )
            .collect();
        out.push_str(&format!("\n      {pad} | {indent}^"));
    }
    out
}

/// `412 ms`, `1.2 s`.
pub fn duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// The bar's words for the journeys in flight: their names, an attempt past the first
/// said, `+N more` past four.
fn flight_message(flight: &[(String, u32)]) -> String {
    let mut shown: Vec<String> = flight
        .iter()
        .take(4)
        .map(|(name, attempt)| match attempt {
            1 => name.clone(),
            n => format!("{name} (attempt {n})"),
        })
        .collect();
    if flight.len() > 4 {
        shown.push(format!("+{} more", flight.len() - 4));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_failing_line_is_shown_around_its_column() {
        assert_eq!(
            snippet_of(3, "invoke(\"x\");", Some(1)),
            "      3 | invoke(\"x\");\n        | ^"
        );
        let long = format!("{}X{}", "a".repeat(5000), "b".repeat(5000));
        let shown = snippet_of(1, &long, Some(5001));
        let (text, caret) = shown.split_once('\n').unwrap();
        assert!(text.chars().count() < 140, "{text}");
        assert!(text.contains("…") && text.ends_with('…'));
        // The caret sits under the X.
        let x = text.chars().position(|c| c == 'X').unwrap();
        assert_eq!(caret.chars().position(|c| c == '^'), Some(x));
        assert!(snippet_of(1, &long, None).chars().count() < 140);
    }

    #[test]
    fn the_bar_names_the_journeys_in_flight_and_counts_the_rest() {
        let flight: Vec<(String, u32)> = ["a", "b", "c", "d", "e", "f"]
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), if i == 1 { 2 } else { 1 }))
            .collect();
        assert_eq!(flight_message(&flight[..1]), "a");
        assert_eq!(flight_message(&flight[..2]), "a, b (attempt 2)");
        assert_eq!(flight_message(&flight), "a, b (attempt 2), c, d, +2 more");
        assert_eq!(flight_message(&[]), "");
    }

    #[test]
    fn a_run_of_more_than_five_names_its_five_slowest() {
        use crate::protocol::Outcome;
        use crate::suite::{Attempt, JourneyId};
        let journey = |name: &str, ms: u64| JourneyRun {
            id: JourneyId {
                name: name.into(),
                path: format!("{name}.rhai").into(),
            },
            attempts: vec![Attempt {
                outcome: Outcome {
                    name: name.into(),
                    failure: None,
                    elapsed: Duration::from_millis(ms),
                    output: Vec::new(),
                    expected_failure: None,
                },
                trace: None,
                started: std::time::SystemTime::UNIX_EPOCH,
            }],
        };
        let runs: Vec<JourneyRun> = (1..=6)
            .map(|i| journey(&format!("j{i}"), i * 100))
            .collect();
        assert_eq!(
            slowest_line(&runs).as_deref(),
            Some("slowest: j6 600 ms, j5 500 ms, j4 400 ms, j3 300 ms, j2 200 ms")
        );
        assert_eq!(slowest_line(&runs[..5]), None);
    }

    #[test]
    fn the_summary_counts_flaky_and_skipped_apart_when_there_are_any() {
        let counts = |passed, failed, flaky, skipped| Counts {
            passed,
            failed,
            flaky,
            skipped,
            expected: 0,
        };
        assert_eq!(summary_line(counts(1, 0, 0, 0)), "1 passed, 0 failed");
        assert_eq!(
            summary_line(counts(2, 1, 1, 0)),
            "2 passed, 1 failed, 1 flaky"
        );
        assert_eq!(
            summary_line(counts(0, 1, 0, 3)),
            "0 passed, 1 failed, 3 skipped"
        );
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(Duration::from_millis(412)), "412 ms");
        assert_eq!(duration(Duration::from_millis(1234)), "1.2 s");
    }
}
