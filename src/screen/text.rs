//! [`Text`]: a string read off the page, shared rather than copied.
//!
//! A dense read carries five strings per control (anchor, label, role, region, value), and
//! the same strings travel from the raw layer into the inferred one, into the held read and
//! the round trip. As `String`s every hand-over was an allocation and a copy per string —
//! 250,000 of them for a 50,000-control inference. A `Text` is a range of a shared string:
//! handing it on is a reference count, and the strings of a parsed reply are ranges of the
//! reply itself (see [`parse_shared`]). It serializes as the plain string it holds, so
//! no output changes.
//!
//! Roles and regions repeat control after control: the collector names them by index in a
//! per-document string table (see `collector.rs`), so every control of a read shares one
//! `Text` per role and per region.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Arc, LazyLock};

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// An immutable, cheaply cloned string that reads like a `&str`: a range of a shared
/// buffer — its own, or the whole reply it was parsed from (see [`parse_shared`]).
#[derive(Clone)]
pub struct Text {
    // An `Arc<String>` rather than an `Arc<str>`: a thin pointer keeps a `Text` at 16
    // bytes, and a reply becomes shared without a copy.
    buf: Arc<String>,
    start: u32,
    end: u32,
}

impl Text {
    /// The string.
    pub fn as_str(&self) -> &str {
        &self.buf[self.start as usize..self.end as usize]
    }

    fn whole(buf: Arc<String>) -> Text {
        // A string past 4 GiB cannot come from a page read; saturate rather than wrap.
        let end = u32::try_from(buf.len()).unwrap_or(u32::MAX);
        Text { buf, start: 0, end }
    }
}

thread_local! {
    /// The reply being parsed on this thread by [`parse_shared`], whose strings become
    /// ranges of it.
    static SOURCE: RefCell<Option<Arc<String>>> = const { RefCell::new(None) };
}

/// Parses `json` with every string that needs no unescaping kept as a range of `json`
/// itself (shared, not copied) instead of an allocation of its own: a 50,000-control read
/// holds 150,000 strings, and allocating and freeing each was a quarter of its parse. The
/// reply lives as long as any of its strings does — one reply per read held, about what
/// the strings alone would take with an allocation's overhead each.
pub fn parse_shared<T: DeserializeOwned>(json: String) -> serde_json::Result<T> {
    let source = Arc::new(json);
    let previous = SOURCE.with(|s| s.replace(Some(Arc::clone(&source))));
    let parsed = serde_json::from_str(&source);
    SOURCE.with(|s| s.replace(previous));
    parsed
}

/// The empty string every empty `Text` shares.
static EMPTY: LazyLock<Arc<String>> = LazyLock::new(|| Arc::new(String::new()));

impl Default for Text {
    fn default() -> Self {
        Text::whole(Arc::clone(&EMPTY))
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text::whole(Arc::new(s.into()))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::whole(Arc::new(s))
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Self {
        Text::whole(Arc::new(s.clone()))
    }
}

impl From<Text> for String {
    fn from(t: Text) -> Self {
        t.as_str().to_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Builds a `Text` from whatever string the deserializer has: a range of the reply when
/// the string lies in the one [`parse_shared`] is parsing, else one allocation.
struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text, E> {
        let shared = SOURCE.with(|s| {
            let source = s.borrow();
            let source = source.as_ref()?;
            let base = source.as_ptr() as usize;
            let at = (v.as_ptr() as usize).checked_sub(base)?;
            let end = at.checked_add(v.len())?;
            // Only a range that lies inside the source (a string of another input, or an
            // unescaped copy, does not).
            if end > source.len() {
                return None;
            }
            Some(Text {
                buf: Arc::clone(source),
                start: u32::try_from(at).ok()?,
                end: u32::try_from(end).ok()?,
            })
        });
        Ok(shared.unwrap_or_else(|| Text::from(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
        Ok(Text::from(v))
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        d.deserialize_str(TextVisitor)
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

    #[test]
    fn a_parsed_reply_lends_its_strings_and_escaped_ones_get_their_own() {
        let json = r#"["Approve", "a \"quoted\" one", "Approve"]"#.to_string();
        let json_copy = json.clone();
        let texts: Vec<Text> = parse_shared(json).unwrap();
        assert_eq!(texts[0], "Approve");
        assert_eq!(texts[1], r#"a "quoted" one"#);
        // The plain strings are ranges of one buffer: the reply's.
        assert!(Arc::ptr_eq(&texts[0].buf, &texts[2].buf));
        assert_eq!(&*texts[0].buf, json_copy.as_str());
        // The escaped one could not be borrowed: it has a buffer of its own.
        assert!(!Arc::ptr_eq(&texts[0].buf, &texts[1].buf));
        assert_eq!(&*texts[1].buf, r#"a "quoted" one"#);
        // A range and a whole string of the same text are the same `Text`.
        let own = Text::from("Approve");
        assert_eq!(texts[0], own);
        let set: std::collections::HashSet<Text> = [own].into_iter().collect();
        assert!(set.contains(&texts[2]));
        assert_eq!(texts[0].cmp(&Text::from("Approvf")), Ordering::Less);
        // Outside a shared parse, borrowed strings are copied.
        let plain: Text = serde_json::from_str(r#""Approve""#).unwrap();
        assert_eq!(plain.buf.len(), 7);
    }
}
