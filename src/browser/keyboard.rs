//! The US keyboard as Playwright's `keyboard.press` types on it: each key by its `code`
//! (`KeyA`, `Digit1`, `Space`, `ShiftLeft`, `Numpad1`), with its `key`, its key codes, the
//! key it gives with Shift held (`!` for `Digit1`) and its location, and the names a press
//! may give it: a code, a key of the main block (`a`, `!`, `End`: never the numpad's), or
//! an alias (`Shift` for `ShiftLeft`, `\n` and `\r` for `Enter`). Only a key named by its
//! code types its shifted key with Shift held (`Shift+KeyA` types `A`, `Shift+a` types
//! `a`), as Playwright's does; a key held with Control, Alt or Meta types nothing.
//!
//! The table is Playwright's own (`packages/playwright-core/src/server/usKeyboardLayout.ts`,
//! Apache-2.0), generated from playwright-core 1.65: the differential test of presses
//! (`tests/it/press.rs`) compares what each key fires with what Playwright's fires.
//! chromiumoxide's table (Puppeteer's, flattened by key) found `End` and `PageUp` as the
//! numpad's keys, knew no code (`Space`, `KeyA`) and no location.

use std::collections::HashMap;
use std::sync::LazyLock;

/// One key as the layout gives it.
struct K {
    code: &'static str,
    key: &'static str,
    /// The key code the event carries (the left and right keys of a pair share one: the
    /// layout's own code for each is left out, as Playwright sends neither).
    plain_code: i64,
    shift_key: Option<&'static str>,
    shift_code: Option<i64>,
    text: &'static str,
    location: i64,
}

/// The numpad's location.
pub(super) const KEYPAD: i64 = 3;

#[rustfmt::skip]
const LAYOUT: &[K] = &[
    K { code: "Escape", key: "Escape", plain_code: 27, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F1", key: "F1", plain_code: 112, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F2", key: "F2", plain_code: 113, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F3", key: "F3", plain_code: 114, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F4", key: "F4", plain_code: 115, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F5", key: "F5", plain_code: 116, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F6", key: "F6", plain_code: 117, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F7", key: "F7", plain_code: 118, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F8", key: "F8", plain_code: 119, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F9", key: "F9", plain_code: 120, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F10", key: "F10", plain_code: 121, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F11", key: "F11", plain_code: 122, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "F12", key: "F12", plain_code: 123, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "Backquote", key: "`", plain_code: 192, shift_key: Some("~"), shift_code: None, text: "", location: 0 },
    K { code: "Digit1", key: "1", plain_code: 49, shift_key: Some("!"), shift_code: None, text: "", location: 0 },
    K { code: "Digit2", key: "2", plain_code: 50, shift_key: Some("@"), shift_code: None, text: "", location: 0 },
    K { code: "Digit3", key: "3", plain_code: 51, shift_key: Some("#"), shift_code: None, text: "", location: 0 },
    K { code: "Digit4", key: "4", plain_code: 52, shift_key: Some("$"), shift_code: None, text: "", location: 0 },
    K { code: "Digit5", key: "5", plain_code: 53, shift_key: Some("%"), shift_code: None, text: "", location: 0 },
    K { code: "Digit6", key: "6", plain_code: 54, shift_key: Some("^"), shift_code: None, text: "", location: 0 },
    K { code: "Digit7", key: "7", plain_code: 55, shift_key: Some("&"), shift_code: None, text: "", location: 0 },
    K { code: "Digit8", key: "8", plain_code: 56, shift_key: Some("*"), shift_code: None, text: "", location: 0 },
    K { code: "Digit9", key: "9", plain_code: 57, shift_key: Some("("), shift_code: None, text: "", location: 0 },
    K { code: "Digit0", key: "0", plain_code: 48, shift_key: Some(")"), shift_code: None, text: "", location: 0 },
    K { code: "Minus", key: "-", plain_code: 189, shift_key: Some("_"), shift_code: None, text: "", location: 0 },
    K { code: "Equal", key: "=", plain_code: 187, shift_key: Some("+"), shift_code: None, text: "", location: 0 },
    K { code: "Backslash", key: "\\", plain_code: 220, shift_key: Some("|"), shift_code: None, text: "", location: 0 },
    K { code: "Backspace", key: "Backspace", plain_code: 8, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "Tab", key: "Tab", plain_code: 9, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "KeyQ", key: "q", plain_code: 81, shift_key: Some("Q"), shift_code: None, text: "", location: 0 },
    K { code: "KeyW", key: "w", plain_code: 87, shift_key: Some("W"), shift_code: None, text: "", location: 0 },
    K { code: "KeyE", key: "e", plain_code: 69, shift_key: Some("E"), shift_code: None, text: "", location: 0 },
    K { code: "KeyR", key: "r", plain_code: 82, shift_key: Some("R"), shift_code: None, text: "", location: 0 },
    K { code: "KeyT", key: "t", plain_code: 84, shift_key: Some("T"), shift_code: None, text: "", location: 0 },
    K { code: "KeyY", key: "y", plain_code: 89, shift_key: Some("Y"), shift_code: None, text: "", location: 0 },
    K { code: "KeyU", key: "u", plain_code: 85, shift_key: Some("U"), shift_code: None, text: "", location: 0 },
    K { code: "KeyI", key: "i", plain_code: 73, shift_key: Some("I"), shift_code: None, text: "", location: 0 },
    K { code: "KeyO", key: "o", plain_code: 79, shift_key: Some("O"), shift_code: None, text: "", location: 0 },
    K { code: "KeyP", key: "p", plain_code: 80, shift_key: Some("P"), shift_code: None, text: "", location: 0 },
    K { code: "BracketLeft", key: "[", plain_code: 219, shift_key: Some("{"), shift_code: None, text: "", location: 0 },
    K { code: "BracketRight", key: "]", plain_code: 221, shift_key: Some("}"), shift_code: None, text: "", location: 0 },
    K { code: "CapsLock", key: "CapsLock", plain_code: 20, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "KeyA", key: "a", plain_code: 65, shift_key: Some("A"), shift_code: None, text: "", location: 0 },
    K { code: "KeyS", key: "s", plain_code: 83, shift_key: Some("S"), shift_code: None, text: "", location: 0 },
    K { code: "KeyD", key: "d", plain_code: 68, shift_key: Some("D"), shift_code: None, text: "", location: 0 },
    K { code: "KeyF", key: "f", plain_code: 70, shift_key: Some("F"), shift_code: None, text: "", location: 0 },
    K { code: "KeyG", key: "g", plain_code: 71, shift_key: Some("G"), shift_code: None, text: "", location: 0 },
    K { code: "KeyH", key: "h", plain_code: 72, shift_key: Some("H"), shift_code: None, text: "", location: 0 },
    K { code: "KeyJ", key: "j", plain_code: 74, shift_key: Some("J"), shift_code: None, text: "", location: 0 },
    K { code: "KeyK", key: "k", plain_code: 75, shift_key: Some("K"), shift_code: None, text: "", location: 0 },
    K { code: "KeyL", key: "l", plain_code: 76, shift_key: Some("L"), shift_code: None, text: "", location: 0 },
    K { code: "Semicolon", key: ";", plain_code: 186, shift_key: Some(":"), shift_code: None, text: "", location: 0 },
    K { code: "Quote", key: "'", plain_code: 222, shift_key: Some("\""), shift_code: None, text: "", location: 0 },
    K { code: "Enter", key: "Enter", plain_code: 13, shift_key: None, shift_code: None, text: "\r", location: 0 },
    K { code: "ShiftLeft", key: "Shift", plain_code: 16, shift_key: None, shift_code: None, text: "", location: 1 },
    K { code: "KeyZ", key: "z", plain_code: 90, shift_key: Some("Z"), shift_code: None, text: "", location: 0 },
    K { code: "KeyX", key: "x", plain_code: 88, shift_key: Some("X"), shift_code: None, text: "", location: 0 },
    K { code: "KeyC", key: "c", plain_code: 67, shift_key: Some("C"), shift_code: None, text: "", location: 0 },
    K { code: "KeyV", key: "v", plain_code: 86, shift_key: Some("V"), shift_code: None, text: "", location: 0 },
    K { code: "KeyB", key: "b", plain_code: 66, shift_key: Some("B"), shift_code: None, text: "", location: 0 },
    K { code: "KeyN", key: "n", plain_code: 78, shift_key: Some("N"), shift_code: None, text: "", location: 0 },
    K { code: "KeyM", key: "m", plain_code: 77, shift_key: Some("M"), shift_code: None, text: "", location: 0 },
    K { code: "Comma", key: ",", plain_code: 188, shift_key: Some("<"), shift_code: None, text: "", location: 0 },
    K { code: "Period", key: ".", plain_code: 190, shift_key: Some(">"), shift_code: None, text: "", location: 0 },
    K { code: "Slash", key: "/", plain_code: 191, shift_key: Some("?"), shift_code: None, text: "", location: 0 },
    K { code: "ShiftRight", key: "Shift", plain_code: 16, shift_key: None, shift_code: None, text: "", location: 2 },
    K { code: "ControlLeft", key: "Control", plain_code: 17, shift_key: None, shift_code: None, text: "", location: 1 },
    K { code: "MetaLeft", key: "Meta", plain_code: 91, shift_key: None, shift_code: None, text: "", location: 1 },
    K { code: "AltLeft", key: "Alt", plain_code: 18, shift_key: None, shift_code: None, text: "", location: 1 },
    K { code: "Space", key: " ", plain_code: 32, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "AltRight", key: "Alt", plain_code: 18, shift_key: None, shift_code: None, text: "", location: 2 },
    K { code: "AltGraph", key: "AltGraph", plain_code: 225, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "MetaRight", key: "Meta", plain_code: 92, shift_key: None, shift_code: None, text: "", location: 2 },
    K { code: "ContextMenu", key: "ContextMenu", plain_code: 93, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "ControlRight", key: "Control", plain_code: 17, shift_key: None, shift_code: None, text: "", location: 2 },
    K { code: "PrintScreen", key: "PrintScreen", plain_code: 44, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "ScrollLock", key: "ScrollLock", plain_code: 145, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "Pause", key: "Pause", plain_code: 19, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "PageUp", key: "PageUp", plain_code: 33, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "PageDown", key: "PageDown", plain_code: 34, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "Insert", key: "Insert", plain_code: 45, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "Delete", key: "Delete", plain_code: 46, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "Home", key: "Home", plain_code: 36, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "End", key: "End", plain_code: 35, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "ArrowLeft", key: "ArrowLeft", plain_code: 37, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "ArrowUp", key: "ArrowUp", plain_code: 38, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "ArrowRight", key: "ArrowRight", plain_code: 39, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "ArrowDown", key: "ArrowDown", plain_code: 40, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "AudioVolumeMute", key: "AudioVolumeMute", plain_code: 173, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "AudioVolumeDown", key: "AudioVolumeDown", plain_code: 174, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "AudioVolumeUp", key: "AudioVolumeUp", plain_code: 175, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "MediaTrackNext", key: "MediaTrackNext", plain_code: 176, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "MediaTrackPrevious", key: "MediaTrackPrevious", plain_code: 177, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "MediaPlayPause", key: "MediaPlayPause", plain_code: 179, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "NumLock", key: "NumLock", plain_code: 144, shift_key: None, shift_code: None, text: "", location: 0 },
    K { code: "NumpadDivide", key: "/", plain_code: 111, shift_key: None, shift_code: None, text: "", location: 3 },
    K { code: "NumpadMultiply", key: "*", plain_code: 106, shift_key: None, shift_code: None, text: "", location: 3 },
    K { code: "NumpadSubtract", key: "-", plain_code: 109, shift_key: None, shift_code: None, text: "", location: 3 },
    K { code: "Numpad7", key: "Home", plain_code: 36, shift_key: Some("7"), shift_code: Some(103), text: "", location: 3 },
    K { code: "Numpad8", key: "ArrowUp", plain_code: 38, shift_key: Some("8"), shift_code: Some(104), text: "", location: 3 },
    K { code: "Numpad9", key: "PageUp", plain_code: 33, shift_key: Some("9"), shift_code: Some(105), text: "", location: 3 },
    K { code: "Numpad4", key: "ArrowLeft", plain_code: 37, shift_key: Some("4"), shift_code: Some(100), text: "", location: 3 },
    K { code: "Numpad5", key: "Clear", plain_code: 12, shift_key: Some("5"), shift_code: Some(101), text: "", location: 3 },
    K { code: "Numpad6", key: "ArrowRight", plain_code: 39, shift_key: Some("6"), shift_code: Some(102), text: "", location: 3 },
    K { code: "NumpadAdd", key: "+", plain_code: 107, shift_key: None, shift_code: None, text: "", location: 3 },
    K { code: "Numpad1", key: "End", plain_code: 35, shift_key: Some("1"), shift_code: Some(97), text: "", location: 3 },
    K { code: "Numpad2", key: "ArrowDown", plain_code: 40, shift_key: Some("2"), shift_code: Some(98), text: "", location: 3 },
    K { code: "Numpad3", key: "PageDown", plain_code: 34, shift_key: Some("3"), shift_code: Some(99), text: "", location: 3 },
    K { code: "Numpad0", key: "Insert", plain_code: 45, shift_key: Some("0"), shift_code: Some(96), text: "", location: 3 },
    K { code: "NumpadDecimal", key: "Delete", plain_code: 46, shift_key: Some("."), shift_code: Some(110), text: "", location: 3 },
    K { code: "NumpadEnter", key: "Enter", plain_code: 13, shift_key: None, shift_code: None, text: "\r", location: 3 },
];

/// A key as a press sends it (Playwright's `KeyDescription`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key {
    pub key: &'static str,
    /// `windowsVirtualKeyCode`.
    pub key_code: i64,
    pub code: &'static str,
    /// What it types ("" for nothing).
    pub text: &'static str,
    pub location: i64,
}

/// A name's key, and the key it is with Shift held (for a key named by its code).
#[derive(Debug, Clone, Copy)]
struct Entry {
    plain: Key,
    shifted: Option<Key>,
}

static NAMES: LazyLock<HashMap<&'static str, Entry>> = LazyLock::new(|| {
    let mut names = HashMap::new();
    for k in LAYOUT {
        let plain = Key {
            key: k.key,
            key_code: k.plain_code,
            code: k.code,
            // A key of one character types it.
            text: if k.key.chars().count() == 1 {
                k.key
            } else {
                k.text
            },
            location: k.location,
        };
        let shifted = k.shift_key.map(|s| Key {
            key: s,
            text: s,
            key_code: k.shift_code.unwrap_or(plain.key_code),
            ..plain
        });
        names.insert(k.code, Entry { plain, shifted });
        let aliases: &[&str] = match k.code {
            "ShiftLeft" => &["Shift"],
            "ControlLeft" => &["Control"],
            "AltLeft" => &["Alt"],
            "MetaLeft" => &["Meta"],
            "Enter" => &["\n", "\r"],
            _ => &[],
        };
        for alias in aliases {
            names.insert(
                alias,
                Entry {
                    plain,
                    shifted: None,
                },
            );
        }
        // The numpad's keys are named by their code alone.
        if k.location != 0 {
            continue;
        }
        if k.key.chars().count() == 1 {
            names.insert(
                k.key,
                Entry {
                    plain,
                    shifted: None,
                },
            );
        }
        if let Some(s) = shifted {
            names.insert(
                s.key,
                Entry {
                    plain: s,
                    shifted: None,
                },
            );
        }
    }
    names
});

/// Whether `name` names a key (`ControlOrMeta` is Control: Chromium runs on Linux here).
pub(super) fn known(name: &str) -> bool {
    NAMES.contains_key(resolved(name))
}

fn resolved(name: &str) -> &str {
    if name == "ControlOrMeta" {
        "Control"
    } else {
        name
    }
}

/// The key `name` sends with `shift` held; `None` when it names none.
pub(super) fn key(name: &str, shift: bool) -> Option<Key> {
    let entry = NAMES.get(resolved(name))?;
    Some(match entry.shifted {
        Some(s) if shift => s,
        _ => entry.plain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_named_as_playwright_names_them() {
        let end = key("End", false).expect("End");
        assert_eq!((end.code, end.key_code, end.location), ("End", 35, 0));
        assert_eq!(key("Numpad1", false).map(|k| k.location), Some(KEYPAD));
        let space = key("Space", false).expect("Space");
        assert_eq!((space.key, space.text), (" ", " "));
        assert_eq!(key(" ", false), Some(space));
        // Only a code's key is shifted.
        assert_eq!(key("KeyA", true).map(|k| k.text), Some("A"));
        assert_eq!(key("a", true).map(|k| k.text), Some("a"));
        assert_eq!(
            key("Digit1", true).map(|k| (k.key, k.key_code)),
            Some(("!", 49))
        );
        assert_eq!(key("!", false).map(|k| k.code), Some("Digit1"));
        let shift = key("Shift", false).expect("Shift");
        assert_eq!(
            (shift.code, shift.key_code, shift.location),
            ("ShiftLeft", 16, 1)
        );
        assert_eq!(key("\n", false).map(|k| k.text), Some("\r"));
        assert!(known("ControlOrMeta") && !known("Nope"));
    }
}
