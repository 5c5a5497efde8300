//! Screen reads as insta snapshots: `snapshot(name)` in a journey asserts the inferred
//! screen against `snapshots/<journey>__<name>.snap`.
//!
//! The files are insta's format (a YAML header naming the journey as `source`, then YAML
//! content) and the update rules are insta's (`INSTA_UPDATE`, `CI`), so `cargo insta review`
//! and `cargo insta accept` work on them unchanged. The content is the inferred layer only,
//! in document order, with volatile values redacted: ports, timestamps, ids in the route
//! (the registry's `{param}` segments), anchors the registry marks `volatile`, and what the
//! journey names in `#{redact: [...]}`. Secret values are already `[redacted]` by the
//! collector, so they can never reach a file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;

use crate::registry::Registry;
use crate::screen::InferredState;

mod diff;

pub use diff::ScreenDiff;

/// When snapshots are written (insta's `INSTA_UPDATE` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateMode {
    /// Accept new and changed snapshots (`--update-snapshots`, `INSTA_UPDATE=always`).
    Always,
    /// Accept new snapshots; changed ones go to `.snap.new` (`INSTA_UPDATE=unseen`).
    Unseen,
    /// New and changed snapshots go to `.snap.new` for review (the default off CI).
    New,
    /// Write nothing (the default in CI, `INSTA_UPDATE=no`).
    No,
    /// Write every snapshot, even one that matches (`INSTA_UPDATE=force`).
    Force,
}

impl UpdateMode {
    /// The mode insta would pick: `--update-snapshots` wins, then `INSTA_UPDATE`
    /// (`insta_update`), then `no` when `CI` is set (`ci`: set, and not `0` or `false`),
    /// else `new`. Resolved once with the rest of the settings (`crate::settings`).
    pub fn resolve(update_flag: bool, insta_update: Option<&str>, ci: Option<&str>) -> UpdateMode {
        if update_flag {
            return UpdateMode::Always;
        }
        let ci = ci.is_some_and(|v| !matches!(v, "" | "0" | "false"));
        match insta_update {
            Some("always") | Some("1") => UpdateMode::Always,
            Some("unseen") => UpdateMode::Unseen,
            Some("new") => UpdateMode::New,
            Some("no") | Some("0") => UpdateMode::No,
            Some("force") => UpdateMode::Force,
            _ if ci => UpdateMode::No,
            _ => UpdateMode::New,
        }
    }
}

/// What to do about snapshot files no journey referenced in a full run (insta's
/// `--unreferenced`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Unreferenced {
    /// Say nothing.
    #[default]
    Ignore,
    /// List them.
    Warn,
    /// List them and fail the run.
    Reject,
    /// Delete them.
    Delete,
}

/// Options of one `snapshot(name, #{...})` call.
#[derive(Debug, Clone, Default)]
pub struct SnapshotOptions {
    /// Only the controls of this region.
    pub region: Option<String>,
    /// What else to redact: `anchor` (its value), `anchor:field` (`label`, `value`), an
    /// anchor ending in `*` for a prefix, or `@route`, `@title`, `@dialog`, `@focus`.
    pub redact: Vec<String>,
}

/// Where snapshots live and how they are updated, shared by the journeys of a run.
#[derive(Debug)]
pub struct SnapshotStore {
    dir: PathBuf,
    mode: UpdateMode,
    referenced: Mutex<BTreeSet<PathBuf>>,
}

/// The screen as a snapshot holds it.
#[derive(Debug, Serialize)]
struct Content {
    route: String,
    title: String,
    screen: Option<String>,
    dialog: Option<String>,
    focus: Option<String>,
    region: Option<String>,
    controls: Vec<SnapControl>,
    truncation: Option<crate::screen::Truncation>,
}

#[derive(Debug, Serialize)]
struct SnapControl {
    anchor: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    label: String,
    role: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    disabled: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    editable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checked: Option<bool>,
    region: String,
    #[serde(skip_serializing_if = "is_true")]
    visible: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Why a snapshot assertion failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The screen differs from the accepted snapshot: the diff by control (see
    /// [`ScreenDiff`]), or a unified diff when the two differ only in layout.
    #[error("snapshot `{name}` does not match {file}{pending}\n{diff}")]
    Changed {
        /// Snapshot name.
        name: String,
        /// The accepted file.
        file: String,
        /// Where the new version was written, if it was.
        pending: String,
        /// What changed by control (added, removed, changed fields), old to new.
        diff: String,
    },
    /// No accepted snapshot exists yet.
    #[error("snapshot `{name}` is new{pending}\n{content}")]
    New {
        /// Snapshot name.
        name: String,
        /// Where it was written for review, if it was.
        pending: String,
        /// What it would hold.
        content: String,
    },
    /// The name cannot be a file name.
    #[error("snapshot name `{0}` must be letters, digits, `-` or `_`")]
    BadName(String),
    /// A redaction names nothing known.
    #[error(
        "`{0}` is not a redaction: use an anchor, `anchor:label`, `anchor:value`, `prefix*`, or `@route`/`@title`/`@dialog`/`@focus`"
    )]
    BadRedaction(String),
    /// The snapshot file could not be read or written.
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        /// Read or write.
        action: &'static str,
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl SnapshotStore {
    /// Snapshots under `dir` (the project's `snapshots/`), updated per `mode`.
    pub fn new(dir: impl Into<PathBuf>, mode: UpdateMode) -> SnapshotStore {
        SnapshotStore {
            dir: dir.into(),
            mode,
            referenced: Mutex::new(BTreeSet::new()),
        }
    }

    /// The file of snapshot `name` of `journey` (`a/b` journeys become `a__b`).
    pub fn path(&self, journey: &str, name: &str) -> PathBuf {
        self.dir
            .join(format!("{}__{name}.snap", journey.replace('/', "__")))
    }

    /// Asserts `screen` against the snapshot; writes what `mode` allows.
    pub fn assert(
        &self,
        journey: &str,
        source: &Path,
        name: &str,
        screen: &InferredState,
        registry: &Registry,
        options: &SnapshotOptions,
    ) -> Result<(), SnapshotError> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(SnapshotError::BadName(name.to_string()));
        }
        let content = render(screen, registry, options)?;
        let path = self.path(journey, name);
        if let Ok(mut seen) = self.referenced.lock() {
            seen.insert(path.clone());
        }
        let pending_path = PathBuf::from(format!("{}.new", path.display()));
        let file = file_text(source, name, &content);
        let old = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(SnapshotError::Io {
                    action: "read",
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        let old_content = old.as_deref().map(content_of);
        let matches = old_content.as_deref() == Some(content.trim_end());
        if matches && self.mode != UpdateMode::Force {
            // A pending review of a screen that now matches is stale.
            let _ = std::fs::remove_file(&pending_path);
            return Ok(());
        }
        let accept = match self.mode {
            UpdateMode::Always | UpdateMode::Force => true,
            UpdateMode::Unseen => old.is_none(),
            UpdateMode::New | UpdateMode::No => false,
        };
        if accept {
            write(&path, &file)?;
            let _ = std::fs::remove_file(&pending_path);
            return Ok(());
        }
        let pending = if self.mode == UpdateMode::No {
            " (nothing written: snapshots are not updated in CI or with INSTA_UPDATE=no)"
                .to_string()
        } else {
            write(&pending_path, &file)?;
            format!(
                "; the new version is in {} — review with `cargo insta review`, or run with `--update-snapshots`",
                pending_path.display()
            )
        };
        match old_content {
            None => Err(SnapshotError::New {
                name: name.to_string(),
                pending,
                content,
            }),
            Some(old) => Err(SnapshotError::Changed {
                name: name.to_string(),
                file: path.display().to_string(),
                pending,
                diff: diff(&old, content.trim_end()),
            }),
        }
    }

    /// Snapshot files under the directory that no assertion of this run named.
    pub fn unreferenced(&self) -> Vec<PathBuf> {
        let seen = self
            .referenced
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut left: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "snap") && !seen.contains(p))
            .collect();
        left.sort();
        left
    }
}

fn write(path: &Path, text: &str) -> Result<(), SnapshotError> {
    let io = |source| SnapshotError::Io {
        action: "write",
        path: path.display().to_string(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    std::fs::write(path, text).map_err(io)
}

/// insta's file layout: a YAML metadata header between `---` lines, then the content.
fn file_text(source: &Path, name: &str, content: &str) -> String {
    let source = source.display().to_string().replace('\\', "/");
    format!(
        "---\nsource: {}\nexpression: {}\n---\n{}\n",
        yaml_scalar(&source),
        yaml_scalar(&format!("snapshot(\"{name}\")")),
        content.trim_end()
    )
}

fn yaml_scalar(s: &str) -> String {
    yaml_serde::to_string(s)
        .map(|y| y.trim_end().to_string())
        .unwrap_or_else(|_| format!("{s:?}"))
}

/// The content part of a snapshot file (after the header), without trailing whitespace.
fn content_of(file: &str) -> String {
    let body = file
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n").map(|(_, body)| body))
        .unwrap_or(file);
    body.trim_end().to_string()
}

/// What changed from `old` to `new`, by control; a unified diff of the texts when no field
/// differs (or either is not a snapshot's YAML).
fn diff(old: &str, new: &str) -> String {
    if let Some(by_control) = ScreenDiff::between(old, new).filter(|d| !d.is_empty()) {
        return by_control.to_string().trim_end().to_string();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("accepted", "now")
        .to_string()
}

/// The snapshot content of a screen: inferred layer only, volatile values redacted.
fn render(
    screen: &InferredState,
    registry: &Registry,
    options: &SnapshotOptions,
) -> Result<String, SnapshotError> {
    let rules = options
        .redact
        .iter()
        .map(|r| Redaction::parse(r))
        .collect::<Result<Vec<_>, _>>()?;
    let top = |field: &str| {
        rules
            .iter()
            .any(|r| matches!(r, Redaction::Top(f) if f == field))
    };
    let hide = |on: bool, v: Option<String>| {
        if on {
            v.map(|_| "[redacted]".to_string())
        } else {
            v
        }
    };
    let controls = screen
        .controls
        .iter()
        .filter(|c| options.region.as_deref().is_none_or(|r| c.region == r))
        .map(|c| {
            let volatile = registry.anchor(&c.anchor).is_some_and(|a| a.volatile);
            let by = |field| rules.iter().any(|r| r.hits(&c.anchor, field));
            SnapControl {
                anchor: c.anchor.to_string(),
                key: c.key.as_ref().map(|k| k.to_string()),
                label: if by("label") {
                    "[redacted]".into()
                } else {
                    scrub(&c.label)
                },
                role: c.role.to_string(),
                disabled: c.disabled,
                editable: c.editable,
                value: hide(volatile || by("value"), c.value.as_deref().map(scrub)),
                checked: c.checked,
                region: c.region.to_string(),
                visible: c.visible,
            }
        })
        .collect();
    let route = if top("route") {
        "[redacted]".to_string()
    } else {
        redact_route(&screen.route, registry)
    };
    let content = Content {
        route,
        title: if top("title") {
            "[redacted]".to_string()
        } else {
            scrub(&screen.title)
        },
        screen: screen.screen.clone(),
        dialog: hide(top("dialog"), screen.dialog.as_deref().map(scrub)),
        focus: hide(top("focus"), screen.focus.clone()),
        region: options.region.clone(),
        controls,
        truncation: screen.truncation.clone(),
    };
    yaml_serde::to_string(&content).map_err(|e| SnapshotError::Io {
        action: "serialize",
        path: "the snapshot".into(),
        source: std::io::Error::other(e),
    })
}

/// The route with the registry's `{param}` segments in place of their values.
fn redact_route(route: &str, registry: &Registry) -> String {
    let (path, query) = match route.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (route, None),
    };
    let path = registry
        .screen_for_route(path)
        .and_then(|s| s.route.redact(path))
        .unwrap_or_else(|| scrub(path));
    match query {
        Some(q) => format!("{path}?{}", scrub(q)),
        None => path,
    }
}

/// Built-in filters: a local port and an ISO-8601 timestamp never belong in a snapshot.
fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("127.0.0.1:").or_else(|| rest.find("localhost:")) {
        let host_end = at + rest[at..].find(':').unwrap_or(0) + 1;
        let digits = rest[host_end..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        out.push_str(&rest[..host_end]);
        if digits > 0 {
            out.push_str("[port]");
        }
        rest = &rest[host_end + digits..];
    }
    out.push_str(rest);
    redact_timestamps(&out)
}

/// Replaces `YYYY-MM-DDTHH:MM[:SS…]` runs with `[timestamp]`.
fn redact_timestamps(text: &str) -> String {
    let bytes = text.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd";
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let fits = bytes.len() - i >= shape.len()
            && shape.iter().zip(&bytes[i..]).all(|(s, b)| match s {
                b'd' => b.is_ascii_digit(),
                other => other == b,
            });
        if fits {
            let mut end = i + shape.len();
            while end < bytes.len()
                && (bytes[end].is_ascii_digit() || matches!(bytes[end], b':' | b'.' | b'Z' | b'+'))
            {
                end += 1;
            }
            out.push_str("[timestamp]");
            i = end;
        } else {
            let ch = text[i..].chars().next().unwrap_or_default();
            out.push(ch);
            i += ch.len_utf8().max(1);
        }
    }
    out
}

enum Redaction {
    Top(String),
    Anchor {
        pattern: String,
        prefix: bool,
        field: String,
    },
}

impl Redaction {
    fn parse(text: &str) -> Result<Redaction, SnapshotError> {
        let bad = || SnapshotError::BadRedaction(text.to_string());
        if let Some(field) = text.strip_prefix('@') {
            return match field {
                "route" | "title" | "dialog" | "focus" => Ok(Redaction::Top(field.to_string())),
                _ => Err(bad()),
            };
        }
        let (anchor, field) = text.split_once(':').unwrap_or((text, "value"));
        if !matches!(field, "value" | "label") || anchor.is_empty() {
            return Err(bad());
        }
        let (pattern, prefix) = match anchor.strip_suffix('*') {
            Some(p) => (p.to_string(), true),
            None => (anchor.to_string(), false),
        };
        Ok(Redaction::Anchor {
            pattern,
            prefix,
            field: field.to_string(),
        })
    }

    fn hits(&self, anchor: &str, on: &str) -> bool {
        match self {
            Redaction::Top(_) => false,
            Redaction::Anchor {
                pattern,
                prefix,
                field,
            } => {
                field == on
                    && if *prefix {
                        anchor.starts_with(pattern.as_str())
                    } else {
                        anchor == pattern
                    }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_and_timestamps_are_scrubbed() {
        assert_eq!(
            scrub("see http://127.0.0.1:41234/claims at 2026-11-30T15:08:59.123Z now"),
            "see http://127.0.0.1:[port]/claims at [timestamp] now"
        );
        assert_eq!(scrub("plain"), "plain");
    }

    #[test]
    fn the_header_is_insta_s_and_content_round_trips() {
        let text = file_text(Path::new("journeys/a.rhai"), "board", "route: /x\n");
        assert!(
            text.starts_with(
                "---\nsource: journeys/a.rhai\nexpression: snapshot(\"board\")\n---\n"
            ),
            "{text}"
        );
        assert_eq!(content_of(&text), "route: /x");
    }

    #[test]
    fn redactions_parse_or_say_what_is_allowed() {
        assert!(Redaction::parse("claim.note").is_ok());
        assert!(Redaction::parse("dispatch.*:label").is_ok());
        assert!(Redaction::parse("@route").is_ok());
        let err = Redaction::parse("@nope")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("`@nope` is not a redaction"), "{err}");
        assert!(Redaction::parse("claim.note:colour").is_err());
    }

    #[test]
    fn the_update_flag_wins_over_the_environment() {
        assert_eq!(UpdateMode::resolve(true, None, None), UpdateMode::Always);
    }

    #[test]
    fn insta_update_then_ci_pick_the_mode_as_insta_does() {
        let mode = UpdateMode::resolve;
        assert_eq!(mode(true, Some("no"), Some("true")), UpdateMode::Always);
        assert_eq!(
            mode(false, Some("unseen"), Some("true")),
            UpdateMode::Unseen
        );
        assert_eq!(mode(false, Some("force"), None), UpdateMode::Force);
        assert_eq!(mode(false, Some("0"), None), UpdateMode::No);
        assert_eq!(mode(false, None, Some("true")), UpdateMode::No);
        assert_eq!(mode(false, Some("bogus"), Some("1")), UpdateMode::No);
        for off in ["", "0", "false"] {
            assert_eq!(mode(false, None, Some(off)), UpdateMode::New);
        }
        assert_eq!(mode(false, None, None), UpdateMode::New);
    }
}
