//! `--report html=DIR`: the run as one self-contained page (`DIR/index.html`: nothing beside
//! it, nothing fetched, it works from `file://`), for a person to find a failure at once.
//!
//! A bar of counts that filter by status and a search over names and codes (a small script
//! of its own, `html/report.js`; without it the page reads whole, every journey listed);
//! then the journeys, failed and flaky first, each folded but the failed ones: the failure
//! with its code, attribution and place, the journey's lines around the failing one, a
//! snapshot mismatch as its diff by control; what the journey printed; every step its trace
//! recorded (`html/steps.rs`), and the `waymark show` command that steps through the trace.
//! The palette (`html/theme.css`, shared with the trace viewer) is AA in light and dark.
//!
//! The page reads what the run wrote: the outcomes, each attempt's trace (values of secret
//! fields are already `[redacted]` there), and the journeys' files for their lines. Its parts
//! carry `data-anchor`, so waymark itself can read and drive a report (`report.journey[NAME]`,
//! `report.failure[NAME]`, `report.step[NAME #N]`, `report.filter[STATUS]`, `report.search`).

mod steps;

pub(crate) use steps::{outcome_of, reference, target_of};

use std::fmt::Write as _;

use super::{attribution_of, code_of, duration, rfc3339};
use crate::protocol::Failure;
use crate::suite::{Attempt, JourneyRun, Status, SuiteRun};

/// The palette and the parts both the report and the trace viewer use.
pub(crate) const THEME: &str = include_str!("html/theme.css");
const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// Lines of a failure's message shown before the rest is folded.
const MESSAGE_LINES: usize = 12;
/// Lines of the journey shown before and after the failing one.
const SOURCE_AROUND: usize = 3;

/// HTML-escapes text for an element's content or a quoted attribute.
pub(crate) fn esc(text: &str) -> String {
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

/// The page for `run`.
pub fn html_report(run: &SuiteRun) -> String {
    let counts = run.counts();
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"color-scheme\" content=\"light dark\">\
         <title>waymark run: {} passed, {} failed</title><style>{THEME}{STYLE}</style></head><body>\n\
         <header class=\"top\"><h1>waymark run <span class=\"meta\">started {} · {}{}</span></h1>\n\
         <p class=\"summary\" data-anchor=\"report.summary\">{}</p>\n",
        counts.passed,
        counts.failed,
        esc(&rfc3339(run.started)),
        esc(&duration(run.elapsed)),
        run.shard
            .as_ref()
            .map(|s| format!(" · shard {}", s.shard))
            .unwrap_or_default(),
        esc(&super::summary_line(counts)),
    );
    // The bar works only with the script, which shows it.
    out.push_str(
        "<div class=\"bar\" id=\"bar\" hidden><div class=\"bar\" role=\"group\" aria-label=\"show journeys by status\">",
    );
    let all = run.journeys.len();
    for (key, word, n) in [
        ("all", "all", all),
        ("failed", "failed", counts.failed),
        ("flaky", "flaky", counts.flaky),
        ("expected_failure", "expected to fail", counts.expected),
        ("passed", "passed", counts.passed),
        ("skipped", "skipped", counts.skipped),
    ] {
        if n == 0 && !matches!(key, "all" | "failed" | "passed") {
            continue;
        }
        let _ = write!(
            out,
            "<button type=\"button\" data-filter=\"{key}\" aria-pressed=\"{}\" \
             data-anchor=\"report.filter\" data-anchor-key=\"{key}\">{word} {n}</button>",
            key == "all"
        );
    }
    out.push_str(
        "</div><input type=\"search\" id=\"search\" data-anchor=\"report.search\" \
         aria-label=\"search journeys by name or code\" placeholder=\"search names and codes\">\
         <button type=\"button\" id=\"expand\" data-anchor=\"report.expand\">expand all</button>\
         <button type=\"button\" id=\"collapse\" data-anchor=\"report.collapse\">collapse all</button>\
         <span id=\"shown\" class=\"meta\" role=\"status\" data-anchor=\"report.shown\"></span></div>\
         </header>\n<main>\n",
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
    let _ = write!(
        out,
        "<p id=\"none\" hidden>no journey matches</p>\n</main>\n<script>{SCRIPT}</script>\n</body></html>\n"
    );
    out
}

pub(crate) fn status_word(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::Flaky => "flaky",
        Status::Skipped => "skipped",
        Status::Expected => "expected_failure",
    }
}

fn journey_section(out: &mut String, journey: &JourneyRun) {
    let status = journey.status();
    let word = status_word(status);
    let name = esc(&journey.id.name);
    let codes: Vec<String> = journey
        .attempts
        .iter()
        .filter_map(|a| a.outcome.failure.as_ref().map(code_of))
        .collect();
    let mut shown_codes = codes.clone();
    shown_codes.dedup();
    let search = format!(
        "{} {} {}",
        journey.id.name,
        journey.id.path.display(),
        codes.join(" ")
    )
    .to_lowercase();
    let _ = writeln!(
        out,
        "<details class=\"journey {word}\" data-status=\"{word}\" data-search=\"{}\"{}>\
         <summary data-anchor=\"report.journey\" data-anchor-key=\"{name}\">\
         <span class=\"badge {word}\">{}</span> <span class=\"name\">{name}</span> {}\
         <span class=\"meta\">{} · {}</span></summary><div class=\"body\">",
        esc(&search),
        if status == Status::Failed {
            " open"
        } else {
            ""
        },
        word.replace('_', " "),
        shown_codes
            .iter()
            .map(|c| format!("<code>{}</code> ", esc(c)))
            .collect::<String>(),
        esc(&journey.id.path.display().to_string()),
        esc(&duration(journey.elapsed())),
    );
    if journey.attempts.is_empty() {
        out.push_str("<p class=\"muted\">not run (left out by --last-failed)</p>\n");
    }
    let many = journey.attempts.len() > 1;
    for (i, attempt) in journey.attempts.iter().enumerate() {
        if many {
            let _ = writeln!(
                out,
                "<h3>attempt {} · {}</h3>",
                i + 1,
                if attempt.outcome.failure.is_some() {
                    "failed"
                } else {
                    "passed"
                }
            );
        }
        attempt_part(out, &journey.id.name, attempt, many.then_some(i + 1));
    }
    out.push_str("</div></details>\n");
}

fn attempt_part(out: &mut String, name: &str, attempt: &Attempt, number: Option<usize>) {
    let key = match number {
        Some(n) => format!("{name} attempt {n}"),
        None => name.to_string(),
    };
    if let Some(f) = &attempt.outcome.failure {
        failure(out, &key, f);
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
    if !attempt.outcome.output.is_empty() {
        out.push_str("<pre class=\"output\" aria-label=\"printed\">");
        for printed in &attempt.outcome.output {
            let _ = writeln!(out, "{}", esc(printed));
        }
        out.push_str("</pre>\n");
    }
    match &attempt.trace {
        Some(path) => steps::steps(out, &key, path, attempt.outcome.failure.is_some()),
        None => out.push_str(
            "<p class=\"muted\">no trace was written (run without --no-trace to see the steps)</p>\n",
        ),
    }
}

/// The failure: its code, attribution and place, its message (a snapshot's diff by
/// control as a list of changes), and the journey's lines around the failing one.
fn failure(out: &mut String, key: &str, f: &Failure) {
    let place = match (f.line, f.column) {
        (Some(l), Some(c)) => format!("{}:{l}:{c}", f.file.display()),
        (Some(l), None) => format!("{}:{l}", f.file.display()),
        _ => f.file.display().to_string(),
    };
    let _ = writeln!(
        out,
        "<div class=\"failure\" role=\"alert\" data-anchor=\"report.failure\" data-anchor-key=\"{}\">\
         <p class=\"head\"><strong>{}</strong> · {} · <code>{}</code></p>",
        esc(key),
        esc(&code_of(f)),
        esc(&attribution_of(f)),
        esc(&place),
    );
    message(out, &f.message);
    if let Some(lines) = f.line.and_then(|line| source_lines(f, line)) {
        out.push_str(&lines);
    }
    out.push_str("</div>\n");
}

/// A message: its lines of changes (`+ `, `- `, `~ `, as a snapshot's diff writes them)
/// as a list; a long one folded after its first lines.
fn message(out: &mut String, text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    let change = |l: &&str| ["+ ", "- ", "~ "].iter().any(|p| l.starts_with(p));
    let first_change = lines.iter().position(&change);
    let (head, changes) = match first_change {
        Some(at) if lines[at..].iter().all(change) => (&lines[..at], &lines[at..]),
        _ => (&lines[..], &lines[..0]),
    };
    let (shown, folded) = head.split_at(head.len().min(MESSAGE_LINES));
    let _ = write!(
        out,
        "<div class=\"message\">{}</div>",
        esc(&shown.join("\n"))
    );
    if !folded.is_empty() {
        let _ = write!(
            out,
            "<details><summary>{} more lines</summary><pre>{}</pre></details>",
            folded.len(),
            esc(&folded.join("\n"))
        );
    }
    if !changes.is_empty() {
        out.push_str("<ul class=\"diff\" aria-label=\"what changed\">");
        for line in changes {
            let class = match &line[..1] {
                "+" => "add",
                "-" => "remove",
                _ => "change",
            };
            let _ = write!(out, "<li class=\"{class}\">{}</li>", esc(line));
        }
        out.push_str("</ul>");
    }
}

/// The journey's lines around `line`, numbered, the failing one marked; `None` when the
/// file cannot be read (a journey given by a path that is gone).
fn source_lines(f: &Failure, line: usize) -> Option<String> {
    let text = std::fs::read_to_string(&f.file).ok()?;
    let first = line.saturating_sub(SOURCE_AROUND).max(1);
    let mut out = String::from("<pre class=\"source\" aria-label=\"the journey's lines\">");
    for (n, content) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        if n < first {
            continue;
        }
        if n > line + SOURCE_AROUND {
            break;
        }
        let _ = write!(
            out,
            "<span{}>{n:>4}  {}</span>",
            if n == line { " class=\"at\"" } else { "" },
            esc(&crate::protocol::cut(&masked(content)))
        );
    }
    out.push_str("</pre>");
    Some(out)
}

/// A journey's line as the report may show it: what a `fill` types (every string after its
/// first argument) and a string a `let` or `const` binds as it is are `"…"`, since either may be a
/// secret the run never shows (a password typed into a field) and the report is an artifact.
fn masked(line: &str) -> String {
    let trimmed = line.trim_start();
    let binding = trimmed.starts_with("let ") || trimmed.starts_with("const ");
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    // Inside a `fill(` call: its depth of brackets, and whether a string was its first
    // argument so far.
    let mut fill: Option<(usize, bool)> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '`' {
            let mut end = i + 1;
            while end < chars.len() && chars[end] != c {
                end += if chars[end] == '\\' { 2 } else { 1 };
            }
            let end = end.min(chars.len() - 1);
            let before = chars[..i].iter().rev().find(|c| !c.is_whitespace());
            let first_argument = matches!(fill, Some((1, false))) && before == Some(&'(');
            let bound = binding && fill.is_none() && before == Some(&'=');
            if bound || fill.is_some() && !first_argument {
                out.push(c);
                out.push('…');
                out.push(c);
            } else {
                out.extend(&chars[i..=end]);
            }
            if let Some((_, seen)) = fill.as_mut() {
                *seen = true;
            }
            i = end + 1;
            continue;
        }
        match (c, fill.as_mut()) {
            ('(', None)
                if line[..line.char_indices().nth(i).map_or(0, |(b, _)| b)].ends_with("fill") =>
            {
                fill = Some((1, false));
            }
            ('(' | '[' | '{', Some((depth, _))) => *depth += 1,
            (')' | ']' | '}', Some((depth, _))) => {
                *depth -= 1;
                if *depth == 0 {
                    fill = None;
                }
            }
            (',', Some((1, seen))) => *seen = true,
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_fill_types_and_a_bound_string_are_never_shown() {
        assert_eq!(
            masked(r#"fill("pay.password", "PLANTED-pw");"#),
            r#"fill("pay.password", "…");"#
        );
        assert_eq!(
            masked(r#"fill(#{node: 3}, "x\"y"); invoke("a.b");"#),
            r#"fill(#{node: 3}, "…"); invoke("a.b");"#
        );
        assert_eq!(masked(r#"let pw = "hunter2";"#), r#"let pw = "…";"#);
        assert_eq!(
            masked(r#"let r = invoke("claims.open", "1042");"#),
            r#"let r = invoke("claims.open", "1042");"#
        );
        assert_eq!(
            masked(r#"expect(false, "the list never shows 99 claims");"#),
            r#"expect(false, "the list never shows 99 claims");"#
        );
        assert_eq!(masked(r#"navigate("/claims");"#), r#"navigate("/claims");"#);
    }

    #[test]
    fn page_text_is_escaped() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }

    #[test]
    fn a_snapshot_diff_is_a_list_of_changes_and_a_long_message_is_folded() {
        let mut out = String::new();
        message(
            &mut out,
            "snapshot `s` does not match x.snap\n1 control added\n+ a.b button \"B\" (main)\n\
             - a.c link \"C\" (nav)\n~ a.d label: \"x\" → \"y\"",
        );
        assert!(out.contains("<li class=\"add\">+ a.b"), "{out}");
        assert!(out.contains("<li class=\"remove\">- a.c"), "{out}");
        assert!(out.contains("<li class=\"change\">~ a.d"), "{out}");
        let long: Vec<String> = (0..40).map(|i| format!("line {i}")).collect();
        let mut out = String::new();
        message(&mut out, &long.join("\n"));
        assert!(out.contains("<summary>28 more lines</summary>"), "{out}");
        assert!(!out.contains("<ul"), "{out}");
    }

    #[test]
    fn failed_journeys_come_first_and_open_the_others_folded() {
        let page = html_report(&crate::report::fixture::run());
        let at = |name: &str| {
            page.find(&format!("data-anchor-key=\"{name}\">"))
                .unwrap_or_else(|| panic!("{name} in the page"))
        };
        assert!(at("broken") < at("sub/flaky") && at("sub/flaky") < at("ok"));
        assert!(page.contains("<details class=\"journey failed\" data-status=\"failed\" data-search=\"broken journeys/broken.rhai expectation_failed expectation_failed\" open>"), "{page}");
        assert!(page.contains("<details class=\"journey passed\" data-status=\"passed\" data-search=\"ok journeys/ok.rhai \">"));
        assert!(page.contains("data-anchor-key=\"flaky\">flaky 1</button>"));
        assert!(!page.contains("data-anchor-key=\"expected_failure\""));
    }
}
