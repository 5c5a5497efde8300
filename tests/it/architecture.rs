//! The tree keeps the design: no two top-level modules import each other (directly or round
//! a longer loop), each imports only modules listed above it in ARCHITECTURE.md's
//! "Modules, leaves first" (or a leaf), only `browser` names chromiumoxide, no file grows
//! past a redesign's size, each command's entry point stays small, and ARCHITECTURE.md's
//! module map names every top-level module there is.
//!
//! The imports are read from the source (every `crate::name` outside tests and comments), so
//! a cycle or an import against the order fails here, naming one place that imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Past this many lines of non-test code a file is a redesign (ARCHITECTURE.md).
const FILE_LINES: usize = 800;

/// A command's entry point (`src/cmd/*.rs`) is at most this long.
const ENTRY_LINES: usize = 150;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The code of a file before its unit tests, without comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers `crate::a` and `crate::{a::…, b}` name.
fn imported(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The names at the group's own depth: `{a::{B, C}, d}` names `a` and `d`.
            let (mut depth, mut start) = (0usize, true);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        out.push(ident(&group[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|name| !name.is_empty());
    out
}

/// `src/` of the package.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level module a file belongs to (`None`: `lib.rs`, `main.rs`).
fn top_module(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(src()).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.trim_end_matches(".rs");
    (!matches!(name, "lib" | "main")).then(|| name.to_string())
}

/// Each top-level module's imports of the others, with one place that imports it.
fn graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("read lib.rs");
    // `pub use screen::audit;` at the top: `crate::audit` is `screen`'s.
    let aliases: BTreeMap<String, String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub use ")?.strip_suffix(';'))
        .filter_map(|path| {
            let (module, alias) = path.split_once("::")?;
            Some((alias.rsplit("::").next()?.to_string(), module.to_string()))
        })
        .collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for path in sources(&src()) {
        let Some(from) = top_module(&path) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("read a source file");
        let edges = graph.entry(from.clone()).or_default();
        for name in imported(&code(&text)) {
            let to = aliases.get(&name).cloned().unwrap_or(name);
            if to != from {
                let place = path.strip_prefix(src()).unwrap_or(&path).display();
                edges.entry(to).or_insert_with(|| format!("src/{place}"));
            }
        }
    }
    graph
}

/// A loop in `graph`, as the modules on it, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Option<Vec<String>> {
    fn visit<'g>(
        node: &'g str,
        graph: &'g BTreeMap<String, BTreeMap<String, String>>,
        path: &mut Vec<&'g str>,
        done: &mut BTreeSet<&'g str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| *n == node) {
            let mut lp: Vec<String> = path[at..].iter().map(|s| s.to_string()).collect();
            lp.push(node.to_string());
            return Some(lp);
        }
        if !done.insert(node) {
            return None;
        }
        path.push(node);
        for next in graph.get(node).into_iter().flat_map(|e| e.keys()) {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(start, graph, &mut Vec::new(), &mut done))
}

/// ARCHITECTURE.md.
fn architecture() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
        .expect("read ARCHITECTURE.md")
}

/// The modules of the table under "## Modules, leaves first", in its order.
fn documented_order(map: &str) -> Vec<String> {
    let section = map
        .split("## Modules, leaves first")
        .nth(1)
        .expect("ARCHITECTURE.md has a \"Modules, leaves first\" section");
    let section = section.split("\n## ").next().unwrap_or_default();
    section
        .lines()
        .filter_map(|line| line.strip_prefix("| `")?.split_once('`'))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// Each import of a module listed below the importer in `order` (a leaf, a module that
/// imports none, may be listed anywhere), as `from -> to (place)`; and each module of the
/// graph the order does not list.
fn against_the_order(
    graph: &BTreeMap<String, BTreeMap<String, String>>,
    order: &[String],
) -> Vec<String> {
    let at = |m: &str| order.iter().position(|o| o == m);
    let leaf = |m: &str| graph.get(m).is_none_or(|edges| edges.is_empty());
    let mut wrong = Vec::new();
    for (from, edges) in graph {
        let Some(from_at) = at(from) else {
            wrong.push(format!("  {from} is not in the table"));
            continue;
        };
        for (to, place) in edges {
            match at(to) {
                Some(to_at) if to_at < from_at || leaf(to) => {}
                Some(_) => wrong.push(format!("  {from} -> {to} ({place})")),
                None => wrong.push(format!(
                    "  {from} -> {to}, which is not in the table ({place})"
                )),
            }
        }
    }
    wrong
}

#[test]
fn each_module_imports_only_modules_above_it_in_the_documented_order() {
    let order = documented_order(&architecture());
    assert!(order.len() > 10, "the table was not read: {order:?}");
    let wrong = against_the_order(&graph(), &order);
    assert!(
        wrong.is_empty(),
        "imports against ARCHITECTURE.md's order (\"Modules, leaves first\": a module may \
         import only those above it, and leaves):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_order_check_finds_an_import_of_a_module_listed_below() {
    let order: Vec<String> = ["leaf", "low", "high"].map(String::from).into();
    let edges = |to: &[&str]| -> BTreeMap<String, String> {
        to.iter()
            .map(|t| (t.to_string(), "src/x.rs".into()))
            .collect()
    };
    let mut graph = BTreeMap::from([
        ("leaf".to_string(), edges(&[])),
        ("low".to_string(), edges(&["leaf"])),
        ("high".to_string(), edges(&["low", "leaf"])),
    ]);
    assert!(against_the_order(&graph, &order).is_empty());
    graph.insert("low".into(), edges(&["high"]));
    assert_eq!(
        against_the_order(&graph, &order),
        ["  low -> high (src/x.rs)"]
    );
    let map = "# A\n## Modules, leaves first\n\n| module | job |\n|---|---|\n| `leaf` | x |\n\
               | `low` | y |\n\n## Next\n| `other` | z |\n";
    assert_eq!(documented_order(map), ["leaf", "low"]);
}

/// Each place in `text` that names the crate `chromiumoxide` as a path (`chromiumoxide::…`,
/// `use chromiumoxide`), outside comments: its line.
fn names_chromiumoxide(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            code.match_indices("chromiumoxide").any(|(at, word)| {
                let before = code[..at].chars().next_back();
                let after = &code[at + word.len()..];
                !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '"')
                    && (after.trim_start().starts_with("::")
                        || after.trim_start().starts_with(';')
                        || code[..at].trim_end().ends_with("use"))
            })
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn only_the_browser_module_names_chromiumoxide() {
    let browser = src().join("browser");
    let outside: Vec<String> = sources(&src())
        .into_iter()
        .filter(|path| !path.starts_with(&browser))
        .flat_map(|path| {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            names_chromiumoxide(&text).into_iter().map(move |line| {
                let place = path.strip_prefix(src()).unwrap_or(&path).display();
                format!("src/{place}:{line}")
            })
        })
        .collect();
    assert!(
        outside.is_empty(),
        "only src/browser/ speaks CDP through chromiumoxide; named at {outside:?}"
    );
    assert_eq!(
        names_chromiumoxide(
            "use chromiumoxide::Page;\nlet t = \"chromiumoxide=debug\";\n// chromiumoxide::x\n\
             fn names_chromiumoxide() {}\nlet p: chromiumoxide :: Page;"
        ),
        [1, 5]
    );
}

/// The modules that may import the embedded demo app: `session` serves it as the default
/// app, `cmd` as `waymark demo`. The product (journeys, settings, the command line) does
/// not depend on the demo app; what it names of it, the layout, is a leaf of its own.
const DEMO_USERS: [&str; 2] = ["session", "cmd"];

#[test]
fn only_the_session_and_the_commands_import_the_demo_app() {
    let users: Vec<String> = graph()
        .into_iter()
        .filter_map(|(from, edges)| Some((edges.get("demo")?.clone(), from)))
        .filter(|(_, from)| !DEMO_USERS.contains(&from.as_str()))
        .map(|(place, from)| format!("{from} ({place})"))
        .collect();
    assert!(
        users.is_empty(),
        "only {DEMO_USERS:?} may import `demo`; so do {users:?}"
    );
}

#[test]
fn no_two_top_level_modules_import_each_other_round_a_loop() {
    let graph = graph();
    assert!(graph.len() > 10, "the module graph was not read: {graph:?}");
    if let Some(lp) = cycle(&graph) {
        let steps: Vec<String> = lp
            .windows(2)
            .map(|w| format!("  {} -> {} ({})", w[0], w[1], graph[&w[0]][&w[1]]))
            .collect();
        panic!(
            "the top-level modules import each other in a loop:\n{}",
            steps.join("\n")
        );
    }
}

#[test]
fn the_cycle_check_finds_a_loop() {
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let edge = |to: &str| BTreeMap::from([(to.to_string(), String::new())]);
    graph.insert("a".into(), edge("b"));
    graph.insert("b".into(), edge("c"));
    graph.insert("c".into(), edge("a"));
    assert_eq!(
        cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    graph.insert("c".into(), BTreeMap::new());
    assert_eq!(cycle(&graph), None);
    assert_eq!(
        imported("use crate::{tools::{A, B}, screen};\nlet x = crate::demo::x();"),
        ["tools", "screen", "demo"]
    );
}

#[test]
fn no_file_is_longer_than_a_redesign() {
    let long: Vec<String> = sources(&src())
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            let lines = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .lines()
                .count();
            (lines > FILE_LINES).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "past {FILE_LINES} lines of non-test code: {long:?}"
    );
}

#[test]
fn each_command_entry_point_is_small() {
    let long: Vec<String> = sources(&src().join("cmd"))
        .into_iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(&path)
                .expect("read")
                .lines()
                .count();
            (lines > ENTRY_LINES).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "entry points past {ENTRY_LINES} lines: {long:?}"
    );
}

#[test]
fn the_module_map_names_every_top_level_module() {
    let map = architecture();
    let modules: BTreeSet<String> = sources(&src())
        .iter()
        .filter_map(|p| top_module(p))
        .collect();
    let missing: Vec<&String> = modules
        .iter()
        .filter(|m| !map.contains(&format!("`{m}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name {missing:?}"
    );
}

/// The gateway is the only door (docs/design.md): the journey kinds (`journey`, `mcp`,
/// `replay`) hold a `Gateway`, never the `Tools` behind it or the `Backstage`, whose
/// methods pass no gate. The type keeps them from an ungated method (a compile-fail
/// doctest in `src/tools/gateway.rs`); this keeps them from taking the tools themselves.
#[test]
fn journey_kinds_reach_the_tab_through_the_gateway_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = sources(&root.join("journey"));
    files.extend(sources(&root.join("mcp")));
    files.push(root.join("replay.rs"));
    let mut found = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read a source file");
        let code = code(&text);
        for word in ["Tools", "Backstage", "backstage()"] {
            let named = code.match_indices(word).any(|(at, _)| {
                let before = code[..at].chars().next_back();
                let after = code[at + word.len()..].chars().next();
                let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                !ident(before) && (word.ends_with(')') || !ident(after))
            });
            if named {
                found.push(format!("{} names `{word}`", path.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a journey kind reaches past the gateway:\n{}",
        found.join("\n")
    );
}
