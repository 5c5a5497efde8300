//! A screen read as `waymark read` prints it: a table for a person, the inferred state with
//! its perception audit beside it in JSON, and the audit's findings.

use std::fmt::Write as _;

use serde::Serialize;

use crate::screen::audit::PerceptionAudit;
use crate::screen::{CutAt, InferredState, Truncation};

/// `read --json --audit`: the screen with its audit beside its fields.
#[derive(Serialize)]
pub struct Audited<'a> {
    #[serde(flatten)]
    /// The screen read.
    pub screen: &'a InferredState,
    /// Its audit.
    pub audit: &'a PerceptionAudit,
}

/// The screen as a person reads it: a heading, a table of controls, the truncation report.
pub fn table(s: &InferredState) -> String {
    let mut out = String::new();
    let screen = s.screen.as_deref().unwrap_or("(no screen in the registry)");
    let _ = writeln!(
        out,
        "{} · {screen} · \"{}\" · {} controls · read in {:.1} ms",
        s.route,
        s.title,
        s.controls.len(),
        s.elapsed_ms
    );
    if let Some(d) = &s.dialog {
        let _ = writeln!(out, "dialog open: {d}");
    }
    if let Some(f) = &s.focus {
        let _ = writeln!(out, "focus: {f}");
    }
    for reason in &s.confidence_reasons {
        let _ = writeln!(out, "note: {reason}");
    }
    let rows: Vec<[String; 5]> = s
        .controls
        .iter()
        .map(|c| {
            let mut state = Vec::new();
            if c.disabled {
                state.push("disabled".to_string());
            }
            if !c.visible {
                state.push("hidden".to_string());
            }
            if let Some(checked) = c.checked {
                state.push(if checked { "checked" } else { "unchecked" }.to_string());
            }
            if let Some(v) = &c.value {
                state.push(format!("= {v:?}"));
            }
            [
                c.region.to_string(),
                c.reference(),
                c.role.to_string(),
                c.label.to_string(),
                state.join(" "),
            ]
        })
        .collect();
    let head = ["REGION", "ANCHOR", "ROLE", "LABEL", "STATE"].map(String::from);
    let mut widths = head.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count()).min(48);
        }
    }
    for row in std::iter::once(&head).chain(rows.iter()) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i == 4 {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{:<w$}  ", clip(cell, w));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if let Some(t) = &s.truncation {
        out.push_str(&truncation_report(t));
    }
    out
}

/// A cut, in words: how many are shown and dropped, where from, and how to read more.
pub fn truncation_report(t: &Truncation) -> String {
    let mut out = String::new();
    let within = match (t.cut_at, t.budget) {
        (CutAt::Description, Some(b)) => format!(" (description budget of {b} characters)"),
        _ => " (collection cap: --max-controls)".to_string(),
    };
    let _ = writeln!(
        out,
        "truncated{within}: shown {} of {} controls, {} dropped.",
        t.shown, t.total, t.dropped
    );
    if t.cut_at == CutAt::Description && t.collected < t.total {
        let _ = writeln!(
            out,
            "  the read gathered {} of {} before the budget applied.",
            t.collected, t.total
        );
    }
    let counted = |map: &std::collections::BTreeMap<String, usize>| {
        let mut by: Vec<(&String, &usize)> = map.iter().collect();
        by.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        by.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        out,
        "  dropped by region: {}",
        counted(&t.dropped_by_region)
    );
    let _ = writeln!(out, "  dropped by role: {}", counted(&t.dropped_by_role));
    let _ = writeln!(out, "{}", t.hint);
    out
}

/// The perception audit in words: what was checked, then each fault and suppression.
pub fn findings(audit: &PerceptionAudit) -> String {
    let mut out = String::new();
    if let Some(why) = &audit.unavailable {
        let _ = writeln!(out, "perception audit unavailable: {why}");
        return out;
    }
    let controls: usize = audit.suppressed.iter().map(|s| s.controls).sum();
    let _ = writeln!(
        out,
        "perception audit: {} control(s) checked against the accessibility tree, {} fault(s), {} hidden from accessibility",
        audit.checked,
        audit.faults.len(),
        controls
    );
    for fault in &audit.faults {
        let _ = writeln!(out, "fault (capture): {fault}");
    }
    for s in &audit.suppressed {
        let _ = writeln!(out, "{s}");
    }
    out
}

fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut cut: String = s.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
