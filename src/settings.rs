//! What a command knows before it starts anything: the flags, `WAYMARK_*` environment and
//! compiled-in defaults (in that order of precedence, resolved by `cli`), as one value every
//! [`Session`](crate::session::Session) is built from.
//!
//! Resolved once, typed: the app's URL parsed and checked, the snapshot mode picked from
//! `--update-snapshots`, `INSTA_UPDATE` and `CI`, the jobs counted, the description budget
//! chosen for the command, where profiles live. The environment beside clap's `WAYMARK_*`
//! fallbacks is read in one place ([`Environment::read`]); nothing after this step reads
//! the environment or changes the settings.

use std::path::{Path, PathBuf};
use std::time::Duration;

use url::Url;

use crate::browser::LaunchOptions;
use crate::control::ConsentPolicy;
use crate::journey::{Limits, Vars};
use crate::layout::Layout;
use crate::snapshot::{Unreferenced, UpdateMode};
use crate::suite::SuiteOptions;
use crate::tools::ToolOptions;

/// Where snapshots live: `snapshots/` in the current directory.
pub const SNAPSHOT_DIR: &str = "snapshots";

/// Where `run` writes traces unless told otherwise, relative to the current directory.
pub const TRACE_DIR: &str = "target/waymark/traces";

/// Everything a run or a read needs to know, from flags, environment and defaults.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The app (`--base-url`, checked by [`app_url`]); `None` serves the embedded demo app.
    pub base_url: Option<Url>,
    /// `check --against`: a second build of the app to compare with (checked by
    /// [`app_url`]).
    pub against: Option<Url>,
    /// The layout of the app under test: the one the embedded demo app serves, or the one
    /// the app at `base_url` is known to serve. Journey marks (`expect-fail layout=…`) and
    /// the snapshot folder follow it.
    pub layout: Layout,
    /// The registry; `None` uses `./anchors.yaml` when it exists.
    pub anchors: Option<PathBuf>,
    /// How to start the browser.
    pub launch: LaunchOptions,
    /// Tool bounds and caps.
    pub tools: ToolOptions,
    /// Journey limits.
    pub limits: Limits,
    /// When snapshots are written: `--update-snapshots`, else `INSTA_UPDATE`, else `CI`
    /// ([`UpdateMode::resolve`]).
    pub snapshots: UpdateMode,
    /// What to do with snapshot files no journey referenced in a full, passing run.
    pub unreferenced: Unreferenced,
    /// Where each journey's trace is written; `None` writes none.
    pub trace: Option<PathBuf>,
    /// The consent policy; `None`: the journey kind's default (`allow` for scripts).
    pub consent: Option<ConsentPolicy>,
    /// How long a consent question waits for its answer.
    pub consent_timeout: Duration,
    /// The guardrail file, a second gate beside consent.
    pub guardrail: Option<PathBuf>,
    /// Serve the control page (the person's side of every gate) and print its URL.
    pub control_page: bool,
    /// The profile whose cookies each journey's browser context starts with.
    pub profile: Option<String>,
    /// Where profiles live ([`Environment::profiles_home`]); `None`: nowhere (a profile
    /// then fails to load, saying which variables to set).
    pub home: Option<PathBuf>,
    /// A saved signed-in state each tab starts with (`--state FILE`).
    pub state: Option<PathBuf>,
    /// `run`'s handling of the journeys as a whole: retries, shard, `--last-failed`,
    /// reports.
    pub suite: SuiteOptions,
    /// The journeys' variables (`--var`, `WAYMARK_VAR_*`, `--secret-var`).
    pub vars: Vars,
    /// `--har`: each journey's traffic recorded, or a HAR answering its requests.
    pub har: Option<HarMode>,
}

/// What `--har` asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HarMode {
    /// `record=FILE`: each journey's traffic written as HAR 1.2 to FILE (one journey), or
    /// beside it, named by the journey (several: see [`har_file`]).
    Record(PathBuf),
    /// `replay=FILE`: the requests of every journey answered from FILE; those it has no
    /// entry for failed or let through, as `--har-missing` says.
    Replay(PathBuf, crate::browser::har::HarMissing),
}

/// Where `--har record=FILE` writes the HAR of the journey `name`: FILE itself when the
/// run has one journey, else beside it its stem, the journey's name and its extension
/// (`traffic.har`, journey `checkout` → `traffic.checkout.har`).
pub fn har_file(file: &Path, name: &str, several: bool) -> PathBuf {
    if !several {
        return file.to_path_buf();
    }
    let stem = file
        .file_stem()
        .map_or_else(|| "traffic".into(), |s| s.to_string_lossy().into_owned());
    let safe: String = name
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                true => c,
                false => '_',
            },
        )
        .collect();
    let ext = file
        .extension()
        .map_or_else(|| "har".into(), |e| e.to_string_lossy().into_owned());
    file.with_file_name(format!("{stem}.{safe}.{ext}"))
}

impl Default for Settings {
    /// The command line's defaults: the demo app, `./anchors.yaml`, a headless Chromium
    /// from `PATH`, no trace, consent by journey kind.
    fn default() -> Self {
        Settings {
            base_url: None,
            against: None,
            layout: Layout::Classic,
            anchors: None,
            launch: LaunchOptions::default(),
            tools: ToolOptions::default(),
            limits: Limits::default(),
            snapshots: UpdateMode::New,
            unreferenced: Unreferenced::Ignore,
            trace: None,
            consent: None,
            consent_timeout: Duration::from_secs(300),
            guardrail: None,
            control_page: false,
            profile: None,
            home: None,
            state: None,
            suite: SuiteOptions::default(),
            vars: Vars::default(),
            har: None,
        }
    }
}

impl Settings {
    /// Where snapshots live for the layout under test: `snapshots/` for the classic one,
    /// `snapshots/<layout>/` for another, so each layout's screens are reviewed on their own
    /// and neither counts the other's files as unreferenced.
    pub fn snapshot_dir(&self) -> PathBuf {
        match self.layout {
            Layout::Classic => PathBuf::from(SNAPSHOT_DIR),
            other => Path::new(SNAPSHOT_DIR).join(other.as_str()),
        }
    }
}

/// `given` as the URL of an app to drive (`--base-url`, `check --against`), or why not: an
/// `http` or `https` URL with a host and a port (given or the scheme's own). Whether it
/// answers is the session's to find out.
pub fn app_url(given: &str) -> Result<Url, String> {
    let url = Url::parse(given).map_err(|e| e.to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("only http and https apps can be driven".into());
    }
    if url.host_str().is_none() {
        return Err("it has no host".into());
    }
    if url.port_or_known_default().is_none() {
        return Err("it has no port".into());
    }
    Ok(url)
}

/// The environment a command reads beside the `WAYMARK_*` fallbacks of its flags (which
/// clap reads): read once, by [`Environment::read`] when the command line is resolved, and
/// nowhere else. `RUST_LOG` is the logging crate's own (`logging`), `PATH` the browser
/// search's (`which`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// `INSTA_UPDATE`: insta's snapshot update mode.
    pub insta_update: Option<String>,
    /// `CI`: set on a CI machine (unless `0` or `false`).
    pub ci: Option<String>,
    /// `WAYMARK_HOME`: where profiles live.
    pub waymark_home: Option<PathBuf>,
    /// `XDG_DATA_HOME`: profiles under its `waymark/` when absolute.
    pub xdg_data_home: Option<PathBuf>,
    /// `HOME`: profiles under its `.local/share/waymark/`.
    pub home: Option<PathBuf>,
    /// `WAYMARK_VAR_NAME`: the journeys' variable `NAME` (see [`Vars`]).
    pub vars: std::collections::BTreeMap<String, String>,
}

impl Environment {
    /// The process's environment; an empty variable counts as unset.
    pub fn read() -> Environment {
        let text = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let path = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Environment {
            insta_update: text("INSTA_UPDATE"),
            ci: text("CI"),
            waymark_home: path("WAYMARK_HOME"),
            xdg_data_home: path("XDG_DATA_HOME"),
            home: path("HOME"),
            vars: std::env::vars()
                .filter_map(|(name, value)| {
                    let name = name.strip_prefix("WAYMARK_VAR_")?;
                    (!name.is_empty()).then(|| (name.to_string(), value))
                })
                .collect(),
        }
    }

    /// When snapshots are written, given `--update-snapshots` (see [`UpdateMode::resolve`]).
    pub fn snapshot_mode(&self, update_flag: bool) -> UpdateMode {
        UpdateMode::resolve(
            update_flag,
            self.insta_update.as_deref(),
            self.ci.as_deref(),
        )
    }

    /// Where profiles live: `$WAYMARK_HOME`, else `$XDG_DATA_HOME/waymark`, else
    /// `~/.local/share/waymark`; `None` when none of them is set.
    pub fn profiles_home(&self) -> Option<PathBuf> {
        if let Some(home) = &self.waymark_home {
            return Some(home.clone());
        }
        if let Some(data) = self.xdg_data_home.as_ref().filter(|p| p.is_absolute()) {
            return Some(data.join("waymark"));
        }
        self.home.as_ref().map(|h| h.join(".local/share/waymark"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_layout_but_the_classic_one_snapshots_in_a_folder_of_its_own() {
        let classic = Settings::default();
        assert_eq!(classic.snapshot_dir(), Path::new("snapshots"));
        let redesign = Settings {
            layout: Layout::Redesign,
            ..Settings::default()
        };
        assert_eq!(redesign.snapshot_dir(), Path::new("snapshots/redesign"));
    }

    #[test]
    fn an_app_url_is_http_with_a_host_and_a_port() {
        assert_eq!(
            app_url("http://127.0.0.1:8080/app").unwrap().as_str(),
            "http://127.0.0.1:8080/app"
        );
        assert!(app_url("https://app.example.com").is_ok());
        assert_eq!(
            app_url("ftp://h/").unwrap_err(),
            "only http and https apps can be driven"
        );
        assert!(app_url("not a url").is_err());
    }

    #[test]
    fn profiles_live_in_waymark_home_then_xdg_data_home_then_home() {
        let env = |w: Option<&str>, x: Option<&str>, h: Option<&str>| Environment {
            waymark_home: w.map(PathBuf::from),
            xdg_data_home: x.map(PathBuf::from),
            home: h.map(PathBuf::from),
            ..Environment::default()
        };
        let home = |e: Environment| e.profiles_home();
        assert_eq!(
            home(env(Some("/w"), Some("/x"), Some("/h"))),
            Some("/w".into())
        );
        assert_eq!(
            home(env(None, Some("/x"), Some("/h"))),
            Some("/x/waymark".into())
        );
        assert_eq!(
            home(env(None, Some("rel"), Some("/h"))),
            Some("/h/.local/share/waymark".into())
        );
        assert_eq!(home(env(None, None, None)), None);
    }
}
