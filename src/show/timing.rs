//! `waymark show --timing`: where the time of a run's steps went, phase by phase (each
//! step's `timing` in the traces, see `tools::timing`), summed over every step of every
//! trace and by verb. A suite's time is then told as the page's own work (`page`, `load`)
//! and each of waymark's waits and trips.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Traces;

/// The phases, in the order a call passes them (the trace's `<phase>_ms`).
pub const PHASES: [&str; 11] = [
    "gates",
    "setup",
    "target",
    "input",
    "page",
    "quiet",
    "load",
    "collect",
    "infer",
    "other",
    "screenshot",
];

/// The sums of a set of steps: how many, their wall time, and each phase's.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Sums {
    pub steps: usize,
    pub elapsed_ms: f64,
    pub phases: [f64; PHASES.len()],
}

impl Sums {
    fn add(&mut self, step: &serde_json::Value) {
        self.steps += 1;
        self.elapsed_ms += step["elapsed_ms"].as_f64().unwrap_or(0.0);
        for (sum, phase) in self.phases.iter_mut().zip(PHASES) {
            *sum += step["timing"][format!("{phase}_ms")]
                .as_f64()
                .unwrap_or(0.0);
        }
    }
}

/// What `--timing` adds up: every step, and the steps of each verb.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Breakdown {
    pub traces: usize,
    /// Steps without a `timing` (a trace written before steps were timed), not counted.
    pub untimed: usize,
    pub all: Sums,
    pub by_verb: BTreeMap<String, Sums>,
}

impl Breakdown {
    /// The steps of every trace of `traces`; a file that cannot be read is skipped with a
    /// warning, as is a line that is not JSON.
    pub fn of(traces: &Traces) -> Breakdown {
        let mut b = Breakdown::default();
        for rel in traces.files() {
            let path = traces.root.join(rel);
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) => {
                    eprintln!("warning: cannot read `{}`: {e}", path.display());
                    continue;
                }
            };
            b.traces += 1;
            b.add_trace(&text);
        }
        b
    }

    fn add_trace(&mut self, text: &str) {
        for line in text.lines() {
            let Ok(step) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if step["kind"] != "step" {
                continue;
            }
            if !step["timing"].is_object() {
                self.untimed += 1;
                continue;
            }
            self.all.add(&step);
            let verb = step["action"]["verb"].as_str().unwrap_or("?").to_string();
            self.by_verb.entry(verb).or_default().add(&step);
        }
    }

    /// The table `--timing` prints: each phase's total, its share of the steps' wall time
    /// and its mean per step; then each verb's steps, mean time and mean phases (those of
    /// 0.05 ms and more).
    pub fn table(&self) -> String {
        let mut out = String::new();
        let all = &self.all;
        let _ = writeln!(
            out,
            "{} steps in {} trace{}, {:.1} ms in all",
            all.steps,
            self.traces,
            if self.traces == 1 { "" } else { "s" },
            all.elapsed_ms
        );
        if self.untimed > 0 {
            let _ = writeln!(
                out,
                "({} steps without timing, from an older waymark, not counted)",
                self.untimed
            );
        }
        let _ = writeln!(
            out,
            "{:<12}{:>12}{:>8}{:>12}",
            "phase", "total ms", "share", "per step"
        );
        let per = |ms: f64| ms / all.steps.max(1) as f64;
        for (phase, ms) in PHASES.iter().zip(all.phases) {
            let share = if all.elapsed_ms > 0.0 {
                100.0 * ms / all.elapsed_ms
            } else {
                0.0
            };
            // The screenshot is taken after the call: not a share of its wall time.
            let share = if *phase == "screenshot" {
                "-".to_string()
            } else {
                format!("{share:.1}%")
            };
            let _ = writeln!(
                out,
                "{phase:<12}{ms:>12.1}{share:>8}{:>12.2}",
                per(ms)
            );
        }
        let _ = writeln!(out, "\nby verb (mean ms per step)");
        for (verb, sums) in &self.by_verb {
            let n = sums.steps.max(1) as f64;
            let parts: Vec<String> = PHASES
                .iter()
                .zip(sums.phases)
                .filter(|(_, ms)| ms / n >= 0.05)
                .map(|(phase, ms)| format!("{phase} {:.1}", ms / n))
                .collect();
            let _ = writeln!(
                out,
                "{verb:<12}{:>5} × {:>7.1}  {}",
                sums.steps,
                sums.elapsed_ms / n,
                parts.join(" · ")
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_add_up_by_phase_and_by_verb() {
        let mut b = Breakdown::default();
        b.add_trace(
            r#"{"kind":"header"}
{"kind":"step","action":{"verb":"invoke"},"elapsed_ms":30.0,"timing":{"target_ms":5.0,"quiet_ms":15.0,"other_ms":10.0}}
{"kind":"step","action":{"verb":"invoke"},"elapsed_ms":20.0,"timing":{"target_ms":3.0,"quiet_ms":15.0,"other_ms":2.0}}
{"kind":"step","action":{"verb":"navigate"},"elapsed_ms":50.0,"timing":{"load_ms":45.0,"other_ms":5.0}}
{"kind":"step","action":{"verb":"read"},"elapsed_ms":1.0}
not json
{"kind":"end"}"#,
        );
        assert_eq!(b.all.steps, 3);
        assert_eq!(b.untimed, 1);
        assert_eq!(b.all.elapsed_ms, 100.0);
        let quiet = PHASES.iter().position(|p| *p == "quiet").unwrap();
        assert_eq!(b.all.phases[quiet], 30.0);
        assert_eq!(b.by_verb["invoke"].steps, 2);
        let table = b.table();
        assert!(table.contains("3 steps in 0 traces, 100.0 ms in all"), "{table}");
        assert!(table.contains("quiet               30.0   30.0%       10.00"), "{table}");
        assert!(
            table.contains("invoke          2 ×    25.0  target 4.0 · quiet 15.0 · other 6.0"),
            "{table}"
        );
        assert!(table.contains("1 steps without timing"), "{table}");
    }
}
