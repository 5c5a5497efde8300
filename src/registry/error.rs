//! What can be wrong with an anchor registry ([`RegistryError`]) and where in the file it is
//! ([`Location`]), with the hand-written miette diagnostic that shows the file's text, labels
//! the value at fault, attaches the other problems of the same pass and suggests a near screen
//! id for a misspelt one.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceSpan};

use crate::anchor::AnchorError;

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
    /// The file's text, to show the line at fault; `None` when that line is too long to show
    /// (a one-line document of megabytes would be printed whole).
    pub(super) src: Option<NamedSource<Arc<str>>>,
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
        /// Where yaml_serde stopped.
        at: Box<Location>,
        /// yaml_serde's description, without its position.
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
    /// A screen's route is not a valid [`RoutePattern`](super::RoutePattern).
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
    /// A screen's `example` does not give exactly its route's parameters.
    #[error("{at}: screen `{screen}`'s example does not fit its route `{route}`: {reason}")]
    InvalidExample {
        /// Where the example is.
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
    /// An anchor's `match:` (or `key:`) that cannot find anything as written.
    #[error("{at}: anchor `{anchor}`'s {field} is invalid: {reason}")]
    InvalidMatcher {
        /// Where the value at fault is.
        at: Box<Location>,
        /// The anchor's id.
        anchor: String,
        /// The field at fault (`match.role`, `key`…).
        field: String,
        /// What is wrong, with the allowed values.
        reason: String,
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
            | E::InvalidExample { at, .. }
            | E::EmptyDescription { at, .. }
            | E::InvalidMatcher { at, .. }
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
            | E::InvalidExample { others, .. }
            | E::EmptyDescription { others, .. }
            | E::InvalidMatcher { others, .. }
            | E::NoScreens { others, .. }
            | E::UnknownScreen { others, .. } => Some(others),
        }
    }

    pub(super) fn with_others(mut self, rest: Vec<RegistryError>) -> RegistryError {
        use RegistryError as E;
        match &mut self {
            E::Read { .. } | E::Syntax { .. } => {}
            E::InvalidScreenId { others, .. }
            | E::DuplicateScreen { others, .. }
            | E::InvalidAnchorId { others, .. }
            | E::DuplicateAnchor { others, .. }
            | E::InvalidRoute { others, .. }
            | E::InvalidExample { others, .. }
            | E::EmptyDescription { others, .. }
            | E::InvalidMatcher { others, .. }
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
            E::InvalidExample { .. } => ("invalid_example", "does not fit the route"),
            E::EmptyDescription { .. } => ("empty_description", "empty"),
            E::InvalidMatcher { .. } => ("invalid_matcher", "cannot match as written"),
            E::NoScreens { .. } => ("no_screens", "no screens"),
            E::UnknownScreen { .. } => ("unknown_screen", "not a declared screen"),
        }
    }
}

impl RegistryError {
    /// The diagnostic as a terminal shows it: miette's report (the file's text, labels,
    /// related problems), without miette's list of causes, which would repeat the cause
    /// every message already ends with (`cannot read anchor registry `x`: No such file…`).
    pub fn report(&self) -> impl fmt::Display + '_ {
        struct Report<'a>(&'a RegistryError);
        impl fmt::Display for Report<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let handler = miette::MietteHandlerOpts::new()
                    .without_cause_chain()
                    .build();
                miette::ReportHandler::debug(&handler, self.0, f)
            }
        }
        Report(self)
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
        self.location()?
            .src
            .as_ref()
            .map(|src| src as &dyn miette::SourceCode)
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

/// The declared id nearest to a misspelt one, if it is near enough to be a typo.
pub(crate) fn closest<'a>(wrong: &str, candidates: &'a [String]) -> Option<&'a str> {
    let limit = (wrong.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (strsim::levenshtein(wrong, c), c.as_str()))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use miette::Diagnostic;

    use crate::registry::tests::{parse_err, render, site};

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
    fn closest_suggests_only_a_near_enough_id_and_the_first_of_a_tie() {
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let declared = ids(&["claims-list", "claim-detail", "orders"]);
        assert_eq!(
            super::closest("claim-detial", &declared),
            Some("claim-detail")
        );
        assert_eq!(super::closest("order", &declared), Some("orders"));
        // One edit in three characters is allowed, and at least one.
        assert_eq!(super::closest("ozzzzs", &declared), None);
        assert_eq!(super::closest("x", &ids(&["y"])), Some("y"));
        // Distances count characters, not bytes.
        assert_eq!(super::closest("écran", &ids(&["ecran"])), Some("ecran"));
        assert_eq!(super::closest("ab", &ids(&["ac", "ad"])), Some("ac"));
    }

    #[test]
    fn a_registry_that_cannot_be_read_says_why_once() {
        let err = crate::registry::Registry::load(std::path::Path::new("no/such/anchors.yaml"))
            .unwrap_err();
        let report = err.report().to_string();
        assert_eq!(report.matches("No such file").count(), 1, "{report}");
        assert!(report.contains("no/such/anchors.yaml"), "{report}");
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
}
