//! Registry matchers: how to find an anchor on a page that carries no `data-anchor` for it
//! (`match:` in `anchors.yaml`), validated here and sent to the in-page collector, which
//! resolves them in the same round trip as the read or the action (see
//! `collector/js/06-match.js`).
//!
//! The kinds, in the order Testing Library recommends them: `role` (with an optional
//! accessible `name`), `label`, `placeholder`, `text`, `test_id`, and `css` as a last resort.
//! Texts are whitespace-normalised strings compared whole, or `/regex/flags`.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::anchor::AnchorId;

/// `match:` as written.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Matcher")]
pub(super) struct RawMatch {
    /// An ARIA role the element has (explicit or implicit: `button`, `link`, `textbox`,
    /// `checkbox`, `heading`, `listitem`, `row`…), optionally with `name`.
    pub(super) role: Option<String>,
    /// With `role`: the accessible name, as `waymark read` shows it (a string, whole and
    /// whitespace-normalised, or `/regex/flags`).
    pub(super) name: Option<String>,
    /// With `role`: `true` finds elements hidden from the accessibility tree too
    /// (`display: none` on it or an ancestor, `hidden`, `aria-hidden`, `visibility:
    /// hidden`), which role matchers skip otherwise, as Testing Library's and Playwright's
    /// role queries do.
    pub(super) hidden: Option<bool>,
    /// The text of the element's label (`<label>`, `aria-labelledby` or `aria-label`).
    pub(super) label: Option<String>,
    /// The element's `placeholder`.
    pub(super) placeholder: Option<String>,
    /// The element's own visible text; inside a control, the control.
    pub(super) text: Option<String>,
    /// The value of the registry's test id attribute (`test_id_attribute`, default
    /// `data-testid`).
    pub(super) test_id: Option<String>,
    /// A CSS selector: a last resort, as it breaks with markup and class changes.
    pub(super) css: Option<String>,
    /// Only inside the element of this other anchor.
    pub(super) within: Option<String>,
}

/// `key:` as written: what names each of a keyed anchor's repeated elements.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "Key")]
pub(super) enum RawKey {
    /// `text`: the text of the element's row (its `within` anchor's element, else its
    /// nearest list item, table row, option, tree item or article); a key names the row
    /// whose text is, or else contains, it.
    Word(KeyWord),
    /// `{attribute: data-id}`: the attribute's value on the element or its nearest
    /// ancestor that has it.
    Attribute {
        /// The attribute's name.
        attribute: String,
    },
}

/// The one word `key:` may be.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum KeyWord {
    /// The row's text.
    Text,
}

/// A text to compare with: whole (after whitespace is collapsed) or a pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TextPattern {
    /// Equal to this, whitespace collapsed.
    Exact(String),
    /// A JavaScript regular expression and its flags.
    Regex {
        /// The pattern between the slashes.
        source: String,
        /// The flags after the last slash.
        flags: String,
    },
}

/// How a matcher finds its element.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MatchKind {
    /// An ARIA role, and the accessible name if given.
    Role {
        /// The role.
        role: String,
        /// The name.
        name: Option<TextPattern>,
        /// Whether elements hidden from the accessibility tree are found too.
        hidden: bool,
    },
    /// The label's text.
    Label(TextPattern),
    /// The placeholder.
    Placeholder(TextPattern),
    /// The element's own text.
    Text(TextPattern),
    /// The test id attribute's value.
    TestId(String),
    /// A CSS selector.
    Css(String),
}

/// What names each element of a keyed anchor found by a matcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// The row's text.
    Text,
    /// An attribute of the element or an ancestor.
    Attribute(String),
}

/// An anchor's matcher, validated.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Matcher {
    /// How the element is found.
    pub kind: MatchKind,
    /// Only inside this anchor's element.
    pub within: Option<AnchorId>,
}

/// ARIA 1.2's concrete roles: what `role:` may be (the collector's list too).
pub const ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "comment",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "image",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "suggestion",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// The kinds `match:` may name, in the order to prefer them.
pub const KINDS: &[&str] = &["role", "label", "placeholder", "text", "test_id", "css"];

/// What is wrong with a matcher: the field at fault (under `match.`, or `key`) and why.
pub(super) struct Misfit {
    pub(super) field: &'static str,
    pub(super) reason: String,
}

fn misfit(field: &'static str, reason: impl Into<String>) -> Misfit {
    Misfit {
        field,
        reason: reason.into(),
    }
}

impl TextPattern {
    /// `/source/flags` as a pattern, anything else as an exact text (whitespace collapsed).
    fn parse(text: &str, field: &'static str) -> Result<TextPattern, Misfit> {
        let exact = || TextPattern::Exact(text.split_whitespace().collect::<Vec<_>>().join(" "));
        let Some(rest) = text.strip_prefix('/') else {
            return match exact() {
                TextPattern::Exact(t) if t.is_empty() => Err(misfit(
                    field,
                    "it is empty; give the text, or `/regex/flags`",
                )),
                pattern => Ok(pattern),
            };
        };
        let Some(end) = rest.rfind('/') else {
            // A lone leading slash (a path, say) is text.
            return Ok(exact());
        };
        let (source, flags) = (&rest[..end], &rest[end + 1..]);
        if source.is_empty() {
            return Err(misfit(field, "the pattern `//` is empty"));
        }
        if let Some(bad) = flags.chars().find(|c| !"dimsuv".contains(*c)) {
            return Err(misfit(
                field,
                format!("`{bad}` is not a regex flag (allowed: d, i, m, s, u, v)"),
            ));
        }
        Ok(TextPattern::Regex {
            source: source.to_string(),
            flags: flags.to_string(),
        })
    }

    fn json(&self) -> Value {
        match self {
            TextPattern::Exact(s) => json!({ "s": s }),
            TextPattern::Regex { source, flags } => json!({ "re": source, "f": flags }),
        }
    }
}

impl fmt::Display for TextPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextPattern::Exact(s) => write!(f, "{}", serde_json::Value::from(s.as_str())),
            TextPattern::Regex { source, flags } => write!(f, "/{source}/{flags}"),
        }
    }
}

impl fmt::Display for Matcher {
    /// As it would be written in `anchors.yaml`: `{role: button, name: "Save"}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quote = |s: &str| serde_json::Value::from(s).to_string();
        let body = match &self.kind {
            MatchKind::Role {
                role,
                name: None,
                hidden,
            } => format!(
                "role: {role}{}",
                if *hidden { ", hidden: true" } else { "" }
            ),
            MatchKind::Role {
                role,
                name: Some(name),
                hidden,
            } => format!(
                "role: {role}, name: {name}{}",
                if *hidden { ", hidden: true" } else { "" }
            ),
            MatchKind::Label(p) => format!("label: {p}"),
            MatchKind::Placeholder(p) => format!("placeholder: {p}"),
            MatchKind::Text(p) => format!("text: {p}"),
            MatchKind::TestId(id) => format!("test_id: {}", quote(id)),
            MatchKind::Css(css) => format!("css: {}", quote(css)),
        };
        match &self.within {
            Some(within) => write!(f, "{{{body}, within: {within}}}"),
            None => write!(f, "{{{body}}}"),
        }
    }
}

/// `raw` validated (its `within` is checked by the caller, against the declared anchors).
pub(super) fn compile(raw: &RawMatch) -> Result<Matcher, Misfit> {
    let given: Vec<&str> = [
        ("role", raw.role.is_some()),
        ("label", raw.label.is_some()),
        ("placeholder", raw.placeholder.is_some()),
        ("text", raw.text.is_some()),
        ("test_id", raw.test_id.is_some()),
        ("css", raw.css.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, on)| on.then_some(k))
    .collect();
    let kind = match given.as_slice() {
        [] => {
            return Err(misfit(
                "match",
                format!("it names no way to match; give one of {}", KINDS.join(", ")),
            ));
        }
        [_] => given[0],
        [..] => {
            return Err(misfit(
                "match",
                format!(
                    "it names {}; give exactly one of {} (`name` goes with `role`)",
                    given.join(" and "),
                    KINDS.join(", ")
                ),
            ));
        }
    };
    if raw.hidden.is_some() && kind != "role" {
        return Err(misfit(
            "match.hidden",
            "`hidden` goes with `role` only (`{role: listitem, hidden: true}`)",
        ));
    }
    if raw.name.is_some() && kind != "role" {
        return Err(misfit(
            "match.name",
            "`name` goes with `role` only (`{role: button, name: Save}`)",
        ));
    }
    let text = |v: &Option<String>, field| TextPattern::parse(v.as_deref().unwrap_or(""), field);
    let kind = match kind {
        "role" => {
            let role = raw
                .role
                .as_deref()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if !ROLES.contains(&role.as_str()) {
                let near = crate::registry::closest(
                    &role,
                    &ROLES.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                )
                .map(|n| format!("did you mean `{n}`? "))
                .unwrap_or_default();
                return Err(misfit(
                    "match.role",
                    format!(
                        "`{}` is not an ARIA role; {near}roles: {}",
                        crate::protocol::quoted(&role),
                        ROLES.join(", ")
                    ),
                ));
            }
            let name = match &raw.name {
                Some(_) => Some(text(&raw.name, "match.name")?),
                None => None,
            };
            MatchKind::Role {
                role,
                name,
                hidden: raw.hidden.unwrap_or(false),
            }
        }
        "label" => MatchKind::Label(text(&raw.label, "match.label")?),
        "placeholder" => MatchKind::Placeholder(text(&raw.placeholder, "match.placeholder")?),
        "text" => MatchKind::Text(text(&raw.text, "match.text")?),
        "test_id" => {
            let id = raw.test_id.clone().unwrap_or_default();
            if id.trim().is_empty() {
                return Err(misfit("match.test_id", "it is empty"));
            }
            MatchKind::TestId(id)
        }
        _ => {
            let css = raw.css.clone().unwrap_or_default();
            if css.trim().is_empty() {
                return Err(misfit("match.css", "it is empty"));
            }
            if css.contains("data-anchor") {
                return Err(misfit(
                    "match.css",
                    "a page's `data-anchor` already wins over any matcher; match something else",
                ));
            }
            MatchKind::Css(css)
        }
    };
    Ok(Matcher { kind, within: None })
}

/// `key:` validated.
pub(super) fn compile_key(raw: &RawKey) -> Result<KeySource, Misfit> {
    match raw {
        RawKey::Word(KeyWord::Text) => Ok(KeySource::Text),
        RawKey::Attribute { attribute } => {
            if is_attribute_name(attribute) {
                Ok(KeySource::Attribute(attribute.clone()))
            } else {
                Err(misfit(
                    "key.attribute",
                    format!(
                        "`{}` is not an attribute name",
                        crate::protocol::quoted(attribute)
                    ),
                ))
            }
        }
    }
}

/// An HTML attribute's name as a CSS selector can name it unescaped.
pub(super) fn is_attribute_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// The matchers as the collector takes them (`args.matchers`): the version names them, so
/// a document that holds them is not sent them again.
#[derive(Debug, Clone, Serialize)]
pub struct Matchers {
    /// A digest of everything below.
    pub v: String,
    /// The test id attribute.
    pub tid: String,
    /// One per anchor with a matcher, in file order; `scr`: the indices (in `screens`) of
    /// the screens its anchor is declared on.
    pub list: Vec<Value>,
    /// The registry's screens in the order a route picks them (hash routes first, then in
    /// file order): `{i, p, h}`, the screen's index and its route as regular expressions
    /// (see `RoutePattern::js_patterns`).
    pub screens: Vec<Value>,
}

impl Matchers {
    pub(super) fn new<'a>(
        tid: &str,
        screens: &[super::ScreenSpec],
        anchors: impl Iterator<
            Item = (
                &'a AnchorId,
                &'a Matcher,
                Option<&'a KeySource>,
                &'a [String],
            ),
        >,
    ) -> Option<Matchers> {
        let anchors: Vec<_> = anchors.collect();
        if anchors.is_empty() {
            return None;
        }
        let index = |id: &AnchorId| anchors.iter().position(|(a, _, _, _)| *a == id);
        let order = screens
            .iter()
            .enumerate()
            .filter(|(_, s)| s.route.has_fragment())
            .chain(
                screens
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| !s.route.has_fragment()),
            );
        let table: Vec<Value> = order
            .map(|(i, s)| {
                let (p, h) = s.route.js_patterns();
                json!({ "i": i, "p": p, "h": h })
            })
            .collect();
        let list: Vec<Value> = anchors
            .iter()
            .map(|(id, m, key, on)| {
                let mut e = match &m.kind {
                    MatchKind::Role { role, name, hidden } => json!({
                        "k": "role", "role": role, "name": name.as_ref().map(TextPattern::json),
                        "hidden": hidden
                    }),
                    MatchKind::Label(p) => json!({ "k": "label", "t": p.json() }),
                    MatchKind::Placeholder(p) => json!({ "k": "placeholder", "t": p.json() }),
                    MatchKind::Text(p) => json!({ "k": "text", "t": p.json() }),
                    MatchKind::TestId(v) => json!({ "k": "test_id", "v": v }),
                    MatchKind::Css(v) => json!({ "k": "css", "v": v }),
                };
                e["a"] = json!(id.as_str());
                // A `within` anchor with no matcher of its own is found by its data-anchor.
                e["w"] = match &m.within {
                    Some(w) => match index(w) {
                        Some(i) => json!(i),
                        None => json!(w.as_str()),
                    },
                    None => Value::Null,
                };
                e["key"] = match key {
                    None => Value::Null,
                    Some(KeySource::Text) => json!("text"),
                    Some(KeySource::Attribute(a)) => json!({ "attr": a }),
                };
                e["shown"] = json!(m.to_string());
                let scr: Vec<usize> = on
                    .iter()
                    .filter_map(|id| screens.iter().position(|s| &s.id == id))
                    .collect();
                e["scr"] = json!(scr);
                e
            })
            .collect();
        let body = serde_json::to_string(&(tid, &list, &table)).unwrap_or_default();
        let digest = body.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Some(Matchers {
            v: format!("{digest:016x}"),
            tid: tid.to_string(),
            list,
            screens: table,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(f: impl FnOnce(&mut RawMatch)) -> RawMatch {
        let mut r = RawMatch::default();
        f(&mut r);
        r
    }

    #[test]
    fn a_matcher_names_exactly_one_kind_and_a_known_role() {
        let m = compile(&raw(|r| {
            r.role = Some("Button".into());
            r.name = Some("/^save\\b/i".into());
        }))
        .ok()
        .unwrap();
        assert_eq!(m.to_string(), "{role: button, name: /^save\\b/i}");
        let e = compile(&raw(|r| {
            r.label = Some("A".into());
            r.text = Some("B".into());
        }))
        .err()
        .unwrap();
        assert_eq!(e.field, "match");
        assert!(e.reason.contains("label and text"), "{}", e.reason);
        let e = compile(&raw(|r| r.role = Some("buton".into())))
            .err()
            .unwrap();
        assert!(e.reason.contains("did you mean `button`?"), "{}", e.reason);
        let e = compile(&raw(|r| {
            r.label = Some("A".into());
            r.name = Some("B".into());
        }))
        .err()
        .unwrap();
        assert_eq!(e.field, "match.name");
        assert!(compile(&RawMatch::default()).is_err());
    }

    #[test]
    fn texts_are_collapsed_and_patterns_keep_their_flags() {
        assert_eq!(
            TextPattern::parse("  Buy \n milk ", "t").ok(),
            Some(TextPattern::Exact("Buy milk".into()))
        );
        assert_eq!(
            TextPattern::parse("/a+b/gi", "t").err().map(|m| m.reason),
            Some("`g` is not a regex flag (allowed: d, i, m, s, u, v)".into())
        );
        assert_eq!(
            TextPattern::parse("/claims", "t").ok(),
            Some(TextPattern::Exact("/claims".into()))
        );
        assert!(TextPattern::parse(" ", "t").is_err());
    }
}
