//! An attempt's steps in the HTML report, from its trace: a row per step (the action and
//! its target, each gate's verdict, the result, the route, the time), the screen an acting
//! step left, the screenshots kept, and the command that opens the trace in the viewer.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::esc;

/// Steps shown per attempt: a runaway journey's trace is cut, and says so.
const MOST_STEPS: usize = 500;
/// Controls shown per screen after an acting step.
const MOST_CONTROLS: usize = 60;

/// The steps of the trace at `path`, folded unless the attempt `failed`.
pub(super) fn steps(out: &mut String, key: &str, path: &Path, failed: bool) {
    let shown_path = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            let _ = writeln!(
                out,
                "<p class=\"muted\">the trace <code>{}</code> cannot be read: {}</p>",
                esc(&shown_path),
                esc(&e.to_string())
            );
            return;
        }
    };
    let _ = writeln!(
        out,
        "<p class=\"meta\" data-anchor=\"report.show\" data-anchor-key=\"{}\">trace <code>{}</code> · \
         step through it: <code>waymark show {}</code></p>",
        esc(key),
        esc(&shown_path),
        esc(&shell_word(&shown_path)),
    );
    let entries: Vec<Value> = text
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let count = entries.iter().filter(|e| e["kind"] == "step").count();
    let _ = writeln!(
        out,
        "<details class=\"steps\"{}><summary>{count} step{}</summary>\
         <table><colgroup><col class=\"n\"><col><col class=\"gates\"><col><col class=\"route\"><col class=\"ms\"></colgroup>\
         <tr><th>#</th><th>action</th><th>gates</th><th>result</th><th>route</th><th>ms</th></tr>",
        if failed { " open" } else { "" },
        if count == 1 { "" } else { "s" },
    );
    let mut shown = 0;
    let mut failed_on = None;
    for entry in &entries {
        match entry["kind"].as_str() {
            Some("step") if shown < MOST_STEPS => {
                shown += 1;
                step_row(out, key, entry);
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
    if count > shown {
        let _ = writeln!(
            out,
            "<p class=\"muted\">… and {} more steps (see the trace)</p>",
            count - shown
        );
    }
    out.push_str("</details>\n");
    if let Some(file) = failed_on {
        out.push_str("<p>the screen the journey failed on:</p>\n");
        image(out, path, &file, key, "the screen the journey failed on");
    }
}

/// `path` as one word a shell reads back the same.
fn shell_word(path: &str) -> String {
    if path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:,@".contains(c))
    {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
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
                "<img class=\"shot\" data-anchor=\"report.screenshot\" data-anchor-key=\"{}\" alt=\"{}\" \
                 loading=\"lazy\" src=\"data:image/png;base64,{}\">",
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

/// A step's action in words: the verb and its target.
pub(crate) fn target_of(action: &Value) -> String {
    match &action["target"] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A step's result in words: `ok`, or the error's code and message.
pub(crate) fn outcome_of(result: &Value) -> String {
    if result["ok"].as_bool() == Some(true) {
        "ok".to_string()
    } else {
        format!(
            "{}: {}",
            result["error"]["code"].as_str().unwrap_or("error"),
            result["error"]["message"].as_str().unwrap_or("")
        )
    }
}

fn step_row(out: &mut String, key: &str, step: &Value) {
    let n = step["n"].as_u64().unwrap_or(0);
    let action = &step["action"];
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
    let _ = writeln!(
        out,
        "<tr{}><td>{n}</td><td data-anchor=\"report.step\" data-anchor-key=\"{} #{n}\">{} <code>{}</code></td>\
         <td>{}</td><td>{}</td><td><code>{}</code></td><td>{:.0}</td></tr>",
        if ok { "" } else { " class=\"bad\"" },
        esc(key),
        esc(action["verb"].as_str().unwrap_or("?")),
        esc(&target_of(action)),
        esc(&gates.join(" ")),
        esc(&outcome_of(result)),
        esc(result["route"].as_str().unwrap_or("")),
        step["elapsed_ms"].as_f64().unwrap_or(0.0),
    );
    if let Some(dialogs) = result["dialogs"].as_array().filter(|d| !d.is_empty()) {
        let answered: Vec<String> = dialogs
            .iter()
            .map(|d| {
                let text = match d["text"].as_str() {
                    Some(t) => format!(" with “{t}”"),
                    None => String::new(),
                };
                format!(
                    "{} “{}”: {}{text}",
                    d["type"].as_str().unwrap_or("?"),
                    d["message"].as_str().unwrap_or(""),
                    d["answer"].as_str().unwrap_or("?"),
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr><td></td><td colspan=\"5\" class=\"muted\">dialogs answered: {}</td></tr>",
            esc(&answered.join("; "))
        );
    }
    console_rows(out, result);
    let acting = matches!(action["class"].as_str(), Some("act" | "type"));
    if acting && let Some(controls) = step["inferred"]["controls"].as_array() {
        let _ = write!(
            out,
            "<tr><td></td><td colspan=\"5\"><details class=\"screen\"><summary>the screen after: {} · {} controls</summary><table>\
             <tr><th>anchor</th><th>label</th><th>role</th><th>value</th><th>region</th></tr>",
            esc(step["inferred"]["screen"].as_str().unwrap_or("?")),
            controls.len()
        );
        for c in controls.iter().take(MOST_CONTROLS) {
            let _ = write!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&reference(c)),
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

/// A control's reference: `anchor` or `anchor[key]`.
pub(crate) fn reference(c: &Value) -> String {
    crate::anchor::reference(c["anchor"].as_str().unwrap_or(""), c["key"].as_str())
}

/// The console's errors and warnings, and the page's uncaught errors, of a step: a row each
/// list, under the step's.
fn console_rows(out: &mut String, result: &Value) {
    let dropped = |field: &str| match result[field].as_u64() {
        Some(n) if n > 0 => format!(" (and {n} more)"),
        _ => String::new(),
    };
    if let Some(console) = result["console"].as_array().filter(|c| !c.is_empty()) {
        let logged: Vec<String> = console
            .iter()
            .map(|m| {
                format!(
                    "{} “{}”",
                    m["level"].as_str().unwrap_or("?"),
                    m["text"].as_str().unwrap_or("")
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr class=\"console\"><td></td><td colspan=\"5\" class=\"muted\">console: {}{}</td></tr>",
            esc(&logged.join("; ")),
            dropped("console_dropped")
        );
    }
    if let Some(errors) = result["page_errors"].as_array().filter(|e| !e.is_empty()) {
        let thrown: Vec<String> = errors
            .iter()
            .map(|e| match e["source"].as_str().filter(|s| !s.is_empty()) {
                Some(source) => format!("“{}” at {source}", e["message"].as_str().unwrap_or("")),
                None => format!("“{}”", e["message"].as_str().unwrap_or("")),
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr class=\"page-errors\"><td></td><td colspan=\"5\" class=\"muted\">page errors: {}{}</td></tr>",
            esc(&thrown.join("; ")),
            dropped("page_errors_dropped")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn a_trace_path_is_one_shell_word() {
        assert_eq!(
            shell_word("target/waymark/traces/a.jsonl"),
            "target/waymark/traces/a.jsonl"
        );
        assert_eq!(
            shell_word("my traces/it's.jsonl"),
            r"'my traces/it'\''s.jsonl'"
        );
    }
}
