//! `waymark read ROUTE`: one screen read, printed as a table for a person or as the
//! inferred state in JSON.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::browser::Chromium;
use crate::run::{RunError, Settings, Target, exit, load_registry};
use crate::screen::InferredState;
use crate::tools::Tools;

/// Navigates to `route`, reads it, prints it; returns the exit code.
pub async fn read(route: &str, settings: &Settings, json: bool) -> Result<u8, RunError> {
    let registry = Arc::new(load_registry(settings.anchors.as_deref())?);
    let target = Target::start(settings.base_url.as_deref()).await?;
    let browser = Chromium::launch(settings.launch.clone()).await?;
    let tab = match browser.new_tab().await {
        Ok(tab) => tab,
        Err(e) => {
            browser.close().await;
            return Err(e.into());
        }
    };
    let tools = Tools::new(tab, target.base.clone(), registry, settings.tools.clone());
    let rt = tools.navigate(route).await;
    let code = match (&rt.error, &rt.screen) {
        (None, Some(screen)) => {
            // `navigate` already read the screen; `elapsed_ms` is that read's own cost.
            if json {
                match serde_json::to_string_pretty(screen) {
                    Ok(text) => println!("{text}"),
                    Err(e) => eprintln!("error: cannot print the screen as JSON: {e}"),
                }
            } else {
                print!("{}", table(screen));
            }
            exit::PASSED
        }
        (Some(error), _) => {
            if json {
                if let Ok(text) = serde_json::to_string_pretty(&rt) {
                    println!("{text}");
                }
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
                c.region.clone(),
                c.reference(),
                c.role.clone(),
                c.label.clone(),
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
        let _ = writeln!(
            out,
            "truncated at {}: shown {} of {} controls, {} dropped.",
            t.cut_at, t.shown, t.total, t.dropped
        );
        let _ = writeln!(out, "{}", t.hint);
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
