//! Finding where in `anchors.yaml` a problem is: the line, column and span of the value at
//! fault, for [`RegistryError`]'s [`Location`].
//!
//! yaml_serde gives no spans for values, so the file is read again with yaml_serde, walking to
//! the value and stopping there; only error paths pay for the second read, and it is exact for
//! any YAML style.
//!
//! serde-saphyr would give the spans and most of this file would go; it was weighed and
//! not taken (slower on a large registry, other messages and places): docs/design.md, "Why
//! yaml_serde", says why, and `benches/registry.rs` measures both.

use std::fmt;
use std::sync::Arc;

use miette::{NamedSource, SourceSpan};

use super::error::{Location, RegistryError};

/// The file being validated, for building errors that point into it.
pub(super) struct Cx<'a> {
    file: &'a str,
    text: &'a str,
    named: NamedSource<Arc<str>>,
}

impl<'a> Cx<'a> {
    /// The file `text`, named `file` in errors.
    pub(super) fn new(file: &'a str, text: &'a str) -> Cx<'a> {
        Cx {
            file,
            text,
            named: NamedSource::new(file, Arc::from(text)),
        }
    }

    /// Locates the value at `path`; `plain` is its text, when known, to size the span.
    pub(super) fn at(&self, path: &[Step], plain: Option<&str>) -> Box<Location> {
        let (line, column) = locate(self.text, path).unwrap_or((1, 1));
        let offset = byte_offset(self.text, line, column);
        let len = value_len(&self.text[offset..], plain);
        self.location(line, column, (offset, len).into())
    }

    fn location(&self, line: usize, column: usize, span: SourceSpan) -> Box<Location> {
        // The line at fault is shown under the message, whole: not when it is huge.
        let at = span.offset().min(self.text.len());
        let start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i);
        let shown = end - start <= SHOWN_LINE;
        Box::new(Location {
            file: self.file.to_owned(),
            line,
            column,
            span,
            src: shown.then(|| self.named.clone()),
        })
    }

    /// The error of a document that nests deeper than [`MAX_DEPTH`], at the bracket that
    /// went past it: yaml_serde's scanner takes time quadratic in the depth of a flow
    /// collection (a 200 kB line of `[` took 21 s), and no registry nests more than a few
    /// levels.
    pub(super) fn too_deep(&self) -> Option<RegistryError> {
        let offset = too_deep_at(self.text)?;
        let line = self.text[..offset].matches('\n').count() + 1;
        let start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let column = self.text[start..offset].chars().count() + 1;
        Some(RegistryError::Syntax {
            at: self.location(line, column, (offset, 1).into()),
            message: format!(
                "it nests deeper than {MAX_DEPTH} levels of `[` and `{{`; a registry is lists of \
                 screens and anchors, a few levels deep"
            ),
        })
    }

    /// The error of a file that is not UTF-8 text: `byte`, at `offset` of the text (the
    /// file read lossily, so the text before it is the file's), is the first that is not.
    pub(super) fn not_utf8(&self, offset: usize, byte: u8) -> RegistryError {
        let offset = offset.min(self.text.len());
        let line = self.text[..offset].matches('\n').count() + 1;
        let start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let column = self.text[start..offset].chars().count() + 1;
        RegistryError::Syntax {
            // the replacement character the lossy read put there, whole
            at: self.location(
                line,
                column,
                (
                    offset,
                    self.text[offset..].chars().next().map_or(0, char::len_utf8),
                )
                    .into(),
            ),
            message: format!(
                "byte 0x{byte:02x} is not UTF-8; a registry is YAML text in UTF-8 (is this a \
                 binary file?)"
            ),
        }
    }

    pub(super) fn syntax_error(&self, error: &yaml_serde::Error) -> RegistryError {
        let clip = |message: String| crate::protocol::cut_to(&message, SHOWN_MESSAGE).into_owned();
        let mut message = error.to_string();
        let located = error.location().map(|at| (at.line(), at.column()));
        if let Some((line, column)) = located {
            message = message.replacen(&format!(" at line {line} column {column}"), "", 1);
        }
        // The reader's own errors (a control character) give their byte offset in the
        // message, and the start of the document as their location.
        let (line, column) =
            match byte_position(&message).filter(|&at| self.text.is_char_boundary(at)) {
                Some(at) => {
                    message.truncate(message.rfind(" at position ").unwrap_or(message.len()));
                    let line = self.text[..at].matches('\n').count() + 1;
                    let start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
                    (line, self.text[start..at].chars().count() + 1)
                }
                None => located.unwrap_or((1, 1)),
            };
        let offset = byte_offset(self.text, line, column);
        let len = if message.contains("missing field") {
            0
        } else {
            word_len(&self.text[offset..])
        };
        RegistryError::Syntax {
            at: self.location(line, column, (offset, len).into()),
            message: clip(message),
        }
    }
}

/// The byte offset a message of yaml_serde's reader ends with (`… at position 9`).
fn byte_position(message: &str) -> Option<usize> {
    let (_, at) = message.rsplit_once(" at position ")?;
    at.trim().parse().ok()
}

/// Lines longer than this are not shown under a diagnostic.
const SHOWN_LINE: usize = 400;

/// yaml_serde's messages quote values whole: at most this many characters of one are shown.
const SHOWN_MESSAGE: usize = 300;

/// How deep `[` and `{` may nest in a registry.
pub(super) const MAX_DEPTH: usize = 64;

/// The byte offset of the first `[` or `{` that opens a flow collection deeper than
/// [`MAX_DEPTH`], outside quoted scalars and comments. Brackets inside a plain scalar count
/// too, which only matters if a description opened 64 of them without closing them.
fn too_deep_at(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut comment = false;
    let mut previous = '\n';
    // The last character that was not a space: a quote opens a scalar only where a value
    // can start, never inside a plain scalar (`the claim's note`).
    let mut last = '\n';
    for (i, c) in text.char_indices() {
        if comment {
            comment = c != '\n';
        } else if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if q == '"' && c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
        } else {
            match c {
                '"' | '\'' if matches!(last, '\n' | ':' | '[' | '{' | ',' | '-') => quote = Some(c),
                '#' if previous.is_whitespace() => comment = true,
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Some(i);
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        previous = c;
        if !c.is_whitespace() || c == '\n' {
            last = c;
        }
    }
    None
}

/// A step on the way from the document root to a value.
#[derive(Clone, Copy)]
pub(super) enum Step {
    Key(&'static str),
    Index(usize),
}
use Step::{Index, Key};

/// The 1-based line and column (in characters) of the value at `path`.
///
/// yaml_serde keeps no spans, but it stamps the position of the current value on any error a
/// visitor raises. So this deserializes the document again, skipping everything off the path,
/// and fails on purpose at the value itself; the error's location is the value's. Only error
/// paths pay for the second parse.
fn locate(text: &str, path: &[Step]) -> Option<(usize, usize)> {
    use serde::de::DeserializeSeed;
    match Seek(path).deserialize(yaml_serde::Deserializer::from_str(text)) {
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

/// Fails on any value (a visitor's default for every kind of value), so that yaml_serde
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

/// The length of the word at the start of `rest`, for pointing at what yaml_serde stopped on.
fn word_len(rest: &str) -> usize {
    rest.find(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | '[' | ']' | '{' | '}'))
        .unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use crate::registry::RegistryError;
    use crate::registry::tests::{parse_err, site};

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
}
