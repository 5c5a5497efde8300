//! [`Text`]: a string read off the page, shared rather than copied.
//!
//! A dense read carries five strings per control (anchor, label, role, region, value), and
//! the same strings travel from the raw layer into the inferred one, into the held read and
//! the round trip. As `String`s every hand-over was an allocation and a copy per string —
//! 250,000 of them for a 50,000-control inference. A `Text` is an `Arc<str>`: handing it on
//! is a reference count. It serializes as the plain string it holds, so no output changes.
//!
//! Roles and regions repeat control after control: the collector names them by index in a
//! per-document string table (see `collector.rs`), so every control of a read shares one
//! `Text` per role and per region.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// An immutable, cheaply cloned string (`Arc<str>`) that reads like a `&str`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Arc<str>);

impl Text {
    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Text {
    fn default() -> Self {
        Text(Arc::from(""))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(Arc::from(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(Arc::from(s))
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Self {
        Text(Arc::from(s.as_str()))
    }
}

impl From<Text> for String {
    fn from(t: Text) -> Self {
        t.0.to_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == &*other.0
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// Builds a `Text` from whatever string the deserializer has, borrowed where it can be:
/// one allocation, no intermediate `String`.
struct TextVisitor<F: FnOnce(&str) -> Text>(F);

impl<F: FnOnce(&str) -> Text> Visitor<'_> for TextVisitor<F> {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
        Ok((self.0)(v))
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        d.deserialize_str(TextVisitor(|s: &str| Text::from(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_reads_and_serializes_like_a_string() {
        let t = Text::from("Approve");
        assert_eq!(t, "Approve");
        assert_eq!("Approve", t);
        assert_eq!(t.len(), 7);
        assert_eq!(serde_json::to_string(&t).unwrap(), r#""Approve""#);
        let back: Text = serde_json::from_str(r#""a \"quoted\" one""#).unwrap();
        assert_eq!(back, r#"a "quoted" one"#);
    }
}
