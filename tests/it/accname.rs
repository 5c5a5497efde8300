//! Accessible names as Chromium computes them: each case of the `tests/fixtures/accname/`
//! pages (the constructs of the accname spec's own tests) read through the tools with the
//! audit on, waymark's `label` set against Chromium's name and the known answer. Chromium is
//! the reference: the gate is how often waymark agrees with it.

use std::collections::BTreeMap;

use crate::fixtures::audited_tools;
use crate::harness::{Probe, ProbedTab, block_on, control, ok, open};
use waymark::audit::Property;
use waymark::screen::InferredState;
use waymark::tools::{ToolOptions, Tools};

const PAGES: [&str; 4] = ["labelledby", "content", "host", "shadow"];

/// The least share of cases on which waymark must name a control as Chromium does.
const AGREEMENT: f64 = 0.95;

/// Each case's anchor and known answer, as the page writes them (`data-anchor` and then
/// `data-expected-name` on the same element; no entities in the answers).
fn cases(page: &str) -> Vec<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/fixtures/accname/{page}.html"));
    let html = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {page}: {e}"));
    let attr = |s: &str, name: &str| -> Option<String> {
        let at = s.find(&format!("{name}=\""))? + name.len() + 2;
        let end = s[at..].find('"')?;
        Some(s[at..at + end].to_string())
    };
    html.split('<')
        .filter_map(|tag| {
            let tag = tag.split('>').next()?;
            let anchor = attr(tag, " data-anchor")?;
            let want = attr(tag, " data-expected-name")?;
            Some((anchor, want))
        })
        .collect()
}

/// One case's three readings.
struct Reading {
    anchor: String,
    want: String,
    waymark: Option<String>,
    chromium: Option<String>,
}

fn readings(page: &str) -> Vec<Reading> {
    let tools = audited_tools();
    block_on(async {
        let screen = open(&tools, &format!("/accname/{page}.html")).await;
        let audit = tools
            .last_audit()
            .expect("an audited read carries its audit");
        assert!(audit.unavailable.is_none(), "{page}: {audit:?}");
        // Chromium's name is the label unless the audit found the two apart, or found no
        // exposed node to name.
        let mut apart: BTreeMap<String, Option<String>> = BTreeMap::new();
        for f in &audit.faults {
            match f.property {
                Property::Name => {
                    apart.insert(f.anchor.clone(), Some(f.accessibility.clone()));
                }
                Property::Presence => {
                    apart.insert(f.anchor.clone(), None);
                }
                _ => {}
            }
        }
        let out = cases(page)
            .into_iter()
            .map(|(anchor, want)| {
                let label = screen
                    .controls
                    .iter()
                    .find(|c| c.anchor == anchor.as_str())
                    .map(|c| c.label.to_string());
                let chromium = match apart.get(&anchor) {
                    Some(name) => name.clone(),
                    None => label.clone(),
                };
                Reading {
                    anchor,
                    want,
                    waymark: label,
                    chromium,
                }
            })
            .collect();
        tools.close().await;
        out
    })
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn labels_agree_with_chromium_on_the_accname_cases() {
    let all: Vec<Reading> = PAGES.iter().flat_map(|p| readings(p)).collect();
    let same = |a: &Option<String>, b: &str| a.as_deref().map(norm).as_deref() == Some(&*norm(b));
    let (mut agree, mut right, mut chromium_right) = (0, 0, 0);
    let mut misses = Vec::new();
    for r in &all {
        let with_chromium = match (&r.waymark, &r.chromium) {
            (Some(w), Some(c)) => norm(w) == norm(c),
            _ => false,
        };
        agree += usize::from(with_chromium);
        right += usize::from(same(&r.waymark, &r.want));
        chromium_right += usize::from(same(&r.chromium, &r.want));
        if !with_chromium || !same(&r.waymark, &r.want) {
            misses.push(format!(
                "{:<14} {} waymark {:?}  chromium {:?}  expected {:?}",
                r.anchor,
                if with_chromium { "  " } else { "≠ " },
                r.waymark,
                r.chromium,
                r.want
            ));
        }
    }
    let n = all.len();
    let pct = |k: usize| 100.0 * k as f64 / n as f64;
    eprintln!("{}", misses.join("\n"));
    eprintln!(
        "accname: waymark matches the known answer on {right} of {n} cases ({:.1} %), \
         Chromium on {chromium_right} ({:.1} %)",
        pct(right),
        pct(chromium_right)
    );
    eprintln!(
        "accname: waymark agrees with Chromium on {agree} of {n} cases ({:.1} %)",
        pct(agree)
    );
    assert!(n >= 60, "only {n} cases");
    assert!(
        agree as f64 >= AGREEMENT * n as f64,
        "waymark agrees with Chromium on {agree} of {n} cases"
    );
}

/// A page's three reads, each with what it is: the first, a delta after `rename` ran in
/// the page, and a whole read. After each, the audit (Chromium's own accessibility tree
/// beside the read) must find no name apart from waymark's.
async fn three_reads(
    tools: &Tools<ProbedTab>,
    probe: &Probe,
    route: &str,
    rename: &str,
) -> Vec<(&'static str, InferredState)> {
    let names_apart = |when: &str| {
        let audit = tools
            .last_audit()
            .expect("an audited read carries its audit");
        let apart: Vec<_> = audit
            .faults
            .iter()
            .filter(|f| f.property == Property::Name)
            .map(|f| format!("{} {:?}", f.anchor, f.accessibility))
            .collect();
        assert!(
            apart.is_empty(),
            "{route}, {when}: named apart from Chromium: {apart:?}"
        );
    };
    let first = open(tools, route).await;
    names_apart("first read");
    probe.run(rename).await;
    let delta = ok(&tools.read_screen().await).clone();
    assert_eq!(
        probe.read_kinds().last().map(String::as_str),
        Some("delta"),
        "{route}"
    );
    names_apart("a delta");
    let whole = ok(&tools.read_screen_whole().await).clone();
    names_apart("a whole read");
    vec![
        ("first read", first),
        ("a delta", delta),
        ("a whole read", whole),
    ]
}

/// Names past ASCII (an accented letter, an apostrophe, a dash, an emoji, Japanese, an icon,
/// a field's value), which the collector sends escaped so that its answer stays ASCII (see
/// `narrow` in `src/collector/js/07-collect.js`), come back whole and as Chromium names
/// them: in the first read, in a delta after a script renamed one, and in a whole read;
/// and on a page named mostly in Japanese, where a read stops escaping partway, all the
/// same.
#[test]
fn names_past_ascii_come_back_as_chromium_gives_them() {
    let (tools, probe) = crate::fixtures::probed_tools_with(ToolOptions {
        audit: true,
        ..Default::default()
    });
    let expected: Vec<(String, String)> = cases("wide")
        .into_iter()
        .chain([("wide.controls".into(), "a\u{1b}b\u{7f}c ★".into())])
        .collect();
    block_on(async {
        let rename = "document.querySelector('[data-anchor=\"wide.apostrophe\"]').textContent = 'Don’t save — ever 🙅'";
        for (when, screen) in three_reads(&tools, &probe, "/accname/wide.html", rename).await {
            assert_eq!(screen.title, "Inbox — Mail ✉", "{when}");
            for (anchor, want) in &expected {
                let want = match anchor.as_str() {
                    "wide.apostrophe" if when != "first read" => "Don’t save — ever 🙅",
                    _ => want.as_str(),
                };
                let c = control(&screen, anchor, None);
                assert_eq!(c.label, want, "{when}: {anchor}");
                assert_eq!(c.region, "Start → Inbox", "{when}: {anchor}");
            }
            let field = control(&screen, "wide.field", None);
            assert_eq!(field.value.as_deref(), Some("Zoë 🚀"), "{when}");
        }
        // Each answer crossed as ASCII alone, its Latin-1 letters (é, ×, ë) escaped as the
        // rest are: one of them left as it is doubled the cost of sending all of it.
        let past = probe.past_ascii();
        assert!(
            past.len() >= 3 && past.iter().all(|p| !p),
            "answers past ASCII: {past:?}"
        );

        let rename =
            "document.querySelector('[data-anchor-key=\"項39\"]').textContent = '最後 → 終わり'";
        let route = "/accname/wide-japanese.html";
        for (when, screen) in three_reads(&tools, &probe, route, rename).await {
            assert_eq!(screen.title, "受信トレイ — メール", "{when}");
            for i in 0..40 {
                let key = format!("項{i}");
                let c = control(&screen, "jp.item", Some(&key));
                let want = match i {
                    39 if when != "first read" => "最後 → 終わり".to_string(),
                    _ => format!("保存する項目 {i}{}", if i % 2 == 1 { " ’" } else { "" }),
                };
                assert_eq!(c.label, want, "{when}: {key}");
                assert_eq!(c.region, "ホーム", "{when}: {key}");
            }
        }
        tools.close().await;
    });
}
