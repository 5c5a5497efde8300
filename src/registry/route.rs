//! Route patterns: the paths a screen of the registry is shown on, and whether a path is one
//! of them. Kept apart from the registry so the matching rules (parameters, `*`, what is
//! ignored in a path) read and test on their own.

use std::collections::HashSet;
use std::fmt;

/// A route pattern: `/` followed by `/`-separated segments, each literal text, `{name}` (exactly
/// one non-empty segment) or, last only, `*` (the rest of the path: zero or more segments).
///
/// A hash-routed app's screens differ only after the `#`: a pattern may go on with `#` and a
/// pattern of the same kind for the fragment (`/#/active`, `/app#/items/{id}`; `#!/` too).
/// Such a pattern matches a route only when its fragment matches; a pattern without one
/// ignores the fragment, as it ignores the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutePattern {
    text: String,
    segments: Vec<Segment>,
    rest: bool,
    /// Written with a final `/` (`/add_remove_elements/`): matched with it, as servers
    /// tell the two apart.
    trailing: bool,
    fragment: Option<Box<RoutePattern>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Param(String),
}

impl RoutePattern {
    /// Parses a pattern; the error says what is wrong with it, as a lowercase fragment.
    pub fn parse(pattern: &str) -> Result<RoutePattern, String> {
        let Some((path, fragment)) = pattern.split_once('#') else {
            return RoutePattern::parse_path(pattern);
        };
        let hash_path = fragment.strip_prefix('!').unwrap_or(fragment);
        if !hash_path.starts_with('/') {
            return Err(format!(
                "its fragment `#{fragment}` is not a hash route: write `#/` and a path \
                 (`/#/active`); a pattern matches the path and a hash route only"
            ));
        }
        let fragment = RoutePattern::parse_path(hash_path)
            .map_err(|why| format!("its hash route `#{fragment}`: {why}"))?;
        let mut route = RoutePattern::parse_path(path)?;
        route.text = pattern.to_owned();
        route.fragment = Some(Box::new(fragment));
        Ok(route)
    }

    /// A pattern of the path alone (no `#`).
    fn parse_path(pattern: &str) -> Result<RoutePattern, String> {
        let Some(body) = pattern.strip_prefix('/') else {
            return Err("it must start with `/`".into());
        };
        let mut route = RoutePattern {
            text: pattern.to_owned(),
            segments: Vec::new(),
            rest: false,
            trailing: false,
            fragment: None,
        };
        if body.is_empty() {
            return Ok(route);
        }
        let parts: Vec<&str> = body.split('/').collect();
        let mut names = HashSet::new();
        for (i, &part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if part.is_empty() && last {
                route.trailing = true;
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
                route.segments.push(Segment::Param(name.to_owned()));
            } else if part.contains(['{', '}', '*']) {
                return Err(format!(
                    "segment `{part}` mixes text with `{{`, `}}` or `*`; a parameter or `*` \
                     must be a whole segment"
                ));
            } else if part.contains('#') {
                return Err(format!("segment `{part}` contains a second `#`"));
            } else if part.contains('?') {
                return Err(format!(
                    "segment `{part}` contains `?`; a pattern matches the path (and a hash \
                     route after `#/`), never the query"
                ));
            } else {
                route.segments.push(Segment::Literal(part.to_owned()));
            }
        }
        Ok(route)
    }

    /// Whether the pattern names a hash route too (`/#/active`).
    pub fn has_fragment(&self) -> bool {
        self.fragment.is_some()
    }

    /// Whether `path` is on this route. A query string and a fragment (unless the pattern
    /// names a hash route) are ignored; `path` must start with `/`. A pattern written with a
    /// final `/` matches only a path that has it; one written without ignores one in the
    /// path.
    pub fn matches(&self, path: &str) -> bool {
        if let Some(pattern) = &self.fragment {
            let Some((_, fragment)) = path.split_once('#') else {
                return false;
            };
            let fragment = fragment.strip_prefix('!').unwrap_or(fragment);
            if !pattern.matches(fragment) {
                return false;
            }
        }
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let Some(body) = path.strip_prefix('/') else {
            return false;
        };
        let body = match (self.trailing, body.strip_suffix('/')) {
            (true, Some(body)) if !body.is_empty() => body,
            (true, _) => return false,
            (false, stripped) => stripped.unwrap_or(body),
        };
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
                Segment::Param(_) => !part.is_empty(),
            };
            if !fits {
                return false;
            }
        }
        self.rest || parts.next().is_none()
    }

    /// `path` with each `{param}` segment's value replaced by `{param}` (the ids in a URL
    /// are volatile), or `None` when the path is not on this route.
    pub fn redact(&self, path: &str) -> Option<String> {
        if !self.matches(path) {
            return None;
        }
        if let (Some(pattern), Some((path, fragment))) = (&self.fragment, path.split_once('#')) {
            let bang = if fragment.starts_with('!') { "!" } else { "" };
            let path = path.split('?').next().unwrap_or_default();
            let hash = pattern.redact(fragment.strip_prefix('!').unwrap_or(fragment))?;
            let mut out = self.redact_path(path)?;
            out.push('#');
            out.push_str(bang);
            out.push_str(&hash);
            return Some(out);
        }
        self.redact_path(path)
    }

    /// [`redact`](RoutePattern::redact) of the path alone.
    fn redact_path(&self, path: &str) -> Option<String> {
        let body = path.strip_prefix('/').unwrap_or(path);
        let body = body.strip_suffix('/').unwrap_or(body);
        let parts = body.split('/').filter(|p| !p.is_empty());
        let mut out = String::new();
        for (i, part) in parts.enumerate() {
            out.push('/');
            match self.segments.get(i) {
                Some(Segment::Param(name)) => {
                    out.push('{');
                    out.push_str(name);
                    out.push('}');
                }
                _ => out.push_str(part),
            }
        }
        if out.is_empty() || self.trailing {
            out.push('/');
        }
        Some(out)
    }

    /// The names of the pattern's parameters, the path's then the hash route's.
    pub fn params(&self) -> Vec<&str> {
        let own = self.segments.iter().filter_map(|s| match s {
            Segment::Param(name) => Some(name.as_str()),
            Segment::Literal(_) => None,
        });
        own.chain(self.fragment.iter().flat_map(|f| f.params()))
            .collect()
    }

    /// A route on this pattern with each parameter given by `values` (a final `*` matches
    /// nothing), or `None` when a parameter has no value.
    pub fn fill(&self, values: &std::collections::BTreeMap<String, String>) -> Option<String> {
        let mut out = String::new();
        for segment in &self.segments {
            out.push('/');
            match segment {
                Segment::Literal(text) => out.push_str(text),
                Segment::Param(name) => out.push_str(values.get(name)?),
            }
        }
        if out.is_empty() || self.trailing {
            out.push('/');
        }
        if let Some(fragment) = &self.fragment {
            out.push('#');
            out.push_str(&fragment.fill(values)?);
        }
        Some(out)
    }

    /// The pattern as JavaScript regular expressions, of the path and (for a hash route) of
    /// the fragment after `#` or `#!`: what the in-page collector tests the address with
    /// (see `screenHere` in `collector/js/06-screens.js`), with the rules of
    /// [`matches`](RoutePattern::matches).
    pub fn js_patterns(&self) -> (String, Option<String>) {
        (
            self.path_regex(),
            self.fragment.as_ref().map(|f| f.path_regex()),
        )
    }

    fn path_regex(&self) -> String {
        let mut out = String::from("^");
        for segment in &self.segments {
            out.push('/');
            match segment {
                Segment::Literal(text) => {
                    for c in text.chars() {
                        if "\\^$.|?*+()[]{}/".contains(c) {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                }
                Segment::Param(_) => out.push_str("[^/]+"),
            }
        }
        if self.rest {
            out.push_str("(?:/.*)?");
        }
        out.push_str(if self.trailing && !self.segments.is_empty() {
            "/$"
        } else {
            "/?$"
        });
        out
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

#[cfg(test)]
mod tests {
    use super::*;

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
        for pattern in [
            "/claim-{id}",
            "/a*",
            "/{id",
            "/a?b",
            "/a#b",
            "/#",
            "/#/a#/b",
            "/a/*/",
        ] {
            assert!(RoutePattern::parse(pattern).is_err(), "{pattern}");
        }
    }

    /// Issue 48: `/add_remove_elements/` could not be declared, and `check` visited the
    /// route without its slash (a 404 there). A final `/` is part of the route as written.
    #[test]
    fn a_route_written_with_a_final_slash_is_matched_and_visited_with_it() {
        let p = RoutePattern::parse("/add_remove_elements/").unwrap();
        assert!(p.matches("/add_remove_elements/") && p.matches("/add_remove_elements/?x=1"));
        assert!(!p.matches("/add_remove_elements") && !p.matches("/add_remove_elements/x"));
        assert!(!p.matches("/"));
        let values = std::collections::BTreeMap::new();
        assert_eq!(p.fill(&values).as_deref(), Some("/add_remove_elements/"));
        assert_eq!(
            p.redact("/add_remove_elements/").as_deref(),
            Some("/add_remove_elements/")
        );
        let item = RoutePattern::parse("/items/{id}/").unwrap();
        assert!(item.matches("/items/7/") && !item.matches("/items/7"));
        assert_eq!(item.redact("/items/7/").as_deref(), Some("/items/{id}/"));
        let hash = RoutePattern::parse("/#/done/").unwrap();
        assert!(hash.matches("/#/done/") && !hash.matches("/#/done"));
        // Written without one, a route still takes a path with one, as before.
        assert!(RoutePattern::parse("/a").unwrap().matches("/a/"));
    }

    #[test]
    fn a_pattern_filled_with_its_parameters_is_on_it() {
        let values = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        for (pattern, pairs, route) in [
            ("/claims/{id}", &[("id", "1042")][..], "/claims/1042"),
            ("/", &[][..], "/"),
            ("/a/*", &[][..], "/a"),
            ("/app#/items/{item}", &[("item", "7")][..], "/app#/items/7"),
        ] {
            let p = RoutePattern::parse(pattern).unwrap();
            let filled = p.fill(&values(pairs)).unwrap();
            assert_eq!(filled, route);
            assert!(p.matches(&filled), "{pattern}");
        }
        let p = RoutePattern::parse("/a/{x}#/b/{y}").unwrap();
        assert_eq!(p.params(), ["x", "y"]);
        assert_eq!(p.fill(&values(&[("x", "1")])), None);
    }

    #[test]
    fn hash_routes_match_on_their_fragment() {
        let active = RoutePattern::parse("/#/active").unwrap();
        for route in [
            "/#/active",
            "/#/active/",
            "/#/active?x=1",
            "/?q=1#/active",
            "/#!/active",
        ] {
            assert!(active.matches(route), "{route}");
        }
        for route in ["/", "/#/", "/#/completed", "/#active", "/other#/active"] {
            assert!(!active.matches(route), "{route}");
        }
        let item = RoutePattern::parse("/app#/items/{id}").unwrap();
        assert!(item.matches("/app/#/items/7") && !item.matches("/app#/items"));
        assert_eq!(
            item.redact("/app#/items/7").as_deref(),
            Some("/app#/items/{id}")
        );
        assert_eq!(active.redact("/#!/active").as_deref(), Some("/#!/active"));
        // A pattern without a fragment ignores it, hash route or not.
        assert!(RoutePattern::parse("/").unwrap().matches("/#/active"));
        assert_eq!(
            RoutePattern::parse("/a#b").unwrap_err(),
            "its fragment `#b` is not a hash route: write `#/` and a path (`/#/active`); a \
             pattern matches the path and a hash route only"
        );
    }
}
