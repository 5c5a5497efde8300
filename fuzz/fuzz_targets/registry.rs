//! The registry parser on any bytes: a registry or an error (rendered as the CLI does),
//! never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use waymark::registry::Registry;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(error) = Registry::parse(&text, "fuzz.yaml") {
        let _ = error.to_string();
    }
});
