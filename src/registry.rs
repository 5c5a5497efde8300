//! The anchor registry, `anchors.yaml`: every anchor an app promises and the screens it is
//! expected on.
//!
//! The registry is the contract a redesign must keep, so it is loaded and validated in full
//! before any browser starts, in passes (syntax → ids → screens → references), and every
//! problem points into the file at the value at fault. serde_yaml does the parsing; since it
//! gives no spans for values, [`Registry::parse`] asks it for them afterwards by walking to the
//! value again and stopping there (see `locate`), which is exact for any YAML style.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceSpan};
use serde::Deserialize;

use crate::anchor::{AnchorError, AnchorId};

/// A loaded, validated anchor registry.
#[derive(Debug, Clone)]
pub struct Registry {
    app: String,
    screens: Vec<ScreenSpec>,
    anchors: Vec<AnchorSpec>,
    index: HashMap<AnchorId, usize>,
}

/// A screen of the app: an id and the route pattern that identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenSpec {
    /// Lowercase words joined by `-` (`claim-detail`).
    pub id: String,
    /// The paths this screen is shown on.
    pub route: RoutePattern,
    /// What the screen shows, if the registry says.
    pub description: Option<String>,
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
}

/// A route pattern: `/` followed by `/`-separated segments, each literal text, `{name}` (exactly
/// one non-empty segment) or, last only, `*` (the rest of the path: zero or more segments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutePattern {
    text: String,
    segments: Vec<Segment>,
    rest: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Param,
}

impl RoutePattern {
    /// Parses a pattern; the error says what is wrong with it, as a lowercase fragment.
    pub fn parse(pattern: &str) -> Result<RoutePattern, String> {
        let Some(body) = pattern.strip_prefix('/') else {
            return Err("it must start with `/`".into());
        };
        let mut route = RoutePattern {
            text: pattern.to_owned(),
            segments: Vec::new(),
            rest: false,
        };
        if body.is_empty() {
            return Ok(route);
        }
        let parts: Vec<&str> = body.split('/').collect();
        let mut names = HashSet::new();
        for (i, &part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if part.is_empty() && last {
                return Err("it ends with `/`; write it without the trailing `/`".into());
            } else if part.is_empty() {
                return Err("it has an empty segment (`//`)".into());
            } else if part == "*" && !last {
                return Err("`*` must be the last segment".into());
            } else if part == "*" {
                route.rest = true;
            } else if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
                if name.is_empty() || !name.chars().all(name_char) {
                    return Err(format!(
                        "parameter `{part}` needs a name of letters, digits, `_` or `-`"
                    ));
                }
                if !names.insert(name) {
                    return Err(format!("parameter `{part}` appears twice"));
                }
                route.segments.push(Segment::Param);
            } else if part.contains(['{', '}', '*']) {
                return Err(format!(
                    "segment `{part}` mixes text with `{{`, `}}` or `*`; a parameter or `*` \
                     must be a whole segment"
                ));
            } else if part.contains(['?', '#']) {
                return Err(format!(
                    "segment `{part}` contains `?` or `#`; a pattern matches the path only"
                ));
            } else {
                route.segments.push(Segment::Literal(part.to_owned()));
            }
        }
        Ok(route)
    }

    /// Whether `path` is on this route. A query string, a fragment and one trailing `/` are
    /// ignored; `path` must start with `/`.
    pub fn matches(&self, path: &str) -> bool {
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let Some(body) = path.strip_prefix('/') else {
            return false;
        };
        let body = body.strip_suffix('/').unwrap_or(body);
        let mut parts = (!body.is_empty())
            .then(|| body.split('/'))
            .into_iter()
            .flatten();
        for segment in &self.segments {
            let Some(part) = parts.next() else {
                return false;
            };
            let fits = match segment {
                Segment::Literal(text) => part == text,
                Segment::Param => !part.is_empty(),
            };
            if !fits {
                return false;
            }
        }
        self.rest || parts.next().is_none()
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for RoutePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Registry {
    /// Reads and validates the registry at `path`; errors name the file as `path` is given.
    pub fn load(path: &Path) -> Result<Registry, RegistryError> {
        let file = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(source) => Registry::parse(&source, &file),
            Err(source) => Err(RegistryError::Read { file, source }),
        }
    }

    /// Validates `source`, the text of a registry; `file_name` names it in errors.
    pub fn parse(source: &str, file_name: &str) -> Result<Registry, RegistryError> {
        let cx = Cx {
            file: file_name,
            text: source,
            named: NamedSource::new(file_name, Arc::from(source)),
        };
        let raw: RawRegistry = serde_yaml::from_str(source).map_err(|e| cx.syntax_error(&e))?;
        let ids = check_ids(&cx, &raw)?;
        let routes = check_screens(&cx, &raw)?;
        check_references(&cx, &raw)?;

        let screens = raw
            .screens
            .into_iter()
            .zip(routes)
            .map(|(screen, route)| ScreenSpec {
                id: screen.id,
                route,
                description: screen.description,
            })
            .collect();
        let anchors: Vec<AnchorSpec> = raw
            .anchors
            .into_iter()
            .zip(ids)
            .map(|(anchor, id)| AnchorSpec {
                id,
                description: anchor.description,
                screens: anchor.screens,
                keyed: anchor.keyed,
            })
            .collect();
        let index = anchors
            .iter()
            .enumerate()
            .map(|(i, anchor)| (anchor.id.clone(), i))
            .collect();
        Ok(Registry {
            app: raw.app,
            screens,
            anchors,
            index,
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
        }
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
    /// and fragment are ignored, a trailing '/' too (except for "/").
    pub fn screen_for_route(&self, route: &str) -> Option<&ScreenSpec> {
        self.screens
            .iter()
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

/// Where in a registry file a problem is.
#[derive(Debug, Clone)]
pub struct Location {
    /// The file as named.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The value at fault, in bytes.
    pub span: SourceSpan,
    src: NamedSource<Arc<str>>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` line {}, column {}",
            self.file, self.line, self.column
        )
    }
}

/// What is wrong with an anchor registry: one variant per problem.
///
/// Every variant but [`RegistryError::Read`] has a [`Location`] (file, line, column, and the
/// file's text for miette to show). The problems of one validation pass come together: the
/// first in file order is the error, the rest are in its `others` (rendered by miette as related
/// diagnostics).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The file could not be read.
    #[error("cannot read anchor registry `{file}`: {source}")]
    Read {
        /// The file as named.
        file: String,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// Not YAML, or not the registry's shape: a missing or unknown field, a wrong type.
    #[error(
        "invalid anchor registry `{}` at line {}, column {}: {message}",
        .at.file, .at.line, .at.column
    )]
    Syntax {
        /// Where serde_yaml stopped.
        at: Box<Location>,
        /// serde_yaml's description, without its position.
        message: String,
    },
    /// A screen id that is not lowercase words joined by `-`.
    #[error(
        "{at}: screen id `{id}` is invalid: use lowercase words of a-z and 0-9 joined by single \
         `-`, like `claim-detail`"
    )]
    InvalidScreenId {
        /// Where the id is.
        at: Box<Location>,
        /// The id as written.
        id: String,
        /// Further problems of the same pass.
        others: Vec<RegistryError>,
    },
    /// Two screens with one id.
    #[error("{at}: screen `{id}` is declared twice (first at line {})", .first.line)]
    DuplicateScreen {
        /// Where the second declaration is.
        at: Box<Location>,
        /// The id.
        id: String,
        /// Where the first declaration is.
        first: Box<Location>,
        /// Further problems of the same pass.
        others: Vec<RegistryError>,
    },
    /// An anchor id that is not valid anchor syntax.
    #[error("{at}: {error}")]
    InvalidAnchorId {
        /// Where the id is.
        at: Box<Location>,
        /// What is wrong with the id (it names the id).
        error: AnchorError,
        /// Further problems of the same pass.
        others: Vec<RegistryError>,
    },
    /// Two anchors with one id.
    #[error("{at}: anchor `{id}` is declared twice (first at line {})", .first.line)]
    DuplicateAnchor {
        /// Where the second declaration is.
        at: Box<Location>,
        /// The id.
        id: String,
        /// Where the first declaration is.
        first: Box<Location>,
        /// Further problems of the same pass.
        others: Vec<RegistryError>,
    },
    /// A screen's route is not a valid [`RoutePattern`].
    #[error("{at}: screen `{screen}` has an invalid route `{route}`: {reason}")]
    InvalidRoute {
        /// Where the route is.
        at: Box<Location>,
        /// The screen's id.
        screen: String,
        /// The route as written.
        route: String,
        /// What is wrong with it.
        reason: String,
        /// Further problems of the same pass.
        others: Vec<RegistryError>,
    },
    /// A description that is empty or only whitespace.
    #[error(
        "{at}: {kind} `{id}` has an empty description; say what it is for, or leave \
         `description` out where it is optional"
    )]
    EmptyDescription {
        /// Where the description is.
        at: Box<Location>,
        /// `"anchor"` or `"screen"`.
        kind: &'static str,
        /// The anchor's or screen's id.
        id: String,
        /// Further problems of the same pass.
        others: Vec<RegistryError>,
    },
    /// An anchor whose `screens` list is empty.
    #[error("{at}: anchor `{anchor}` lists no screens; name at least one declared screen")]
    NoScreens {
        /// Where the empty list is.
        at: Box<Location>,
        /// The anchor's id.
        anchor: String,
        /// Further problems of the same pass.
        others: Vec<RegistryError>,
    },
    /// An anchor names a screen the registry does not declare.
    #[error(
        "{at}: anchor `{anchor}` names unknown screen `{screen}` ({})",
        declared_list(.declared)
    )]
    UnknownScreen {
        /// Where the screen name is.
        at: Box<Location>,
        /// The anchor's id.
        anchor: String,
        /// The screen as named.
        screen: String,
        /// The declared screen ids, in file order.
        declared: Vec<String>,
        /// Further problems of the same pass.
        others: Vec<RegistryError>,
    },
}

fn declared_list(declared: &[String]) -> String {
    if declared.is_empty() {
        "no screens are declared".into()
    } else {
        format!("declared screens: {}", declared.join(", "))
    }
}

impl RegistryError {
    /// Where the problem is; `None` when the file could not be read.
    pub fn location(&self) -> Option<&Location> {
        use RegistryError as E;
        match self {
            E::Read { .. } => None,
            E::Syntax { at, .. }
            | E::InvalidScreenId { at, .. }
            | E::DuplicateScreen { at, .. }
            | E::InvalidAnchorId { at, .. }
            | E::DuplicateAnchor { at, .. }
            | E::InvalidRoute { at, .. }
            | E::EmptyDescription { at, .. }
            | E::NoScreens { at, .. }
            | E::UnknownScreen { at, .. } => Some(at),
        }
    }

    /// The further problems found by the same validation pass, in file order.
    pub fn others(&self) -> &[RegistryError] {
        self.others_field().map_or(&[], |others| others)
    }

    fn others_field(&self) -> Option<&Vec<RegistryError>> {
        use RegistryError as E;
        match self {
            E::Read { .. } | E::Syntax { .. } => None,
            E::InvalidScreenId { others, .. }
            | E::DuplicateScreen { others, .. }
            | E::InvalidAnchorId { others, .. }
            | E::DuplicateAnchor { others, .. }
            | E::InvalidRoute { others, .. }
            | E::EmptyDescription { others, .. }
            | E::NoScreens { others, .. }
            | E::UnknownScreen { others, .. } => Some(others),
        }
    }

    fn with_others(mut self, rest: Vec<RegistryError>) -> RegistryError {
        use RegistryError as E;
        match &mut self {
            E::Read { .. } | E::Syntax { .. } => {}
            E::InvalidScreenId { others, .. }
            | E::DuplicateScreen { others, .. }
            | E::InvalidAnchorId { others, .. }
            | E::DuplicateAnchor { others, .. }
            | E::InvalidRoute { others, .. }
            | E::EmptyDescription { others, .. }
            | E::NoScreens { others, .. }
            | E::UnknownScreen { others, .. } => *others = rest,
        }
        self
    }

    /// The diagnostic code's last part and the primary label's text.
    fn code_and_label(&self) -> (&'static str, &'static str) {
        use RegistryError as E;
        match self {
            E::Read { .. } => ("read", ""),
            E::Syntax { .. } => ("syntax", "here"),
            E::InvalidScreenId { .. } => ("invalid_screen_id", "not a screen id"),
            E::DuplicateScreen { .. } => ("duplicate_screen", "declared again here"),
            E::InvalidAnchorId { .. } => ("invalid_anchor_id", "not an anchor id"),
            E::DuplicateAnchor { .. } => ("duplicate_anchor", "declared again here"),
            E::InvalidRoute { .. } => ("invalid_route", "invalid route"),
            E::EmptyDescription { .. } => ("empty_description", "empty"),
            E::NoScreens { .. } => ("no_screens", "no screens"),
            E::UnknownScreen { .. } => ("unknown_screen", "not a declared screen"),
        }
    }
}

// Written by hand rather than derived so that the shared location sits behind one `Box`: the
// error stays small enough to return by value (clippy's `result_large_err`).
impl miette::Diagnostic for RegistryError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let (code, _) = self.code_and_label();
        Some(Box::new(format!("waymark::registry::{code}")))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let RegistryError::UnknownScreen {
            screen, declared, ..
        } = self
        else {
            return None;
        };
        let near = closest(screen, declared)?;
        Some(Box::new(format!("did you mean `{near}`?")))
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.location()?.src)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let at = self.location()?;
        let (_, label) = self.code_and_label();
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(label.into()),
            at.span,
        )];
        if let RegistryError::DuplicateScreen { first, .. }
        | RegistryError::DuplicateAnchor { first, .. } = self
        {
            let text = Some("first declared here".into());
            labels.push(LabeledSpan::new_with_span(text, first.span));
        }
        Some(Box::new(labels.into_iter()))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        let others = self.others();
        if others.is_empty() {
            return None;
        }
        Some(Box::new(others.iter().map(|e| e as &dyn Diagnostic)))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegistry {
    app: String,
    screens: Vec<RawScreen>,
    anchors: Vec<RawAnchor>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScreen {
    id: String,
    route: String,
    description: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnchor {
    id: String,
    description: String,
    screens: Vec<String>,
    #[serde(default)]
    keyed: bool,
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
            Ok(route) => routes.push(route),
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

/// The declared id nearest to a misspelt one, if it is near enough to be a typo.
fn closest<'a>(wrong: &str, candidates: &'a [String]) -> Option<&'a str> {
    let distance = |a: &str, b: &str| {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let next = (diagonal + usize::from(ca != cb))
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                diagonal = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    };
    let limit = (wrong.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (distance(wrong, c), c.as_str()))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// The file being validated, for building errors that point into it.
struct Cx<'a> {
    file: &'a str,
    text: &'a str,
    named: NamedSource<Arc<str>>,
}

impl Cx<'_> {
    /// Locates the value at `path`; `plain` is its text, when known, to size the span.
    fn at(&self, path: &[Step], plain: Option<&str>) -> Box<Location> {
        let (line, column) = locate(self.text, path).unwrap_or((1, 1));
        let offset = byte_offset(self.text, line, column);
        let len = value_len(&self.text[offset..], plain);
        self.location(line, column, (offset, len).into())
    }

    fn location(&self, line: usize, column: usize, span: SourceSpan) -> Box<Location> {
        Box::new(Location {
            file: self.file.to_owned(),
            line,
            column,
            span,
            src: self.named.clone(),
        })
    }

    fn syntax_error(&self, error: &serde_yaml::Error) -> RegistryError {
        let (line, column) = error
            .location()
            .map_or((1, 1), |at| (at.line(), at.column()));
        let position = format!(" at line {line} column {column}");
        let message = error.to_string().replacen(&position, "", 1);
        let offset = byte_offset(self.text, line, column);
        let len = if message.contains("missing field") {
            0
        } else {
            word_len(&self.text[offset..])
        };
        RegistryError::Syntax {
            at: self.location(line, column, (offset, len).into()),
            message,
        }
    }
}

/// A step on the way from the document root to a value.
#[derive(Clone, Copy)]
enum Step {
    Key(&'static str),
    Index(usize),
}
use Step::{Index, Key};

/// The 1-based line and column (in characters) of the value at `path`.
///
/// serde_yaml keeps no spans, but it stamps the position of the current value on any error a
/// visitor raises. So this deserializes the document again, skipping everything off the path,
/// and fails on purpose at the value itself; the error's location is the value's. Only error
/// paths pay for the second parse.
fn locate(text: &str, path: &[Step]) -> Option<(usize, usize)> {
    use serde::de::DeserializeSeed;
    match Seek(path).deserialize(serde_yaml::Deserializer::from_str(text)) {
        Err(error) if error.to_string().contains(FOUND) => {
            error.location().map(|at| (at.line(), at.column()))
        }
        _ => None,
    }
}

const FOUND: &str = "waymark: located";

struct Seek<'p>(&'p [Step]);

impl<'de> serde::de::DeserializeSeed<'de> for Seek<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        match self.0.first() {
            None => de.deserialize_any(Found),
            Some(Key(_)) => de.deserialize_map(self),
            Some(Index(_)) => de.deserialize_seq(self),
        }
    }
}

impl<'de> serde::de::Visitor<'de> for Seek<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map or a sequence on the path being located")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((Key(wanted), rest)) = self.0.split_first() else {
            return Ok(());
        };
        while let Some(key) = map.next_key::<String>()? {
            if key == *wanted {
                map.next_value_seed(Seek(rest))?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((&Index(wanted), rest)) = self.0.split_first() else {
            return Ok(());
        };
        let mut i = 0;
        loop {
            let more = if i == wanted {
                seq.next_element_seed(Seek(rest))?.is_some()
            } else {
                seq.next_element::<serde::de::IgnoredAny>()?.is_some()
            };
            if !more {
                return Ok(());
            }
            i += 1;
        }
    }
}

/// Fails on any value (a visitor's default for every kind of value), so that serde_yaml
/// stamps the value's position on the error; the message carries [`FOUND`].
struct Found;

impl serde::de::Visitor<'_> for Found {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(FOUND)
    }
}

/// The byte offset of a 1-based line and character column, clamped to the text.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    text[line_start..]
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| line_start + i)
}

/// The length in bytes of the YAML value `rest` starts with: a quoted scalar to its closing
/// quote, a flow collection to its closing bracket, a plain scalar as `plain` (its value) when
/// it is written as-is, else up to a comment or the end of the line.
fn value_len(rest: &str, plain: Option<&str>) -> usize {
    let mut chars = rest.char_indices().peekable();
    match chars.next() {
        Some((_, '"')) => {
            let mut escaped = false;
            for (i, c) in chars {
                match c {
                    '"' if !escaped => return i + 1,
                    '\n' => return i,
                    _ => escaped = c == '\\' && !escaped,
                }
            }
        }
        Some((_, '\'')) => {
            while let Some((i, c)) = chars.next() {
                match c {
                    '\'' if chars.peek().is_some_and(|&(_, n)| n == '\'') => {
                        chars.next();
                    }
                    '\'' => return i + 1,
                    '\n' => return i,
                    _ => {}
                }
            }
        }
        Some((_, '[' | '{')) => {
            let mut depth = 0_usize;
            for (i, c) in rest.char_indices() {
                match c {
                    '[' | '{' => depth += 1,
                    ']' | '}' if depth == 1 => return i + 1,
                    ']' | '}' => depth -= 1,
                    '\n' => return i,
                    _ => {}
                }
            }
        }
        _ => {
            if let Some(plain) = plain.filter(|p| rest.starts_with(*p)) {
                return plain.len();
            }
        }
    }
    let line = rest.split('\n').next().unwrap_or_default();
    let line = line.split(" #").next().unwrap_or_default();
    line.trim_end().len()
}

/// The length of the word at the start of `rest`, for pointing at what serde_yaml stopped on.
fn word_len(rest: &str) -> usize {
    rest.find(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | '[' | ']' | '{' | '}'))
        .unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use miette::Diagnostic;

    use super::*;

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

    fn parse_err(source: &str) -> RegistryError {
        match Registry::parse(source, "anchors.yaml") {
            Ok(_) => panic!("expected an error for:\n{source}"),
            Err(e) => e,
        }
    }

    /// Line, column and the text under the primary label.
    fn site<'s>(e: &RegistryError, source: &'s str) -> (usize, usize, &'s str) {
        let at = e.location().expect("a location");
        let span = e.labels().and_then(|mut l| l.next()).expect("a label");
        assert_eq!(span.inner(), &at.span);
        let text = &source[at.span.offset()..at.span.offset() + at.span.len()];
        (at.line, at.column, text)
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
    fn unknown_field_is_a_syntax_error_at_the_key() {
        let source =
            "app: demo\nscreens: []\nanchors:\n  - id: a\n    description: d\n    screen: [x]\n";
        let err = parse_err(source);
        assert_eq!(site(&err, source), (6, 5, "screen"));
        let message = err.to_string();
        assert!(
            message.starts_with(
                "invalid anchor registry `anchors.yaml` at line 6, column 5: anchors[0]: unknown \
                 field `screen`, expected one of `id`,"
            ),
            "{message}"
        );
        assert!(!message.contains("at line 6 column 5"), "{message}");
    }

    #[test]
    fn wrong_type_and_missing_field_and_bad_yaml_are_syntax_errors() {
        let source = "app: demo\nscreens: []\nanchors:\n  - id: a\n    description: d\n    screens: [s]\n    keyed: maybe\n";
        let err = parse_err(source);
        assert!(matches!(err, RegistryError::Syntax { .. }));
        assert_eq!(site(&err, source), (7, 12, "maybe"));

        let source = "app: demo\nscreens: []\n";
        let err = parse_err(source);
        assert!(
            err.to_string().ends_with("missing field `anchors`"),
            "{err}"
        );
        assert_eq!(site(&err, source), (1, 1, ""));

        let source = "app: demo\nscreens: [\nanchors: []\n";
        let err = parse_err(source);
        assert!(matches!(err, RegistryError::Syntax { .. }), "{err}");

        assert!(matches!(parse_err(""), RegistryError::Syntax { .. }));
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
    fn unknown_screen_lists_the_declared_ones_and_suggests() {
        let source = "\
app: demo
screens:
  - id: claims-list
    route: /claims
  - id: claim-detail
    route: /claims/{id}
anchors:
  - id: claim.approve
    description: Approves.
    screens: [claims-list, claim-detial]
";
        let err = parse_err(source);
        assert_eq!(
            err.to_string(),
            "`anchors.yaml` line 10, column 28: anchor `claim.approve` names unknown screen \
             `claim-detial` (declared screens: claims-list, claim-detail)"
        );
        assert_eq!(site(&err, source), (10, 28, "claim-detial"));
        assert_eq!(
            err.help().map(|h| h.to_string()).as_deref(),
            Some("did you mean `claim-detail`?")
        );

        let source =
            "app: x\nscreens: []\nanchors:\n- id: a\n  description: d\n  screens:\n    - zzz\n";
        let err = parse_err(source);
        assert!(
            err.to_string().ends_with("(no screens are declared)"),
            "{err}"
        );
        assert_eq!(site(&err, source), (7, 7, "zzz"));
        assert!(err.help().is_none());
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
    fn locating_survives_yaml_styles_and_repeated_ids() {
        // The anchors come first, the same id text appears in comments, descriptions and other
        // entries, and the ids are written in every quoting style.
        let source = "\
# id: x.y  (a comment that looks like a key)
anchors:
  - description: 'mentions id: x.y'
    screens: [s]
    id: x.y
  - {id: \"x.y\", description: d, screens: [s]}
  -
    id:   x.y   # third
    description: d
    screens: [s]
screens: [{id: s, route: /}]
app: x
";
        let err = parse_err(source);
        assert_eq!(site(&err, source), (6, 10, "\"x.y\""));
        let RegistryError::DuplicateAnchor { first, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!((first.line, first.column), (5, 9));
        assert_eq!(&source[first.span.offset()..][..first.span.len()], "x.y");
        assert_eq!(site(&err.others()[0], source), (8, 11, "x.y"));
    }

    #[test]
    fn positions_count_characters_not_bytes() {
        let source = "app: ééé\nscreens: [{id: s, route: /}]\nanchors: [{description: été, id: Nope, screens: [s]}]\n";
        let err = parse_err(source);
        assert_eq!(site(&err, source), (3, 34, "Nope"));
    }

    #[test]
    fn diagnostic_renders_the_source_with_labels() {
        let source = "app: x\nscreens: [{id: s, route: /}]\nanchors:\n  - id: a\n    description: d\n    screens: [s]\n  - id: a\n    description: d\n    screens: [s]\n";
        let rendered = render(&parse_err(source));
        for text in [
            "anchors.yaml:7:9",
            "declared again here",
            "first declared here",
            "waymark::registry::duplicate_anchor",
        ] {
            assert!(rendered.contains(text), "{text} in:\n{rendered}");
        }
    }

    fn render(err: &RegistryError) -> String {
        let mut out = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .render_report(&mut out, err)
            .unwrap();
        out
    }

    #[test]
    fn route_patterns_match_paths() {
        let detail = RoutePattern::parse("/claims/{id}").unwrap();
        for path in [
            "/claims/1042",
            "/claims/1042?x=1",
            "/claims/1042/",
            "/claims/1042#top",
        ] {
            assert!(detail.matches(path), "{path}");
        }
        for path in [
            "/claims",
            "/claims/",
            "/claims/1042/edit",
            "/claims//",
            "claims/1042",
            "",
        ] {
            assert!(!detail.matches(path), "{path}");
        }

        let root = RoutePattern::parse("/").unwrap();
        assert!(root.matches("/") && root.matches("/?q=1"));
        assert!(!root.matches("/a") && !root.matches(""));

        let rest = RoutePattern::parse("/a/*").unwrap();
        for path in ["/a", "/a/", "/a/b", "/a/b/c", "/a?x"] {
            assert!(rest.matches(path), "{path}");
        }
        assert!(!rest.matches("/b") && !rest.matches("/ab"));

        let everything = RoutePattern::parse("/*").unwrap();
        assert!(everything.matches("/") && everything.matches("/x/y"));

        let literal = RoutePattern::parse("/claims/new").unwrap();
        assert!(literal.matches("/claims/new") && !literal.matches("/claims/New"));
    }

    #[test]
    fn route_pattern_errors() {
        for (pattern, reason) in [
            ("claims", "it must start with `/`"),
            ("", "it must start with `/`"),
            (
                "/claims/",
                "it ends with `/`; write it without the trailing `/`",
            ),
            ("/a//b", "it has an empty segment (`//`)"),
            ("/*/a", "`*` must be the last segment"),
            (
                "/{}",
                "parameter `{}` needs a name of letters, digits, `_` or `-`",
            ),
            ("/{id}/{id}", "parameter `{id}` appears twice"),
        ] {
            assert_eq!(
                RoutePattern::parse(pattern).unwrap_err(),
                reason,
                "{pattern}"
            );
        }
        for pattern in ["/claim-{id}", "/a*", "/{id", "/a?b", "/a#b"] {
            assert!(RoutePattern::parse(pattern).is_err(), "{pattern}");
        }
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
