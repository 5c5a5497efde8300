//! What a run prints: a line per journey (✓/✗, name, duration; for a failure its code,
//! message, place, attribution and trace file), a summary line, and a progress bar on a
//! terminal.

use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use url::Url;

use crate::journey::{Failure, Outcome};

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
        let mark = if outcome.failure.is_some() {
            "✗"
        } else {
            "✓"
        };
        self.line(&format!(
            "{mark} {:<40} {:>8}",
            outcome.name,
            duration(outcome.elapsed)
        ));
        if let Some(f) = &outcome.failure {
            let attribution = serde_json::to_value(f.attribution)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
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

    /// The closing line: `N passed, N failed`.
    pub fn summary(&self, outcomes: &[Outcome]) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let failed = outcomes.iter().filter(|o| o.failure.is_some()).count();
        println!("{} passed, {failed} failed", outcomes.len() - failed);
    }
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
    fn durations_read_naturally() {
        assert_eq!(duration(Duration::from_millis(412)), "412 ms");
        assert_eq!(duration(Duration::from_millis(1234)), "1.2 s");
    }
}
