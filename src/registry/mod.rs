//! The anchor registry, `anchors.yaml`: every anchor an app promises and the screens it is
//! expected on.
//!
//! The registry is the contract a redesign must keep, so it is loaded and validated in full
//! before any browser starts, in passes (syntax → ids → screens → references), and every
//! problem points into the file at the value at fault. yaml_serde does the parsing; since it
//! gives no spans for values, [`Registry::parse`] asks it for them afterwards by walking to the
//! value again and stopping there (see `locate`), which is exact for any YAML style.

mod error;
mod locate;
mod matcher;
mod route;

use std::collections::HashMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::anchor::AnchorId;

pub(crate) use error::closest;
pub use error::{Location, RegistryError};
use locate::Cx;
use locate::Step::{Index, Key};
pub use matcher::{KeySource, MatchKind, Matcher, Matchers, TextPattern};
pub use route::RoutePattern;

/// The largest registry file read: 16 MiB.
const MAX_BYTES: u64 = 16 << 20;

/// A loaded, validated anchor registry.
#[derive(Debug, Clone)]
pub struct Registry {
    app: String,
    screens: Vec<ScreenSpec>,
    anchors: Vec<AnchorSpec>,
    index: HashMap<AnchorId, usize>,
    test_id_attribute: String,
    /// The matchers for the collector; `None` when no anchor has one.
    matchers: Option<std::sync::Arc<Matchers>>,
}

/// The attribute `test_id` matchers read when the registry names none.
pub const TEST_ID_ATTRIBUTE: &str = "data-testid";

/// A screen of the app: an id and the route pattern that identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenSpec {
    /// Lowercase words joined by `-` (`claim-detail`).
    pub id: String,
    /// The paths this screen is shown on.
    pub route: RoutePattern,
    /// What the screen shows, if the registry says.
    pub description: Option<String>,
    /// A route on the screen that names a real page (its pattern filled with the registry's
    /// `example` values), for tools that visit every screen (`waymark check`); `None` when
    /// the pattern has parameters and the registry gives no example.
    pub example: Option<String>,
}

/// An anchor the app promises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnchorSpec {
    /// The anchor.
    pub id: AnchorId,
    /// What the control does, in words a person (or an agent) can act on.
    pub description: String,
    /// Ids of the screens the anchor is expected on; at least one, all declared.
    pub screens: Vec<String>,
    /// Whether the control repeats (a row per item) and is addressed with a key.
    pub keyed: bool,
    /// Whether its value changes from run to run (a timestamp, a generated number), so
    /// snapshots redact it.
    pub volatile: bool,
    /// How to find it on a page with no `data-anchor` for it.
    pub matcher: Option<Matcher>,
    /// What names each of its elements, when keyed and found by its matcher.
    pub key: Option<KeySource>,
}

impl Registry {
    /// Reads and validates the registry at `path`; errors name the file as `path` is given.
    pub fn load(path: &Path) -> Result<Registry, RegistryError> {
        let file = path.display().to_string();
        // A registry of ten thousand anchors is a few megabytes; anything far past that is
        // not one, and is not read whole into memory to find out.
        if let Ok(meta) = std::fs::metadata(path)
            && meta.len() > MAX_BYTES
        {
            let why = format!(
                "it is {} bytes; a registry is at most {MAX_BYTES} bytes",
                meta.len()
            );
            return Err(RegistryError::Read {
                file,
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, why),
            });
        }
        let bytes = std::fs::read(path).map_err(|source| RegistryError::Read {
            file: file.clone(),
            source,
        })?;
        match String::from_utf8(bytes) {
            Ok(source) => Registry::parse(&source, &file),
            // Binary bytes: named at their line and column, like any other problem.
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(e.as_bytes());
                Err(Cx::new(&file, &text).not_utf8(at, e.as_bytes()[at]))
            }
        }
    }

    /// Validates `source`, the text of a registry; `file_name` names it in errors.
    pub fn parse(source: &str, file_name: &str) -> Result<Registry, RegistryError> {
        let cx = Cx::new(file_name, source);
        if let Some(error) = cx.too_deep() {
            return Err(error);
        }
        let raw: RawRegistry = yaml_serde::from_str(source).map_err(|e| cx.syntax_error(&e))?;
        let ids = check_ids(&cx, &raw)?;
        let routes = check_screens(&cx, &raw)?;
        check_references(&cx, &raw)?;
        let matchers = check_matchers(&cx, &raw)?;

        let screens: Vec<ScreenSpec> = raw
            .screens
            .into_iter()
            .zip(routes)
            .map(|(screen, route)| ScreenSpec {
                example: route.fill(&screen.example),
                id: screen.id,
                route,
                description: screen.description,
            })
            .collect();
        let anchors: Vec<AnchorSpec> = raw
            .anchors
            .into_iter()
            .zip(ids)
            .zip(matchers)
            .map(|((anchor, id), (matcher, key))| AnchorSpec {
                id,
                description: anchor.description,
                screens: anchor.screens,
                keyed: anchor.keyed || key.is_some(),
                volatile: anchor.volatile,
                matcher,
                key,
            })
            .collect();
        let index = anchors
            .iter()
            .enumerate()
            .map(|(i, anchor)| (anchor.id.clone(), i))
            .collect();
        let test_id_attribute = raw
            .test_id_attribute
            .unwrap_or_else(|| TEST_ID_ATTRIBUTE.to_string());
        let matchers = Matchers::new(
            &test_id_attribute,
            &screens,
            anchors.iter().filter_map(|a| {
                Some((
                    &a.id,
                    a.matcher.as_ref()?,
                    a.key.as_ref(),
                    a.screens.as_slice(),
                ))
            }),
        )
        .map(std::sync::Arc::new);
        Ok(Registry {
            app: raw.app,
            screens,
            anchors,
            index,
            test_id_attribute,
            matchers,
        })
    }

    /// A registry that promises nothing (app `""`), for pages that carry `data-anchor`
    /// themselves.
    pub fn empty() -> Registry {
        Registry {
            app: String::new(),
            screens: Vec::new(),
            anchors: Vec::new(),
            index: HashMap::new(),
            test_id_attribute: TEST_ID_ATTRIBUTE.to_string(),
            matchers: None,
        }
    }

    /// The attribute `test_id` matchers read (`test_id_attribute:`, default `data-testid`).
    pub fn test_id_attribute(&self) -> &str {
        &self.test_id_attribute
    }

    /// The matchers, as the collector takes them; `None` when no anchor has one.
    pub fn matchers(&self) -> Option<&std::sync::Arc<Matchers>> {
        self.matchers.as_ref()
    }

    /// The app's name.
    pub fn app(&self) -> &str {
        &self.app
    }

    /// The declared screens, in file order.
    pub fn screens(&self) -> &[ScreenSpec] {
        &self.screens
    }

    /// The declared anchors, in file order.
    pub fn anchors(&self) -> &[AnchorSpec] {
        &self.anchors
    }

    /// The anchor with this id, if declared.
    pub fn anchor(&self, id: &str) -> Option<&AnchorSpec> {
        self.index.get(id).map(|&i| &self.anchors[i])
    }

    /// The screen with this id, if declared.
    pub fn screen(&self, id: &str) -> Option<&ScreenSpec> {
        self.screens.iter().find(|screen| screen.id == id)
    }

    /// The first screen (in file order) whose pattern matches the route's path; query string
    /// and fragment are ignored, a trailing '/' too (except for "/"). A screen whose pattern
    /// names a hash route (`/#/active`) comes before any that does not: `/` is the app's
    /// page under every hash route.
    pub fn screen_for_route(&self, route: &str) -> Option<&ScreenSpec> {
        self.screens
            .iter()
            .filter(|screen| screen.route.has_fragment())
            .chain(self.screens.iter().filter(|s| !s.route.has_fragment()))
            .find(|screen| screen.route.matches(route))
    }

    /// Anchors expected on the given screen id, in file order.
    pub fn anchors_on_screen<'a>(
        &'a self,
        screen: &'a str,
    ) -> impl Iterator<Item = &'a AnchorSpec> + 'a {
        self.anchors
            .iter()
            .filter(move |anchor| anchor.screens.iter().any(|s| s == screen))
    }
}

/// `anchors.yaml`: every anchor an app promises, and the screens it is expected on.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "waymark anchor registry (anchors.yaml)")]
struct RawRegistry {
    /// The app's name, shown in every read (`app`).
    app: String,
    /// The app's screens: each an id and the route pattern that identifies it.
    screens: Vec<RawScreen>,
    /// Every anchor the app promises, with the screens it is expected on.
    anchors: Vec<RawAnchor>,
    /// The attribute `test_id` matchers read; `data-testid` when not given.
    test_id_attribute: Option<String>,
}

/// A screen of the app.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Screen")]
struct RawScreen {
    /// Lowercase words joined by `-`, unique (`claim-detail`).
    #[schemars(regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    id: String,
    /// The paths the screen is shown on: `/` then segments, each literal text, `{name}` (one
    /// segment) or, last only, `*` (the rest of the path), e.g. `/claims/{id}`; a hash-routed
    /// app's screen goes on with `#` and the hash route, e.g. `/#/active`.
    #[schemars(regex(pattern = r"^/"))]
    route: String,
    /// What the screen shows, in words a person (or an agent) can act on.
    description: Option<String>,
    /// A value for each of the route's parameters that names a real page of the app
    /// (`{id: "1042"}` for `/claims/{id}`), so tools can visit the screen (`waymark check`).
    #[serde(default)]
    example: std::collections::BTreeMap<String, String>,
}

/// An anchor the app promises.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Anchor")]
struct RawAnchor {
    /// A stable name for what the control is: dot-separated segments of `[a-z0-9_-]`, the
    /// first starting with a letter (`claim.approve`), unique.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$"))]
    id: String,
    /// What the control does, in words a person (or an agent) can act on.
    description: String,
    /// Ids of the screens the anchor is expected on; at least one, all declared.
    #[schemars(length(min = 1))]
    screens: Vec<String>,
    /// The control repeats (a row per item) and is addressed with a key (`claims.open[1042]`).
    #[serde(default)]
    keyed: bool,
    /// Its value changes from run to run (a timestamp, a generated number): snapshots redact it.
    #[serde(default)]
    volatile: bool,
    /// How to find it on a page that has no `data-anchor` for it (a `data-anchor` on the
    /// page still wins): one of `role` (with `name`), `label`, `placeholder`, `text`,
    /// `test_id`, `css`, and `within` another anchor.
    #[serde(rename = "match")]
    matcher: Option<matcher::RawMatch>,
    /// With `match`: what names each of its repeated elements (`text`, or `{attribute:
    /// data-id}`); makes the anchor keyed.
    key: Option<matcher::RawKey>,
}

/// The JSON Schema of `anchors.yaml`, generated from the types the registry is read into:
/// what `anchors.schema.json` holds (a test keeps the two the same), for editors to complete
/// and validate a registry with (`# yaml-language-server: $schema=anchors.schema.json`).
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(RawRegistry);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The pass's value, or its first problem in file order with the rest attached.
fn done<T>(value: T, mut problems: Vec<RegistryError>) -> Result<T, RegistryError> {
    problems.sort_by_key(|problem| problem.location().map(|at| at.span.offset()));
    let mut problems = problems.into_iter();
    match problems.next() {
        None => Ok(value),
        Some(first) => Err(first.with_others(problems.collect())),
    }
}

fn is_screen_id(id: &str) -> bool {
    let word = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    };
    id.split('-').all(word)
}

/// Pass 2: screen and anchor ids are well formed and unique.
fn check_ids(cx: &Cx<'_>, raw: &RawRegistry) -> Result<Vec<AnchorId>, RegistryError> {
    let mut problems = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, screen) in raw.screens.iter().enumerate() {
        let at = |i: usize| cx.at(&[Key("screens"), Index(i), Key("id")], Some(&screen.id));
        let id = screen.id.clone();
        let others = Vec::new();
        if !is_screen_id(&screen.id) {
            problems.push(RegistryError::InvalidScreenId {
                at: at(i),
                id,
                others,
            });
        } else if let Some(&first) = seen.get(screen.id.as_str()) {
            let first = at(first);
            problems.push(RegistryError::DuplicateScreen {
                at: at(i),
                id,
                first,
                others,
            });
        } else {
            seen.insert(&screen.id, i);
        }
    }

    let mut ids = Vec::with_capacity(raw.anchors.len());
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, anchor) in raw.anchors.iter().enumerate() {
        let at = |i: usize| cx.at(&[Key("anchors"), Index(i), Key("id")], Some(&anchor.id));
        let others = Vec::new();
        match (AnchorId::new(&anchor.id), seen.get(anchor.id.as_str())) {
            (Err(error), _) => {
                problems.push(RegistryError::InvalidAnchorId {
                    at: at(i),
                    error,
                    others,
                });
            }
            (Ok(_), Some(&first)) => {
                let (id, first) = (anchor.id.clone(), at(first));
                problems.push(RegistryError::DuplicateAnchor {
                    at: at(i),
                    id,
                    first,
                    others,
                });
            }
            (Ok(id), None) => {
                seen.insert(&anchor.id, i);
                ids.push(id);
            }
        }
    }
    done(ids, problems)
}

/// Pass 3: routes parse and optional descriptions are not blank.
fn check_screens(cx: &Cx<'_>, raw: &RawRegistry) -> Result<Vec<RoutePattern>, RegistryError> {
    let mut problems = Vec::new();
    let mut routes = Vec::with_capacity(raw.screens.len());
    for (i, screen) in raw.screens.iter().enumerate() {
        match RoutePattern::parse(&screen.route) {
            Ok(route) => {
                if let Some(reason) = example_misfit(&route, &screen.example) {
                    problems.push(RegistryError::InvalidExample {
                        at: cx.at(&[Key("screens"), Index(i), Key("example")], None),
                        screen: screen.id.clone(),
                        route: screen.route.clone(),
                        reason,
                        others: Vec::new(),
                    });
                }
                routes.push(route)
            }
            Err(reason) => problems.push(RegistryError::InvalidRoute {
                at: cx.at(
                    &[Key("screens"), Index(i), Key("route")],
                    Some(&screen.route),
                ),
                screen: screen.id.clone(),
                route: screen.route.clone(),
                reason,
                others: Vec::new(),
            }),
        }
        let blank = screen
            .description
            .as_deref()
            .filter(|d| d.trim().is_empty());
        if let Some(description) = blank {
            problems.push(RegistryError::EmptyDescription {
                at: cx.at(
                    &[Key("screens"), Index(i), Key("description")],
                    Some(description),
                ),
                kind: "screen",
                id: screen.id.clone(),
                others: Vec::new(),
            });
        }
    }
    done(routes, problems)
}

/// What is wrong with `example` as values of `route`'s parameters (none given is fine: the
/// screen is then not visited).
fn example_misfit(
    route: &RoutePattern,
    example: &std::collections::BTreeMap<String, String>,
) -> Option<String> {
    if example.is_empty() {
        return None;
    }
    let params = route.params();
    let list = |names: Vec<&str>| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let missing: Vec<&str> = params
        .iter()
        .copied()
        .filter(|p| !example.contains_key(*p))
        .collect();
    let extra: Vec<&str> = example
        .keys()
        .map(String::as_str)
        .filter(|k| !params.contains(k))
        .collect();
    let empty: Vec<&str> = example
        .iter()
        .filter(|(_, v)| v.is_empty() || v.contains(['/', '?', '#']))
        .map(|(k, _)| k.as_str())
        .collect();
    if !extra.is_empty() {
        let expected = if params.is_empty() {
            "it has none".to_string()
        } else {
            format!("its parameters are {}", list(params.clone()))
        };
        Some(format!(
            "{} is not a parameter of the route ({expected})",
            list(extra)
        ))
    } else if !missing.is_empty() {
        Some(format!("no value for {}", list(missing)))
    } else if !empty.is_empty() {
        Some(format!(
            "{} must be one path segment: not empty, without `/`, `?` or `#`",
            list(empty)
        ))
    } else {
        None
    }
}

/// Pass 4: every anchor is described and names at least one screen, all declared.
fn check_references(cx: &Cx<'_>, raw: &RawRegistry) -> Result<(), RegistryError> {
    let mut problems = Vec::new();
    let declared: Vec<String> = raw.screens.iter().map(|s| s.id.clone()).collect();
    for (i, anchor) in raw.anchors.iter().enumerate() {
        let path = |key| [Key("anchors"), Index(i), Key(key)];
        if anchor.description.trim().is_empty() {
            problems.push(RegistryError::EmptyDescription {
                at: cx.at(&path("description"), Some(&anchor.description)),
                kind: "anchor",
                id: anchor.id.clone(),
                others: Vec::new(),
            });
        }
        if anchor.screens.is_empty() {
            problems.push(RegistryError::NoScreens {
                at: cx.at(&path("screens"), None),
                anchor: anchor.id.clone(),
                others: Vec::new(),
            });
        }
        for (j, screen) in anchor.screens.iter().enumerate() {
            if !declared.contains(screen) {
                let [a, i, s] = path("screens");
                problems.push(RegistryError::UnknownScreen {
                    at: cx.at(&[a, i, s, Index(j)], Some(screen)),
                    anchor: anchor.id.clone(),
                    screen: screen.clone(),
                    declared: declared.clone(),
                    others: Vec::new(),
                });
            }
        }
    }
    done((), problems)
}

/// An anchor's matcher and key, each when it has one.
type MatcherAndKey = (Option<Matcher>, Option<KeySource>);

/// Pass 5: matchers name one known way to match, `within` a declared anchor without a loop,
/// `key` only with a matcher; the test id attribute is an attribute name.
fn check_matchers(cx: &Cx<'_>, raw: &RawRegistry) -> Result<Vec<MatcherAndKey>, RegistryError> {
    let mut problems = Vec::new();
    let invalid = |i: usize, anchor: &RawAnchor, field: &str, reason: String, plain| {
        let mut path = vec![Key("anchors"), Index(i)];
        for part in field.split('.') {
            path.push(Key(match part {
                "match" => "match",
                "key" => "key",
                "attribute" => "attribute",
                "role" => "role",
                "name" => "name",
                "label" => "label",
                "placeholder" => "placeholder",
                "text" => "text",
                "test_id" => "test_id",
                "css" => "css",
                _ => "within",
            }));
        }
        RegistryError::InvalidMatcher {
            at: cx.at(&path, plain),
            anchor: anchor.id.clone(),
            field: format!("`{field}`"),
            reason,
            others: Vec::new(),
        }
    };
    if let Some(attr) = &raw.test_id_attribute
        && !matcher::is_attribute_name(attr)
    {
        problems.push(RegistryError::InvalidMatcher {
            at: cx.at(&[Key("test_id_attribute")], Some(attr)),
            anchor: String::new(),
            field: "`test_id_attribute`".into(),
            reason: format!(
                "`{}` is not an attribute name",
                crate::protocol::quoted(attr)
            ),
            others: Vec::new(),
        });
    }
    // Looked up by hash: a `within` chain is walked from every anchor that has one, and a
    // scan per step made a large registry's load quadratic.
    let index: HashMap<&str, usize> = raw
        .anchors
        .iter()
        .enumerate()
        .rev()
        .map(|(i, a)| (a.id.as_str(), i))
        .collect();
    let position = |id: &str| index.get(id).copied();
    let mut out = Vec::with_capacity(raw.anchors.len());
    for (i, anchor) in raw.anchors.iter().enumerate() {
        let mut matcher = None;
        if let Some(m) = &anchor.matcher {
            match matcher::compile(m) {
                Ok(mut compiled) => {
                    if let Some(w) = &m.within {
                        match (position(w), AnchorId::new(w)) {
                            (Some(j), Ok(id)) if j != i => {
                                // A chain of `within` that comes back is no scope at all.
                                let mut at = j;
                                let mut steps = 0;
                                let looped = loop {
                                    let next = raw.anchors[at]
                                        .matcher
                                        .as_ref()
                                        .and_then(|m| m.within.as_deref())
                                        .and_then(position);
                                    match next {
                                        Some(n) if n == i => break true,
                                        Some(n) if steps < raw.anchors.len() => {
                                            at = n;
                                            steps += 1;
                                        }
                                        _ => break false,
                                    }
                                };
                                if looped {
                                    problems.push(invalid(
                                        i,
                                        anchor,
                                        "match.within",
                                        format!(
                                            "`{w}` is (or is within) `{}` itself: a loop",
                                            anchor.id
                                        ),
                                        Some(w),
                                    ));
                                } else {
                                    compiled.within = Some(id);
                                }
                            }
                            (Some(_), _) => problems.push(invalid(
                                i,
                                anchor,
                                "match.within",
                                "an anchor cannot be within itself".into(),
                                Some(w),
                            )),
                            (None, _) => {
                                let ids: Vec<String> =
                                    raw.anchors.iter().map(|a| a.id.clone()).collect();
                                let near = closest(w, &ids)
                                    .map(|n| format!("; did you mean `{n}`?"))
                                    .unwrap_or_default();
                                problems.push(invalid(
                                    i,
                                    anchor,
                                    "match.within",
                                    format!(
                                        "`{}` is not a declared anchor{near}",
                                        crate::protocol::quoted(w)
                                    ),
                                    Some(w),
                                ));
                            }
                        }
                    }
                    matcher = Some(compiled);
                }
                Err(m) => problems.push(invalid(i, anchor, m.field, m.reason, None)),
            }
        }
        let key = match (&anchor.key, &anchor.matcher) {
            (None, Some(_)) if anchor.keyed => Some(KeySource::Text),
            (None, _) => None,
            (Some(_), None) => {
                problems.push(invalid(
                    i,
                    anchor,
                    "key",
                    "`key` says how a matcher's elements are named: it needs `match`".into(),
                    None,
                ));
                None
            }
            (Some(k), Some(_)) => match matcher::compile_key(k) {
                Ok(k) => Some(k),
                Err(m) => {
                    problems.push(invalid(i, anchor, m.field, m.reason, None));
                    None
                }
            },
        };
        out.push((matcher, key));
    }
    // Two anchors whose matchers are the same (`within` included) find the same elements
    // on a screen both are declared on: the first in the file would take them, and the
    // other would read missing there. Decidable at load only when the matchers are equal.
    // The anchors are grouped by matcher, so that ten thousand anchors with a matcher each
    // are not compared pairwise (that took seconds).
    let mut alike: HashMap<&Matcher, Vec<usize>> = HashMap::new();
    for (j, (matcher, _)) in out.iter().enumerate() {
        let Some(mj) = matcher else { continue };
        let earlier = alike.entry(mj).or_default();
        let twin = earlier.iter().find_map(|&i| {
            let shared = raw.anchors[i]
                .screens
                .iter()
                .find(|s| raw.anchors[j].screens.contains(s))?;
            Some((i, shared))
        });
        earlier.push(j);
        if let Some((i, screen)) = twin {
            problems.push(invalid(
                j,
                &raw.anchors[j],
                "match",
                format!(
                    "finds the same elements as `{}` on screen `{screen}`: both match {mj}, \
                     and an element shows under the first anchor that finds it; tell them \
                     apart (`name`, `within`) or declare them on different screens",
                    raw.anchors[i].id
                ),
                None,
            ));
        }
    }
    done(out, problems)
}

#[cfg(test)]
mod tests {
    use miette::Diagnostic;

    use super::*;

    /// Issue 48: two anchors with the same matcher on one screen: the first in the file took
    /// the element and `check` called the other missing. Refused at load, where decidable;
    /// on different screens they are two promises, each kept on its own screen.
    #[test]
    fn two_anchors_with_one_matcher_on_one_screen_are_refused_at_load() {
        let yaml = |second: &str| {
            format!(
                "app: a\nscreens:\n  - id: s\n    route: /s\n  - id: t\n    route: /t\nanchors:\n  - id: a.save\n    description: d\n    screens: [s]\n    match: {{role: button, name: Save}}\n  - id: a.store\n    description: d\n    screens: [{second}]\n    match: {{role: button, name: Save}}\n"
            )
        };
        let e = Registry::parse(&yaml("t, s"), "a.yaml").unwrap_err();
        assert!(
            format!("{e:?}").contains("finds the same elements as `a.save` on screen `s`"),
            "{e:?}"
        );
        Registry::parse(&yaml("t"), "a.yaml").unwrap_or_else(|e| panic!("{e:?}"));
    }

    #[test]
    fn a_malformed_matcher_is_refused_naming_its_line_field_and_allowed_values() {
        let yaml = |anchor: &str| {
            format!(
                "app: a\nscreens:\n  - id: s\n    route: /\nanchors:\n  - id: a.list\n    description: d\n    screens: [s]\n    match: {{role: list}}\n  - id: a.b\n    description: d\n    screens: [s]\n{anchor}"
            )
        };
        let ok = Registry::parse(
            &yaml("    match: {role: button, name: /^Save/i, within: a.list}\n    key: {attribute: data-id}\n"),
            "a.yaml",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let b = ok.anchor("a.b").unwrap();
        assert!(b.keyed);
        assert_eq!(b.key, Some(KeySource::Attribute("data-id".into())));
        assert_eq!(
            b.matcher.as_ref().unwrap().to_string(),
            "{role: button, name: /^Save/i, within: a.list}"
        );
        assert_eq!(ok.matchers().unwrap().list.len(), 2);
        for (anchor, says) in [
            (
                "    match: {rol: button}\n",
                "line 13, column 13: anchors[1].match: unknown field `rol`, expected one of `role`",
            ),
            (
                "    match: {role: buton}\n",
                "`a.yaml` line 13, column 19: anchor `a.b`'s `match.role` is invalid: `buton` is not an ARIA role; did you mean `button`?",
            ),
            (
                "    match: {label: A, text: B}\n",
                "line 13, column 12: anchor `a.b`'s `match` is invalid: it names label and text; give exactly one of role, label, placeholder, text, test_id, css",
            ),
            (
                "    match: {role: button, within: a.lists}\n",
                "line 13, column 35: anchor `a.b`'s `match.within` is invalid: `a.lists` is not a declared anchor; did you mean `a.list`?",
            ),
            (
                "    key: text\n",
                "line 13, column 10: anchor `a.b`'s `key` is invalid: `key` says how a matcher's elements are named: it needs `match`",
            ),
            (
                "    match: {text: /a/g}\n",
                "`g` is not a regex flag (allowed: d, i, m, s, u, v)",
            ),
        ] {
            let e = Registry::parse(&yaml(anchor), "a.yaml")
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{e}\nwanted: {says}");
        }
    }

    #[test]
    fn a_screen_example_fills_its_route_and_must_fit_it() {
        let yaml = |example: &str| {
            format!(
                "app: a\nscreens:\n  - id: item\n    route: /items/{{id}}\n{example}anchors: []\n"
            )
        };
        let registry = Registry::parse(&yaml("    example: {id: \"7\"}\n"), "a.yaml").unwrap();
        assert_eq!(
            registry.screen("item").unwrap().example.as_deref(),
            Some("/items/7")
        );
        let registry = Registry::parse(&yaml(""), "a.yaml").unwrap();
        assert_eq!(registry.screen("item").unwrap().example, None);
        for (example, says) in [
            (
                "    example: {idd: \"7\"}\n",
                "`idd` is not a parameter of the route (its parameters are `id`)",
            ),
            (
                "    example: {id: \"a/b\"}\n",
                "`id` must be one path segment",
            ),
        ] {
            let e = Registry::parse(&yaml(example), "a.yaml")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("`a.yaml` line 5,"), "{e}");
            assert!(e.contains(says), "{e}");
        }
    }

    /// A hostile one-line document nesting 100,000 `[` took yaml_serde's scanner 21 s and
    /// printed 200 kB: it is refused at the 65th level, and its line is not shown.
    #[test]
    fn a_deeply_nested_registry_is_refused_at_its_depth_without_its_line() {
        let n = 100_000;
        let text = format!(
            "app: x\nscreens: {}{}\nanchors: []\n",
            "[".repeat(n),
            "]".repeat(n)
        );
        let e = Registry::parse(&text, "deep.yaml").unwrap_err();
        let message = e.to_string();
        assert!(
            message.starts_with(
                "invalid anchor registry `deep.yaml` at line 2, column 74: it nests deeper than 64"
            ),
            "{message}"
        );
        let shown = format!("{}", e.report());
        assert!(shown.len() < 2_000, "{} bytes shown", shown.len());
        // Brackets in quoted and plain scalars, and comments, are not nesting.
        let fine = format!(
            "app: x # {}\nscreens:\n  - id: a\n    route: /\n    description: \"{}\"\n  \
             - id: b\n    route: /b\n    description: it's {}\nanchors: []\n",
            "[".repeat(100),
            "{".repeat(100),
            "[".repeat(10) + "]".repeat(10).as_str()
        );
        if let Err(e) = Registry::parse(&fine, "fine.yaml") {
            panic!("{e}\n{fine}");
        }
    }

    /// yaml_serde quotes a value whole in its message: a huge one is cut.
    #[test]
    fn a_huge_value_in_a_syntax_error_is_quoted_in_part() {
        let text = format!(
            "app: [\"{}\"]\nscreens: []\nanchors: []\n",
            "x".repeat(50_000)
        );
        let message = Registry::parse(&text, "big.yaml").unwrap_err().to_string();
        assert!(
            message.len() < 1_000,
            "{} bytes: {}",
            message.len(),
            &message[..200]
        );
    }

    /// `anchors.schema.json` is what the registry's types say; `WAYMARK_UPDATE_SCHEMA=1`
    /// rewrites it after a change to them.
    #[test]
    fn the_checked_in_schema_is_the_one_the_types_generate() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("anchors.schema.json");
        let generated = json_schema();
        if std::env::var_os("WAYMARK_UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).expect("write anchors.schema.json");
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "anchors.schema.json is stale: run `WAYMARK_UPDATE_SCHEMA=1 cargo test --lib schema`"
        );
        for field in [
            "\"app\"",
            "\"screens\"",
            "\"anchors\"",
            "\"keyed\"",
            "\"volatile\"",
        ] {
            assert!(generated.contains(field), "the schema lacks {field}");
        }
        assert!(generated.contains("\"additionalProperties\": false"));
    }

    /// Editors find the schema from the registry's first line.
    #[test]
    fn anchors_yaml_names_its_schema_on_its_first_line() {
        let registry = include_str!("../../anchors.yaml");
        assert_eq!(
            registry.lines().next(),
            Some("# yaml-language-server: $schema=anchors.schema.json")
        );
    }

    const VALID: &str = "\
app: demo
screens:
  - id: claims-list        # the list
    route: /claims
    description: The claims awaiting review.
  - id: claim-detail
    route: /claims/{id}
  - id: claims-any
    route: /claims/*
anchors:
  - id: claim.approve
    description: Approves the claim on screen and returns to the list.
    screens: [claim-detail]
    keyed: false
  - id: claims.row
    description: Opens one claim.
    screens: [claims-list, claims-any]
    keyed: true
";

    pub(super) fn parse_err(source: &str) -> RegistryError {
        match Registry::parse(source, "anchors.yaml") {
            Ok(_) => panic!("expected an error for:\n{source}"),
            Err(e) => e,
        }
    }

    /// Line, column and the text under the primary label.
    pub(super) fn site<'s>(e: &RegistryError, source: &'s str) -> (usize, usize, &'s str) {
        let at = e.location().expect("a location");
        let span = e.labels().and_then(|mut l| l.next()).expect("a label");
        assert_eq!(span.inner(), &at.span);
        let text = &source[at.span.offset()..at.span.offset() + at.span.len()];
        (at.line, at.column, text)
    }

    pub(super) fn render(err: &RegistryError) -> String {
        let mut out = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .render_report(&mut out, err)
            .unwrap();
        out
    }

    #[test]
    fn valid_registry_round_trip() {
        let registry = Registry::parse(VALID, "anchors.yaml").unwrap();
        assert_eq!(registry.app(), "demo");
        let screens: Vec<_> = registry.screens().iter().map(|s| s.id.as_str()).collect();
        assert_eq!(screens, ["claims-list", "claim-detail", "claims-any"]);
        assert_eq!(
            registry.screens()[0],
            ScreenSpec {
                id: "claims-list".into(),
                route: RoutePattern::parse("/claims").unwrap(),
                description: Some("The claims awaiting review.".into()),
                example: Some("/claims".into()),
            }
        );
        assert_eq!(registry.screens()[1].description, None);
        assert_eq!(registry.screens()[1].route.as_str(), "/claims/{id}");
        assert_eq!(registry.screens()[1].route.to_string(), "/claims/{id}");

        let approve = registry.anchor("claim.approve").unwrap();
        assert_eq!(
            *approve,
            AnchorSpec {
                id: AnchorId::new("claim.approve").unwrap(),
                description: "Approves the claim on screen and returns to the list.".into(),
                screens: vec!["claim-detail".into()],
                keyed: false,
                volatile: false,
                matcher: None,
                key: None,
            }
        );
        assert!(registry.anchor("claims.row").unwrap().keyed);
        assert!(registry.anchor("claim.reject").is_none());
        assert_eq!(registry.anchors().len(), 2);

        let on = |screen| {
            registry
                .anchors_on_screen(screen)
                .map(|a| a.id.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(on("claims-any"), ["claims.row"]);
        assert_eq!(on("claim-detail"), ["claim.approve"]);
        assert!(on("nowhere").is_empty());
        assert_eq!(registry.screen("claim-detail").unwrap().id, "claim-detail");
    }

    #[test]
    fn keyed_defaults_to_false_and_lists_may_be_empty() {
        let registry = Registry::parse("app: x\nscreens: []\nanchors: []\n", "a.yaml").unwrap();
        assert!(registry.screens().is_empty() && registry.anchors().is_empty());
        let registry = Registry::parse(
            "app: x\nscreens: [{id: s, route: /}]\nanchors: [{id: a, description: d, screens: [s]}]",
            "a.yaml",
        )
        .unwrap();
        assert!(!registry.anchors()[0].keyed);
    }

    #[test]
    fn empty_registry_promises_nothing() {
        let registry = Registry::empty();
        assert_eq!(registry.app(), "");
        assert!(registry.screens().is_empty() && registry.anchors().is_empty());
        assert!(registry.screen_for_route("/").is_none());
        assert!(registry.anchor("a").is_none());
    }

    #[test]
    fn load_reads_a_file_and_names_it_as_given() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry");
        let registry = Registry::load(&dir.join("demo.yaml")).unwrap();
        assert_eq!(registry.app(), "demo");
        assert!(registry.anchor("claims.row").unwrap().keyed);

        let err = Registry::load(Path::new("no/such/anchors.yaml")).unwrap_err();
        assert!(matches!(err, RegistryError::Read { .. }));
        assert_eq!(
            err.to_string(),
            "cannot read anchor registry `no/such/anchors.yaml`: No such file or directory (os \
             error 2)"
        );
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn duplicate_anchor_points_at_both_declarations() {
        let source = "\
app: demo
screens: [{id: s, route: /}]
anchors:
  - id: claim.approve
    description: d
    screens: [s]
  - id: other
    description: d
    screens: [s]
  - id: 'claim.approve'
    description: d
    screens: [s]
";
        let err = parse_err(source);
        assert_eq!(
            err.to_string(),
            "`anchors.yaml` line 10, column 9: anchor `claim.approve` is declared twice (first \
             at line 4)"
        );
        assert_eq!(site(&err, source), (10, 9, "'claim.approve'"));
        let labels: Vec<_> = err.labels().unwrap().collect();
        assert_eq!(labels.len(), 2);
        assert_eq!(labels[1].label(), Some("first declared here"));
        assert_eq!(&source[labels[1].offset()..][..13], "claim.approve");
        assert_eq!(labels[1].len(), 13);
    }

    #[test]
    fn invalid_anchor_id_says_the_rule() {
        let source = "\
app: demo
screens: [{id: s, route: /}]
anchors:
  - description: d
    id: \"Claim Approve\"
    screens: [s]
";
        let err = parse_err(source);
        assert_eq!(
            err.to_string(),
            "`anchors.yaml` line 5, column 9: `Claim Approve` is not a valid anchor id: segment \
             `Claim Approve` has a character outside [a-z0-9_-] ('C')"
        );
        assert_eq!(site(&err, source), (5, 9, "\"Claim Approve\""));
    }

    #[test]
    fn screen_id_problems() {
        let source = "\
app: demo
screens:
  - id: Claims List
    route: /claims
anchors: []
";
        let err = parse_err(source);
        assert!(matches!(err, RegistryError::InvalidScreenId { .. }));
        assert_eq!(site(&err, source), (3, 9, "Claims List"));
        assert!(
            err.to_string().starts_with(
                "`anchors.yaml` line 3, column 9: screen id `Claims List` is invalid: "
            )
        );
        for id in ["a--b", "-a", "a-", "", "a_b"] {
            let source = format!("app: x\nscreens: [{{id: '{id}', route: /}}]\nanchors: []\n");
            assert!(
                matches!(parse_err(&source), RegistryError::InvalidScreenId { .. }),
                "{id}"
            );
        }

        let source = "\
app: demo
screens:
  - {id: claims, route: /claims}   # id: claims, again below
  - {route: /other, id: claims}
anchors: []
";
        let err = parse_err(source);
        assert_eq!(
            err.to_string(),
            "`anchors.yaml` line 4, column 25: screen `claims` is declared twice (first at line 3)"
        );
        assert_eq!(site(&err, source), (4, 25, "claims"));
    }

    #[test]
    fn route_description_and_screens_problems() {
        let source = "app: x\nscreens:\n  - id: list\n    route: claims\nanchors: []\n";
        let err = parse_err(source);
        assert_eq!(
            err.to_string(),
            "`anchors.yaml` line 4, column 12: screen `list` has an invalid route `claims`: it \
             must start with `/`"
        );
        assert_eq!(site(&err, source), (4, 12, "claims"));

        let source =
            "app: x\nscreens:\n  - id: list\n    route: /\n    description: ''\nanchors: []\n";
        let err = parse_err(source);
        assert!(
            matches!(err, RegistryError::EmptyDescription { kind: "screen", .. }),
            "{err}"
        );
        assert_eq!(site(&err, source), (5, 18, "''"));

        let source = "app: x\nscreens: [{id: s, route: /}]\nanchors:\n  - id: a\n    description:   \n    screens: [s]\n";
        let err = parse_err(source);
        assert!(
            err.to_string().starts_with(
                "`anchors.yaml` line 5, column 17: anchor `a` has an empty description"
            )
        );

        let source = "app: x\nscreens: [{id: s, route: /}]\nanchors:\n  - id: a\n    description: d\n    screens: []  # none\n";
        let err = parse_err(source);
        assert_eq!(
            err.to_string(),
            "`anchors.yaml` line 6, column 14: anchor `a` lists no screens; name at least one \
             declared screen"
        );
        assert_eq!(site(&err, source), (6, 14, "[]"));
    }

    #[test]
    fn problems_of_one_pass_come_together_in_file_order() {
        let source = "\
app: x
screens: [{id: s, route: /}]
anchors:
  - id: b
    description: d
    screens: [t, s, u]
  - id: a
    description: ' '
    screens: [s]
";
        let err = parse_err(source);
        assert_eq!(site(&err, source), (6, 15, "t"));
        assert!(matches!(err, RegistryError::UnknownScreen { .. }), "{err}");
        let sites: Vec<_> = err.others().iter().map(|o| site(o, source)).collect();
        assert_eq!(sites, [(6, 21, "u"), (8, 18, "' '")]);
        assert_eq!(err.related().unwrap().count(), 2);

        let rendered = render(&err);
        for text in ["not a declared screen", "`u`", "empty description"] {
            assert!(rendered.contains(text), "{text} in:\n{rendered}");
        }
    }

    #[test]
    fn earlier_passes_stop_later_ones() {
        let source = "app: x\nscreens: [{id: S, route: nope}]\nanchors: [{id: a, description: d, screens: [q]}]\n";
        let err = parse_err(source);
        assert!(
            matches!(err, RegistryError::InvalidScreenId { ref others, .. } if others.is_empty())
        );
    }

    #[test]
    fn screen_for_route_picks_the_first_match_in_file_order() {
        let registry = Registry::parse(VALID, "anchors.yaml").unwrap();
        let screen = |route| registry.screen_for_route(route).map(|s| s.id.as_str());
        assert_eq!(screen("/claims"), Some("claims-list"));
        assert_eq!(screen("/claims/"), Some("claims-list"));
        assert_eq!(screen("/claims/1042?tab=notes"), Some("claim-detail"));
        assert_eq!(screen("/claims/1042/edit"), Some("claims-any"));
        assert_eq!(screen("/orders"), None);
    }
}
