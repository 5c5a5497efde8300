//! `waymark read ROUTE`: one screen read, printed as a table for a person or as the
//! inferred state in JSON. With `--audit` it is also a check: the perception audit's
//! faults and suppressions follow the read, and any of them makes the exit code 1.

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::Arc;

use serde::Serialize;

use crate::audit::PerceptionAudit;
use crate::browser::Chromium;
use crate::run::{RunError, Settings, Target, exit, load_registry, profile_cookies};
use crate::screen::{InferredState, Truncation, View};
use crate::tools::Tools;

/// Navigates to `route`, reads it (only `region`, when given), prints it; returns the exit
/// code.
pub async fn read(
    route: &str,
    settings: &Settings,
    json: bool,
    region: Option<&str>,
) -> Result<u8, RunError> {
    let registry = Arc::new(load_registry(settings.anchors.as_deref())?);
    // A screen behind a sign-in is read with the profile's cookies, as a journey meets it.
    let cookies = profile_cookies(settings)?;
    let target = Target::start(settings.base_url.as_deref()).await?;
    let browser = Chromium::launch(settings.launch.clone()).await?;
    let tab = match browser.new_tab_with_cookies(&cookies).await {
        Ok(tab) => tab,
        Err(e) => {
            browser.close().await;
            return Err(e.into());
        }
    };
    let tools = Tools::new(tab, target.base.clone(), registry, settings.tools.clone());
    let mut rt = tools.navigate(route).await;
    if let (true, Some(region)) = (rt.ok, region) {
        rt = tools
            .read_screen_with(View {
                budget: settings.tools.budget,
                region: Some(region.to_string()),
                ..View::default()
            })
            .await;
    }
    let code = match (&rt.error, &rt.screen) {
        (None, Some(screen)) => {
            // `navigate` already read the screen (a region read follows it); `elapsed_ms`
            // is that read's own cost.
            let audit = tools.last_audit();
            if json {
                // Written as it is serialized: a 50,000-control screen is some 14 MB of JSON,
                // which as one string was the read's largest allocation.
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                let printed = match &audit {
                    Some(audit) => {
                        serde_json::to_writer_pretty(&mut out, &Audited { screen, audit })
                    }
                    None => serde_json::to_writer_pretty(&mut out, screen),
                }
                .map_err(std::io::Error::from)
                .and_then(|()| {
                    writeln!(out)?;
                    out.flush()
                });
                if let Err(e) = printed {
                    eprintln!("error: cannot print the screen as JSON: {e}");
                }
            } else {
                print!("{}", table(screen));
                if let Some(audit) = &audit {
                    print!("{}", findings(audit));
                }
            }
            match audit {
                Some(audit) if !audit.is_clean() => exit::FAILED,
                _ => exit::PASSED,
            }
        }
        (Some(error), _) => {
            if json && let Ok(text) = serde_json::to_string_pretty(&rt) {
                println!("{text}");
            }
            eprintln!("error: {}: {}", error.code, error.message);
            exit::FAILED
        }
        (None, None) => exit::FAILED,
    };
    tools.close().await;
    browser.close().await;
    Ok(code)
}

/// `read --json --audit`: the screen with its audit beside its fields.
#[derive(Serialize)]
struct Audited<'a> {
    #[serde(flatten)]
    screen: &'a InferredState,
    audit: &'a PerceptionAudit,
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
        ("description", Some(b)) => format!(" (description budget of {b} characters)"),
        _ => " (collection cap: --max-controls)".to_string(),
    };
    let _ = writeln!(
        out,
        "truncated{within}: shown {} of {} controls, {} dropped.",
        t.shown, t.total, t.dropped
    );
    if t.cut_at == "description" && t.collected < t.total {
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
