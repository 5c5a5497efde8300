//! The in-page collector's script, written in parts by job under `js/` and joined at
//! compile time, in the order of the parts' names, into the one function expression the
//! page evaluates.
//!
//! The head opens the function and the last part closes it; each part between holds a
//! job's statements from the function's body. Function declarations are hoisted, so a part
//! may call one declared in a later part; the other statements (the constants, the state
//! kept on the window) run in the order the parts are joined in, and none reads a variable
//! that a later one sets. The expression calls the function at once: its body runs once per
//! document that installs it, and the last part returns the operation's function, which
//! the page keeps and each operation calls (see `00-head.js`). The tests below hold the join
//! to its shape.

/// Joins the parts into [`SOURCE`], and lists them by name for the tests: each part is
/// named once, so the script and the list cannot drift apart.
macro_rules! joined {
    ($($part:literal),+ $(,)?) => {
        /// The collector's whole script: `(function () { … return function (op, args) { … }; })()`.
        pub(super) const SOURCE: &str = concat!($(include_str!(concat!("js/", $part))),+);

        #[cfg(test)]
        const PARTS: &[(&str, &str)] = &[$(($part, include_str!(concat!("js/", $part)))),+];
    };
}

/// [`SOURCE`] as the page is sent it: the same lines, each without the spaces that indent
/// it, and a line that is only a comment left empty. A new document compiles the collector
/// before its own scripts (see `collector::early`), once in each renderer process and again
/// in part for each document, and half of the source is comments and indentation: sent
/// whole, it cost a run of the five shipped journeys 20-30 ms of its 1 s (README.md, "The
/// suite"). The lines stay where they are, so a line number in a page's error still names
/// the line of the joined parts. It is only sound while no string or template literal spans
/// lines (`nothing_spans_lines` holds the parts to that).
pub(super) fn sent() -> &'static str {
    static SENT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SENT.get_or_init(|| {
        let mut out = String::with_capacity(SOURCE.len() / 2);
        for line in SOURCE.lines() {
            let code = line.trim_start();
            if !code.starts_with("//") {
                out.push_str(code);
            }
            out.push('\n');
        }
        out
    })
}

joined!(
    "00-head.js",
    "01-names.js",
    "02-regions.js",
    "03-visibility.js",
    "04-state.js",
    "05-sheets.js",
    "06-match.js",
    "06-roots.js",
    "06-screens.js",
    "07-collect.js",
    "08-incremental.js",
    "09-audit.js",
    "10-act.js",
    "10-wait.js",
    "11-settle.js",
    "12-fill.js",
    "13-ops.js",
);

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The body's own function declarations (two spaces in; a nested one sits deeper), by
    /// name, in joined order.
    fn declared(source: &str) -> Vec<&str> {
        source
            .lines()
            .filter_map(|l| l.strip_prefix("  function "))
            .map(|rest| rest.split('(').next().unwrap_or(rest).trim())
            .collect()
    }

    #[test]
    fn the_parts_are_the_folder_in_name_order() {
        // bench/compare/collector.mjs and `collectorSource` in bench/compare/dense.mjs join the
        // folder's files in name order too.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/collector/js");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .expect("src/collector/js")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|n| n.ends_with(".js"))
            .collect();
        files.sort();
        let listed: Vec<&str> = PARTS.iter().map(|(name, _)| *name).collect();
        assert_eq!(files, listed);
        assert_eq!(
            SOURCE,
            PARTS.iter().map(|(_, text)| *text).collect::<String>()
        );
    }

    #[test]
    fn each_part_says_its_job_and_ends_its_last_line() {
        // A part whose last line had no newline would join the next part's first line to
        // it: after a comment, that line would be commented out.
        for (name, text) in PARTS {
            assert!(
                text.starts_with("// "),
                "{name} opens with a comment saying its job"
            );
            assert!(text.ends_with('\n'), "{name} ends with a newline");
        }
    }

    #[test]
    fn the_joined_script_is_one_function_expression() {
        let (head, body) = PARTS.split_first().expect("parts");
        let (last, middle) = body.split_last().expect("parts");
        assert!(
            head.1.contains("\n(function () {\n  'use strict';\n")
                && head.1.ends_with("  var t0 = performance.now();\n")
        );
        assert!(
            last.1.contains("\n  return function (op, args) {\n")
                && last.1.ends_with("\n    }\n  };\n})()\n"),
            "{} returns the operation's function, and closes and calls the collector's",
            last.0
        );
        assert_eq!(SOURCE.matches("function (op, args) {").count(), 1);
        // Between the head and the end, every line is the body's (indented) or a comment.
        for (name, text) in middle {
            for line in text.lines() {
                assert!(
                    line.is_empty() || line.starts_with("  ") || line.starts_with("// "),
                    "{name}: {line:?} sits outside the function's body"
                );
            }
        }
    }

    /// The sent form holds the same code at the same line numbers: each line is its
    /// source line's code with nothing before it, or empty where the source held only a
    /// comment; and it is much the smaller.
    #[test]
    fn the_sent_source_keeps_every_line_of_code_in_its_place() {
        let (sent, source) = (sent(), SOURCE);
        assert_eq!(sent.lines().count(), source.lines().count());
        for (n, (s, o)) in sent.lines().zip(source.lines()).enumerate() {
            let kept = !s.is_empty() && o.ends_with(s) && o[..o.len() - s.len()].trim().is_empty();
            let comment = s.is_empty() && (o.trim().is_empty() || o.trim_start().starts_with("//"));
            assert!(kept || comment, "line {}: {o:?} sent as {s:?}", n + 1);
            assert!(
                !s.starts_with(char::is_whitespace) && !s.starts_with("//"),
                "line {}: {s:?}",
                n + 1
            );
        }
        for landmark in [
            "  function read(max, since",
            "  return function (op, args) {",
        ] {
            let line = |text: &str| text.lines().position(|l| l.contains(landmark.trim_start()));
            assert_eq!(line(sent), line(source), "{landmark}");
        }
        assert!(
            sent.len() < source.len() * 2 / 3,
            "{} of {}",
            sent.len(),
            source.len()
        );
    }

    /// What makes dropping a line's indentation or a comment line unsound: a template
    /// literal (a backtick in code, not in a comment after it) or a string continued on
    /// the next line (a line ending in a backslash).
    #[test]
    fn nothing_spans_lines() {
        // A backtick outside a quoted string and before a comment. A regex literal holding
        // a quote hides what follows it on its line, which then goes untested: none of the
        // parts' regexes holds a backtick after one.
        fn template(line: &str) -> bool {
            let (mut quote, mut escaped, mut prev) = (None, false, ' ');
            for c in line.chars() {
                match quote {
                    Some(q) => {
                        if escaped {
                            escaped = false;
                        } else if c == '\\' {
                            escaped = true;
                        } else if c == q {
                            quote = None;
                        }
                    }
                    None if c == '/' && prev == '/' => return false,
                    None if c == '\'' || c == '"' => quote = Some(c),
                    None if c == '`' => return true,
                    None => {}
                }
                prev = c;
            }
            false
        }
        assert!(template("  var s = `a ${b}`;"));
        assert!(!template("  var s = '`' + a; // `b`"));
        assert!(!template("  // a `template` named"));
        for (name, text) in PARTS {
            for (n, line) in text.lines().enumerate() {
                assert!(
                    !template(line),
                    "{name}:{}: a template literal: {line}",
                    n + 1
                );
                assert!(
                    !line.ends_with('\\'),
                    "{name}:{}: a line continued: {line}",
                    n + 1
                );
            }
        }
    }

    #[test]
    fn every_function_of_the_body_is_declared_once() {
        let names = declared(SOURCE);
        let mut seen = BTreeSet::new();
        let twice: Vec<&str> = names.iter().copied().filter(|n| !seen.insert(*n)).collect();
        assert!(
            twice.is_empty(),
            "declared twice (the later one wins): {twice:?}"
        );
        // As many as the single file held before the split (109), the seven helpers of
        // names as Chromium computes them, and the twenty-three of registry matchers
        // (and of `waymark suggest`), and the six of waits (an action's for its target,
        // `wait_for`'s, `eventually`'s), the eleven more of issue 48's semantics
        // (visibility through `display: contents`, role's hidden elements, text and labels
        // as Playwright reads them, less the own-text one they replaced), and the twelve of
        // actionability, hash routes and screens (issue 48: stability, the press's hit, a
        // hashchange coming, a matcher's screen), and the page's own first read as its DOM
        // is parsed (issue 53), where a settle's time went, for the step's timing, the
        // document order of an anchor's controls for `nth` (issue 51), the browser's own
        // timers kept from a fake clock (issue 52), and the two of frames of another origin
        // (the region a frame names, where each sits), and the one that takes the runner's
        // function to push a document's first read with, and the test of one element that can
        // hide or mark others, taken out of the scan's loop, and the two that find which
        // style rules can hide an element by the selectors they are asked of the page with,
        // and the one that keeps the hiders made since a scan, each once (trustBoxes took
        // canHide's place: boxes trusted but for what the page's hiders hold), and the one
        // that tells a pseudo-element's content that can show in a name (issue 53), and the
        // role a role matcher takes (a summary has none, as in Playwright), and the nine that
        // find what clips a control's box and the part of it that shows (`in_viewport` as
        // Playwright's toBeInViewport), and one more since the hiders' and the clippers'
        // shared the test of a rule's selector (askable), the test that a sheet list is the
        // one an answer was kept for (sameSheets) and what a scan's tested elements are
        // after mutations (madeSince, in place of two), and the two that read
        // `aria-disabled` and `aria-readonly` as Playwright does (the nearest `aria-disabled`
        // that says true or false; `aria-readonly` where the role takes it), and the three
        // that keep an answer ASCII when a name holds a character past it (narrow,
        // its unit and its JSON form), and the one that says which element the main scan
        // found may hide, disable or clip others (mayBeTested), and the two that pack a
        // full read's records without a string of each (pack, and fields, the wire form's
        // order of fields, which wire shares), and the one that sends a read's parts with
        // the runner's function (partSender), and the one that tells the `hidden` attribute
        // from an element's own property (hiddenAttr), and the one that lists a root's
        // elements of a tag by the cheaper call a document has (tagged).
        assert_eq!(names.len(), 204);
        for name in [
            "read",
            "prepare",
            "settle",
            "finishFill",
            "elementsOf",
            "sheetFacts",
        ] {
            assert!(seen.contains(name), "{name} is declared");
        }
    }

    #[test]
    fn every_operation_the_runner_sends_has_its_case() {
        for op in [
            "read",
            "prepare",
            "settle",
            "early",
            "finish_fill",
            "fill",
            "elements",
            "facts",
            "handoff",
            "wait",
            "change",
            "pressed",
            "shared",
            "frames",
        ] {
            assert_eq!(SOURCE.matches(&format!("case '{op}':")).count(), 1, "{op}");
        }
    }
}
