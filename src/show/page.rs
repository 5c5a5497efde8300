//! The viewer's pages, rendered from the trace's lines: the list of traces of a folder,
//! and one trace's steps — a list with timing bars, and each step's detail (action, gates,
//! result, changes, screenshot, dialogs, console and network when a trace holds them, the
//! screen read by region). Every part is in the page; the script (`viewer.js`) only shows
//! one step at a time and moves between them with the keyboard.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::report::{esc, outcome_of, reference, target_of};

const STYLE: &str = include_str!("viewer.css");
const SCRIPT: &str = include_str!("viewer.js");

/// Whether the file at `path` starts as a trace does (a `header` line).
pub(super) fn is_trace(path: &Path) -> bool {
    use std::io::BufRead as _;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut first = String::new();
    let _ = std::io::BufReader::new(file).read_line(&mut first);
    serde_json::from_str::<Value>(&first).is_ok_and(|v| v["kind"] == "header")
}

/// `rel` as a URL path, each part percent-encoded.
pub(super) fn url_path(rel: &str) -> String {
    rel.split('/')
        .map(|part| url::form_urlencoded::byte_serialize(part.as_bytes()).collect::<String>())
        .map(|part| part.replace('+', "%20"))
        .collect::<Vec<_>>()
        .join("/")
}

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"color-scheme\" content=\"light dark\"><title>{}</title>\
         <style>{}{STYLE}</style></head><body>\n",
        esc(title),
        crate::report::THEME,
    );
}

/// What a trace's last line says: its outcome and failure, and its step count.
struct Summary {
    outcome: String,
    steps: usize,
    elapsed_ms: f64,
}

fn summary(lines: &[Value]) -> Summary {
    let end = lines.iter().rev().find(|l| l["kind"] == "end");
    Summary {
        outcome: end
            .and_then(|e| e["outcome"].as_str())
            .unwrap_or("unfinished")
            .to_string(),
        steps: lines.iter().filter(|l| l["kind"] == "step").count(),
        elapsed_ms: end
            .and_then(|e| e["elapsed_ms"].as_f64())
            .or_else(|| {
                lines
                    .iter()
                    .filter_map(|l| l["at_ms"].as_f64())
                    .reduce(f64::max)
            })
            .unwrap_or(0.0),
    }
}

fn parse(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn badge(outcome: &str) -> String {
    let class = match outcome {
        "passed" => "passed",
        "failed" => "failed",
        _ => "other",
    };
    format!("<span class=\"badge {class}\">{}</span>", esc(outcome))
}

/// The traces of a folder, failed first, each a link to its viewer.
pub(super) fn index(traces: &super::Traces) -> String {
    let mut rows: Vec<(String, Summary)> = traces
        .files()
        .iter()
        .map(|rel| {
            let text = std::fs::read_to_string(traces.root.join(rel)).unwrap_or_default();
            (rel.clone(), summary(&parse(&text)))
        })
        .collect();
    rows.sort_by_key(|(rel, s)| (s.outcome == "passed", rel.clone()));
    let mut out = String::new();
    head(&mut out, "waymark traces");
    let _ = write!(
        out,
        "<header class=\"top\"><h1>waymark traces <span class=\"meta\">{} in <code>{}</code></span></h1></header>\
         <main><table><tr><th>trace</th><th>outcome</th><th>steps</th><th>ms</th></tr>",
        rows.len(),
        esc(&traces.root.display().to_string())
    );
    for (rel, s) in &rows {
        let _ = write!(
            out,
            "<tr><td><a href=\"/trace/{}\" data-anchor=\"viewer.trace\" data-anchor-key=\"{}\">{}</a></td>\
             <td>{}</td><td>{}</td><td>{:.0}</td></tr>",
            esc(&url_path(rel)),
            esc(rel),
            esc(rel),
            badge(&s.outcome),
            s.steps,
            s.elapsed_ms
        );
    }
    out.push_str("</table></main></body></html>\n");
    out
}

/// The viewer of the trace `rel` (its lines `text`); `many`: the folder has others, and
/// the page links back to their list.
pub(super) fn viewer(rel: &str, text: &str, many: bool) -> String {
    let lines = parse(text);
    let s = summary(&lines);
    let header = lines.iter().find(|l| l["kind"] == "header");
    let side_dir = rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let mut out = String::new();
    head(&mut out, &format!("waymark trace: {rel}"));
    let _ = write!(
        out,
        "<header class=\"top\"><h1>{}{} <span class=\"meta\">{} steps · {:.0} ms",
        if many {
            "<a href=\"/\" data-anchor=\"viewer.back\">traces</a> / "
        } else {
            ""
        },
        esc(rel),
        s.steps,
        s.elapsed_ms,
    );
    if let Some(h) = header {
        let _ = write!(
            out,
            " · {} {} · {}",
            esc(h["browser"]["product"].as_str().unwrap_or("")),
            esc(h["browser"]["version"].as_str().unwrap_or("")),
            esc(&h["viewport"]
                .as_array()
                .map(|v| format!(
                    "{}×{}",
                    v.first().and_then(Value::as_f64).unwrap_or(0.0),
                    v.get(1).and_then(Value::as_f64).unwrap_or(0.0)
                ))
                .unwrap_or_default()),
        );
    }
    let _ = write!(
        out,
        "</span> <span role=\"status\" data-anchor=\"viewer.outcome\">{}</span></h1>",
        badge(&s.outcome)
    );
    if let Some(f) = lines
        .iter()
        .rev()
        .find(|l| l["kind"] == "end")
        .map(|e| &e["failure"])
        .filter(|f| f.is_object())
    {
        let _ = write!(
            out,
            "<p class=\"failure\" data-anchor=\"viewer.failure\"><strong>{}</strong> · {} · line {}: {}</p>",
            esc(f["code"].as_str().unwrap_or("failed")),
            esc(f["attribution"].as_str().unwrap_or("")),
            f["line"].as_u64().map_or("?".into(), |l| l.to_string()),
            esc(f["message"].as_str().unwrap_or("")),
        );
    }
    out.push_str(
        "<p class=\"meta keys\">↑ ↓ or j k: the step before, after · Home End: the first, the last</p></header>\n\
         <div class=\"viewer\"><ol class=\"steps\" aria-label=\"steps\" data-anchor=\"viewer.steps\">\n",
    );
    let steps: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "step").collect();
    let total = s.elapsed_ms.max(1.0);
    for step in &steps {
        step_item(&mut out, step, total);
    }
    out.push_str("</ol><div class=\"details\">\n");
    if steps.is_empty() {
        out.push_str("<p class=\"meta\">this trace holds no step</p>");
    }
    for step in &steps {
        detail(&mut out, step, side_dir);
    }
    let _ = write!(
        out,
        "</div></div>\n<script>{SCRIPT}</script>\n</body></html>\n"
    );
    out
}

fn step_item(out: &mut String, step: &Value, total: f64) {
    let n = step["n"].as_u64().unwrap_or(0);
    let elapsed = step["elapsed_ms"].as_f64().unwrap_or(0.0);
    let start = (step["at_ms"].as_f64().unwrap_or(0.0) - elapsed).max(0.0);
    let ok = step["result"]["ok"].as_bool() == Some(true);
    let _ = writeln!(
        out,
        "<li><a href=\"#step-{n}\" class=\"step{}\" data-step=\"{n}\" data-anchor=\"viewer.step\" data-anchor-key=\"{n}\">\
         <span class=\"n\">{n}</span> <span class=\"verb\">{}</span> <code>{}</code> <span class=\"ms\">{elapsed:.0} ms</span>\
         <span class=\"timing\" aria-hidden=\"true\"><span style=\"margin-left:{:.2}%;width:{:.2}%\"></span></span></a></li>",
        if ok { "" } else { " bad" },
        esc(step["action"]["verb"].as_str().unwrap_or("?")),
        esc(&target_of(&step["action"])),
        (start / total * 100.0).min(99.5),
        (elapsed / total * 100.0).clamp(0.5, 100.0),
    );
}

fn detail(out: &mut String, step: &Value, side_dir: &str) {
    let n = step["n"].as_u64().unwrap_or(0);
    let action = &step["action"];
    let result = &step["result"];
    let _ = write!(
        out,
        "<section class=\"detail\" id=\"step-{n}\" data-step=\"{n}\" data-anchor=\"viewer.detail\" data-anchor-key=\"{n}\">\
         <h2>step {n} · {} <code>{}</code></h2><table class=\"facts\">\
         <tr><th>class</th><td>{}</td></tr>\
         <tr><th>result</th><td data-anchor=\"viewer.result\" data-anchor-key=\"{n}\"{}>{}</td></tr>\
         <tr><th>route</th><td><code>{}</code> → <code>{}</code></td></tr>\
         <tr><th>time</th><td>{:.1} ms, ended {:.1} ms into the journey</td></tr>",
        esc(action["verb"].as_str().unwrap_or("?")),
        esc(&target_of(action)),
        esc(action["class"].as_str().unwrap_or("")),
        if result["ok"].as_bool() == Some(true) {
            ""
        } else {
            " class=\"bad\""
        },
        esc(&outcome_of(result)),
        esc(result["route_before"].as_str().unwrap_or("")),
        esc(result["route"].as_str().unwrap_or("")),
        step["elapsed_ms"].as_f64().unwrap_or(0.0),
        step["at_ms"].as_f64().unwrap_or(0.0),
    );
    if let Some(attribution) = result["error"]["attribution"].as_str() {
        let _ = write!(
            out,
            "<tr><th>attribution</th><td>{}</td></tr>",
            esc(attribution)
        );
    }
    if let Some(parts) = timing_of(&step["timing"]) {
        let _ = write!(
            out,
            "<tr><th>where the time went</th><td data-anchor=\"viewer.timing\" data-anchor-key=\"{n}\">{}</td></tr>",
            esc(&parts)
        );
    }
    out.push_str("</table>");
    if let Some(gates) = step["gates"].as_array().filter(|g| !g.is_empty()) {
        out.push_str("<h3>gates</h3><table><tr><th>gate</th><th>verdict</th><th>detail</th></tr>");
        for g in gates {
            let passed = g["passed"].as_bool() == Some(true);
            let _ = write!(
                out,
                "<tr{}><td>{}</td><td>{}</td><td>{}</td></tr>",
                if passed { "" } else { " class=\"bad\"" },
                esc(g["gate"].as_str().unwrap_or("?")),
                if passed { "✓ passed" } else { "✗ refused" },
                esc(&plain(&g["detail"])),
            );
        }
        out.push_str("</table>");
    }
    let changes = &result["changes"];
    if changes.is_object() {
        out.push_str("<h3>what changed</h3><ul class=\"changes\">");
        let mut any = false;
        for (kind, sign) in [("added", "+"), ("removed", "-"), ("changed", "~")] {
            for c in changes[kind].as_array().into_iter().flatten() {
                any = true;
                let _ = write!(out, "<li class=\"{kind}\">{sign} {}</li>", esc(&plain(c)));
            }
        }
        if !any {
            out.push_str("<li>nothing</li>");
        }
        out.push_str("</ul>");
    }
    if let Some(file) = step["screenshot"].as_str() {
        let rel = match side_dir {
            "" => file.to_string(),
            dir => format!("{dir}/{file}"),
        };
        let _ = write!(
            out,
            "<h3>screenshot</h3><img class=\"shot\" loading=\"lazy\" alt=\"the screen after step {n}\" \
             data-anchor=\"viewer.screenshot\" data-anchor-key=\"{n}\" src=\"/file/{}\">",
            esc(&url_path(&rel))
        );
    }
    let dialog = &step["inferred"]["dialog"];
    let chrome = &step["raw"]["chrome"];
    if !dialog.is_null()
        || chrome
            .as_object()
            .is_some_and(|c| c.values().any(|v| !empty(v)))
    {
        let _ = write!(
            out,
            "<h3>dialogs and the browser's own</h3><pre>{}</pre>",
            esc(&[plain(dialog), plain(chrome)].join("\n"))
        );
    }
    for list in ["console", "page_errors", "network"] {
        let entries = step[list].as_array().or(step["result"][list].as_array());
        if let Some(entries) = entries.filter(|e| !e.is_empty()) {
            let _ = write!(out, "<h3>{list}</h3><ul>");
            for e in entries {
                let _ = write!(out, "<li><code>{}</code></li>", esc(&plain(e)));
            }
            out.push_str("</ul>");
        }
    }
    screen(out, &step["inferred"], n);
    if let Some(side) = step["raw"]["ref"].as_str() {
        let rel = match side_dir {
            "" => side.to_string(),
            dir => format!("{dir}/{side}"),
        };
        let _ = write!(
            out,
            "<p class=\"meta\">the raw layer: <a href=\"/file/{}\">{}</a></p>",
            esc(&url_path(&rel)),
            esc(side)
        );
    }
    out.push_str("</section>\n");
}

fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(empty),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
    }
}

/// A value in words: a string as it is, anything else as JSON, nothing as nothing.
fn plain(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The screen read as a table by region.
fn screen(out: &mut String, inferred: &Value, n: u64) {
    let Some(controls) = inferred["controls"].as_array() else {
        return;
    };
    let _ = write!(
        out,
        "<h3>the screen read: {} <span class=\"meta\">{} · {} controls</span></h3>",
        esc(inferred["screen"].as_str().unwrap_or("(no screen)")),
        esc(inferred["route"].as_str().unwrap_or("")),
        controls.len(),
    );
    let mut regions: Vec<&str> = Vec::new();
    for c in controls {
        let r = c["region"].as_str().unwrap_or("");
        if !regions.contains(&r) {
            regions.push(r);
        }
    }
    for region in regions {
        let _ = write!(
            out,
            "<table class=\"screen\" data-anchor=\"viewer.region\" data-anchor-key=\"{n} {}\">\
             <caption>{}</caption><tr><th>anchor</th><th>label</th><th>role</th><th>value</th><th>state</th></tr>",
            esc(region),
            esc(if region.is_empty() {
                "(no region)"
            } else {
                region
            }),
        );
        for c in controls
            .iter()
            .filter(|c| c["region"].as_str().unwrap_or("") == region)
        {
            let mut state = Vec::new();
            for (flag, word) in [
                ("disabled", "disabled"),
                ("editable", "editable"),
                ("focused", "focused"),
            ] {
                if c[flag].as_bool() == Some(true) {
                    state.push(word);
                }
            }
            if c["visible"].as_bool() == Some(false) {
                state.push("hidden");
            }
            match c["checked"].as_bool() {
                Some(true) => state.push("checked"),
                Some(false) => state.push("unchecked"),
                None => {}
            }
            let _ = write!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&reference(c)),
                esc(c["label"].as_str().unwrap_or("")),
                esc(c["role"].as_str().unwrap_or("")),
                esc(&plain(&c["value"])),
                state.join(", "),
            );
        }
        out.push_str("</table>");
    }
    if let Some(t) = inferred["truncation"].as_object() {
        let _ = write!(
            out,
            "<p class=\"meta\">cut: <code>{}</code></p>",
            esc(&Value::Object(t.clone()).to_string())
        );
    }
}

/// A step's `timing` as a line, its phases in the order a call passes them: `target 3.1 ·
/// input 12.9 · quiet 15.7 · load 47.4 ms`. None for a trace written before steps were timed.
fn timing_of(timing: &serde_json::Value) -> Option<String> {
    let timing = timing.as_object().filter(|t| !t.is_empty())?;
    let parts: Vec<String> = [
        "gates", "setup", "target", "input", "page", "quiet", "load", "collect", "infer",
        "screenshot", "other",
    ]
    .iter()
    .filter_map(|phase| {
        let ms = timing.get(&format!("{phase}_ms"))?.as_f64()?;
        Some(format!("{phase} {ms:.1}"))
    })
    .collect();
    Some(format!("{} ms", parts.join(" · ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = r#"{"kind":"header","browser":{"product":"HeadlessChrome","version":"1"},"viewport":[1280.0,800.0]}
{"kind":"step","n":1,"action":{"verb":"navigate","target":"/claims","class":"navigate"},"gates":[{"gate":"control","passed":true}],"raw":null,"inferred":{"route":"/claims","screen":"claims-list","controls":[{"anchor":"nav.home","label":"Home","role":"link","region":"nav"},{"anchor":"claims.open","key":"1042","label":"Open <1042>","role":"button","region":"list","disabled":true}]},"result":{"ok":true,"route_before":"/","route":"/claims","changes":{"added":["claims.open[1042]"],"removed":[],"changed":[]}},"screenshot":"a.raw/1.png","elapsed_ms":200.0,"timing":{"load_ms":180.5,"collect_ms":4.0,"other_ms":15.5},"at_ms":210.0}
{"kind":"step","n":2,"action":{"verb":"invoke","target":"claims.open[9]","class":"act"},"gates":[],"raw":null,"inferred":null,"result":{"ok":false,"route_before":"/claims","route":"/claims","error":{"code":"not_on_screen","message":"no `claims.open`","attribution":"journey"}},"elapsed_ms":50.0,"at_ms":300.0}
{"kind":"end","outcome":"failed","failure":{"code":"not_on_screen","message":"no `claims.open`","attribution":"journey","line":3,"column":1},"steps":2,"elapsed_ms":400.0}
"#;

    #[test]
    fn each_step_has_its_item_with_a_timing_bar_and_its_detail() {
        let page = viewer("sub/a.jsonl", TRACE, true);
        assert!(page.contains("data-anchor=\"viewer.step\" data-anchor-key=\"1\""));
        assert!(page.contains("margin-left:2.50%;width:50.00%"), "{page}");
        assert!(page.contains("margin-left:62.50%;width:12.50%"), "{page}");
        assert!(page.contains("src=\"/file/sub/a.raw/1.png\""), "{page}");
        assert!(page.contains("<caption>list</caption>"));
        assert!(page.contains("Open &lt;1042&gt;</td><td>button</td><td></td><td>disabled"));
        assert!(page.contains("<li class=\"added\">+ claims.open[1042]</li>"));
        assert!(page.contains("not_on_screen: no `claims.open`"));
        assert!(page.contains("<strong>not_on_screen</strong> · journey · line 3"));
        assert!(page.contains("data-anchor=\"viewer.back\""));
        assert_eq!(page.matches("data-anchor=\"viewer.detail\"").count(), 2);
        assert!(
            page.contains("data-anchor-key=\"1\">load 180.5 · collect 4.0 · other 15.5 ms</td>"),
            "{page}"
        );
        // A step without `timing` (a trace from before) has no line for it.
        assert_eq!(page.matches("where the time went").count(), 1);
    }

    #[test]
    fn a_trace_path_is_a_url_path() {
        assert_eq!(url_path("a b/c#d.jsonl"), "a%20b/c%23d.jsonl");
    }
}
