//! The bad-input corpus (issue 40), one test per case so each keeps holding: registries,
//! journeys, routes and the run's environment that are wrong in the ways people and
//! hostile files are, each refused with its exit code and one message naming the file,
//! the line and column, and the thing at fault. The cases already covered elsewhere (a
//! duplicate anchor id, a syntax error and an endless loop in a journey, a missing browser,
//! an unreachable app, a missing journey: `cli.rs`; the MCP corpus: `mcp_input.rs`) are not
//! repeated. Fixtures: `tests/fixtures/corpus/`.

use std::path::{Path, PathBuf};

use crate::cli::{Run, anchors, waymark};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus")
        .join(name)
}

/// A fresh folder holding a journey that does nothing wrong.
fn folder() -> tempfile::TempDir {
    crate::cli::journey("noop.rhai", "navigate(\"/\");\n")
}

/// `waymark --anchors REGISTRY run noop.rhai` in a fresh folder: the registry is loaded
/// before any browser starts. A registry that exists is copied in and named by its file
/// name, so messages name it short.
fn run_with_registry(registry: &Path) -> Run {
    let dir = folder();
    let name = match registry.file_name() {
        Some(name) if registry.exists() => {
            std::fs::copy(registry, dir.path().join(name)).expect("copy the registry");
            name.to_string_lossy().into_owned()
        }
        _ => registry.display().to_string(),
    };
    let run = waymark(
        dir.path(),
        ["--anchors", name.as_str(), "run", "noop.rhai"],
        &[],
    );
    // miette wraps its message to the width of a terminal: joined again, for `says`.
    Run {
        code: run.code,
        stdout: run.stdout,
        stderr: run.stderr.replace("\n  │ ", " "),
    }
}

/// Runs the corpus journey `name` (copied into a fresh folder) against the demo app.
fn run_corpus_journey(name: &str) -> Run {
    let source = std::fs::read_to_string(corpus(name)).expect("read the corpus journey");
    run_source(name, &source)
}

/// Runs a journey of `source` (named `name`) against the demo app, writing no trace.
fn run_source(name: &str, source: &str) -> Run {
    let dir = crate::cli::journey(name, source);
    let anchors = anchors();
    waymark(
        dir.path(),
        ["--anchors", anchors.as_str(), "run", "--no-trace", name],
        &[],
    )
}

#[test]
fn a_registry_indented_with_a_tab_exits_2_at_the_tab() {
    run_with_registry(&corpus("tab.yaml"))
        .exits(2)
        .says("tab.yaml:4:1")
        .says("line 4, column 1")
        .says("tab character");
}

#[test]
fn a_misspelt_registry_field_exits_2_naming_it_and_the_right_ones() {
    run_with_registry(&corpus("misspelt.yaml"))
        .exits(2)
        .says("misspelt.yaml:7:5")
        .says("unknown field `descripton`")
        .says("`description`");
}

#[test]
fn an_unknown_screen_in_the_registry_exits_2_suggesting_the_declared_one() {
    run_with_registry(&corpus("unknown-screen.yaml"))
        .exits(2)
        .says("unknown-screen.yaml:8:15")
        .says("unknown screen `hom`")
        .says("did you mean `home`?");
}

#[test]
fn a_bad_anchor_id_in_the_registry_exits_2_saying_the_rule() {
    run_with_registry(&corpus("bad-id.yaml"))
        .exits(2)
        .says("bad-id.yaml:6:9")
        .says("`Home.Claims!` is not a valid anchor id")
        .says("[a-z0-9_-]");
}

/// A billion laughs (nine aliases of nine of nine…) is refused where the first alias does
/// not fit the registry's shape, never expanded.
#[test]
fn a_yaml_alias_bomb_is_refused_without_being_expanded() {
    run_with_registry(&corpus("alias-bomb.yaml"))
        .exits(2)
        .says("alias-bomb.yaml:10:14")
        .says("anchors[1].screens[0]")
        .says("invalid type: sequence, expected a string");
}

/// Regression (issue 40): binary bytes in the registry said only "stream did not contain
/// valid UTF-8", with no place; the first byte that is not UTF-8 is named with its line
/// and column.
#[test]
fn a_registry_with_binary_bytes_exits_2_at_the_first_one() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("binary.yaml");
    std::fs::write(
        &path,
        b"app: demo\nscreens:\n  - id: home\n    route: /\xff\xfe\x00\n",
    )
    .expect("write the registry");
    run_with_registry(&path)
        .exits(2)
        .says("binary.yaml:4:13")
        .says("line 4, column 13")
        .says("byte 0xff is not UTF-8");
}

/// Regression (issue 40): a control character (NUL) was placed at line 1, column 1 whatever
/// its place; it is named where it is.
#[test]
fn a_registry_with_a_nul_byte_exits_2_at_the_byte() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("nul.yaml");
    std::fs::write(&path, b"app: demo\nscreens: []\nanchors: [] \x00\n").expect("write");
    run_with_registry(&path)
        .exits(2)
        .says("nul.yaml:3:13")
        .says("control characters are not allowed");
}

#[test]
fn a_missing_registry_exits_2_naming_it() {
    run_with_registry(Path::new("no/such/anchors.yaml"))
        .exits(2)
        .says("cannot read anchor registry `no/such/anchors.yaml`")
        .says("No such file or directory");
}

#[test]
fn recursion_without_end_stops_at_the_call_depth_naming_the_call() {
    run_corpus_journey("recursion.rhai")
        .exits(1)
        .says("Stack overflow")
        .says("recursion.rhai:3:1")
        .says("0 passed, 1 failed");
}

#[test]
fn a_string_doubling_without_end_stops_at_the_string_size_naming_the_line() {
    run_corpus_journey("string-doubling.rhai")
        .exits(1)
        .says("Length of string too large")
        .says("string-doubling.rhai:3:10");
}

#[test]
fn a_tool_called_with_a_number_for_a_route_exits_2_naming_the_call() {
    run_corpus_journey("wrong-types.rhai")
        .exits(2)
        .says("Function not found: navigate (i64)")
        .says("wrong-types.rhai:3:1");
}

#[test]
fn a_tool_called_without_its_text_exits_2_naming_the_call() {
    run_corpus_journey("wrong-arity.rhai")
        .exits(2)
        .says("Function not found: fill")
        .says("wrong-arity.rhai:3:1");
}

/// Expressions nested thousands deep are refused when the journey compiles, before the
/// browser starts.
#[test]
fn an_expression_nested_too_deep_exits_2_when_it_compiles() {
    let source = format!("let x = {}1{};\n", "(".repeat(3000), ")".repeat(3000));
    run_source("deep.rhai", &source)
        .exits(2)
        .says("Expression exceeds maximum complexity")
        .says("deep.rhai:1:");
}

/// Every way off the app (`javascript:`, `file:`, `data:`, `chrome:`, protocol-relative and
/// backslashed hosts, another origin, spelt in mixed case or with a tab inside) is refused
/// as `off_origin` and the page stays: the journey asserts each (see the fixture).
#[test]
fn every_way_off_the_app_is_off_origin_and_the_page_stays() {
    run_corpus_journey("off-origin.rhai")
        .exits(0)
        .says("1 passed, 0 failed");
}

#[test]
fn an_ftp_base_url_exits_2_saying_only_http_is_driven() {
    let dir = folder();
    waymark(
        dir.path(),
        ["--base-url", "ftp://127.0.0.1/", "run", "noop.rhai"],
        &[],
    )
    .exits(2)
    .says("`ftp://127.0.0.1/`")
    .says("only http and https apps can be driven");
}

/// Regression (issue 40): a trace folder that is a file said "File exists"; it says the
/// path is a file.
#[test]
fn a_trace_folder_that_is_a_file_exits_2_saying_so() {
    let dir = folder();
    std::fs::write(dir.path().join("traces"), "a file").expect("write the file");
    let anchors = anchors();
    waymark(
        dir.path(),
        [
            "--anchors",
            anchors.as_str(),
            "run",
            "--trace",
            "traces",
            "noop.rhai",
        ],
        &[],
    )
    .exits(2)
    .says("cannot write the trace `traces`")
    .says("it is a file, not a folder");
}

#[test]
fn a_browser_that_is_not_a_program_exits_3_naming_it() {
    let dir = folder();
    let anchors = anchors();
    waymark(
        dir.path(),
        [
            "--anchors",
            anchors.as_str(),
            "--browser",
            "/etc/passwd",
            "run",
            "noop.rhai",
        ],
        &[],
    )
    .exits(3)
    .says("could not start `/etc/passwd`");
}
