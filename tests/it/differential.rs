//! The differential test against Playwright itself (issue 48, item 7): on pages built the
//! way popular frameworks build them, the elements waymark's matchers find must be exactly
//! those Playwright's locators find (`getByRole`, `getByText`, `getByLabel`,
//! `getByPlaceholder`, `getByTestId`), compared by a marker attribute (`data-dt-id`); a
//! read's `visible` must equal Playwright's `isVisible()`; names must equal Chromium's
//! accessibility tree; where `isVisible()` holds, a read's `in_viewport` must be what
//! `toBeInViewport()` says. Two sets of pages: the fixture corpus (`tests/fixtures/differential/`,
//! each page naming its locators in a `<script type="application/json" id="dt-locators">`),
//! where agreement must be whole, and pages from a seeded generator of random DOM trees
//! (`generate`), where every disagreement left must be one the README documents.
//!
//! Playwright's side is `tests/differential/playwright.mjs`, run once with every page (one
//! Playwright process, one browser: Debian's Chromium or its headless shell, the browser
//! waymark picks); waymark's side asks the matchers in-process (`Tools::mark_matches`), one
//! tab for every page, while Playwright works. `WAYMARK_DIFFERENTIAL_PAGES` sets how many
//! pages are generated (1,000 by default; the long run is 10,000), `WAYMARK_DIFFERENTIAL_SEED`
//! the seed. Without node or `playwright-core` (`npm install --prefix target/playwright
//! playwright-core`, or `WAYMARK_PLAYWRIGHT_CORE`), the tests skip, except under `CI=true`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use serde_json::{Value, json};
use waymark::registry::Registry;
use waymark::tools::{Found, ToolOptions, Tools};

use crate::harness::{block_on, ok, shared};
use crate::pages;

/// The marker attribute every element of a page carries, by which answers are compared.
const MARK: &str = "data-dt-id";

/// A page and the locators to ask of it (in the script's form, see playwright.mjs).
pub struct Page {
    pub name: String,
    pub html: String,
    pub locators: Vec<Value>,
}

/// Where `playwright-core` is, or why the test cannot run.
fn playwright_core() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("WAYMARK_PLAYWRIGHT_CORE") {
        return Ok(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/playwright/node_modules/playwright-core");
    if p.join("package.json").is_file() {
        Ok(p)
    } else {
        Err("no playwright-core: `npm install --prefix target/playwright playwright-core` (or WAYMARK_PLAYWRIGHT_CORE)".into())
    }
}

/// node and playwright-core, or `None` where either is missing (see
/// `harness::oracle_skipped`).
fn oracle() -> Option<PathBuf> {
    let why = if which::which("node").is_err() {
        "no `node` on PATH".to_string()
    } else {
        match playwright_core() {
            Ok(p) => return Some(p),
            Err(why) => why,
        }
    };
    crate::harness::oracle_skipped(&why);
    None
}

/// Playwright's answers for `pages` (served at `urls`), one JSON value per page, by URL.
fn playwright(core: &Path, pages: &[Page], urls: &[String]) -> HashMap<String, Value> {
    let browser = waymark::browser::find_browser(None, false)
        .unwrap_or_else(|e| panic!("the browser waymark picks: {e}"));
    let input = json!({
        "browser": browser,
        "mark": MARK,
        "pages": pages.iter().zip(urls).map(|(p, url)| json!({"url": url, "locators": p.locators})).collect::<Vec<_>>(),
    });
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/playwright.mjs");
    let mut child = Command::new("node")
        .arg(&script)
        .env("WAYMARK_PLAYWRIGHT_CORE", core)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start node");
    let mut stdin = child.stdin.take().expect("node's stdin");
    let body = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(body.as_bytes()));
    let out = child.wait_with_output().expect("node's answer");
    writer
        .join()
        .expect("the writer")
        .expect("write the pages to node");
    assert!(
        out.status.success(),
        "playwright.mjs failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line from playwright.mjs");
            (v["url"].as_str().unwrap_or_default().to_string(), v)
        })
        .collect()
}

/// A JSON string is a YAML double-quoted string.
fn quoted(s: &str) -> String {
    Value::from(s).to_string()
}

fn pattern(t: &Value) -> String {
    match t.get("re").and_then(Value::as_str) {
        Some(re) => quoted(&format!("/{re}/{}", t["f"].as_str().unwrap_or(""))),
        None => quoted(t["s"].as_str().unwrap_or("")),
    }
}

/// The registry matcher for a locator of the script's form.
fn matcher(l: &Value) -> String {
    match l["kind"].as_str().unwrap_or("") {
        "role" => {
            let mut m = format!("role: {}", l["role"].as_str().unwrap_or(""));
            if !l["name"].is_null() {
                m += &format!(", name: {}", pattern(&l["name"]));
            }
            if l["hidden"].as_bool() == Some(true) {
                m += ", hidden: true";
            }
            format!("{{{m}}}")
        }
        "text" => format!("{{text: {}}}", pattern(&l["t"])),
        "label" => format!("{{label: {}}}", pattern(&l["t"])),
        "placeholder" => format!("{{placeholder: {}}}", pattern(&l["t"])),
        _ => format!("{{test_id: {}}}", quoted(l["v"].as_str().unwrap_or(""))),
    }
}

/// The anchor that asks locator `i` of a page: `dt.l{j}` for the first locator `j` with the
/// same matcher (the registry refuses two anchors with one matcher on one screen).
fn anchor_of(locators: &[Value], i: usize) -> String {
    let mine = matcher(&locators[i]);
    let first = (0..i).find(|&j| matcher(&locators[j]) == mine).unwrap_or(i);
    format!("dt.l{first}")
}

/// The registry asking `locators` of a page (see [`anchor_of`]), and every marked element
/// (`dt.all`).
fn registry_of(locators: &[Value]) -> Registry {
    let mut yaml = String::from("app: dt\nscreens:\n  - id: page\n    route: /p/*\nanchors:\n");
    let entry = |id: &str, m: &str| {
        format!(
            "  - id: {id}\n    description: d\n    screens: [page]\n    keyed: true\n    match: {m}\n    key: {{attribute: {MARK}}}\n"
        )
    };
    for (i, l) in locators.iter().enumerate() {
        let id = anchor_of(locators, i);
        if id == format!("dt.l{i}") {
            yaml += &entry(&id, &matcher(l));
        }
    }
    yaml += &entry(
        "dt.all",
        &format!("{{css: {}}}", quoted(&format!("[{MARK}]"))),
    );
    Registry::parse(&yaml, "differential.yaml").unwrap_or_else(|e| panic!("{}\n{yaml}", e.report()))
}

/// Whitespace collapsed and icon-font glyphs left out, as names are compared (as the
/// perception audit compares them: Chromium keeps some edge spaces, and the glyphs).
fn collapsed(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\u{e000}'..='\u{f8ff}'))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The README's reason for a disagreement on a name holding an icon-font glyph.
const GLYPH: &str = "icon-font glyphs are left out of names (Playwright keeps them)";

/// The README's reason for a disagreement on a `display: contents` control under a hidden
/// ancestor, whose children Playwright counts hidden but itself shown.
const CONTENTS: &str =
    "a display: contents control under a hidden ancestor is named with its children";

/// The README's reason for a disagreement on `in_viewport` of a box with an edge within half
/// a pixel of the window's.
const EDGE: &str = "in_viewport is told from boxes in whole pixels";

/// The README's reason for a disagreement on a select with a `readonly` attribute.
const READONLY_SELECT: &str =
    "a select with a readonly attribute is editable (the attribute does not apply to it)";

/// The roles whose names are compared with Chromium's: those a person finds a control by.
const NAMED: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "textbox",
    "menuitem",
    "treeitem",
    "tab",
    "heading",
    "switch",
    "option",
    "columnheader",
    "cell",
];

/// One kind's tally, and its disagreements (each with the README's reason, when documented).
#[derive(Default)]
struct Tally {
    asked: usize,
    agreed: usize,
    differences: Vec<(String, Option<&'static str>)>,
}

/// Agreement per kind over `pages`.
#[derive(Default)]
struct Agreement(BTreeMap<&'static str, Tally>);

impl Agreement {
    fn count(
        &mut self,
        kind: &'static str,
        same: bool,
        reason: Option<&'static str>,
        difference: impl FnOnce() -> String,
    ) {
        let t = self.0.entry(kind).or_default();
        t.asked += 1;
        if same {
            t.agreed += 1;
        } else {
            t.differences.push((difference(), reason));
        }
    }

    fn print(&self, what: &str) {
        eprintln!("differential agreement on {what}:");
        for (kind, t) in &self.0 {
            let documented = t.differences.iter().filter(|d| d.1.is_some()).count();
            eprintln!(
                "  {kind:<12} {:>6}/{:<6} {:>6.2} % agree; {documented} documented difference(s), {} not",
                t.agreed,
                t.asked,
                if t.asked == 0 {
                    100.0
                } else {
                    100.0 * t.agreed as f64 / t.asked as f64
                },
                t.differences.len() - documented
            );
        }
        for (kind, t) in &self.0 {
            for (d, reason) in t.differences.iter().take(20) {
                eprintln!(
                    "  differs ({kind}, {}): {d}",
                    reason.unwrap_or("NOT DOCUMENTED")
                );
            }
            if t.differences.len() > 20 {
                eprintln!("  … and {} more ({kind})", t.differences.len() - 20);
            }
        }
    }

    /// Every disagreement, or only those the README does not document.
    fn differences(&self, documented_too: bool) -> Vec<String> {
        self.0
            .values()
            .flat_map(|t| t.differences.iter())
            .filter(|d| documented_too || d.1.is_none())
            .map(|d| d.0.clone())
            .collect()
    }
}

fn sorted(v: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = v.into_iter().collect();
    v.sort();
    v.dedup();
    v
}

/// Both sides' answers on `pages`, compared.
fn compare(pages: &[Page]) -> Option<Agreement> {
    let core = oracle()?;
    // For a person looking into a disagreement: every page, as a file.
    if let Some(dir) = std::env::var_os("WAYMARK_DIFFERENTIAL_DUMP") {
        std::fs::create_dir_all(&dir).expect("the dump directory");
        for p in pages {
            std::fs::write(Path::new(&dir).join(format!("{}.html", p.name)), &p.html)
                .expect("dump a page");
        }
    }
    let routes: Vec<String> = pages
        .iter()
        .map(|p| pages::put(&p.name, p.html.clone()))
        .collect();
    let urls: Vec<String> = routes
        .iter()
        .map(|r| pages::base().join(r).expect("a page URL").to_string())
        .collect();
    // Playwright works in its own process while waymark reads here.
    let theirs = std::thread::scope(|s| {
        let theirs = s.spawn(|| {
            let start = std::time::Instant::now();
            let answers = playwright(&core, pages, &urls);
            eprintln!(
                "differential: Playwright answered in {:.1} s",
                start.elapsed().as_secs_f64()
            );
            answers
        });
        let start = std::time::Instant::now();
        let ours = ours(pages, &routes);
        eprintln!(
            "differential: waymark answered in {:.1} s",
            start.elapsed().as_secs_f64()
        );
        (theirs.join().expect("Playwright's side"), ours)
    });
    let (theirs, ours) = theirs;
    let mut agreement = Agreement::default();
    for ((page, url), ours) in pages.iter().zip(&urls).zip(&ours) {
        let found = &ours.found;
        let pw = theirs
            .get(url)
            .unwrap_or_else(|| panic!("Playwright did not answer for {url}"));
        let set = |key: &str| -> HashSet<&str> {
            pw[key]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default()
        };
        let (glyphs, contents, in_view, edge) = (
            set("glyphs"),
            set("contents"),
            set("in_viewport"),
            set("edge"),
        );
        for (i, l) in page.locators.iter().enumerate() {
            let kind: &'static str = match l["kind"].as_str().unwrap_or("") {
                "role" => "role",
                "text" => "text",
                "label" => "label",
                "placeholder" => "placeholder",
                _ => "test_id",
            };
            let mine = sorted(
                found
                    .get(&anchor_of(&page.locators, i))
                    .map(|f| {
                        f.marks
                            .iter()
                            .filter_map(|m| m.mark.clone())
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default(),
            );
            let answer = &pw["found"][i];
            let theirs = match answer.as_array() {
                Some(a) => sorted(a.iter().filter_map(|m| m.as_str().map(String::from))),
                None => {
                    agreement.count(kind, false, None, || {
                        format!("{}: {} Playwright: {answer}", page.name, matcher(l))
                    });
                    continue;
                }
            };
            // Differing only on elements whose text holds an icon-font glyph, on a name: the
            // glyph is left out of waymark's names (and Chromium's, as compared), not of
            // Playwright's.
            let differing: Vec<&String> = mine
                .iter()
                .filter(|m| !theirs.contains(m))
                .chain(theirs.iter().filter(|m| !mine.contains(m)))
                .collect();
            let all_in = |set: &HashSet<&str>| {
                !differing.is_empty() && differing.iter().all(|m| set.contains(m.as_str()))
            };
            let reason = if kind != "text" && all_in(&glyphs) {
                Some(GLYPH)
            } else if kind == "role" && all_in(&contents) {
                Some(CONTENTS)
            } else {
                None
            };
            agreement.count(kind, mine == theirs, reason, || {
                format!(
                    "{}: {} waymark {mine:?}, Playwright {theirs:?}",
                    page.name,
                    matcher(l)
                )
            });
        }
        let shown: HashSet<&str> = pw["visible"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let all = found
            .get("dt.all")
            .map(|f| f.marks.as_slice())
            .unwrap_or_default();
        for m in all {
            let Some(mark) = m.mark.as_deref() else {
                continue;
            };
            let theirs = shown.contains(mark);
            agreement.count("visible", m.visible == theirs, None, || {
                format!(
                    "{}: [{MARK}={mark}] waymark {}, Playwright {theirs}",
                    page.name, m.visible
                )
            });
            // In the viewport, where Playwright's `isVisible()` holds: a control that is not
            // visible is never in it (Playwright's `toBeInViewport()` asks only the
            // intersection; the README's "In the viewport").
            if theirs {
                let mine = ours
                    .controls
                    .get(mark)
                    .and_then(|c| c["in_viewport"].as_bool());
                let theirs = in_view.contains(mark);
                let reason = edge.contains(mark).then_some(EDGE);
                agreement.count("in_viewport", mine == Some(theirs), reason, || {
                    format!(
                        "{}: [{MARK}={mark}] waymark {mine:?}, Playwright {theirs}",
                        page.name
                    )
                });
            }
            let ax = &pw["ax"][mark];
            if ax.is_null()
                || ax["ignored"].as_bool() == Some(true)
                || !NAMED.contains(&m.role.as_str())
            {
                continue;
            }
            let theirs = collapsed(ax["name"].as_str().unwrap_or(""));
            // The name the matchers saw, and the label the screen read sent (packed, and
            // escaped past ASCII: see `narrow` in src/collector/js/07-collect.js).
            let read = ours
                .controls
                .get(mark)
                .and_then(|c| c["label"].as_str())
                .map(collapsed);
            let same = collapsed(&m.name) == theirs && read.as_ref().is_none_or(|r| *r == theirs);
            agreement.count("name", same, None, || {
                format!(
                    "{}: [{MARK}={mark}] {} waymark {:?} (read {read:?}), Chromium {theirs:?}",
                    page.name, m.role, m.name
                )
            });
        }
        // The states of the controls that carry data-dt-state, as Playwright's isDisabled(),
        // isChecked() and isEditable() say them, where they answer (see `state_of`).
        if let Some(states) = pw["states"].as_object() {
            for (mark, theirs) in states {
                let mine = ours.controls.get(mark);
                for kind in ["disabled", "checked", "editable"] {
                    let Some(want) = theirs[kind].as_bool() else {
                        continue;
                    };
                    let got = mine.and_then(|c| state_of(c, kind));
                    let Some(got) = got else {
                        if kind != "disabled" {
                            continue;
                        }
                        agreement.count(kind, false, None, || {
                            format!("{}: [{MARK}={mark}] not in waymark's read", page.name)
                        });
                        continue;
                    };
                    let reason = (kind == "editable" && theirs["readonly_select"] == true)
                        .then_some(READONLY_SELECT);
                    agreement.count(kind, got == want, reason, || {
                        format!(
                            "{}: [{MARK}={mark}] {kind}: waymark {got}, Playwright {want}",
                            page.name
                        )
                    });
                }
            }
        }
    }
    Some(agreement)
}

/// A control's state as Playwright's `isDisabled()`, `isChecked()` or `isEditable()` asks
/// it, from its screen JSON; `None` where waymark has no such state for it (a checked state
/// of what is not checkable, an editable one of what takes no typing: Playwright's
/// `isEditable()` calls a checkbox editable when it is enabled, and waymark does not).
fn state_of(control: &Value, kind: &str) -> Option<bool> {
    match kind {
        "disabled" => Some(control["disabled"].as_bool().unwrap_or(false)),
        "checked" => control["checked"].as_bool(),
        _ => {
            let typed = matches!(
                control["role"].as_str(),
                Some("textbox" | "searchbox" | "combobox" | "spinbutton")
            );
            typed.then(|| control["editable"].as_bool().unwrap_or(false))
        }
    }
}

/// waymark's answers on one page: every locator's elements and every marked one, and each
/// marked element as a control of the screen `navigate` read (its JSON), by mark.
struct Ours {
    found: HashMap<String, Found>,
    controls: HashMap<String, Value>,
}

/// waymark's answers on each page, in one tab.
fn ours(pages: &[Page], routes: &[String]) -> Vec<Ours> {
    // Every marked element is a control of each screen read (keyed by its mark), for its
    // `in_viewport`.
    let base = Arc::new(
        Registry::parse(
            &format!(
                "app: dt\nscreens:\n  - id: page\n    route: /p/*\nanchors:\n  - id: dt.all\n    description: d\n    screens: [page]\n    keyed: true\n    match: {{css: \"[{MARK}]\"}}\n    key: {{attribute: {MARK}}}\n"
            ),
            "base.yaml",
        )
        .unwrap_or_else(|e| panic!("{}", e.report())),
    );
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    let tools = Tools::new(tab, pages::base(), base, ToolOptions::default());
    block_on(async {
        let mut out = Vec::with_capacity(pages.len());
        for (page, route) in pages.iter().zip(routes) {
            let registry = registry_of(&page.locators);
            let screen = serde_json::to_value(ok(&tools.navigate(route).await))
                .expect("a screen serializes");
            let controls = screen["controls"]
                .as_array()
                .expect("the screen's controls")
                .iter()
                .filter_map(|c| Some((c["key"].as_str()?.to_string(), c.clone())))
                .collect();
            let matchers = registry.matchers().expect("the page's matchers");
            let found = tools
                .mark_matches(matchers, MARK)
                .await
                .unwrap_or_else(|e| panic!("{}: {e:?}", page.name));
            out.push(Ours { found, controls });
        }
        out
    })
}

/// The fixture corpus: every page of `tests/fixtures/differential/`, with its locators.
fn corpus() -> Vec<Page> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/differential");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the differential corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let html = std::fs::read_to_string(path).expect("a corpus page");
            let open = "<script type=\"application/json\" id=\"dt-locators\">";
            let at = html
                .find(open)
                .unwrap_or_else(|| panic!("{}: no dt-locators", path.display()))
                + open.len();
            let end = at + html[at..].find("</script>").expect("the locators' end");
            let locators: Vec<Value> = serde_json::from_str(&html[at..end])
                .unwrap_or_else(|e| panic!("{}: the locators: {e}", path.display()));
            let name = format!(
                "corpus-{}",
                path.file_stem().unwrap_or_default().to_string_lossy()
            );
            Page {
                name,
                html,
                locators,
            }
        })
        .collect()
}

#[test]
fn the_fixture_corpus_gets_playwrights_answers_exactly() {
    let pages = corpus();
    assert!(!pages.is_empty(), "the corpus has its pages");
    let Some(agreement) = compare(&pages) else {
        return;
    };
    agreement.print(&format!("the fixture corpus ({} pages)", pages.len()));
    let differences = agreement.differences(true);
    assert!(
        differences.is_empty(),
        "{} disagreement(s) on the corpus:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[test]
fn generated_pages_get_playwrights_answers_but_for_documented_differences() {
    let n: usize = std::env::var("WAYMARK_DIFFERENTIAL_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let seed: u64 = std::env::var("WAYMARK_DIFFERENTIAL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    let pages: Vec<Page> = (0..n).map(|i| crate::generate::page(seed, i)).collect();
    let Some(agreement) = compare(&pages) else {
        return;
    };
    agreement.print(&format!("{n} generated pages (seed {seed})"));
    let left = agreement.differences(false);
    assert!(
        left.is_empty(),
        "{} undocumented disagreement(s):\n{}",
        left.len(),
        left.join("\n")
    );
}
