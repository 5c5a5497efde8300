//! Saved signed-in state, in Playwright's `storageState` format, so teams bring state from
//! existing suites and take ours to theirs: `{"cookies": [...], "origins": [{"origin",
//! "localStorage": [{"name", "value"}]}]}`, plus `sessionStorage` beside `localStorage`
//! (which Playwright leaves out and ignores when it reads).
//!
//! `waymark state save FILE` writes one after a sign-in; `--state FILE` starts each
//! journey's browser context with it. Like a profile's cookies, a value appears in no
//! message, error or `Debug` output: only in the file (0600), in the one CDP command that
//! sets the cookies, and in the script that puts the storage back in the page.

use std::fmt;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::export::parse;
use super::{Cookie, CookieError, SameSite};

/// One origin's storage.
#[derive(Clone, PartialEq, Default)]
pub struct OriginStorage {
    /// `scheme://host:port`.
    pub origin: String,
    /// `localStorage`, in order.
    pub local: Vec<(String, String)>,
    /// `sessionStorage`, in order.
    pub session: Vec<(String, String)>,
}

/// Cookies and per-origin storage: a signed-in session.
#[derive(Clone, PartialEq, Default)]
pub struct StorageState {
    /// Every cookie of the browser context.
    pub cookies: Vec<Cookie>,
    /// Each origin's storage.
    pub origins: Vec<OriginStorage>,
}

impl fmt::Debug for StorageState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StorageState")
            .field("cookies", &self.cookies)
            .field(
                "origins",
                &self
                    .origins
                    .iter()
                    .map(|o| (&o.origin, o.local.len(), o.session.len()))
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl StorageState {
    /// Reads `path`. An error names the file and the entry at fault, never a value.
    pub fn load(path: &Path) -> Result<StorageState, CookieError> {
        let text = std::fs::read_to_string(path).map_err(|source| CookieError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let file = path.display().to_string();
        let cookies = parse(&file, &text)?;
        // Parsed once more as a value (the cookies' parse checked the syntax, and says
        // where without quoting).
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let bad = |place: String, why: &str| CookieError::Format {
            file: file.clone(),
            place,
            why: why.to_string(),
        };
        let origins = match value.get("origins") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .enumerate()
                .map(|(i, o)| origin_storage(o).map_err(|why| bad(format!("origins[{i}]"), &why)))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(bad("origins".into(), "expected an array of origins")),
        };
        Ok(StorageState { cookies, origins })
    }

    /// Writes the state to `path` (0600, replaced atomically), in Playwright's format.
    pub fn save(&self, path: &Path) -> Result<(), CookieError> {
        let failed = |source| CookieError::Write {
            path: path.to_path_buf(),
            source,
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(failed)?;
        let cookies: Vec<Value> = self.cookies.iter().map(playwright_cookie).collect();
        let pairs = |items: &[(String, String)]| -> Vec<Value> {
            items
                .iter()
                .map(|(name, value)| json!({"name": name, "value": value}))
                .collect()
        };
        let origins: Vec<Value> = self
            .origins
            .iter()
            .map(|o| {
                json!({"origin": o.origin, "localStorage": pairs(&o.local),
                       "sessionStorage": pairs(&o.session)})
            })
            .collect();
        let text = serde_json::to_vec_pretty(&json!({"cookies": cookies, "origins": origins}))
            .map_err(|e| failed(std::io::Error::other(e.to_string())))?;
        // NamedTempFile is created 0600, beside the target so the rename is atomic.
        let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(failed)?;
        file.write_all(&text).map_err(failed)?;
        file.persist(path).map_err(|e| failed(e.error))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(failed)?;
        Ok(())
    }

    /// What was saved, in counts: for a person's terminal, never a value.
    pub fn summary(&self) -> String {
        let local: usize = self.origins.iter().map(|o| o.local.len()).sum();
        let session: usize = self.origins.iter().map(|o| o.session.len()).sum();
        let mut domains: Vec<&str> = self.cookies.iter().map(|c| c.domain.as_str()).collect();
        domains.sort_unstable();
        domains.dedup();
        format!(
            "{} cookies of {} domains ({}), {local} localStorage and {session} sessionStorage items of {} origins",
            self.cookies.len(),
            domains.len(),
            domains.join(", "),
            self.origins.len()
        )
    }

    /// The script each new document of a tab runs first (before the page's own) to put
    /// the storage of its origin back, once per tab: the first document of an origin
    /// finds it there; what the app changes later stands. `None` without storage.
    pub fn storage_script(&self) -> Option<String> {
        let by_origin: serde_json::Map<String, Value> = self
            .origins
            .iter()
            .filter(|o| !o.local.is_empty() || !o.session.is_empty())
            .map(|o| {
                (
                    o.origin.clone(),
                    json!({"local": o.local, "session": o.session}),
                )
            })
            .collect();
        if by_origin.is_empty() {
            return None;
        }
        // The mark of a tab that had its state: kept in the tab's own sessionStorage, which
        // lives as long as the tab and is the origin's alone.
        Some(format!(
            "(function () {{ try {{ var s = {}[location.origin]; \
               if (!s || sessionStorage.getItem('waymark:state')) return; \
               s.local.forEach(function (p) {{ localStorage.setItem(p[0], p[1]); }}); \
               s.session.forEach(function (p) {{ sessionStorage.setItem(p[0], p[1]); }}); \
               sessionStorage.setItem('waymark:state', '1'); }} catch (e) {{}} }})();",
            Value::Object(by_origin)
        ))
    }
}

/// A cookie as Playwright writes it.
fn playwright_cookie(c: &Cookie) -> Value {
    json!({
        "name": c.name,
        "value": c.value,
        "domain": if c.host_only { c.domain.clone() } else { format!(".{}", c.domain) },
        "path": c.path,
        "expires": c.expires.unwrap_or(-1.0),
        "httpOnly": c.http_only,
        "secure": c.secure,
        "sameSite": match c.same_site {
            Some(SameSite::Strict) => "Strict",
            Some(SameSite::None) => "None",
            Some(SameSite::Lax) | None => "Lax",
        },
    })
}

/// One `origins` entry; why it is not one, in words without values.
fn origin_storage(entry: &Value) -> Result<OriginStorage, String> {
    let origin = entry["origin"]
        .as_str()
        .ok_or("`origin` must be a string like `https://app.example.com`")?;
    let parsed = url::Url::parse(origin).map_err(|_| "`origin` is not a URL".to_string())?;
    let items = |key: &str| -> Result<Vec<(String, String)>, String> {
        match &entry[key] {
            Value::Null => Ok(Vec::new()),
            Value::Array(list) => list
                .iter()
                .enumerate()
                .map(|(i, p)| match (p["name"].as_str(), p["value"].as_str()) {
                    (Some(n), Some(v)) => Ok((n.to_string(), v.to_string())),
                    _ => Err(format!("`{key}[{i}]` needs a string `name` and `value`")),
                })
                .collect(),
            _ => Err(format!("`{key}` must be an array")),
        }
    };
    Ok(OriginStorage {
        origin: parsed.origin().ascii_serialization(),
        local: items("localStorage")?,
        session: items("sessionStorage")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "PLANTED-state-3c9d";

    #[test]
    fn a_saved_state_reads_back_as_it_was_and_its_errors_quote_no_value() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let state = StorageState {
            cookies: vec![Cookie {
                name: "sid".into(),
                value: SECRET.into(),
                domain: "127.0.0.1".into(),
                host_only: true,
                path: "/".into(),
                secure: false,
                http_only: true,
                expires: None,
                same_site: Some(SameSite::Lax),
            }],
            origins: vec![OriginStorage {
                origin: "http://127.0.0.1:8080".into(),
                local: vec![("token".into(), SECRET.into())],
                session: vec![("tab".into(), "1".into())],
            }],
        };
        state.save(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(StorageState::load(&path).unwrap(), state);
        assert!(!format!("{state:?} {}", state.summary()).contains(SECRET));
        let script = state.storage_script().unwrap();
        assert!(script.contains("\"http://127.0.0.1:8080\""));

        // Playwright's own shape (no sessionStorage, expires -1) reads.
        let theirs = format!(
            r#"{{"cookies":[{{"name":"a","value":"{SECRET}","domain":"x.org","path":"/","expires":-1,"httpOnly":false,"secure":false,"sameSite":"Lax"}}],
                "origins":[{{"origin":"https://x.org","localStorage":[{{"name":"k","value":"{SECRET}"}}]}}]}}"#
        );
        std::fs::write(&path, theirs).unwrap();
        let read = StorageState::load(&path).unwrap();
        assert_eq!(read.cookies[0].expires, None);
        assert_eq!(read.origins[0].local.len(), 1);

        let wrong = format!(
            r#"{{"cookies":[],"origins":[{{"origin":"https://x.org","localStorage":[{{"name":"k","value":7}}],"x":"{SECRET}"}}]}}"#
        );
        std::fs::write(&path, wrong).unwrap();
        let e = StorageState::load(&path).unwrap_err().to_string();
        assert!(
            e.ends_with("origins[0]: `localStorage[0]` needs a string `name` and `value`"),
            "{e}"
        );
        assert!(!e.contains(SECRET));
    }
}
