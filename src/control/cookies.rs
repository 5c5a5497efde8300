//! Profiles and cookie import: a person copies the session of a site they are signed in to
//! — from their own browser's export — into a waymark profile, for one domain.
//!
//! Human-only by construction: [`Profile::import_cookies`] is reached from the command line
//! (`waymark profile import-cookies`) and from nothing an agent or a script can call. What it
//! reports is source names and per-domain counts; a cookie's value appears in no message,
//! error, `Debug` output or trace — only in the profile file (mode 0600) and in the one CDP
//! command that hands a profile's cookies to a fresh browser context.

mod export;
pub mod state;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Deserialize;

pub use crate::protocol::{Cookie, SameSite};
use export::parse;

/// Why a profile or an import failed. No variant carries a cookie's value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CookieError {
    /// The source file cannot be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The source file is not a cookie export waymark reads.
    #[error("{file}:{place}: {why}")]
    Format {
        /// The file's name.
        file: String,
        /// Where: a line (`7`), a line and column (`3:14`) or a JSON entry (`entry 4`).
        place: String,
        /// What is wrong.
        why: String,
    },
    /// `--domain` is not a host name.
    #[error(
        "`--domain {0}` is not a host name: give one like `example.com` (no scheme, port or path)"
    )]
    Domain(String),
    /// The profile name cannot name a directory safely.
    #[error(
        "`{0}` is not a profile name: use letters, digits, `.`, `_` and `-` (at most 64, not starting with `.`)"
    )]
    ProfileName(String),
    /// Nowhere to keep profiles.
    #[error("cannot find where profiles live: set `WAYMARK_HOME`, `XDG_DATA_HOME` or `HOME`")]
    NoHome,
    /// The profile was never created.
    #[error(
        "no profile `{name}` (looked in `{}`); create it with `waymark profile import-cookies --profile {name} --domain D --from FILE`",
        dir.display()
    )]
    NoProfile {
        /// The profile.
        name: String,
        /// Where it was looked for.
        dir: PathBuf,
    },
    /// The profile's cookie file is damaged.
    #[error("the profile file `{}` is not valid at {place}; import the cookies again", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Where (line and column), never the content.
        place: String,
    },
    /// The source holds no cookie to import for the domain.
    #[error(
        "`{file}` holds no live cookie for `{domain}` or its subdomains ({found} cookies of {domains} other domains, {expired} expired); the profile is unchanged"
    )]
    NothingToImport {
        /// The file's name.
        file: String,
        /// The domain asked for.
        domain: String,
        /// Cookies of other domains.
        found: usize,
        /// How many other domains.
        domains: usize,
        /// Cookies of the domain that had expired.
        expired: usize,
    },
    /// The profile cannot be written.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

impl CookieError {
    /// The documented exit code: 3 when the profile cannot be written, else 2 (bad input).
    pub fn exit(&self) -> crate::exit::Exit {
        match self {
            CookieError::Write { .. } => crate::exit::Exit::Environment,
            _ => crate::exit::Exit::BadInput,
        }
    }
}

/// A named browser profile: the cookies each journey's fresh browser context starts with.
#[derive(Debug, Clone)]
pub struct Profile {
    name: String,
    dir: PathBuf,
}

/// What an import found and kept: names and counts only.
#[derive(Debug, Clone)]
pub struct Import {
    /// The source file's name.
    pub source: String,
    /// The profile written.
    pub profile: String,
    /// The domain asked for.
    pub domain: String,
    /// Per domain of the cookies kept: (found, imported) — found minus the expired.
    pub by_domain: BTreeMap<String, (usize, usize)>,
    /// Cookies of other domains, skipped.
    pub skipped: usize,
    /// How many other domains they belong to.
    pub skipped_domains: usize,
    /// Cookies in the profile now, of every domain.
    pub stored: usize,
    /// The profile's cookie file.
    pub path: PathBuf,
}

impl fmt::Display for Import {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let found: usize = self.by_domain.values().map(|(f, _)| f).sum();
        writeln!(
            f,
            "read `{}`: {} cookies",
            self.source,
            found + self.skipped
        )?;
        for (domain, (found, imported)) in &self.by_domain {
            write!(f, "  {domain}: {found} found, {imported} imported")?;
            match found - imported {
                0 => writeln!(f)?,
                n => writeln!(f, " ({n} expired)")?,
            }
        }
        if self.skipped > 0 {
            writeln!(
                f,
                "  {} cookies of {} other domains skipped (not `{}` or its subdomains)",
                self.skipped, self.skipped_domains, self.domain
            )?;
        }
        write!(
            f,
            "profile `{}` holds {} cookies ({})",
            self.profile,
            self.stored,
            self.path.display()
        )
    }
}

impl Profile {
    /// The profile `name` under `home`, where profiles live (`Settings::home`; `None`:
    /// nowhere, and so an error naming what to set).
    pub fn named(home: Option<&Path>, name: &str) -> Result<Profile, CookieError> {
        Profile::in_home(home.ok_or(CookieError::NoHome)?, name)
    }

    /// The profile `name` under `home` (`home/profiles/name`).
    pub fn in_home(home: &Path, name: &str) -> Result<Profile, CookieError> {
        let valid = !name.is_empty()
            && name.len() <= 64
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !valid {
            return Err(CookieError::ProfileName(name.to_string()));
        }
        Ok(Profile {
            name: name.to_string(),
            dir: home.join("profiles").join(name),
        })
    }

    /// The profile's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its cookie file.
    pub fn cookies_path(&self) -> PathBuf {
        self.dir.join("cookies.json")
    }

    /// The profile's cookies that have not expired, to load into a fresh browser context.
    pub fn cookies(&self) -> Result<Vec<Cookie>, CookieError> {
        if !self.cookies_path().is_file() {
            return Err(CookieError::NoProfile {
                name: self.name.clone(),
                dir: self.dir.clone(),
            });
        }
        let now = now();
        let mut cookies = self.stored()?;
        cookies.retain(|c| !c.expired(now));
        Ok(cookies)
    }

    fn stored(&self) -> Result<Vec<Cookie>, CookieError> {
        let path = self.cookies_path();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(CookieError::Read { path, source }),
        };
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            cookies: Vec<Cookie>,
        }
        // A data error's message may quote the file's content: only its place is told.
        serde_json::from_str::<File>(&text)
            .map(|f| f.cookies)
            .map_err(|e| CookieError::Damaged {
                path: path.clone(),
                place: format!("line {}, column {}", e.line(), e.column()),
            })
    }

    /// Imports the cookies of `domain` and its subdomains from the export `from` (a
    /// Netscape `cookies.txt` or a JSON array), replacing the profile's cookies of that
    /// domain and keeping those of every other.
    pub fn import_cookies(&self, domain: &str, from: &Path) -> Result<Import, CookieError> {
        let domain = host_name(domain)?;
        let source = from
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| from.display().to_string());
        let bytes = std::fs::read(from).map_err(|source| CookieError::Read {
            path: from.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| CookieError::Format {
            file: source.clone(),
            place: "1".into(),
            why: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        })?;
        let parsed = parse(&source, &text)?;
        let now = now();
        let mut by_domain = BTreeMap::new();
        let mut skipped_domains = BTreeSet::new();
        let mut skipped = 0;
        let mut kept = BTreeMap::new();
        for cookie in parsed {
            if !within(&cookie.domain, &domain) {
                skipped += 1;
                skipped_domains.insert(cookie.domain.clone());
                continue;
            }
            let count = by_domain.entry(cookie.domain.clone()).or_insert((0, 0));
            count.0 += 1;
            if !cookie.expired(now) {
                count.1 += 1;
                // The same cookie twice: the later line wins, as in a browser.
                kept.insert(cookie.key(), cookie);
            }
        }
        if kept.is_empty() {
            return Err(CookieError::NothingToImport {
                file: source,
                domain,
                found: skipped,
                domains: skipped_domains.len(),
                expired: by_domain.values().map(|(f, i)| f - i).sum(),
            });
        }
        let mut stored = self.stored()?;
        stored.retain(|c| !within(&c.domain, &domain));
        stored.extend(kept.into_values());
        self.write(&stored)?;
        Ok(Import {
            source,
            profile: self.name.clone(),
            domain,
            by_domain,
            skipped,
            skipped_domains: skipped_domains.len(),
            stored: stored.len(),
            path: self.cookies_path(),
        })
    }

    /// Writes the cookie file: directory 0700, file 0600, replaced atomically.
    fn write(&self, cookies: &[Cookie]) -> Result<(), CookieError> {
        let failed = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CookieError::Write { path, source }
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(failed(&self.dir))?;
        std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
            .map_err(failed(&self.dir))?;
        let path = self.cookies_path();
        // NamedTempFile is created 0600, in the same directory so the rename is atomic.
        let mut file = tempfile::NamedTempFile::new_in(&self.dir).map_err(failed(&self.dir))?;
        let json = serde_json::to_vec_pretty(&serde_json::json!({ "cookies": cookies }))
            .map_err(|e| failed(&path)(io::Error::other(e.to_string())))?;
        file.write_all(&json).map_err(failed(&path))?;
        file.persist(&path).map_err(|e| failed(&path)(e.error))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .map_err(failed(&path))?;
        Ok(())
    }
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// `domain` as a bare lowercase host name, or why not.
fn host_name(domain: &str) -> Result<String, CookieError> {
    let host = domain.trim().trim_start_matches('.').to_ascii_lowercase();
    let valid = !host.is_empty()
        && host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        && !host.split('.').any(str::is_empty);
    if valid {
        Ok(host)
    } else {
        Err(CookieError::Domain(domain.to_string()))
    }
}

/// `cookie_domain` is `domain` or one of its subdomains.
fn within(cookie_domain: &str, domain: &str) -> bool {
    cookie_domain == domain
        || cookie_domain
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_domain_covers_itself_and_its_subdomains_only() {
        assert!(within("example.com", "example.com"));
        assert!(within("a.b.example.com", "example.com"));
        assert!(!within("badexample.com", "example.com"));
        assert!(!within("example.com", "app.example.com"));
        assert_eq!(host_name(".Example.COM").unwrap(), "example.com");
        assert!(host_name("https://example.com/").is_err());
        assert!(Profile::in_home(Path::new("/h"), "../x").is_err());
    }
}
