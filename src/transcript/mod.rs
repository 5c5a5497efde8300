//! Transcripts: what an agent did over MCP, as JSON lines, so that CI can replay it.
//!
//! The first line is a [`TranscriptHeader`]; every other line is one [`Step`]: the tool, its
//! arguments (a secret field's text replaced by `[redacted]`), and the round-trip result
//! exactly as the agent received it — page text included, as evidence of what it saw.
//! `waymark run` treats `*.agent.jsonl` files as agent journeys (see [`crate::replay`]).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// The file name ending that marks an agent journey.
pub const SUFFIX: &str = ".agent.jsonl";

/// What the first line of a transcript says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptHeader {
    /// Always `waymark-agent-transcript`.
    pub transcript: String,
    /// The format's version (1).
    pub version: u32,
    /// The waymark that recorded it.
    pub waymark: String,
    /// The app it was recorded against (for the reader; replays use the run's target).
    pub base_url: String,
}

impl TranscriptHeader {
    /// The header of a transcript recorded now against `base_url`.
    pub fn new(base_url: &str) -> TranscriptHeader {
        TranscriptHeader {
            transcript: KIND.to_string(),
            version: 1,
            waymark: env!("CARGO_PKG_VERSION").to_string(),
            base_url: base_url.to_string(),
        }
    }
}

const KIND: &str = "waymark-agent-transcript";

/// One tool call and what it returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based, in call order.
    pub step: usize,
    /// The tool called.
    pub tool: String,
    /// Its arguments (secrets redacted).
    pub arguments: serde_json::Value,
    /// The result the agent received (the round trip; for `finish`, its summary).
    pub result: serde_json::Value,
}

/// Why a transcript could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    /// The file could not be created, written or read.
    #[error("cannot use transcript `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line is not what a transcript holds.
    #[error("`{path}` line {line} is not a transcript line: {why}")]
    Format {
        /// The file.
        path: PathBuf,
        /// 1-based.
        line: usize,
        /// Why.
        why: String,
    },
}

/// Writes a transcript as calls happen: one line each, flushed, so a server that is killed
/// still leaves every call it answered.
pub struct Recorder {
    path: PathBuf,
    file: Mutex<(File, usize)>,
}

impl Recorder {
    /// Creates (or truncates) `path` and writes the header.
    pub fn create(path: &Path, header: &TranscriptHeader) -> Result<Recorder, TranscriptError> {
        let io = |source| TranscriptError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = File::create(path).map_err(io)?;
        writeln!(file, "{}", json_line(header)).map_err(io)?;
        Ok(Recorder {
            path: path.to_path_buf(),
            file: Mutex::new((file, 0)),
        })
    }

    /// Appends one call. A write that fails is reported on stderr once per call; the
    /// agent's call itself is not failed for it.
    pub fn record(&self, tool: &str, arguments: serde_json::Value, result: serde_json::Value) {
        let Ok(mut guard) = self.file.lock() else {
            return;
        };
        let (file, count) = &mut *guard;
        *count += 1;
        let step = Step {
            step: *count,
            tool: tool.to_string(),
            arguments,
            result,
        };
        if let Err(e) = writeln!(file, "{}", json_line(&step)).and_then(|_| file.flush()) {
            eprintln!(
                "warning: cannot write transcript `{}`: {e}",
                self.path.display()
            );
        }
    }
}

fn json_line<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"unserializable\": \"{e}\"}}"))
}

/// A transcript read back: an agent journey.
#[derive(Debug, Clone)]
pub struct Transcript {
    /// Its name in reports: the path under the journeys folder, without `.jsonl`.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// The header.
    pub header: TranscriptHeader,
    /// The calls, in order.
    pub steps: Vec<Step>,
}

impl Transcript {
    /// Reads and checks `path`.
    pub fn load(name: &str, path: &Path) -> Result<Transcript, TranscriptError> {
        let io = |source| TranscriptError::Io {
            path: path.to_path_buf(),
            source,
        };
        let format = |line: usize, why: String| TranscriptError::Format {
            path: path.to_path_buf(),
            line,
            why,
        };
        let reader = BufReader::new(File::open(path).map_err(io)?);
        let mut header = None;
        let mut steps = Vec::new();
        for (i, line) in reader.lines().enumerate() {
            let line = line.map_err(io)?;
            if line.trim().is_empty() {
                continue;
            }
            if header.is_none() {
                let h: TranscriptHeader =
                    serde_json::from_str(&line).map_err(|e| format(i + 1, e.to_string()))?;
                if h.transcript != KIND || h.version != 1 {
                    return Err(format(
                        i + 1,
                        format!("expected a `{KIND}` header of version 1"),
                    ));
                }
                header = Some(h);
                continue;
            }
            let step: Step =
                serde_json::from_str(&line).map_err(|e| format(i + 1, e.to_string()))?;
            steps.push(step);
        }
        let header = header.ok_or_else(|| format(1, "the file is empty".to_string()))?;
        Ok(Transcript {
            name: name.to_string(),
            path: path.to_path_buf(),
            header,
            steps,
        })
    }
}

/// Whether `path` names an agent journey.
pub fn is_agent_journey(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(SUFFIX))
}

/// The agent journeys under `paths` (default `./journeys`): files given as such, folders
/// walked; sorted per folder, without duplicates. Missing paths are left to the script
/// discovery to report.
pub fn discover(paths: &[PathBuf]) -> Vec<(String, PathBuf)> {
    let default = [PathBuf::from("journeys")];
    let roots = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut found = Vec::new();
    for root in roots {
        if root.is_file() {
            if is_agent_journey(root) {
                found.push((name_of(root.file_name().map(Path::new), root), root.clone()));
            }
            continue;
        }
        let mut here: Vec<(String, PathBuf)> = walkdir::WalkDir::new(root)
            .follow_links(true)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file() && is_agent_journey(e.path()))
            .map(|e| {
                let rel = e.path().strip_prefix(root).ok();
                (name_of(rel, e.path()), e.path().to_path_buf())
            })
            .collect();
        here.sort();
        found.extend(here);
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|(_, p)| seen.insert(p.clone()));
    found
}

/// `checkout.agent` for `…/checkout.agent.jsonl`, with the folders under the root.
fn name_of(rel: Option<&Path>, path: &Path) -> String {
    let rel = rel.unwrap_or(path);
    let text = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    text.strip_suffix(".jsonl").unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_transcript_reads_back_step_by_step() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/first.agent.jsonl");
        let recorder =
            Recorder::create(&path, &TranscriptHeader::new("http://127.0.0.1:1/")).unwrap();
        recorder.record(
            "navigate",
            serde_json::json!({"route": "/claims"}),
            serde_json::json!({"ok": true}),
        );
        recorder.record("finish", serde_json::json!({}), serde_json::json!({}));
        let t = Transcript::load("first.agent", &path).unwrap();
        assert_eq!(t.header.version, 1);
        assert_eq!(t.steps.len(), 2);
        assert_eq!((t.steps[0].step, t.steps[0].tool.as_str()), (1, "navigate"));
        assert_eq!(t.steps[1].step, 2);
        let found = discover(&[dir.path().to_path_buf()]);
        assert_eq!(found, vec![("sub/first.agent".to_string(), path.clone())]);
        assert_eq!(discover(std::slice::from_ref(&path))[0].0, "first.agent");
    }

    #[test]
    fn a_file_that_is_not_a_transcript_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.agent.jsonl");
        std::fs::write(
            &path,
            "{\"transcript\": \"other\", \"version\": 1, \"waymark\": \"0\", \"base_url\": \"\"}\n",
        )
        .unwrap();
        let err = Transcript::load("x", &path).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        std::fs::write(
            &path,
            format!("{}\nnot json\n", json_line(&TranscriptHeader::new("u"))),
        )
        .unwrap();
        let err = Transcript::load("x", &path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
    }
}
