//! `waymark suggest ROUTE`: registry entries proposed for the controls a screen offers
//! without an anchor, each with the most robust matcher that finds it and nothing else on
//! that page. A report to paste from: nothing is written, nothing is healed.
//!
//! For each control the candidates come in the order Testing Library recommends (role and
//! name, label, placeholder, test id, text) and CSS last (its id, else its short path);
//! the page says what each would find (one round trip for them all), and the first that
//! finds exactly that control is proposed.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::registry::RoutePattern;
use crate::screen::Node;
use crate::tools::{Found, NodeFacts};

/// One proposed registry entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// The anchor id proposed.
    pub id: String,
    /// What the control is, in the words on screen.
    pub description: String,
    /// The matcher, as a YAML flow map (`{role: button, name: "Save"}`).
    pub matcher: String,
}

/// A control no candidate found alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmatched {
    /// Its role and name, as a read shows them.
    pub what: String,
    /// Where it is: region and short path.
    pub at: String,
}

/// A YAML (and JSON) string: JSON's quoting is valid YAML flow.
fn quote(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// A text as a matcher takes it: quoted, or, when it starts with `/` (which a matcher reads
/// as a pattern), a pattern for exactly it.
fn text(s: &str) -> String {
    if !s.starts_with('/') {
        return quote(s);
    }
    let mut escaped = String::new();
    for c in s.chars() {
        if "\\^$.*+?()[]{}|/".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    quote(&format!("/^{escaped}$/"))
}

/// Candidate matchers for one control, most robust first.
pub fn candidates(node: &Node, facts: &NodeFacts) -> Vec<String> {
    let mut out = Vec::new();
    let name = node.label.trim();
    if !name.is_empty() && node.role != "generic" {
        out.push(format!("{{role: {}, name: {}}}", node.role, text(name)));
    }
    for label in facts.labels.iter().filter(|l| !l.trim().is_empty()).take(1) {
        out.push(format!("{{label: {}}}", text(label)));
    }
    if let Some(p) = facts
        .placeholder
        .as_deref()
        .filter(|p| !p.trim().is_empty())
    {
        out.push(format!("{{placeholder: {}}}", text(p)));
    }
    if let Some(t) = facts.test_id.as_deref().filter(|t| !t.trim().is_empty()) {
        out.push(format!("{{test_id: {}}}", quote(t)));
    }
    if !facts.text.trim().is_empty() {
        out.push(format!("{{text: {}}}", text(&facts.text)));
    }
    if let Some(id) = facts.id.as_deref().filter(|id| is_css_ident(id)) {
        out.push(format!("{{css: {}}}", quote(&format!("#{id}"))));
    }
    if !facts.path.is_empty() {
        out.push(format!("{{css: {}}}", quote(&facts.path)));
    }
    out
}

/// Whether `id` can follow `#` in a selector unescaped.
fn is_css_ident(id: &str) -> bool {
    let mut chars = id.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Lowercase words of `s` joined by `-`, at most 32 characters (empty when it has none).
fn slug(s: &str) -> String {
    let mut out = String::new();
    for word in s
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if out.len() + word.len() + 1 > 32 {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out
}

/// An anchor id for `node`: its region, then its name (or role), unique among `taken`.
pub fn anchor_id(node: &Node, taken: &mut BTreeSet<String>) -> String {
    let mut region = slug(&node.region);
    if region.is_empty() || !region.starts_with(|c: char| c.is_ascii_lowercase()) {
        region = format!("r{region}");
    }
    let mut name = slug(&node.label);
    if name.is_empty() {
        name = slug(&node.role);
    }
    if name.is_empty() {
        name = format!("node-{}", node.node);
    }
    let base = format!("{}.{name}", region.replace('-', "_"));
    let mut id = base.clone();
    let mut n = 2;
    while !taken.insert(id.clone()) {
        id = format!("{base}-{n}");
        n += 1;
    }
    id
}

/// A screen id for `route`'s path: its literal segments (`home` for `/`).
pub fn screen_id(route: &str) -> String {
    let path = route.split(['?', '#']).next().unwrap_or("/");
    let words: Vec<String> = path
        .split('/')
        .map(slug)
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .collect();
    if words.is_empty() {
        "home".to_string()
    } else {
        words.join("-")
    }
}

/// Picks, for each node, the first candidate that found exactly it (the candidates were
/// sent as anchors `c<node>-<i>`).
pub fn choose(
    nodes: &[(Node, NodeFacts, Vec<String>)],
    found: &HashMap<String, Found>,
) -> (Vec<Suggestion>, Vec<Unmatched>) {
    let mut taken = BTreeSet::new();
    let (mut chosen, mut unmatched) = (Vec::new(), Vec::new());
    for (node, facts, candidates) in nodes {
        let unique = candidates.iter().enumerate().find(|(i, _)| {
            found
                .get(&candidate_id(node.node, *i))
                .is_some_and(|f| f.count == 1 && f.nodes.first() == Some(&node.node))
        });
        let what = if node.label.is_empty() {
            node.role.clone()
        } else {
            format!("{} {}", node.role, quote(&node.label))
        };
        match unique {
            Some((_, matcher)) => chosen.push(Suggestion {
                id: anchor_id(node, &mut taken),
                description: format!("the {what} in region {}", node.region),
                matcher: matcher.clone(),
            }),
            None => unmatched.push(Unmatched {
                what,
                at: format!("region {}, {}", node.region, facts.path),
            }),
        }
    }
    (chosen, unmatched)
}

/// The anchor id candidate `i` of `node` is sent as.
pub fn candidate_id(node: u64, i: usize) -> String {
    format!("c{node}.m{i}")
}

/// The candidates as a registry the page can count them with: one anchor per candidate.
pub fn candidate_registry(nodes: &[(Node, NodeFacts, Vec<String>)], tid: &str) -> String {
    let mut yaml = format!(
        "app: suggest\ntest_id_attribute: {}\nscreens:\n  - id: any\n    route: /*\nanchors:\n",
        quote(tid)
    );
    for (node, _, candidates) in nodes {
        for (i, m) in candidates.iter().enumerate() {
            let _ = writeln!(
                yaml,
                "  - id: {}\n    description: candidate\n    screens: [any]\n    match: {m}",
                candidate_id(node.node, i)
            );
        }
    }
    yaml
}

/// The report: a registry fragment to paste (screen and anchors), and the controls no
/// matcher found alone, as comments.
pub fn render(
    route: &str,
    url: &str,
    app: Option<&str>,
    screen: Option<&str>,
    chosen: &[Suggestion],
    unmatched: &[Unmatched],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Proposed by `waymark suggest {route}` on {url}: review, rename, then paste into\n\
         # anchors.yaml. Each matcher found exactly its control on this page; nothing was written."
    );
    if let Some(app) = app {
        let _ = writeln!(out, "app: {}", quote(app));
    }
    let id = match screen {
        Some(id) => {
            let _ = writeln!(out, "# (screen `{id}` is declared already)");
            id.to_string()
        }
        None => {
            let id = screen_id(route);
            let pattern = route.split('?').next().unwrap_or(route);
            let pattern = if RoutePattern::parse(pattern).is_ok() {
                pattern
            } else {
                "/"
            };
            let _ = writeln!(
                out,
                "screens:\n  - id: {id}\n    route: {}\n    description: {}",
                quote(pattern),
                quote(&format!("the screen at {pattern}"))
            );
            id
        }
    };
    let _ = writeln!(out, "anchors:");
    for s in chosen {
        let _ = writeln!(
            out,
            "  - id: {}\n    description: {}\n    screens: [{id}]\n    match: {}",
            s.id,
            quote(&s.description),
            s.matcher
        );
    }
    if chosen.is_empty() {
        let _ = writeln!(out, "  []");
    }
    if !unmatched.is_empty() {
        let _ = writeln!(
            out,
            "# No matcher found these alone: give each a test id (or a data-anchor), or\n\
             # scope one with `within:` by hand:"
        );
        for u in unmatched {
            let _ = writeln!(out, "#   {} ({})", u.what, u.at);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, role: &str, label: &str, region: &str) -> Node {
        Node {
            node: id,
            role: role.into(),
            label: label.into(),
            region: region.into(),
            disabled: false,
            visible: true,
        }
    }

    fn facts() -> NodeFacts {
        serde_json::from_value(serde_json::json!({
            "tag": "input", "id": "q", "placeholder": "Search", "test_id": null,
            "text": "", "labels": ["Find"], "path": "form > input"
        }))
        .unwrap()
    }

    #[test]
    fn candidates_come_most_robust_first_and_texts_starting_with_a_slash_are_patterns() {
        let c = candidates(&node(3, "searchbox", "Find", "main"), &facts());
        assert_eq!(
            c,
            [
                "{role: searchbox, name: \"Find\"}",
                "{label: \"Find\"}",
                "{placeholder: \"Search\"}",
                "{css: \"#q\"}",
                "{css: \"form > input\"}",
            ]
        );
        assert_eq!(text("/claims"), "\"/^\\\\/claims$/\"");
    }

    #[test]
    fn ids_are_region_and_name_made_unique() {
        let mut taken = BTreeSet::new();
        let n = node(1, "button", "Save draft!", "Order form");
        assert_eq!(anchor_id(&n, &mut taken), "order_form.save-draft");
        assert_eq!(anchor_id(&n, &mut taken), "order_form.save-draft-2");
        assert_eq!(
            anchor_id(&node(2, "button", "×", "page"), &mut taken),
            "page.button"
        );
        assert_eq!(screen_id("/claims/1042?x=1"), "claims");
        assert_eq!(screen_id("/"), "home");
    }
}
