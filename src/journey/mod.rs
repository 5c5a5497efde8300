//! Journeys: Rhai scripts found under `journeys/`, compiled (with the marks their first
//! comment lines carry, see [`mark`]) before any browser starts, run one by one through the
//! [`crate::tools`] gateway.

mod calls;
mod deadline;
mod engine;
pub mod mark;
mod vars;
mod waits;

use std::path::{Path, PathBuf};

pub use crate::protocol::{ExpectedFailure, Failure, FailureCode, FailureKind, Outcome};
pub use engine::{JourneyEnv, Limits, run_journey};
pub use mark::ExpectFail;
pub use vars::{Vars, parse_var};

/// One journey file, compiled.
#[derive(Clone)]
pub struct Journey {
    /// Name shown in reports: the path under the journeys folder, without `.rhai`.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// The compiled script, or why it could not be compiled (a mark that does not parse
    /// included).
    pub compiled: Result<rhai::AST, Failure>,
    /// The layouts it is marked to fail on (`// waymark: expect-fail layout=…`).
    pub expect_fail: Vec<ExpectFail>,
}

/// Why journeys could not be found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoverError {
    /// A path given on the command line does not exist.
    #[error("journey path `{0}` does not exist")]
    Missing(PathBuf),
    /// A folder could not be walked.
    #[error("cannot read journeys under `{path}`: {source}")]
    Walk {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: walkdir::Error,
    },
    /// A journey file could not be read.
    #[error("cannot read journey `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The `.rhai` files under `paths` (files are taken as given, folders walked), sorted,
/// without duplicates.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<(String, PathBuf)>, DiscoverError> {
    let mut found = Vec::new();
    for root in paths {
        if root.is_file() {
            let name = root
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            found.push((name, root.clone()));
            continue;
        }
        if !root.is_dir() {
            return Err(DiscoverError::Missing(root.clone()));
        }
        let mut here = Vec::new();
        for entry in walkdir::WalkDir::new(root).follow_links(true) {
            let entry = entry.map_err(|source| DiscoverError::Walk {
                path: root.clone(),
                source,
            })?;
            let path = entry.path();
            if entry.file_type().is_file() && path.extension().is_some_and(|e| e == "rhai") {
                here.push((name_under(root, path), path.to_path_buf()));
            }
        }
        here.sort();
        found.extend(here);
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|(_, p)| seen.insert(p.clone()));
    Ok(found)
}

fn name_under(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path).with_extension("");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Reads and compiles every journey. A syntax error is kept on that journey (it fails,
/// the others still run); only an unreadable file is an error here.
pub fn compile_all(found: Vec<(String, PathBuf)>) -> Result<Vec<Journey>, DiscoverError> {
    let engine = engine::sandboxed_engine(&Limits::default());
    found
        .into_iter()
        .map(|(name, path)| {
            let source = std::fs::read_to_string(&path).map_err(|source| DiscoverError::Read {
                path: path.clone(),
                source,
            })?;
            let (compiled, expect_fail) = match mark::parse(&path, &source) {
                Ok(marks) => (
                    engine
                        .compile(&source)
                        .map_err(|e| crate::protocol::syntax_failure(&path, &source, &e)),
                    marks,
                ),
                Err(failure) => (Err(failure), Vec::new()),
            };
            Ok(Journey {
                name,
                path,
                compiled,
                expect_fail,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovers_rhai_files_sorted_with_names_under_the_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for f in ["b.rhai", "a.rhai", "sub/c.rhai", "notes.txt"] {
            std::fs::write(dir.path().join(f), "1").unwrap();
        }
        let found = discover(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "b", "sub/c"]);
    }

    #[test]
    fn a_missing_path_is_named() {
        let err = discover(&[PathBuf::from("/no/such/journeys")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "journey path `/no/such/journeys` does not exist"
        );
    }

    #[test]
    fn marks_are_read_at_discovery_and_one_that_does_not_parse_fails_the_journey() {
        let dir = tempfile::tempdir().unwrap();
        let marked = dir.path().join("marked.rhai");
        std::fs::write(
            &marked,
            "// waymark: expect-fail layout=redesign it presses a dropped control
let x = 1;
",
        )
        .unwrap();
        let typo = dir.path().join("typo.rhai");
        std::fs::write(
            &typo,
            "// waymark: expect-fail layout=redesgn why
let x = 1;
",
        )
        .unwrap();
        let journeys = compile_all(vec![("marked".into(), marked), ("typo".into(), typo)]).unwrap();
        assert!(journeys[0].compiled.is_ok());
        assert_eq!(journeys[0].expect_fail.len(), 1);
        assert_eq!(
            journeys[0].expect_fail[0].layout,
            crate::layout::Layout::Redesign
        );
        let failure = journeys[1].compiled.as_ref().unwrap_err();
        assert_eq!((failure.kind, failure.line), (FailureKind::Syntax, Some(1)));
        assert!(
            failure.to_string().contains("`redesgn` is not a layout"),
            "{failure}"
        );
    }

    #[test]
    fn a_syntax_error_names_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("broken.rhai");
        std::fs::write(&path, "let x = 1;\nlet y = ;\n").unwrap();
        let journeys = compile_all(vec![("broken".into(), path.clone())]).unwrap();
        let failure = journeys[0].compiled.as_ref().unwrap_err();
        assert_eq!(failure.kind, FailureKind::Syntax);
        assert_eq!(failure.line, Some(2));
        assert!(failure.column.is_some());
        assert!(failure.to_string().contains("broken.rhai:2:"), "{failure}");
    }
}
