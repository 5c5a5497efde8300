//! `--report html=DIR`: the run as one self-contained page (`DIR/index.html`: no script, no
//! file beside it), for a person to see a failure at a glance: the counts, then each
//! journey with its status, its attempts, the failure highlighted with its attribution and
//! trace, and every step its trace recorded — the action and its gates, the result, and
//! after each acting step the screen it left; the screenshots the run kept (the screen a
//! journey failed on, and with `--screenshots on` the one after each acting step), inline.
//!
//! The page reads what the run wrote: the outcomes, and each attempt's trace (JSON lines;
//! values of secret fields are already `[redacted]` there). Its parts carry `data-anchor`,
//! so waymark itself can read a report (`report.journey[NAME]`, `report.failure[NAME]`,
//! `report.step[NAME #N]`).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::{attribution_of, code_of, duration, rfc3339};
use crate::suite::{Attempt, JourneyRun, Status, SuiteRun};

/// Steps shown per attempt: a runaway journey's trace is cut, and says so.
const MOST_STEPS: usize = 500;
/// Controls shown per screen after an acting step.
const MOST_CONTROLS: usize = 60;

/// HTML-escapes text for an element's content or a quoted attribute.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1f2328}\
h1{font-size:1.3rem}h2{font-size:1.05rem;margin:0}table{border-collapse:collapse;margin:.4rem 0}\
td,th{border-bottom:1px solid #e5e7eb;padding:2px 8px;text-align:left;vertical-align:top}\
section{border:1px solid #d0d7de;border-radius:6px;margin:.8rem 0;padding:.6rem .9rem}\
section.failed{border-color:#cf222e;background:#fff8f8}section.flaky{border-color:#bf8700}\
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;color:#fff}\
.passed{background:#1a7f37}.failed .badge,.badge.failed{background:#cf222e}.badge.flaky{background:#bf8700}\
.badge.skipped,.badge.expected_failure{background:#6e7781}.failure{border-left:4px solid #cf222e;\
background:#ffebe9;padding:.4rem .7rem;margin:.4rem 0;white-space:pre-wrap}\
tr.bad td{background:#ffebe9}code{font-size:12px}.muted{color:#6e7781}";

/// The page for `run`.
pub fn html_report(run: &SuiteRun) -> String {
    let counts = run.counts();
    let mut out = String::with_capacity(16 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>waymark run: {} passed, {} failed</title><style>{STYLE}</style></head><body>\n\
         <h1>waymark run</h1>\n<p data-anchor=\"report.summary\">{}</p>\n<p class=\"muted\">started {} · {}{}</p>\n",
        counts.passed,
        counts.failed,
        esc(&super::summary_line(counts)),
        esc(&rfc3339(run.started)),
        esc(&duration(run.elapsed)),
        run.shard
            .as_ref()
            .map(|s| format!(" · shard {}", s.shard))
            .unwrap_or_default(),
    );
    // Failures first, as a reader looks for them; otherwise the run's order.
    let mut order: Vec<&JourneyRun> = run.journeys.iter().collect();
    order.sort_by_key(|j| match j.status() {
        Status::Failed => 0,
        Status::Flaky => 1,
        _ => 2,
    });
    for journey in order {
        journey_section(&mut out, journey);
    }
    out.push_str("</body></html>\n");
    out
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::Flaky => "flaky",
        Status::Skipped => "skipped",
        Status::Expected => "expected_failure",
    }
}

fn journey_section(out: &mut String, journey: &JourneyRun) {
    let status = status_word(journey.status());
    let name = esc(&journey.id.name);
    let _ = writeln!(
        out,
        "<section class=\"{status}\"><h2 data-anchor=\"report.journey\" data-anchor-key=\"{name}\">\
         {name} <span class=\"badge {status}\">{status}</span> \
         <span class=\"muted\">{} · {}</span></h2>",
        esc(&journey.id.path.display().to_string()),
        esc(&duration(journey.elapsed())),
    );
    let many = journey.attempts.len() > 1;
    for (i, attempt) in journey.attempts.iter().enumerate() {
        if many {
            let _ = writeln!(out, "<h3>attempt {}</h3>", i + 1);
        }
        attempt_part(out, &journey.id.name, attempt, many.then_some(i + 1));
    }
    out.push_str("</section>\n");
}

fn attempt_part(out: &mut String, name: &str, attempt: &Attempt, number: Option<usize>) {
    let key = match number {
        Some(n) => format!("{name} attempt {n}"),
        None => name.to_string(),
    };
    if let Some(f) = &attempt.outcome.failure {
        let place = match (f.line, f.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", f.file.display()),
            (Some(l), None) => format!("{}:{l}", f.file.display()),
            _ => f.file.display().to_string(),
        };
        let _ = writeln!(
            out,
            "<div class=\"failure\" role=\"alert\" data-anchor=\"report.failure\" data-anchor-key=\"{}\">\
             <strong>{}</strong> [{}] at <code>{}</code>\n{}</div>",
            esc(&key),
            esc(&code_of(f)),
            esc(&attribution_of(f)),
            esc(&place),
            esc(&f.message),
        );
    }
    if let Some(x) = &attempt.outcome.expected_failure {
        let _ = writeln!(
            out,
            "<p class=\"muted\">expected failure on the <code>{}</code> layout: {} — it failed: {}</p>",
            esc(&x.layout),
            esc(&x.reason),
            esc(&x.failure.message)
        );
    }
    for printed in &attempt.outcome.output {
        let _ = writeln!(out, "<pre class=\"muted\">| {}</pre>", esc(printed));
    }
    match &attempt.trace {
        Some(path) => steps(out, &key, path),
        None => out.push_str("<p class=\"muted\">no trace was written (run without --no-trace to see the steps)</p>\n"),
    }
}

/// The steps of the trace at `path`, as a table, each acting step followed by the screen it
/// left.
fn steps(out: &mut String, key: &str, path: &Path) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            let _ = writeln!(
                out,
                "<p class=\"muted\">the trace <code>{}</code> cannot be read: {}</p>",
                esc(&path.display().to_string()),
                esc(&e.to_string())
            );
            return;
        }
    };
    let _ = writeln!(
        out,
        "<p class=\"muted\">trace: <code>{}</code></p>\n<table><tr><th>#</th><th>action</th>\
         <th>gates</th><th>result</th><th>route</th><th>ms</th></tr>",
        esc(&path.display().to_string())
    );
    let mut shown = 0;
    let mut more = 0;
    let mut failed_on = None;
    for line in text.lines().skip(1) {
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match entry["kind"].as_str() {
            Some("step") if shown < MOST_STEPS => {
                shown += 1;
                step_row(out, key, &entry);
                if let Some(file) = entry["screenshot"].as_str() {
                    let n = entry["n"].as_u64().unwrap_or(0);
                    out.push_str("<tr><td></td><td colspan=\"5\">");
                    image(
                        out,
                        path,
                        file,
                        &format!("{key} #{n}"),
                        &format!("the screen after step {n}"),
                    );
                    out.push_str("</td></tr>\n");
                }
            }
            Some("end") => failed_on = entry["screenshot"].as_str().map(str::to_string),
            Some("step") => more += 1,
            Some("event") => {
                let _ = writeln!(
                    out,
                    "<tr class=\"bad\"><td></td><td colspan=\"5\">event: {}</td></tr>",
                    esc(entry["event"].as_str().unwrap_or("?"))
                );
            }
            _ => {}
        }
    }
    out.push_str("</table>\n");
    if more > 0 {
        let _ = writeln!(
            out,
            "<p class=\"muted\">… and {more} more steps (see the trace)</p>"
        );
    }
    if let Some(file) = failed_on {
        out.push_str("<p>the screen the journey failed on:</p>\n");
        image(out, path, &file, key, "the screen the journey failed on");
    }
}

/// A screenshot the trace at `trace` keeps as `file` (from the trace's folder), inline: the
/// page stays one file. One that cannot be read says so.
fn image(out: &mut String, trace: &Path, file: &str, key: &str, alt: &str) {
    use base64::Engine as _;
    let path = trace.parent().unwrap_or(Path::new("")).join(file);
    match std::fs::read(&path) {
        Ok(png) => {
            let _ = writeln!(
                out,
                "<img data-anchor=\"report.screenshot\" data-anchor-key=\"{}\" alt=\"{}\" \
                 style=\"max-width:100%;width:640px;border:1px solid #d0d7de\" src=\"data:image/png;base64,{}\">",
                esc(key),
                esc(alt),
                base64::engine::general_purpose::STANDARD.encode(png)
            );
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "<p class=\"muted\">the screenshot <code>{}</code> cannot be read: {}</p>",
                esc(&path.display().to_string()),
                esc(&e.to_string())
            );
        }
    }
}

fn step_row(out: &mut String, key: &str, step: &Value) {
    let n = step["n"].as_u64().unwrap_or(0);
    let action = &step["action"];
    let verb = action["verb"].as_str().unwrap_or("?");
    let target = match &action["target"] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let gates: Vec<String> = step["gates"]
        .as_array()
        .map(|gates| {
            gates
                .iter()
                .map(|g| {
                    let mark = if g["passed"].as_bool() == Some(true) {
                        "✓"
                    } else {
                        "✗"
                    };
                    format!("{mark} {}", g["gate"].as_str().unwrap_or("?"))
                })
                .collect()
        })
        .unwrap_or_default();
    let result = &step["result"];
    let ok = result["ok"].as_bool() == Some(true);
    let outcome = if ok {
        "ok".to_string()
    } else {
        format!(
            "{}: {}",
            result["error"]["code"].as_str().unwrap_or("error"),
            result["error"]["message"].as_str().unwrap_or("")
        )
    };
    let _ = writeln!(
        out,
        "<tr{}><td>{n}</td><td data-anchor=\"report.step\" data-anchor-key=\"{} #{n}\">{} <code>{}</code></td>\
         <td>{}</td><td>{}</td><td><code>{}</code></td><td>{:.0}</td></tr>",
        if ok { "" } else { " class=\"bad\"" },
        esc(key),
        esc(verb),
        esc(&target),
        esc(&gates.join(" ")),
        esc(&outcome),
        esc(result["route"].as_str().unwrap_or("")),
        step["elapsed_ms"].as_f64().unwrap_or(0.0),
    );
    let acting = matches!(action["class"].as_str(), Some("act" | "type"));
    if acting && let Some(controls) = step["inferred"]["controls"].as_array() {
        let _ = write!(
            out,
            "<tr><td></td><td colspan=\"5\"><details><summary>the screen after: {} · {} controls</summary><table>\
             <tr><th>anchor</th><th>label</th><th>role</th><th>value</th><th>region</th></tr>",
            esc(step["inferred"]["screen"].as_str().unwrap_or("?")),
            controls.len()
        );
        for c in controls.iter().take(MOST_CONTROLS) {
            let reference = match c["key"].as_str() {
                Some(k) => format!("{}[{k}]", c["anchor"].as_str().unwrap_or("")),
                None => c["anchor"].as_str().unwrap_or("").to_string(),
            };
            let _ = write!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&reference),
                esc(c["label"].as_str().unwrap_or("")),
                esc(c["role"].as_str().unwrap_or("")),
                esc(c["value"].as_str().unwrap_or("")),
                esc(c["region"].as_str().unwrap_or("")),
            );
        }
        if controls.len() > MOST_CONTROLS {
            let _ = write!(
                out,
                "<tr><td colspan=\"5\" class=\"muted\">… {} more</td></tr>",
                controls.len() - MOST_CONTROLS
            );
        }
        out.push_str("</table></details></td></tr>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn page_text_is_escaped() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }
}
