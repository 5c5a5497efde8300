//! Anchor references on any text: parsed or refused, and one that parses writes itself back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use waymark::anchor::{AnchorId, AnchorRef};

fuzz_target!(|text: &str| {
    let _ = AnchorId::new(text);
    if let Ok(reference) = AnchorRef::parse(text) {
        assert_eq!(reference.to_string(), text);
    }
});
