//! Input quoted in a message: whole when short, else its start and its length. A message
//! goes to a person's terminal or an agent's context; a 2 MB route quoted whole (twice, once
//! in the error and once in the text beside it) was a 4 MB reply.

use std::fmt;

/// At most this many characters of one input are quoted.
pub const QUOTED_CHARS: usize = 200;

/// `input` as a message quotes it: see [`quoted`].
pub struct Quoted<'a>(&'a str);

/// `input` whole when it is at most [`QUOTED_CHARS`] characters long, else its first
/// characters, `…` and how long it is (`/aaaa… (2097152 characters)`).
pub fn quoted(input: &str) -> Quoted<'_> {
    Quoted(input)
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(QUOTED_CHARS) {
            None => f.write_str(self.0),
            Some((_, _)) => {
                let cut = self
                    .0
                    .char_indices()
                    .nth(QUOTED_CHARS - 40)
                    .map_or(self.0.len(), |(i, _)| i);
                write!(
                    f,
                    "{}… ({} characters)",
                    &self.0[..cut],
                    self.0.chars().count()
                )
            }
        }
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
        assert!(shown.chars().count() < QUOTED_CHARS + 40, "{shown}");
        let edge = "x".repeat(QUOTED_CHARS);
        assert_eq!(quoted(&edge).to_string(), edge);
    }
}
