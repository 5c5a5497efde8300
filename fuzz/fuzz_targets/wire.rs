//! The collector's wire form on any text: an observation or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = waymark::wire::parse_full(text.to_string());
});
