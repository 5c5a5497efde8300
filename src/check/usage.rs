//! Which journeys use which anchor, read from their text alone: every string literal of a
//! `.rhai` journey that is a declared anchor (or one with a key, `claims.open[1042]`) is a
//! use, at its line. Nothing runs; a name built at run time is not seen.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::registry::Registry;

/// Anchor → the `file:line`s of the journeys under `paths` that name it, in file order.
pub fn scan(paths: &[PathBuf], registry: &Registry) -> BTreeMap<String, Vec<String>> {
    let mut uses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let found = crate::journey::discover(paths).unwrap_or_default();
    for (_, path) in found {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (anchor, line) in in_text(&text, registry) {
            uses.entry(anchor)
                .or_default()
                .push(format!("{}:{line}", shown(&path)));
        }
    }
    uses
}

/// The declared anchors the string literals of `text` name, with their lines (1-based).
pub fn in_text(text: &str, registry: &Registry) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        for literal in literals(code) {
            let id = literal.split('[').next().unwrap_or_default();
            if registry.anchor(id).is_some() {
                out.push((id.to_string(), i + 1));
            }
        }
    }
    out
}

/// The contents of the `"…"` and `` `…` `` literals of one line.
fn literals(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(['"', '`']) {
        let quote = rest[start..].chars().next().unwrap_or('"');
        let body = &rest[start + 1..];
        let Some(end) = body.find(quote) else {
            break;
        };
        out.push(&body[..end]);
        rest = &body[end + 1..];
    }
    out
}

/// A path as the user wrote it, relative to the current directory when it is under it.
fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_naming_declared_anchors_are_uses() {
        let registry = Registry::parse(
            "app: a\nscreens:\n  - id: s\n    route: /\nanchors:\n  \
             - id: claims.open\n    description: Opens.\n    screens: [s]\n    keyed: true\n  \
             - id: claim.approve\n    description: Approves.\n    screens: [s]\n",
            "a.yaml",
        )
        .unwrap();
        let text = "navigate(\"/claims\");\ninvoke(\"claims.open[1042]\");\n\
                    // invoke(\"claim.approve\") in a comment is no use\n\
                    let x = `claim.approve`; print(\"claim.unknown\");\n";
        assert_eq!(
            in_text(text, &registry),
            [
                ("claims.open".to_string(), 2),
                ("claim.approve".to_string(), 4)
            ]
        );
    }
}
