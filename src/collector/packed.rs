//! A read's control records as the collector packs them (see `wire` in `js/07-collect.js`):
//! one string of fields, eleven per record (fifteen for a clipped one, see below), every field
//! but the last ended by [`SEP`]:
//!
//! `anchor SEP label SEP role# SEP region# SEP x SEP y SEP width SEP height SEP flags SEP value SEP key`
//!
//! `role#` and `region#` index the document's string table; `value` and `key` are empty
//! unless `flags` says the control has one. A control its clipping ancestors show only in
//! part, or not at all (flag [`VIEWED`]), has four more fields after its key: that part
//! (`RawControl::view`). When a string holds a `SEP` or a character past ASCII, its
//! record is sent escaped (flag [`ESCAPED`]): in each of its strings, [`ESC`] `1` stands for
//! `SEP`, `ESC 0` for `ESC`, and `ESC u` and four hex digits for a UTF-16 unit (a character
//! past ASCII, or half of one past the BMP); in any other record an `ESC` is just itself.
//! So only escaped records are unescaped here. (A character past ASCII left as it is, an
//! accented letter included, would make Chromium send the collector's whole answer at
//! about twice the cost: see `narrow` in `js/07-collect.js`.)
//!
//! Why not a JSON array per record: the reply crosses CDP as a JSON string, where each of
//! an array's quotes goes escaped (Chromium escaping 250,000 of them at 50,000 controls,
//! then serde_json unescaping them), and serde_json dispatching on every value of every
//! array cost as much as building the controls. `SEP` is DEL (0x7f): no text a person
//! reads holds it, and CDP sends it as one byte, where a control character goes as six.

use crate::screen::{Facts, RawControl, Slicer, Text};

/// Ends each field but the last.
pub(super) const SEP: u8 = 0x7f;
/// Starts an escape inside a string of an escaped record: `ESC 0` is `ESC`, `ESC 1` is
/// `SEP`, `ESC u XXXX` the UTF-16 unit XXXX (hex).
const ESC: u8 = 0x1b;
/// Fields in a record.
pub(super) const FIELDS: usize = 11;

const DISABLED: u32 = 1;
const EDITABLE: u32 = 2;
const SECRET: u32 = 4;
const HIDDEN: u32 = 8;
const CHECKED: u32 = 16;
const UNCHECKED: u32 = 32;
/// The record's `value` field holds its value (else the control has none).
pub(super) const HAS_VALUE: u32 = 64;
/// The record's `key` field holds its key.
pub(super) const HAS_KEY: u32 = 128;
/// The record's strings are escaped.
pub(super) const ESCAPED: u32 = 256;
/// The record ends with four more fields: the part of its box that shows.
const VIEWED: u32 = 512;

/// The controls `packed` describes, in order, their roles and regions looked up in
/// `strings` (the document's string table) and their strings borrowed from `packed`'s
/// buffer (or held in place when short). `expected` sizes the result.
///
/// A record in the usual form (integers only, no escapes) is read by [`plain`], in one pass
/// with no error kept; any other, and any record in error, is read again by [`Fields`],
/// which takes every form the collector sends and says what is wrong.
pub(super) fn records(
    packed: &Text,
    expected: usize,
    strings: &[Text],
) -> Result<Vec<RawControl>, String> {
    let mut out = Vec::with_capacity(expected);
    if packed.is_empty() {
        return Ok(out);
    }
    let (bytes, slicer) = (packed.as_bytes(), packed.slicer());
    let mut at = Some(0);
    while let Some(start) = at {
        at = match plain(bytes, &slicer, start, strings, &mut out) {
            Some(next) => next,
            None => {
                let mut fields = Fields {
                    text: packed,
                    bytes,
                    at: start,
                    done: false,
                    record: out.len(),
                };
                out.push(fields.control(strings)?);
                (!fields.done).then_some(fields.at)
            }
        };
    }
    Ok(out)
}

/// Reads the record at `at` into `out` when it is in the usual form, giving where the next
/// record starts (`None`: it was the last); `None` when it is not (`out` unchanged).
#[inline(always)]
fn plain(
    bytes: &[u8],
    slicer: &Slicer<'_>,
    at: usize,
    strings: &[Text],
    out: &mut Vec<RawControl>,
) -> Option<Option<usize>> {
    let mut at = at;
    let anchor = text(bytes, slicer, &mut at)?;
    let label = text(bytes, slicer, &mut at)?;
    let role = strings
        .get(usize::try_from(int(bytes, &mut at)?).ok()?)?
        .clone();
    let region = strings
        .get(usize::try_from(int(bytes, &mut at)?).ok()?)?
        .clone();
    let bbox = [
        int(bytes, &mut at)?,
        int(bytes, &mut at)?,
        int(bytes, &mut at)?,
        int(bytes, &mut at)?,
    ];
    let flags = u32::try_from(int(bytes, &mut at)?).ok()?;
    if flags & (ESCAPED | VIEWED) != 0 {
        return None;
    }
    let value = text(bytes, slicer, &mut at)?;
    // The last field ends at a SEP before the next record, or at the end. Most controls
    // have no key: its field is empty, and no search is needed to find its end.
    let (end, next) = match bytes.get(at) {
        Some(&SEP) => (at, Some(at + 1)),
        None => (at, None),
        Some(_) => match memchr::memchr(SEP, bytes.get(at..)?) {
            Some(i) => (at + i, Some(at + i + 1)),
            None => (bytes.len(), None),
        },
    };
    let key = slicer.slice(at, end)?;
    // Built in the vector's next slot: `push`, not inlined here, took the 192-byte record
    // built on the stack and copied it in with a call to `memcpy`.
    if out.len() == out.capacity() {
        out.reserve(1);
    }
    out.spare_capacity_mut()[0].write(control(
        anchor, label, role, region, bbox, flags, value, key, None,
    ));
    // SAFETY: the slot at `len` is within the capacity and was written just above.
    unsafe { out.set_len(out.len() + 1) };
    Some(next)
}

/// The text field at `at`, which a SEP ends; `at` moves past the SEP.
#[inline(always)]
fn text(bytes: &[u8], slicer: &Slicer<'_>, at: &mut usize) -> Option<Text> {
    let start = *at;
    // An empty field (a control with no value) needs no search.
    if bytes.get(start) == Some(&SEP) {
        *at = start + 1;
        return Some(Text::default());
    }
    let end = sep_from(bytes, start)?;
    *at = end + 1;
    slicer.slice(start, end)
}

/// The offset of the first SEP at or after `start`. Most fields are short: the first three
/// words are looked at a word at a time, where a search of its own sets up for each call.
#[inline(always)]
fn sep_from(bytes: &[u8], start: usize) -> Option<usize> {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut at = start;
    for _ in 0..3 {
        let Some(word) = bytes.get(at..at + 8) else {
            break;
        };
        let word = u64::from_le_bytes(word.try_into().ok()?);
        // A byte equal to SEP becomes 0; then the high bit is set in each zero byte, and in
        // no other (no sum carries out of its byte).
        let x = word ^ u64::from_ne_bytes([SEP; 8]);
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    Some(at + memchr::memchr(SEP, bytes.get(at..)?)?)
}

/// The integer field at `at` (optionally negative, at most 18 digits), which a SEP ends;
/// `at` moves past the SEP.
#[inline(always)]
fn int(bytes: &[u8], at: &mut usize) -> Option<i64> {
    let (n, len) = leading_int(bytes.get(*at..)?)?;
    if bytes.get(*at + len) != Some(&SEP) {
        return None;
    }
    *at += len + 1;
    Some(n)
}

/// The decimal integer `bytes` starts with (optionally negative, at most 18 digits) and
/// how many bytes it takes: what `Math.round` prints. The one reader of integers here,
/// for the usual form and every other.
#[inline(always)]
fn leading_int(bytes: &[u8]) -> Option<(i64, usize)> {
    let (negative, digits) = match bytes.first() {
        Some(b'-') => (true, &bytes[1..]),
        _ => (false, bytes),
    };
    let mut n: i64 = 0;
    let mut len = 0;
    // An iterator, not indexing: no bounds check per digit.
    for &b in digits.iter().take(19) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        // Wrapping: a 19th digit is refused below, whatever it summed to.
        n = n.wrapping_mul(10).wrapping_add(i64::from(d));
        len += 1;
    }
    if len == 0 || len > 18 {
        return None;
    }
    Some((if negative { -n } else { n }, usize::from(negative) + len))
}

/// The control a record's fields describe.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn control(
    anchor: Text,
    label: Text,
    role: Text,
    region: Text,
    bbox: [i64; 4],
    flags: u32,
    value: Text,
    key: Text,
    view: Option<[i64; 4]>,
) -> RawControl {
    RawControl {
        facts: Facts {
            anchor,
            key: (flags & HAS_KEY != 0).then_some(key),
            label,
            role,
            disabled: flags & DISABLED != 0,
            editable: flags & EDITABLE != 0,
            value: (flags & HAS_VALUE != 0).then_some(value),
            checked: match (flags & CHECKED != 0, flags & UNCHECKED != 0) {
                (true, _) => Some(true),
                (false, true) => Some(false),
                _ => None,
            },
            region,
            visible: flags & HIDDEN == 0,
        },
        secret: flags & SECRET != 0,
        focused: false,
        bbox,
        view,
    }
}

/// A cursor over the fields of a packed string.
struct Fields<'a> {
    text: &'a Text,
    bytes: &'a [u8],
    /// Where the next field starts.
    at: usize,
    /// No field is left.
    done: bool,
    /// The record being read, for errors.
    record: usize,
}

impl Fields<'_> {
    /// The next field's range.
    fn next(&mut self, field: usize) -> Result<(usize, usize), String> {
        if self.done {
            return Err(format!(
                "record #{} ends after {field} of its {FIELDS} fields",
                self.record
            ));
        }
        let (bytes, start) = (self.bytes, self.at);
        match memchr::memchr(SEP, &bytes[start..]) {
            Some(i) => {
                self.at = start + i + 1;
                Ok((start, start + i))
            }
            None => {
                self.done = true;
                self.at = bytes.len();
                Ok((start, bytes.len()))
            }
        }
    }

    /// The next field, as text.
    fn text(&mut self, field: usize) -> Result<Text, String> {
        let (start, end) = self.next(field)?;
        // Split at ASCII bytes of a `str`, so on char boundaries.
        self.text
            .slice(start..end)
            .ok_or_else(|| format!("record #{} field {field} splits a character", self.record))
    }

    /// The next field, as an integer (a fraction or an exponent is rounded).
    fn number(&mut self, field: usize) -> Result<i64, String> {
        // Most are a few digits, which a SEP ends: read them as they are scanned.
        let mut at = self.at;
        match int(self.bytes, &mut at) {
            Some(n) if !self.done => {
                self.at = at;
                Ok(n)
            }
            _ => self.number_slow(field),
        }
    }

    /// The next field, as any number JavaScript prints, rounded.
    fn number_slow(&mut self, field: usize) -> Result<i64, String> {
        let (start, end) = self.next(field)?;
        let digits = &self.bytes[start..end];
        integer(digits)
            .or_else(|| {
                std::str::from_utf8(digits)
                    .ok()?
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    // A box far past any screen saturates.
                    .map(|f| f.round() as i64)
            })
            .ok_or_else(|| {
                format!(
                    "record #{} field {field} is `{}`, not a number",
                    self.record,
                    String::from_utf8_lossy(digits)
                )
            })
    }

    /// The next field, as an entry of the string table: the control's `what`.
    fn entry(
        &mut self,
        field: usize,
        what: &str,
        strings: &[Text],
        anchor: &Text,
    ) -> Result<Text, String> {
        let n = self.number(field)?;
        usize::try_from(n)
            .ok()
            .and_then(|i| strings.get(i))
            .cloned()
            .ok_or_else(|| {
                format!(
                    "record #{} (`{anchor}`) names {what} #{n}, past the {} strings the runner holds",
                    self.record,
                    strings.len()
                )
            })
    }

    fn control(&mut self, strings: &[Text]) -> Result<RawControl, String> {
        let mut anchor = self.text(0)?;
        let mut label = self.text(1)?;
        let role = self.entry(2, "role", strings, &anchor)?;
        let region = self.entry(3, "region", strings, &anchor)?;
        let bbox = [
            self.number(4)?,
            self.number(5)?,
            self.number(6)?,
            self.number(7)?,
        ];
        let flags = self.number(8)?;
        let flags = u32::try_from(flags)
            .map_err(|_| format!("record #{} has flags {flags}", self.record))?;
        let mut value = self.text(9)?;
        let mut key = self.text(10)?;
        let view = if flags & VIEWED != 0 {
            Some([
                self.number(11)?,
                self.number(12)?,
                self.number(13)?,
                self.number(14)?,
            ])
        } else {
            None
        };
        if flags & ESCAPED != 0 {
            let record = self.record;
            let plain = |t: &Text, field: usize| {
                unescape(t.as_bytes())
                    .map(Text::from)
                    .ok_or_else(|| format!("record #{record} field {field} has a bad escape"))
            };
            anchor = plain(&anchor, 0)?;
            label = plain(&label, 1)?;
            value = plain(&value, 9)?;
            key = plain(&key, 10)?;
        }
        Ok(control(
            anchor, label, role, region, bbox, flags, value, key, view,
        ))
    }
}

/// `digits`, when the whole of it is a plain decimal integer (see [`leading_int`]).
fn integer(digits: &[u8]) -> Option<i64> {
    leading_int(digits)
        .filter(|&(_, len)| len == digits.len())
        .map(|(n, _)| n)
}

/// `field` with its escapes undone, or `None` for a bad escape. UTF-16 units that are not
/// a character (a lone surrogate) come out as U+FFFD.
fn unescape(field: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(field.len());
    // Consecutive `ESC u` units: a character past the BMP takes two.
    let mut units: Vec<u16> = Vec::new();
    let flush = |units: &mut Vec<u16>, out: &mut Vec<u8>| {
        for c in char::decode_utf16(units.drain(..)) {
            let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    };
    let mut i = 0;
    while i < field.len() {
        let b = field[i];
        if b == ESC && field.get(i + 1) == Some(&b'u') {
            let hex = field.get(i + 2..i + 6)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let hex = std::str::from_utf8(hex).ok()?;
            units.push(u16::from_str_radix(hex, 16).ok()?);
            i += 6;
            continue;
        }
        flush(&mut units, &mut out);
        if b != ESC {
            out.push(b);
            i += 1;
            continue;
        }
        out.push(match field.get(i + 1)? {
            b'0' => ESC,
            b'1' => SEP,
            _ => return None,
        });
        i += 2;
    }
    flush(&mut units, &mut out);
    String::from_utf8(out).ok()
}

/// `s` as a string field of an escaped record.
pub(super) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{1b}' => out.push_str("\u{1b}0"),
            '\u{7f}' => out.push_str("\u{1b}1"),
            _ => out.push(c),
        }
    }
    out
}

/// The flags field of `c`'s record.
fn flags(c: &RawControl) -> u32 {
    [
        (c.disabled, DISABLED),
        (c.editable, EDITABLE),
        (c.secret, SECRET),
        (!c.visible, HIDDEN),
        (c.checked == Some(true), CHECKED),
        (c.checked == Some(false), UNCHECKED),
        (c.value.is_some(), HAS_VALUE),
        (c.key.is_some(), HAS_KEY),
        (c.view.is_some(), VIEWED),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .fold(0, |f, (_, bit)| f | bit)
}

/// `c`'s record, `role` and `region` being its entries in the string table: what the
/// collector sends for it.
pub(super) fn pack(c: &RawControl, role: usize, region: usize) -> String {
    let sep = char::from(SEP);
    let strings = [
        c.anchor.as_str(),
        c.label.as_str(),
        c.value.as_deref().unwrap_or_default(),
        c.key.as_deref().unwrap_or_default(),
    ];
    let escaped = strings.iter().any(|s| s.contains(sep));
    let [anchor, label, value, key] =
        strings.map(|s| if escaped { escape(s) } else { s.to_string() });
    let flags = flags(c) | if escaped { ESCAPED } else { 0 };
    let view = c.view.iter().flatten().map(i64::to_string);
    [
        anchor,
        label,
        role.to_string(),
        region.to_string(),
        c.bbox[0].to_string(),
        c.bbox[1].to_string(),
        c.bbox[2].to_string(),
        c.bbox[3].to_string(),
        flags.to_string(),
        value,
        key,
    ]
    .into_iter()
    .chain(view)
    .collect::<Vec<_>>()
    .join(&sep.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_separator_is_found_wherever_it_lies_and_only_there() {
        for len in 0..60 {
            for at in 0..len {
                let mut bytes = vec![b'x'; len];
                bytes[at] = SEP;
                // Bytes on either side of SEP in value: no false match, no carry.
                if at > 0 {
                    bytes[at - 1] = SEP - 1;
                }
                if at + 1 < len {
                    bytes[at + 1] = 0xff;
                }
                for start in 0..=at {
                    assert_eq!(
                        sep_from(&bytes, start),
                        Some(at),
                        "{len} bytes, SEP at {at}"
                    );
                }
                assert_eq!(sep_from(&bytes, at + 1), None);
            }
        }
    }

    #[test]
    fn integers_read_to_their_separator() {
        let sep = char::from(SEP);
        for (field, want) in [
            ("0", Some(0)),
            ("-20", Some(-20)),
            ("300040", Some(300_040)),
            ("999999999999999999", Some(999_999_999_999_999_999)),
            // 19 digits, no digits, a fraction, no separator after.
            ("9999999999999999999", None),
            ("", None),
            ("-", None),
            ("1.5", None),
        ] {
            let bytes = format!("{field}{sep}rest");
            let mut at = 0;
            assert_eq!(int(bytes.as_bytes(), &mut at), want, "`{field}`");
            if want.is_some() {
                assert_eq!(at, field.len() + 1);
            }
        }
        assert_eq!(int(b"12", &mut 0), None);
    }

    #[test]
    fn characters_past_latin_1_come_back_from_their_units() {
        let esc = char::from(ESC);
        let sep = char::from(SEP);
        for (field, want) in [
            (format!("Don{esc}u2019t"), Some("Don\u{2019}t".to_string())),
            // A character past the BMP is two units; a lone one is U+FFFD.
            (
                format!("{esc}ud83d{esc}ude00!"),
                Some("\u{1f600}!".to_string()),
            ),
            (format!("x{esc}ud800y"), Some("x\u{fffd}y".to_string())),
            (
                format!("{esc}0{esc}1{esc}u00e9"),
                Some(format!("{esc}{sep}\u{e9}")),
            ),
            // Too few digits, not hex, an escape cut short.
            (format!("{esc}u20"), None),
            (format!("{esc}u+123"), None),
            (format!("{esc}uzzzz"), None),
            (format!("a{esc}"), None),
        ] {
            assert_eq!(unescape(field.as_bytes()), want, "{field:?}");
        }
    }
}
