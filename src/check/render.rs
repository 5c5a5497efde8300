//! `waymark check` as a reviewer reads it in a pull request: a table per build, the changes
//! between two builds, and the coverage line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{BuildCheck, Diff, Presence};

/// The table of one build: a row per declared anchor on each visited screen, then what was
/// not visited and why.
pub fn table(check: &BuildCheck) -> String {
    let mut rows: Vec<[String; 6]> = Vec::new();
    for s in &check.screens {
        for a in &s.anchors {
            let state = match a.state {
                Presence::Found if a.count > 1 => format!("found ×{}", a.count),
                Presence::Found => "found".to_string(),
                Presence::Missing => "MISSING".to_string(),
                Presence::Ambiguous => format!("AMBIGUOUS ×{}", a.count),
            };
            let state = match &a.seen {
                Some(seen) if seen.disabled => format!("{state}, disabled"),
                _ => state,
            };
            let (role, region, label) = a
                .seen
                .as_ref()
                .map(|s| (s.role.clone(), s.region.clone(), format!("{:?}", s.label)))
                .unwrap_or_default();
            rows.push([
                s.screen.clone(),
                a.anchor.clone(),
                state,
                role,
                region,
                label,
            ]);
        }
    }
    let head = ["SCREEN", "ANCHOR", "STATE", "ROLE", "REGION", "LABEL"].map(String::from);
    let mut widths = head.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count()).min(40);
        }
    }
    let mut out = format!("check {}\n", check.base);
    for row in std::iter::once(&head).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    for s in &check.screens {
        if let Some(why) = &s.skipped {
            let _ = writeln!(out, "not checked: {}: {why}", s.screen);
        }
        for [a, b] in &s.shared {
            let _ = writeln!(
                out,
                "shared: {a} and {b} find the same element on {}: it shows under {a}; tell their matchers apart",
                s.screen
            );
        }
        if let Some(other) = &s.landed_on {
            let route = s.route.as_deref().unwrap_or_default();
            let _ = writeln!(out, "note: {} ({route}) reads as screen {other}", s.screen);
        }
    }
    out
}

/// The changes from one build to the other, breaking ones first.
pub fn changes(diff: &Diff, base: &str, other: &str) -> String {
    let mut out = format!("{other} against {base}: ");
    if diff.changes.is_empty() {
        out.push_str("no change to any declared anchor\n");
        return out;
    }
    let _ = writeln!(out, "{} change(s)", diff.changes.len());
    let mut sorted: Vec<_> = diff.changes.iter().collect();
    sorted.sort_by_key(|c| c.kind);
    for c in sorted {
        let what = match (&c.was, &c.now) {
            (Some(was), Some(now)) => format!(": {was:?} → {now:?}"),
            (None, Some(now)) if c.kind == super::ChangeKind::Ambiguous => {
                format!(": on {now} controls")
            }
            (None, Some(now)) => format!(" ({now:?})"),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "  {:<13} {} on {}{what}",
            c.kind.as_str(),
            c.anchor,
            c.screen
        );
        if !c.used_by.is_empty() {
            let _ = write!(out, " — used by {}", c.used_by.join(", "));
        }
        out.push('\n');
    }
    out
}

/// `declared N · found N · used by journeys N`: the anchors the registry declares, those
/// found on a screen they are declared on, and those a journey names.
pub fn coverage(
    check: &BuildCheck,
    declared: usize,
    usage: &BTreeMap<String, Vec<String>>,
) -> String {
    let mut found: Vec<&str> = check
        .screens
        .iter()
        .flat_map(|s| s.anchors.iter())
        .filter(|a| a.state == Presence::Found)
        .map(|a| a.anchor.as_str())
        .collect();
    found.sort_unstable();
    found.dedup();
    format!(
        "coverage: {declared} declared · {} found · {} used by journeys\n",
        found.len(),
        usage.len()
    )
}
