//! `waymark show`: the trace viewer. A journey's trace (or a folder of them: a run's
//! `target/waymark/traces/`, or the same downloaded from CI) served on 127.0.0.1, to step
//! through as Playwright's trace viewer allows: a step list with timing bars and, for the
//! step chosen, its action, target, gates, result, the screen read as a table by region,
//! what changed, the screenshot when one was kept (`page.rs`).
//!
//! A server, not a page beside the report: a page opened from `file://` may not read the
//! trace files beside it (Chromium refuses `fetch` of `file://`), and a viewer embedded in
//! the report would carry every step's screen of every journey, ten times its size. The
//! report prints the command for each journey (`waymark show PATH`) instead.
//!
//! Only the folder given is served, and in it only the traces found and the files beside
//! them (screenshots, large raw layers): nothing outside it, whatever the path asked.

mod page;
mod timing;

pub use timing::Breakdown;

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// Why the viewer cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShowError {
    /// The path given is not there.
    #[error("cannot read `{path}`: {source}")]
    Missing {
        /// The path given.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A folder without any trace in it (or a file that is not one).
    #[error("no trace in `{0}` (a trace is a `*.jsonl` file `waymark run` writes)")]
    NoTrace(PathBuf),
    /// The port could not be bound.
    #[error("cannot serve the trace viewer on 127.0.0.1: {0}")]
    Bind(#[source] std::io::Error),
}

/// The traces a viewer serves: the folder, and each trace's path in it (`/`-separated).
#[derive(Debug, Clone)]
pub struct Traces {
    root: PathBuf,
    files: Vec<String>,
}

impl Traces {
    /// The trace at `path`, or every trace under the folder `path`.
    pub fn find(path: &Path) -> Result<Traces, ShowError> {
        let meta = std::fs::metadata(path).map_err(|source| ShowError::Missing {
            path: path.to_path_buf(),
            source,
        })?;
        let (root, files) = if meta.is_dir() {
            let mut files: Vec<String> = walkdir::WalkDir::new(path)
                .follow_links(false)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
                .filter_map(|e| {
                    let rel = e.path().strip_prefix(path).ok()?;
                    Some(rel.to_string_lossy().replace('\\', "/"))
                })
                .collect();
            files.sort();
            (path.to_path_buf(), files)
        } else {
            let root = path.parent().unwrap_or(Path::new("")).to_path_buf();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (root, vec![name])
        };
        if files.is_empty() || !meta.is_dir() && !page::is_trace(path) {
            return Err(ShowError::NoTrace(path.to_path_buf()));
        }
        Ok(Traces { root, files })
    }

    /// The traces, each as its path in the folder.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// The file `rel` in the folder, when it is one the viewer may serve: a trace found,
    /// or a file in a trace's side folder (`NAME.raw/…`), never a way out of the folder.
    fn file(&self, rel: &str) -> Option<PathBuf> {
        let rel_path = Path::new(rel);
        if !rel_path
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            return None;
        }
        let listed = self.files.iter().any(|f| f == rel);
        let beside = self.files.iter().any(|f| {
            let side = format!("{}.raw/", f.strip_suffix(".jsonl").unwrap_or(f));
            rel.starts_with(&side)
        });
        (listed || beside).then(|| self.root.join(rel_path))
    }
}

/// The viewer, served until dropped.
#[derive(Debug)]
pub struct Viewer {
    url: String,
    _shutdown: oneshot::Sender<()>,
}

impl Viewer {
    /// Serves `traces` on 127.0.0.1 (`port`, or a free one when 0).
    pub async fn start(traces: Traces, port: u16) -> Result<Viewer, ShowError> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(ShowError::Bind)?;
        let addr = listener.local_addr().map_err(ShowError::Bind)?;
        let app = Router::new()
            .route("/", get(index))
            .route("/trace/{*rel}", get(trace))
            .route("/file/{*rel}", get(file))
            .with_state(Arc::new(traces));
        let shutdown = crate::serve::serve_until_dropped(listener, app, "trace viewer");
        Ok(Viewer {
            url: format!("http://{addr}/"),
            _shutdown: shutdown,
        })
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

async fn index(State(traces): State<Arc<Traces>>) -> Response {
    match traces.files() {
        [one] => Redirect::to(&format!("/trace/{}", page::url_path(one))).into_response(),
        _ => Html(page::index(&traces)).into_response(),
    }
}

async fn trace(State(traces): State<Arc<Traces>>, UrlPath(rel): UrlPath<String>) -> Response {
    let Some(path) = traces.file(&rel).filter(|_| rel.ends_with(".jsonl")) else {
        return (StatusCode::NOT_FOUND, "no such trace").into_response();
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Html(page::viewer(&rel, &text, traces.files().len() > 1)).into_response(),
        Err(e) => (
            StatusCode::NOT_FOUND,
            format!("cannot read `{}`: {e}", path.display()),
        )
            .into_response(),
    }
}

async fn file(State(traces): State<Arc<Traces>>, UrlPath(rel): UrlPath<String>) -> Response {
    let Some(path) = traces.file(&rel) else {
        return (StatusCode::NOT_FOUND, "no such file").into_response();
    };
    let kind = match path.extension().and_then(|x| x.to_str()) {
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "text/plain; charset=utf-8",
    };
    match std::fs::read(&path) {
        Ok(bytes) => ([(header::CONTENT_TYPE, kind)], bytes).into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

/// Opens `url` in the system's browser (`xdg-open`, `open`), when there is one; says why
/// not otherwise. Never waits for the browser.
pub fn open_in_browser(url: &str) -> Result<(), String> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let mut child = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run `{opener}`: {e}"))?;
    // Reaped when it ends, so no zombie is left while the viewer serves.
    std::thread::spawn(move || child.wait());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_traces_and_their_side_files_are_served() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub/a.raw")).unwrap();
        std::fs::write(dir.path().join("sub/a.jsonl"), "{\"kind\":\"header\"}\n").unwrap();
        std::fs::write(dir.path().join("sub/a.raw/1.png"), "png").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
        let traces = Traces::find(dir.path()).unwrap();
        assert_eq!(traces.files(), ["sub/a.jsonl"]);
        assert!(traces.file("sub/a.jsonl").is_some());
        assert!(traces.file("sub/a.raw/1.png").is_some());
        assert!(traces.file("secret.txt").is_none());
        assert!(traces.file("sub/a.raw/../../secret.txt").is_none());
        assert!(traces.file("/etc/passwd").is_none());
        let one = Traces::find(&dir.path().join("sub/a.jsonl")).unwrap();
        assert_eq!(one.files(), ["a.jsonl"]);
        assert!(matches!(
            Traces::find(&dir.path().join("secret.txt")),
            Err(ShowError::NoTrace(_))
        ));
        let empty = tempfile::tempdir().unwrap();
        assert!(matches!(
            Traces::find(empty.path()),
            Err(ShowError::NoTrace(_))
        ));
        assert!(matches!(
            Traces::find(&dir.path().join("gone")),
            Err(ShowError::Missing { .. })
        ));
    }
}
