//! Properties over hostile input (issue 40), with proptest in place of a fuzzer (cargo-fuzz
//! needs nightly): the registry parser, anchor references and the collector's wire form
//! never panic on anything, answer an error or a value, and do so in bounded time.
//!
//! Each property runs 64 cases by default, so a test run stays short; `PROPTEST_CASES=5000
//! cargo test --test it properties` runs the longer search (see the README's "Fuzzing").
//! No browser: these are pure functions.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::Config;
use waymark::anchor::{AnchorId, AnchorRef};
use waymark::registry::Registry;
use waymark::screen::{Chrome, Facts, RawControl, RawObservation};
use waymark::wire::{encode_full, parse_full};

/// The cases each property runs: 64, or `PROPTEST_CASES`.
fn config() -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 64;
    }
    config.failure_persistence = None;
    config
}

/// Far past what any case takes (a few milliseconds): only a blow-up (a parse quadratic in
/// its input, a loop) goes past it.
const BOUND: Duration = Duration::from_secs(10);

/// The package's registry: a valid starting point for structured-but-wrong ones.
fn registry_text() -> &'static str {
    include_str!("../../anchors.yaml")
}

/// Parses `text` as a registry and renders any error as the CLI does (miette's graphical
/// report, which walks the spans): neither may panic, and both end within [`BOUND`].
fn parse_registry(text: &str) {
    let start = Instant::now();
    if let Err(error) = Registry::parse(text, "fuzz.yaml") {
        let mut out = String::new();
        miette::GraphicalReportHandler::new()
            .render_report(&mut out, &error)
            .expect("the report renders");
        assert!(!error.to_string().is_empty());
    }
    assert!(start.elapsed() < BOUND, "took {:?}", start.elapsed());
}

/// An edit of a text: what a careless hand or a hostile file does to a registry.
#[derive(Debug, Clone)]
enum Edit {
    /// Removes the characters from `at` (a fraction of the length) on, `len` of them.
    Delete { at: f64, len: usize },
    /// Inserts `text` at `at`.
    Insert { at: f64, text: String },
    /// Replaces one character at `at` with `with`.
    Replace { at: f64, with: char },
    /// Repeats the line at `at` `times` times.
    Repeat { at: f64, times: usize },
}

/// Snippets that mean something to YAML or to the registry.
fn snippet() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\t".to_string()),
        Just(": ".to_string()),
        Just("- ".to_string()),
        Just("&a ".to_string()),
        Just("*a".to_string()),
        Just("!!binary ".to_string()),
        Just("[".to_string()),
        Just("{".to_string()),
        Just("]".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("\n  ".to_string()),
        Just("|\n".to_string()),
        Just("\u{0}".to_string()),
        Just("\u{feff}".to_string()),
        Just("é".to_string()),
        Just("screens: [".to_string()),
        Just("  - id: x.y\n    description: d\n    screens: [nowhere]\n".to_string()),
        Just("match: {role: button, name: x}".to_string()),
        Just("route: /a/{id}/{id}".to_string()),
        Just("key: {attribute: data-x}".to_string()),
        "[ -~]{0,12}",
        any::<String>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0f64, 0usize..40).prop_map(|(at, len)| Edit::Delete { at, len }),
        (0.0..1.0f64, snippet()).prop_map(|(at, text)| Edit::Insert { at, text }),
        (0.0..1.0f64, any::<char>()).prop_map(|(at, with)| Edit::Replace { at, with }),
        (0.0..1.0f64, 1usize..50).prop_map(|(at, times)| Edit::Repeat { at, times }),
    ]
}

/// The character index of the fraction `at` of `chars`.
fn index(at: f64, chars: usize) -> usize {
    ((at * chars as f64) as usize).min(chars)
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        match edit {
            Edit::Delete { at, len } => {
                let from = index(*at, chars.len());
                let to = (from + len).min(chars.len());
                chars.drain(from..to);
            }
            Edit::Insert { at, text } => {
                let at = index(*at, chars.len());
                chars.splice(at..at, text.chars());
            }
            Edit::Replace { at, with } => {
                let at = index(*at, chars.len());
                if at < chars.len() {
                    chars[at] = *with;
                }
            }
            Edit::Repeat { at, times } => {
                let at = index(*at, chars.len());
                let start = chars[..at]
                    .iter()
                    .rposition(|c| *c == '\n')
                    .map_or(0, |i| i + 1);
                let end = chars[at..]
                    .iter()
                    .position(|c| *c == '\n')
                    .map_or(chars.len(), |i| at + i + 1);
                let line: Vec<char> = chars[start..end].to_vec();
                for _ in 0..*times {
                    chars.splice(end..end, line.iter().copied());
                }
            }
        }
    }
    chars.into_iter().collect()
}

/// A valid anchor id.
fn anchor_id() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_-]{0,8}(\\.[a-z][a-z0-9_-]{0,8}){0,3}"
}

/// A control of a read, with text that may hold anything the wire form must escape.
fn raw_control() -> impl Strategy<Value = RawControl> {
    (
        anchor_id(),
        proptest::option::of("[^\\]]{1,12}"),
        any::<String>(),
        prop_oneof![
            Just("button"),
            Just("textbox"),
            Just("link"),
            Just("combobox")
        ],
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        proptest::option::of(any::<String>()),
        proptest::option::of(any::<bool>()),
        "[a-z-]{1,10}",
        prop::array::uniform4(-5000i64..5000),
    )
        .prop_map(
            |(
                anchor,
                key,
                label,
                role,
                (disabled, editable, visible, focused),
                value,
                checked,
                region,
                bbox,
            )| {
                RawControl {
                    facts: Facts {
                        anchor: anchor.into(),
                        key: key.map(Into::into),
                        label: label.into(),
                        role: role.into(),
                        disabled,
                        editable,
                        value: value.map(Into::into),
                        checked,
                        region: region.into(),
                        visible,
                    },
                    secret: false,
                    focused,
                    bbox,
                    view: None,
                }
            },
        )
}

fn observation() -> impl Strategy<Value = RawObservation> {
    (
        prop::collection::vec(raw_control(), 0..12),
        any::<String>(),
        proptest::option::of(any::<String>()),
    )
        .prop_map(|(controls, title, dialog)| {
            let mut controls = controls;
            // At most one control has the focus: the wire form names one.
            let mut seen = false;
            for c in &mut controls {
                if c.focused {
                    c.focused = !seen;
                    seen = true;
                }
            }
            let total = controls.len();
            RawObservation {
                url: "http://127.0.0.1:8080/fuzz".to_string(),
                title,
                status: Some(200),
                dialog,
                controls: controls.into_iter().collect(),
                total,
                dropped_by_region: Default::default(),
                dropped_by_role: Default::default(),
                viewport: [1280.0, 800.0],
                scroll: [0.0, 0.0],
                collector_ms: 1.5,
                evidence: None,
                chrome: Chrome::default(),
                audit: None,
                frames_unread: Vec::new(),
            }
        })
}

/// A byte-level change to a wire form.
#[derive(Debug, Clone)]
enum Mutation {
    Truncate(f64),
    Flip(f64, u8),
    Insert(f64, Vec<u8>),
    Delete(f64, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0f64).prop_map(Mutation::Truncate),
        (0.0..1.0f64, any::<u8>()).prop_map(|(at, b)| Mutation::Flip(at, b)),
        (
            0.0..1.0f64,
            prop_oneof![
                Just(b"\n".to_vec()),
                Just(b"\x1e".to_vec()),
                Just(b"\x1f".to_vec()),
                Just(b"9999999999999999999999".to_vec()),
                Just(b"-1".to_vec()),
                Just(b"\\".to_vec()),
                Just(b"\"".to_vec()),
                Just(b"null".to_vec()),
                prop::collection::vec(any::<u8>(), 0..8),
            ]
        )
            .prop_map(|(at, bytes)| Mutation::Insert(at, bytes)),
        (0.0..1.0f64, 1usize..20).prop_map(|(at, n)| Mutation::Delete(at, n)),
    ]
}

fn mutate(wire: &str, mutations: &[Mutation]) -> String {
    let mut bytes = wire.as_bytes().to_vec();
    let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
    for m in mutations {
        match m {
            Mutation::Truncate(f) => bytes.truncate(at(*f, bytes.len())),
            Mutation::Flip(f, b) => {
                let i = at(*f, bytes.len());
                if i < bytes.len() {
                    bytes[i] = *b;
                }
            }
            Mutation::Insert(f, more) => {
                let i = at(*f, bytes.len());
                bytes.splice(i..i, more.iter().copied());
            }
            Mutation::Delete(f, n) => {
                let i = at(*f, bytes.len());
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
        }
    }
    // The runner reads the reply as a string: invalid UTF-8 never reaches the parse.
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Parses a wire form: an error or an observation, never a panic, within [`BOUND`].
fn parse_wire(wire: String) -> Result<RawObservation, String> {
    let start = Instant::now();
    let parsed = parse_full(wire);
    assert!(start.elapsed() < BOUND, "took {:?}", start.elapsed());
    parsed
}

proptest! {
    #![proptest_config(config())]

    /// Any text at all, and text made of YAML's own characters, is a registry or an error.
    #[test]
    fn registry_parse_never_panics_on_any_text(
        text in prop_oneof![any::<String>(), "[a-z:\\-\\[\\]{}&*!|>'\" \n\t#0-9.,/]{0,400}"]
    ) {
        parse_registry(&text);
    }

    /// The package's registry, edited: a tab, an alias, a line repeated, a bracket left
    /// open, a field cut in half. An error or a registry, never a panic.
    #[test]
    fn registry_parse_never_panics_on_an_edited_registry(
        edits in prop::collection::vec(edit(), 1..6)
    ) {
        parse_registry(&apply(registry_text(), &edits));
    }

    /// Any text is an anchor reference or an error, and one that parses writes itself back.
    #[test]
    fn an_anchor_reference_parses_or_is_refused_and_writes_back_as_read(text in any::<String>()) {
        let _ = AnchorId::new(&text);
        if let Ok(reference) = AnchorRef::parse(&text) {
            prop_assert_eq!(reference.to_string(), text.clone());
            prop_assert_eq!(AnchorRef::parse(&reference.to_string()), Ok(reference));
        }
    }

    /// A valid id with any key (no `]`, not blank) round-trips: `claims.open[1042]`.
    #[test]
    fn a_valid_anchor_reference_round_trips(
        id in anchor_id(),
        key in proptest::option::of("[^\\]]{1,20}")
    ) {
        let key = key.filter(|k| !k.trim().is_empty());
        let reference = AnchorRef::new(AnchorId::new(&id).expect("a valid id"), key);
        let text = reference.to_string();
        prop_assert_eq!(AnchorRef::parse(&text), Ok(reference));
    }

    /// Any text as the collector's reply is an observation or an error.
    #[test]
    fn the_collector_reply_never_panics_on_any_text(
        text in prop_oneof![
            any::<String>(),
            "\\{[\"a-z:,0-9\\[\\]{} ]{0,200}\\}\n[\\x1e\\x1f0-9a-z|\\\\-]{0,200}",
        ]
    ) {
        let _ = parse_wire(text);
    }

    /// A read encoded as the collector sends it parses back to itself; mutated (cut short, a
    /// byte changed, separators and huge numbers put in), it is an observation or an
    /// error, never a panic.
    #[test]
    fn the_collector_reply_round_trips_and_survives_mutation(
        raw in observation(),
        mutations in prop::collection::vec(mutation(), 1..5)
    ) {
        let wire = encode_full(&raw);
        let parsed = parse_wire(wire.clone()).expect("an encoded read parses");
        prop_assert_eq!(&parsed, &raw);
        let _ = parse_wire(mutate(&wire, &mutations));
    }
}
