//! The one rule for showing a string that came from a page or an input — a route, a title,
//! a label, a value, a key, a dialog's text, an argument — wherever it is shown: in a
//! message, a round trip, a trace, a report, a console line. Whole when short, else its
//! start and its length in characters: `/aaaa… (2097152 characters)`.
//!
//! A page is free to make any of these a megabyte, and an agent to send one: a 2 MB route
//! quoted whole (in the error, the round trip's routes and the text beside them) was an
//! 8 MB reply into the agent's context. The engine keeps every string whole for its own
//! work (the route a screen is matched by, the key a control is found by); what it shows
//! is cut here. A cut string is itself short, so cutting it again changes nothing.

use std::borrow::Cow;
use std::fmt;

/// At most this many characters of one string are shown.
pub const QUOTED_CHARS: usize = 200;

/// At most this many characters of one error message (built of strings each cut to
/// [`QUOTED_CHARS`]) are shown: a bound on one that quotes many, or quotes what came back
/// from the browser as it came.
pub const MESSAGE_CHARS: usize = 2_000;

/// Characters left out of a cut string's start for the `… (N characters)` after it: the
/// cut form of a string is never longer than the limit it was cut to.
const TAIL: usize = 40;

/// `text` whole when it is at most [`QUOTED_CHARS`] characters long, else its first
/// characters, `…` and how long it is (`/aaaa… (2097152 characters)`): see [`cut_to`].
pub fn cut(text: &str) -> Cow<'_, str> {
    cut_to(text, QUOTED_CHARS)
}

/// `text` as [`cut`] shows it, in place: left as it is (no copy) when shown whole.
pub fn cut_mut(text: &mut String) {
    if let Cow::Owned(shown) = cut(text) {
        *text = shown;
    }
}

/// `text` whole when it is at most `most` characters long, else its first `most - 40`
/// characters (never a character split: this counts characters, not bytes), `…` and its
/// length in characters. The result is at most `most` characters long (for `most` of 60 and
/// more), so cutting it again gives it back unchanged.
pub fn cut_to(text: &str, most: usize) -> Cow<'_, str> {
    match cut_point(text, most) {
        None => Cow::Borrowed(text),
        Some(at) => Cow::Owned(format!(
            "{}… ({} characters)",
            &text[..at],
            text.chars().count()
        )),
    }
}

/// The byte offset `text` is cut at to show at most `most` characters, or `None` when it is
/// shown whole.
fn cut_point(text: &str, most: usize) -> Option<usize> {
    // At most `most` bytes is at most `most` characters: the common case reads no character.
    if text.len() <= most {
        return None;
    }
    text.char_indices().nth(most)?;
    Some(
        text.char_indices()
            .nth(most.saturating_sub(TAIL))
            .map_or(text.len(), |(i, _)| i),
    )
}

/// `text` as a message quotes it, without a copy: see [`quoted`].
pub struct Quoted<'a>(&'a str);

/// `text` as [`cut`] shows it, for a `format!`: whole when it is at most [`QUOTED_CHARS`]
/// characters long, else its first characters, `…` and how long it is.
pub fn quoted(text: &str) -> Quoted<'_> {
    Quoted(text)
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cut(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_input_is_quoted_in_part_with_its_length() {
        assert_eq!(quoted("/claims/1042").to_string(), "/claims/1042");
        let long = "é".repeat(1_000_000);
        let shown = quoted(&long).to_string();
        assert!(shown.ends_with("… (1000000 characters)"), "{shown}");
        assert!(shown.chars().count() <= QUOTED_CHARS, "{shown}");
        let edge = "x".repeat(QUOTED_CHARS);
        assert_eq!(quoted(&edge).to_string(), edge);
        assert_eq!(cut(&long), shown);
    }

    #[test]
    fn a_short_string_is_shown_whole_and_borrowed() {
        for text in ["", "Approve", "/claims/1042?tab=notes#top"] {
            assert!(matches!(cut(text), Cow::Borrowed(t) if t == text));
        }
        // 200 characters of four bytes each: 800 bytes, shown whole all the same.
        let wide = "😀".repeat(QUOTED_CHARS);
        assert!(matches!(cut(&wide), Cow::Borrowed(_)));
    }

    #[test]
    fn one_character_past_the_limit_is_cut_and_says_its_length() {
        let text = "a".repeat(QUOTED_CHARS + 1);
        let shown = cut(&text);
        assert_eq!(
            shown,
            format!("{}… (201 characters)", "a".repeat(QUOTED_CHARS - TAIL))
        );
    }

    #[test]
    fn multi_byte_characters_are_never_split_and_counted_as_characters() {
        // Each of one to four bytes; the cut falls inside a character at any byte offset.
        for ch in ["a", "é", "€", "😀"] {
            for extra in 0..4 {
                let text = format!("{}{}", "x".repeat(extra), ch.repeat(300));
                let chars = text.chars().count();
                let shown = cut(&text);
                let suffix = format!("… ({chars} characters)");
                assert!(shown.ends_with(&suffix), "{shown}");
                let start = &shown[..shown.len() - suffix.len()];
                assert_eq!(start.chars().count(), QUOTED_CHARS - TAIL, "{ch} {extra}");
                assert!(text.starts_with(start));
                assert!(shown.chars().count() <= QUOTED_CHARS);
            }
        }
    }

    #[test]
    fn cutting_a_cut_string_changes_nothing() {
        for most in [60, QUOTED_CHARS, MESSAGE_CHARS] {
            let text = "ü".repeat(10 * most);
            let once = cut_to(&text, most).into_owned();
            assert!(once.chars().count() <= most, "{most}: {once}");
            assert_eq!(cut_to(&once, most), once);
        }
    }

    #[test]
    fn a_message_is_cut_at_its_own_limit() {
        let message = "m".repeat(MESSAGE_CHARS + 5);
        let shown = cut_to(&message, MESSAGE_CHARS);
        assert!(shown.ends_with("… (2005 characters)"), "{shown}");
        assert!(shown.chars().count() <= MESSAGE_CHARS);
        assert_eq!(cut_to("short", MESSAGE_CHARS), "short");
    }
}
