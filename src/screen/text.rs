//! [`Text`]: a string read off the page, shared rather than copied.
//!
//! A dense read carries five strings per control (anchor, label, role, region, value), and
//! the same strings travel from the raw layer into the inferred one, into the held read and
//! the round trip. As `String`s every hand-over was an allocation and a copy per string —
//! 250,000 of them for a 50,000-control inference. A `Text` of up to 22 bytes (most
//! anchors, labels, roles and regions) is held in place: handing it on is a copy of 24
//! bytes, with no allocation and no reference count. A longer one is a range of a shared
//! string: handing it on is a reference count, and the long strings of a parsed reply are
//! ranges of the reply itself (see [`parse_reply`]). It serializes as the plain string it
//! holds, so no output changes.
//!
//! Roles and regions repeat control after control: the collector names them by index in a
//! per-document string table (see `collector.rs`), so a read parses each role and region
//! once, and every control that names it gets a copy of that `Text` (in place when short,
//! else another count on the same buffer).

use std::borrow::Borrow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// An immutable, cheaply cloned string that reads like a `&str`: held in place when short,
/// else a range of a shared buffer — its own, or the whole reply it was parsed from (see
/// `parse_reply`).
pub struct Text(Repr);

/// The longest string a `Text` holds in place: what fits beside its length in the 24
/// bytes a shared range takes with its tag.
const INLINE: usize = 22;

enum Repr {
    /// The bytes of a whole `&str` of at most [`INLINE`] bytes.
    Inline { len: u8, bytes: [u8; INLINE] },
    /// A range of a shared buffer. An `Arc<String>` rather than an `Arc<str>`: a thin
    /// pointer keeps it at 16 bytes, and a reply becomes shared without a copy.
    Shared {
        buf: Arc<String>,
        start: u32,
        end: u32,
    },
}

impl Text {
    /// The string.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                // SAFETY: `Inline` is only built by `Text::inline` and `Text::slice`, from
                // a whole `&str`: its first `len` bytes are that string's, valid UTF-8.
                unsafe { std::str::from_utf8_unchecked(&bytes[..usize::from(*len)]) }
            }
            Repr::Shared { buf, start, end } => &buf[*start as usize..*end as usize],
        }
    }

    /// `s` held in place, when it is short enough.
    fn inline(s: &str) -> Option<Text> {
        if s.len() > INLINE {
            return None;
        }
        let mut bytes = [0; INLINE];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        // At most INLINE (22): fits a u8.
        let len = s.len() as u8;
        Some(Text(Repr::Inline { len, bytes }))
    }

    /// The part of this string at `range` (byte offsets on char boundaries), or `None`
    /// when the range is not one: held in place when short, else a range of the same
    /// buffer, so the records of a packed read share the reply as its other strings do.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Option<Text> {
        self.slicer().slice(range.start, range.end)
    }

    /// A [`Slicer`] cutting parts of this text.
    pub(crate) fn slicer(&self) -> Slicer<'_> {
        let shared = match &self.0 {
            Repr::Inline { .. } => None,
            Repr::Shared { buf, start, .. } => Some((buf, *start)),
        };
        Slicer {
            text: self.as_str(),
            shared,
        }
    }

    /// This text as it is shown (see [`crate::protocol::cut`]): `None` when it is shown
    /// whole, else its start and its length in characters.
    pub fn cut(&self) -> Option<Text> {
        match crate::protocol::cut(self.as_str()) {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(shown) => Some(Text::from(shown)),
        }
    }

    fn whole(buf: Arc<String>) -> Text {
        // A string past 4 GiB cannot come from a page read; saturate rather than wrap.
        let end = u32::try_from(buf.len()).unwrap_or(u32::MAX);
        Text(Repr::Shared { buf, start: 0, end })
    }
}

/// Cuts parts out of one [`Text`] (see [`Text::slice`]) with the text's buffer looked up
/// once: a packed read cuts four strings per control out of its reply.
pub(crate) struct Slicer<'a> {
    text: &'a str,
    /// The shared buffer and where the text starts in it (`None` for a text held in place).
    shared: Option<(&'a Arc<String>, u32)>,
}

impl Slicer<'_> {
    /// The part at `start..end` (byte offsets on char boundaries), or `None` when the range
    /// is not one.
    #[inline(always)]
    pub(crate) fn slice(&self, start: usize, end: usize) -> Option<Text> {
        let part = self.text.get(start..end)?;
        if part.len() <= INLINE {
            // A fixed-size copy of the window the part starts (two moves, where a copy of
            // the part's own length is a call): bytes past `len` are never read. Near the
            // end, where no whole window is left, the copy is out of line, so that the
            // two copies are not merged into one call.
            let Some(window) = self.text.as_bytes().get(start..start + INLINE) else {
                return inline_at_end(part);
            };
            let mut bytes = [0; INLINE];
            bytes.copy_from_slice(window);
            // At most INLINE (22): fits a u8.
            let len = part.len() as u8;
            return Some(Text(Repr::Inline { len, bytes }));
        }
        // A short text has no part too long to hold in place.
        let (buf, base) = self.shared?;
        Some(Text(Repr::Shared {
            buf: Arc::clone(buf),
            start: base.checked_add(u32::try_from(start).ok()?)?,
            end: base.checked_add(u32::try_from(end).ok()?)?,
        }))
    }
}

/// `part` held in place: [`Slicer::slice`]'s copy for a part too near the end of its text
/// for a whole window, kept out of line.
#[cold]
#[inline(never)]
fn inline_at_end(part: &str) -> Option<Text> {
    Text::inline(part)
}

thread_local! {
    /// The reply being parsed on this thread by [`parse_reply`], whose strings become
    /// ranges of it.
    static SOURCE: RefCell<Option<Arc<String>>> = const { RefCell::new(None) };
}

/// Parses a collector's answer: JSON, then — in an answer holding a read — a newline and
/// the read's records, packed (JSON text never holds a raw newline, so the first one ends
/// it). Every long string of the JSON that needs no unescaping is kept as a range of the
/// answer itself (shared, not copied) instead of an allocation of its own: a
/// 50,000-control read holds 150,000 strings, and allocating and freeing each was a quarter
/// of its parse. (Short strings are held in place, which is cheaper still.) The records
/// are a range of the answer too. The answer lives as long as any of its strings does —
/// one answer per read held, about what the strings alone would take with an allocation's
/// overhead each.
pub fn parse_reply<T: DeserializeOwned>(reply: String) -> serde_json::Result<(T, Option<Text>)> {
    let source = Arc::new(reply);
    let newline = memchr::memchr(b'\n', source.as_bytes());
    let json = &source[..newline.unwrap_or(source.len())];
    let previous = SOURCE.with(|s| s.replace(Some(Arc::clone(&source))));
    let parsed = serde_json::from_str(json);
    SOURCE.with(|s| s.replace(previous));
    // After an ASCII byte: a char boundary, so the slice is always one.
    let tail = newline.and_then(|i| Text::whole(Arc::clone(&source)).slice(i + 1..source.len()));
    Ok((parsed?, tail))
}

impl Clone for Text {
    /// A copy of the 24 bytes the text is, holding a count of its own on the buffer when it
    /// is a shared range: one test and two moves, where matching on the form and building
    /// the copy field by field took a control's inference ~25 instructions a string.
    #[inline]
    fn clone(&self) -> Self {
        if let Repr::Shared { buf, .. } = &self.0 {
            // The count the copy below holds: taken here, and dropped with the copy.
            std::mem::forget(Arc::clone(buf));
        }
        // SAFETY: a text held in place owns nothing (its bytes are plain data), and the
        // count a shared range owns was taken above, so the bitwise copy is a second,
        // independent value.
        unsafe { std::ptr::read(self) }
    }
}

impl Default for Text {
    fn default() -> Self {
        Text(Repr::Inline {
            len: 0,
            bytes: [0; INLINE],
        })
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
        Text::inline(s).unwrap_or_else(|| Text::whole(Arc::new(s.into())))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::inline(&s).unwrap_or_else(|| Text::whole(Arc::new(s)))
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Self {
        Text::from(s.as_str())
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

/// Builds a `Text` from whatever string the deserializer has: held in place when short, a
/// range of the reply when the string lies in the one [`parse_reply`] is parsing, else
/// one allocation.
struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text, E> {
        if let Some(t) = Text::inline(v) {
            return Ok(t);
        }
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
            Some(Text(Repr::Shared {
                buf: Arc::clone(source),
                start: u32::try_from(at).ok()?,
                end: u32::try_from(end).ok()?,
            }))
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
    #[test]
    fn a_long_text_is_cut_as_it_is_shown_and_a_short_one_is_not() {
        assert!(Text::from("Approve").cut().is_none());
        let long = Text::from("ü".repeat(500));
        let cut = long.cut().expect("a 500-character text is cut");
        assert!(cut.ends_with("… (500 characters)"), "{cut}");
        assert!(cut.cut().is_none(), "a cut text is shown as it is");
    }

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

    /// The buffer a `Text` is a range of, or `None` when it holds its string in place.
    fn buffer(t: &Text) -> Option<&Arc<String>> {
        match &t.0 {
            Repr::Inline { .. } => None,
            Repr::Shared { buf, .. } => Some(buf),
        }
    }

    #[test]
    fn a_parsed_reply_lends_its_long_strings_and_holds_short_ones_in_place() {
        const LONG: &str = "Approve the claim and notify the adjuster";
        let json =
            format!(r#"["{LONG}", "a \"quoted\" one that is long enough", "{LONG}", "Save"]"#);
        let json_copy = json.clone();
        let (texts, tail): (Vec<Text>, _) = parse_reply(json).unwrap();
        assert!(tail.is_none());
        assert_eq!(texts[0], LONG);
        assert_eq!(texts[1], r#"a "quoted" one that is long enough"#);
        assert_eq!(texts[3], "Save");
        // The plain long strings are ranges of one buffer: the reply's.
        let (a, c) = (buffer(&texts[0]).unwrap(), buffer(&texts[2]).unwrap());
        assert!(Arc::ptr_eq(a, c));
        assert_eq!(a.as_str(), json_copy.as_str());
        // The escaped one could not be borrowed: it has a buffer of its own.
        let b = buffer(&texts[1]).unwrap();
        assert!(!Arc::ptr_eq(a, b));
        assert_eq!(b.as_str(), r#"a "quoted" one that is long enough"#);
        // A short one is held in place, and so is the empty string.
        assert!(buffer(&texts[3]).is_none());
        assert!(buffer(&Text::default()).is_none());
        assert_eq!(Text::default(), "");
        // A range and a whole string of the same text are the same `Text`, and so are a
        // short one held in place and one made from a `String`.
        let own = Text::from(LONG);
        assert_eq!(texts[0], own);
        let set: std::collections::HashSet<Text> =
            [own, Text::from("Save".to_string())].into_iter().collect();
        assert!(set.contains(&texts[2]) && set.contains(&texts[3]));
        assert_eq!(texts[3].cmp(&Text::from("Savf")), Ordering::Less);
        // What follows the JSON after its first newline comes back as is, a range of the
        // same reply; the JSON ends at that newline.
        let reply = format!("[\"{LONG}\"]\n{LONG}\n\"raw\" \\ tail");
        let (texts, tail): (Vec<Text>, _) = parse_reply(reply.clone()).unwrap();
        let tail = tail.expect("a tail");
        assert_eq!(tail.as_str(), format!("{LONG}\n\"raw\" \\ tail"));
        assert!(Arc::ptr_eq(
            buffer(&texts[0]).unwrap(),
            buffer(&tail).unwrap()
        ));
        let (_, empty): (Vec<Text>, _) = parse_reply("[]\n".into()).unwrap();
        assert_eq!(empty.as_deref(), Some(""));
        assert!(parse_reply::<Vec<Text>>("[1,\n2]".into()).is_err());
        // Outside a shared parse, a long borrowed string is copied into a buffer of its own.
        let plain: Text = serde_json::from_str(&format!(r#""{LONG}""#)).unwrap();
        assert_eq!(buffer(&plain).unwrap().len(), LONG.len());
    }

    #[test]
    fn a_slice_of_a_shared_text_is_a_range_of_its_buffer_or_held_in_place() {
        let whole = Text::from(format!("{}\u{7f}Save\u{7f}é", "x".repeat(40)));
        let long = whole.slice(0..40).unwrap();
        assert_eq!(long, "x".repeat(40));
        assert!(Arc::ptr_eq(buffer(&long).unwrap(), buffer(&whole).unwrap()));
        // A slice of a slice still counts from the buffer's start.
        let inner = long.slice(10..35).unwrap();
        assert_eq!(inner, "x".repeat(25));
        assert!(Arc::ptr_eq(
            buffer(&inner).unwrap(),
            buffer(&whole).unwrap()
        ));
        let short = whole.slice(41..45).unwrap();
        assert_eq!(short, "Save");
        assert!(buffer(&short).is_none());
        assert_eq!(short.slice(1..3).unwrap(), "av");
        // Not a char boundary, or past the end: no slice, no panic.
        assert!(whole.slice(47..48).is_none());
        assert!(whole.slice(40..99).is_none());
        assert!(short.slice(2..9).is_none());
    }

    #[test]
    fn strings_up_to_the_inline_length_are_held_in_place_and_longer_ones_shared() {
        for len in [0, 1, INLINE - 1, INLINE, INLINE + 1, 300] {
            let s = "é".repeat(len / 2) + "x".repeat(len % 2).as_str();
            assert_eq!(s.len(), len);
            let t = Text::from(s.as_str());
            assert_eq!(t.as_str(), s);
            assert_eq!(buffer(&t).is_none(), len <= INLINE, "{len} bytes");
            assert_eq!(t.clone(), t);
        }
        // A clone of a shared range holds one count on the buffer, dropped with it.
        let whole = Text::from("y".repeat(40));
        let part = whole.slice(2..30).unwrap();
        let count = || Arc::strong_count(buffer(&whole).unwrap());
        assert_eq!(count(), 2);
        let copies: Vec<Text> = (0..3).map(|_| part.clone()).collect();
        assert_eq!(count(), 5);
        assert!(copies.iter().all(|c| *c == part));
        drop(copies);
        drop(part);
        assert_eq!(count(), 1);
        // A `Text` is no bigger than a `String`, with or without an `Option` around it.
        assert_eq!(std::mem::size_of::<Text>(), 24);
        assert_eq!(std::mem::size_of::<Option<Text>>(), 24);
    }
}
