//! What a run prints: a line per journey (✓/✗, name, duration; for a failure its code,
//! message, place, attribution and trace file; ⊘ for a failure a mark expected, with the
//! mark's reason and how it failed), a summary line, and a progress bar on a terminal.

use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use url::Url;

use crate::journey::{Failure, FailureCode, Outcome};

/// Prints a run as it goes.
pub struct Reporter {
    total: usize,
    bar: Option<ProgressBar>,
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
        Reporter { total, bar }
    }

    fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => println!("{text}"),
        }
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

    /// A journey starts.
    pub fn begin(&self, name: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(name.to_string());
        }
    }

    /// A journey ended.
    pub fn finish(&self, outcome: &Outcome) {
        self.finish_traced(outcome, None);
    }

    /// A journey ended; a failed one is printed with its trace file, when it has one.
    pub fn finish_traced(&self, outcome: &Outcome, trace: Option<&Path>) {
        let (mark, note) = match (&outcome.failure, &outcome.expected_failure) {
            (Some(f), _) if f.code == Some(FailureCode::UnexpectedPass) => {
                ("✗", "  unexpected pass".to_string())
            }
            (Some(_), _) => ("✗", String::new()),
            (None, Some(x)) => (
                "⊘",
                format!(
                    "  expected failure on the `{}` layout: {}",
                    x.layout, x.reason
                ),
            ),
            (None, None) => ("✓", String::new()),
        };
        self.line(&format!(
            "{mark} {:<40} {:>8}{note}",
            outcome.name,
            duration(outcome.elapsed)
        ));
        if let Some(x) = &outcome.expected_failure {
            // How it failed, so a reader sees it failed the way the mark says.
            let text = x.failure.to_string();
            let first = text.lines().next().unwrap_or_default();
            self.line(&format!("    {first} [{}]", attribution(&x.failure)));
        }
        if let Some(f) = &outcome.failure {
            let attribution = attribution(f);
            let text = f.to_string();
            let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
            self.line(&format!("    {first} [{attribution}]"));
            if let Some(snippet) = snippet(f) {
                self.line(&snippet);
            }
            for more in rest.lines() {
                self.line(&format!("      {more}"));
            }
            if let Some(trace) = trace {
                self.line(&format!("    trace: {}", trace.display()));
            }
            for printed in &outcome.output {
                self.line(&format!("    | {printed}"));
            }
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// The closing line: `N passed, N failed`, and `, N expected to fail` when any did.
    pub fn summary(&self, outcomes: &[Outcome]) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        println!("{}", summary_line(outcomes));
    }
}

/// `N passed, N failed[, N expected to fail]`.
fn summary_line(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| o.failure.is_some()).count();
    let expected = outcomes
        .iter()
        .filter(|o| o.expected_failure.is_some())
        .count();
    let passed = outcomes.len() - failed - expected;
    match expected {
        0 => format!("{passed} passed, {failed} failed"),
        n => format!("{passed} passed, {failed} failed, {n} expected to fail"),
    }
}

/// The attribution as output spells it (`journey`, `app`…).
fn attribution(f: &Failure) -> String {
    serde_json::to_value(f.attribution)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The failing line of the journey with a caret under the column, when both are known.
fn snippet(f: &Failure) -> Option<String> {
    let line = f.line?;
    let source = std::fs::read_to_string(&f.file).ok()?;
    let text = source.lines().nth(line.checked_sub(1)?)?;
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    let mut out = format!("      {number} | {text}");
    if let Some(col) = f.column {
        let indent: String = text
            .chars()
            .take(col.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        out.push_str(&format!("\n      {pad} | {indent}^"));
    }
    Some(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expected_failure_is_counted_apart_from_passes_and_failures() {
        let failure = Failure {
            kind: crate::journey::FailureKind::Tool,
            code: None,
            message: "gone".into(),
            attribution: crate::protocol::Attribution::Journey,
            file: "j.rhai".into(),
            line: None,
            column: None,
        };
        let outcome = |failure, expected_failure| Outcome {
            name: "j".into(),
            failure,
            expected_failure,
            elapsed: Duration::ZERO,
            output: Vec::new(),
        };
        let expected = crate::journey::ExpectedFailure {
            layout: "redesign".into(),
            reason: "dropped".into(),
            failure: failure.clone(),
        };
        let all = [
            outcome(None, None),
            outcome(Some(failure), None),
            outcome(None, Some(expected)),
        ];
        assert_eq!(summary_line(&all), "1 passed, 1 failed, 1 expected to fail");
        assert_eq!(summary_line(&all[..2]), "1 passed, 1 failed");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(Duration::from_millis(412)), "412 ms");
        assert_eq!(duration(Duration::from_millis(1234)), "1.2 s");
    }
}
