//! Anchor identifiers: the names journeys use for controls.
//!
//! An anchor names *what a control is* (`claim.approve`), never where it sits, so the syntax is
//! kept small and strict: lowercase dot-separated segments that survive any redesign and read the
//! same in a page's `data-anchor`, in `anchors.yaml`, in a Rhai journey and in an agent's tool
//! call. Validating once, here, lets every other module take an [`AnchorId`] on trust.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

use crate::protocol::quoted;

/// A stable semantic id of a control: dot-separated segments, each `[a-z0-9_-]+`, the first
/// starting with a letter (`claim.approve`, `region-3.button-12`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct AnchorId(String);

impl AnchorId {
    /// Validates `s` as an anchor id.
    pub fn new(s: &str) -> Result<AnchorId, AnchorError> {
        validate_id(s)?;
        Ok(AnchorId(s.to_owned()))
    }

    /// The id as written, e.g. `claim.approve`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for AnchorId {
    type Error = AnchorError;

    fn try_from(s: String) -> Result<AnchorId, AnchorError> {
        validate_id(&s)?;
        Ok(AnchorId(s))
    }
}

impl FromStr for AnchorId {
    type Err = AnchorError;

    fn from_str(s: &str) -> Result<AnchorId, AnchorError> {
        AnchorId::new(s)
    }
}

impl fmt::Display for AnchorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for AnchorId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

// Sound because `AnchorId` derives `Hash`, `Eq` and `Ord` from its only field, a `String`,
// which hashes and compares exactly like the `str` it borrows as.
impl Borrow<str> for AnchorId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for AnchorId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<AnchorId, D::Error> {
        let s = String::deserialize(deserializer)?;
        AnchorId::try_from(s).map_err(serde::de::Error::custom)
    }
}

/// What a journey names: an anchor and, for repeated controls, a key.
///
/// Parses `claim.approve` and `claim.approve[1042]`; [`Display`](fmt::Display) writes the same
/// form back, so a reference round-trips as long as its key has no `]` (which
/// [`AnchorRef::parse`] never produces, but [`AnchorRef::new`] does not check).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AnchorRef {
    /// The anchor.
    pub id: AnchorId,
    /// The row key (`data-anchor-key`) of a repeated control, if any.
    pub key: Option<String>,
}

impl AnchorRef {
    /// Parses `id` or `id[key]`. A key is any non-empty text without `]` that is not only
    /// whitespace; nothing may follow the closing `]`.
    pub fn parse(s: &str) -> Result<AnchorRef, AnchorError> {
        let reference = || s.to_owned();
        let Some(open) = s.find('[') else {
            if s.contains(']') {
                return Err(AnchorError::UnopenedKey {
                    reference: reference(),
                });
            }
            return Ok(AnchorRef::new(AnchorId::new(s)?, None));
        };
        let id = &s[..open];
        if id.contains(']') {
            return Err(AnchorError::UnopenedKey {
                reference: reference(),
            });
        }
        let id = AnchorId::new(id)?;
        let after_open = &s[open + 1..];
        let Some(close) = after_open.find(']') else {
            return Err(AnchorError::UnclosedKey {
                reference: reference(),
            });
        };
        let key = &after_open[..close];
        let trailing = &after_open[close + 1..];
        if !trailing.is_empty() {
            return Err(AnchorError::TrailingText {
                reference: reference(),
                text: trailing.to_owned(),
            });
        }
        if key.is_empty() {
            return Err(AnchorError::EmptyKey {
                reference: reference(),
            });
        }
        if key.trim().is_empty() {
            return Err(AnchorError::BlankKey {
                reference: reference(),
            });
        }
        Ok(AnchorRef::new(id, Some(key.to_owned())))
    }

    /// A reference to `id`, with `key` for one row of a repeated control.
    pub fn new(id: AnchorId, key: Option<String>) -> Self {
        AnchorRef { id, key }
    }
}

impl From<AnchorId> for AnchorRef {
    fn from(id: AnchorId) -> Self {
        AnchorRef::new(id, None)
    }
}

impl FromStr for AnchorRef {
    type Err = AnchorError;

    fn from_str(s: &str) -> Result<AnchorRef, AnchorError> {
        AnchorRef::parse(s)
    }
}

impl fmt::Display for AnchorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&reference(self.id.as_str(), self.key.as_deref()))
    }
}

/// A control's reference as every surface writes it: `anchor`, or `anchor[key]` for one of
/// a keyed list. Where the parts are strings already (a read's control, a trace's JSON),
/// without parsing them into an [`AnchorRef`].
pub fn reference(anchor: &str, key: Option<&str>) -> String {
    match key {
        Some(key) => format!("{anchor}[{key}]"),
        None => anchor.to_string(),
    }
}

/// Why text is not an anchor id or an anchor reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnchorError {
    /// The id is the empty string.
    #[error("an anchor id cannot be empty")]
    Empty,
    /// Two dots in a row, or a dot at the start or the end.
    #[error(
        "`{}` is not a valid anchor id: it has an empty segment (segments are joined by a \
         single `.`, with none at either end)", quoted(.id)
    )]
    EmptySegment {
        /// The id as given.
        id: String,
    },
    /// A segment holds something other than `a-z`, `0-9`, `_` or `-`.
    #[error(
        "`{}` is not a valid anchor id: segment `{}` has a character outside \
         [a-z0-9_-] ({character:?})", quoted(.id), quoted(.segment)
    )]
    InvalidCharacter {
        /// The id as given.
        id: String,
        /// The segment at fault.
        segment: String,
        /// The first character outside the allowed set.
        character: char,
    },
    /// The id starts with a digit, `_` or `-`.
    #[error("`{}` is not a valid anchor id: it must start with a letter (a-z)", quoted(.id))]
    NoLeadingLetter {
        /// The id as given.
        id: String,
    },
    /// `id[]`: the brackets hold nothing.
    #[error("`{}` is not a valid anchor reference: the key between `[` and `]` is empty", quoted(.reference))]
    EmptyKey {
        /// The reference as given.
        reference: String,
    },
    /// `id[ ]`: the key is only whitespace.
    #[error("`{}` is not a valid anchor reference: the key is only whitespace", quoted(.reference))]
    BlankKey {
        /// The reference as given.
        reference: String,
    },
    /// `id[key` with no closing bracket.
    #[error("`{}` is not a valid anchor reference: `[` has no matching `]`", quoted(.reference))]
    UnclosedKey {
        /// The reference as given.
        reference: String,
    },
    /// A `]` before any `[`.
    #[error("`{}` is not a valid anchor reference: `]` has no matching `[`", quoted(.reference))]
    UnopenedKey {
        /// The reference as given.
        reference: String,
    },
    /// Text after the key's closing `]`, as in `x[1][2]`.
    #[error(
        "`{}` is not a valid anchor reference: `{}` follows the key; a reference \
         ends with its `]`", quoted(.reference), quoted(.text)
    )]
    TrailingText {
        /// The reference as given.
        reference: String,
        /// What follows the closing `]`.
        text: String,
    },
}

fn validate_id(s: &str) -> Result<(), AnchorError> {
    if s.is_empty() {
        return Err(AnchorError::Empty);
    }
    for segment in s.split('.') {
        if segment.is_empty() {
            return Err(AnchorError::EmptySegment { id: s.to_owned() });
        }
        let allowed =
            |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-';
        if let Some(character) = segment.chars().find(|&c| !allowed(c)) {
            return Err(AnchorError::InvalidCharacter {
                id: s.to_owned(),
                segment: segment.to_owned(),
                character,
            });
        }
    }
    if !s.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(AnchorError::NoLeadingLetter { id: s.to_owned() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ids() {
        for id in [
            "claim",
            "claim.approve",
            "region-3.button-12",
            "a.3b",
            "a_b.c-d.e_9",
        ] {
            let parsed = AnchorId::new(id).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(parsed.as_str(), id);
            assert_eq!(parsed.to_string(), id);
            assert_eq!(id.parse::<AnchorId>().unwrap(), parsed);
        }
    }

    #[test]
    fn invalid_ids() {
        let empty_segment = |id: &str| AnchorError::EmptySegment { id: id.into() };
        assert_eq!(AnchorId::new(""), Err(AnchorError::Empty));
        for id in ["a..b", ".a", "a.", "."] {
            assert_eq!(AnchorId::new(id), Err(empty_segment(id)), "{id}");
        }
        assert_eq!(
            AnchorId::new("claim.Approve"),
            Err(AnchorError::InvalidCharacter {
                id: "claim.Approve".into(),
                segment: "Approve".into(),
                character: 'A',
            })
        );
        assert_eq!(
            AnchorId::new("claim approve"),
            Err(AnchorError::InvalidCharacter {
                id: "claim approve".into(),
                segment: "claim approve".into(),
                character: ' ',
            })
        );
        for id in ["1claim", "_claim", "-claim.approve"] {
            assert_eq!(
                AnchorId::new(id),
                Err(AnchorError::NoLeadingLetter { id: id.into() }),
                "{id}"
            );
        }
        for id in ["claim[1]", "claim/approve", "claimé"] {
            assert!(
                matches!(AnchorId::new(id), Err(AnchorError::InvalidCharacter { .. })),
                "{id}"
            );
        }
    }

    #[test]
    fn id_messages_name_the_fault_and_the_rule() {
        assert_eq!(
            AnchorId::new("Claim Approve").unwrap_err().to_string(),
            "`Claim Approve` is not a valid anchor id: segment `Claim Approve` has a character \
             outside [a-z0-9_-] ('C')"
        );
        assert_eq!(
            AnchorId::new("a..b").unwrap_err().to_string(),
            "`a..b` is not a valid anchor id: it has an empty segment (segments are joined by a \
             single `.`, with none at either end)"
        );
    }

    #[test]
    fn id_serde_validates() {
        let id: AnchorId = yaml_serde::from_str("claim.approve").unwrap();
        assert_eq!(id.as_str(), "claim.approve");
        assert_eq!(yaml_serde::to_string(&id).unwrap(), "claim.approve\n");
        let err = yaml_serde::from_str::<AnchorId>("Claim").unwrap_err();
        assert!(err.to_string().contains("not a valid anchor id"), "{err}");
    }

    #[test]
    fn id_borrows_as_str_in_maps() {
        let mut map = std::collections::HashMap::new();
        map.insert(AnchorId::new("claim.approve").unwrap(), 1);
        assert_eq!(map.get("claim.approve"), Some(&1));
    }

    #[test]
    fn valid_refs_round_trip() {
        for (text, id, key) in [
            ("claim.approve", "claim.approve", None),
            ("claim.approve[1042]", "claim.approve", Some("1042")),
            ("row[a b]", "row", Some("a b")),
            ("row[ x ]", "row", Some(" x ")),
            ("row[a[b]", "row", Some("a[b")),
            ("row[ü-7]", "row", Some("ü-7")),
        ] {
            let parsed = AnchorRef::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(parsed.id.as_str(), id, "{text}");
            assert_eq!(parsed.key.as_deref(), key, "{text}");
            assert_eq!(parsed.to_string(), text);
            assert_eq!(text.parse::<AnchorRef>().unwrap(), parsed);
        }
    }

    #[test]
    fn invalid_refs() {
        let r = |s: &str| s.to_owned();
        assert_eq!(
            AnchorRef::parse("x[1][2]"),
            Err(AnchorError::TrailingText {
                reference: r("x[1][2]"),
                text: r("[2]"),
            })
        );
        assert_eq!(
            AnchorRef::parse("x[1]y"),
            Err(AnchorError::TrailingText {
                reference: r("x[1]y"),
                text: r("y"),
            })
        );
        assert_eq!(
            AnchorRef::parse("x[]"),
            Err(AnchorError::EmptyKey {
                reference: r("x[]")
            })
        );
        assert_eq!(
            AnchorRef::parse("x[  ]"),
            Err(AnchorError::BlankKey {
                reference: r("x[  ]")
            })
        );
        assert_eq!(
            AnchorRef::parse("x[1"),
            Err(AnchorError::UnclosedKey {
                reference: r("x[1")
            })
        );
        for text in ["x]", "x]1[", "x1]"] {
            assert_eq!(
                AnchorRef::parse(text),
                Err(AnchorError::UnopenedKey { reference: r(text) }),
                "{text}"
            );
        }
        assert_eq!(AnchorRef::parse("[1]"), Err(AnchorError::Empty));
        assert_eq!(AnchorRef::parse(""), Err(AnchorError::Empty));
        assert!(matches!(
            AnchorRef::parse("Claim.approve[1]"),
            Err(AnchorError::InvalidCharacter { .. })
        ));
        assert!(matches!(
            AnchorRef::parse("a..b[1]"),
            Err(AnchorError::EmptySegment { .. })
        ));
        assert!(matches!(
            AnchorRef::parse(" claim.approve"),
            Err(AnchorError::InvalidCharacter { character: ' ', .. })
        ));
    }

    #[test]
    fn ref_message_names_the_reference() {
        assert_eq!(
            AnchorRef::parse("x[1][2]").unwrap_err().to_string(),
            "`x[1][2]` is not a valid anchor reference: `[2]` follows the key; a reference ends \
             with its `]`"
        );
    }
}
