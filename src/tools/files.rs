//! Files in and out of a journey: what `upload` may send (a file inside the journey's
//! `fixtures/` folder, and nothing else — scripts still cannot read files), and where a
//! download an action started is kept (`target/waymark/downloads/<journey>/`), with what the
//! round trip tells of it.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{ErrorCode, ToolError, Tools};
use crate::browser::{Download, Tab};
use crate::protocol::quoted;

/// Where downloads are kept, one folder per journey.
pub const DOWNLOAD_DIR: &str = "target/waymark/downloads";

/// The folders a journey's files come from and go to.
#[derive(Debug, Clone, PartialEq)]
pub struct FileScope {
    /// The only folder `upload` takes files from (the `fixtures/` beside the journey).
    pub fixtures: PathBuf,
    /// Where downloads are saved.
    pub downloads: PathBuf,
}

impl FileScope {
    /// The scope of the journey `name` whose script is `script`.
    pub fn for_journey(script: &Path, name: &str) -> FileScope {
        let folder = script.parent().unwrap_or(Path::new("."));
        FileScope {
            fixtures: folder.join("fixtures"),
            downloads: Path::new(DOWNLOAD_DIR).join(safe_name(name)),
        }
    }
}

impl Default for FileScope {
    /// An agent's: `./fixtures`, downloads under `agent`.
    fn default() -> Self {
        FileScope {
            fixtures: PathBuf::from("fixtures"),
            downloads: Path::new(DOWNLOAD_DIR).join("agent"),
        }
    }
}

/// A download as the round trip reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DownloadReport {
    /// The file's name (as the page named it).
    pub file: String,
    /// Its size.
    pub bytes: u64,
    /// Its SHA-256, in hex.
    pub sha256: String,
    /// Its media type, from its name's extension.
    pub mime: String,
    /// Where it was saved.
    pub path: String,
}

/// A name that stays one path component (a journey's or a page's file name).
fn safe_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    match cleaned.trim_matches('.') {
        "" => "download".to_string(),
        _ => cleaned,
    }
}

/// The fixture `wanted` names: a file inside `fixtures` once every link is followed;
/// anything else is `invalid_argument`.
pub(super) fn fixture(fixtures: &Path, wanted: &str) -> Result<PathBuf, ToolError> {
    let invalid = |why: String| ToolError::new(ErrorCode::InvalidArgument, why);
    let root = fixtures.canonicalize().map_err(|_| {
        invalid(format!(
            "there is no fixtures folder `{}`: upload sends only files inside the journey's `fixtures/` folder",
            fixtures.display()
        ))
    })?;
    let named = Path::new(wanted);
    if wanted.is_empty() || named.components().any(|c| c == Component::ParentDir) {
        return Err(invalid(format!(
            "`{}` is not a file inside `fixtures/`: upload sends only the journey's fixtures",
            quoted(wanted)
        )));
    }
    let path = if named.is_absolute() {
        named.to_path_buf()
    } else {
        root.join(named)
    };
    let real = path.canonicalize().map_err(|_| {
        invalid(format!(
            "there is no file `{}` in `{}`",
            quoted(wanted),
            fixtures.display()
        ))
    })?;
    if !real.starts_with(&root) {
        return Err(invalid(format!(
            "`{}` leads outside `fixtures/`: upload sends only the journey's fixtures",
            quoted(wanted)
        )));
    }
    if !real.is_file() {
        return Err(invalid(format!("`{}` is not a file", quoted(wanted))));
    }
    Ok(real)
}

/// A media type for `file`, from its extension (when the server sent none).
fn mime_of(file: &str) -> &'static str {
    let ext = Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("csv") => "text/csv",
        Some("txt" | "log") => "text/plain",
        Some("json") => "application/json",
        Some("pdf") => "application/pdf",
        Some("html" | "htm") => "text/html",
        Some("xml") => "application/xml",
        Some("zip") => "application/zip",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("xlsx") => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        _ => "application/octet-stream",
    }
}

/// Moves a complete download into `dir` under the page's name for it, and reports it.
fn keep(download: &Download, dir: &Path) -> std::io::Result<DownloadReport> {
    std::fs::create_dir_all(dir)?;
    let file = safe_name(&download.file);
    let target = dir.join(&file);
    if std::fs::rename(&download.path, &target).is_err() {
        // Another file system: copied, then removed.
        std::fs::copy(&download.path, &target)?;
        let _ = std::fs::remove_file(&download.path);
    }
    let mut hasher = Sha256::new();
    let mut bytes = 0u64;
    let mut reader = std::fs::File::open(&target)?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(&buf[..n]);
    }
    let sha256 = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(DownloadReport {
        mime: download
            .mime
            .clone()
            .unwrap_or_else(|| mime_of(&file).to_string()),
        file,
        bytes,
        sha256,
        path: target.display().to_string(),
    })
}

impl<T: Tab> Tools<T> {
    /// Limits `upload` to `scope`'s fixtures and saves downloads in its folder.
    pub fn set_file_scope(&self, scope: FileScope) {
        if let Ok(mut s) = self.shared.files.lock() {
            *s = Some(scope);
        }
    }

    /// The folders in force.
    pub(super) fn file_scope(&self) -> FileScope {
        self.shared
            .files
            .lock()
            .ok()
            .and_then(|s| s.clone())
            .unwrap_or_default()
    }

    /// Keeps the downloads the last action started (waiting for those under way, and with
    /// `asked`, the page's word that it asked for one, for one to come), the last of them
    /// for the round trip.
    pub(super) async fn keep_downloads(&self, asked: bool) {
        let done = self
            .here()
            .tab
            .downloads(self.options.load_timeout, asked)
            .await;
        if done.is_empty() {
            return;
        }
        let dir = self.file_scope().downloads;
        let mut last = None;
        for download in &done {
            match keep(download, &dir) {
                Ok(report) => last = Some(report),
                Err(e) => tracing::warn!("could not keep the download `{}`: {e}", download.file),
            }
        }
        if let Ok(mut d) = self.shared.download.lock() {
            *d = last;
        }
    }

    /// The download of the call just made, once.
    pub(super) fn take_download(&self) -> Option<DownloadReport> {
        self.shared.download.lock().ok().and_then(|mut d| d.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_inside_fixtures_are_uploaded() {
        let dir = tempfile::tempdir().unwrap();
        let fixtures = dir.path().join("fixtures");
        std::fs::create_dir_all(fixtures.join("sub")).unwrap();
        std::fs::write(fixtures.join("a.txt"), "a").unwrap();
        std::fs::write(fixtures.join("sub/b.txt"), "b").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        assert!(fixture(&fixtures, "a.txt").is_ok());
        assert!(fixture(&fixtures, "sub/b.txt").is_ok());
        let abs = fixtures.join("a.txt");
        assert!(fixture(&fixtures, abs.to_str().unwrap()).is_ok());
        for bad in [
            "../secret.txt",
            "sub/../../secret.txt",
            "/etc/passwd",
            "",
            "sub",
            "nope.txt",
        ] {
            let e = fixture(&fixtures, bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.txt"), fixtures.join("link.txt"))
                .unwrap();
            let e = fixture(&fixtures, "link.txt").unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument);
        }
    }

    #[test]
    fn names_stay_one_component_and_types_come_from_extensions() {
        assert_eq!(safe_name("../../etc/passwd"), ".._.._etc_passwd");
        assert_eq!(safe_name(".."), "download");
        assert_eq!(mime_of("report.CSV"), "text/csv");
        assert_eq!(mime_of("blob"), "application/octet-stream");
    }
}
