//! What a command knows before it starts anything: the flags, `WAYMARK_*` environment and
//! compiled-in defaults (in that order of precedence, resolved by `cli`), as one value every
//! [`Session`](crate::session::Session) is built from.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::browser::LaunchOptions;
use crate::control::ConsentPolicy;
use crate::journey::Limits;
use crate::layout::Layout;
use crate::snapshot::Unreferenced;
use crate::suite::SuiteOptions;
use crate::tools::ToolOptions;

/// Where snapshots live: `snapshots/` in the current directory.
pub const SNAPSHOT_DIR: &str = "snapshots";

/// Where `run` writes traces unless told otherwise, relative to the current directory.
pub const TRACE_DIR: &str = "target/waymark/traces";

/// Everything a run or a read needs to know, from flags, environment and defaults.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The app; `None` serves the embedded demo app.
    pub base_url: Option<String>,
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
    /// Accept new and changed snapshots (`--update-snapshots`).
    pub update_snapshots: bool,
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
    /// A saved signed-in state each tab starts with (`--state FILE`).
    pub state: Option<PathBuf>,
    /// `run`'s handling of the journeys as a whole: retries, shard, `--last-failed`,
    /// reports.
    pub suite: SuiteOptions,
}

impl Default for Settings {
    /// The command line's defaults: the demo app, `./anchors.yaml`, a headless Chromium
    /// from `PATH`, no trace, consent by journey kind.
    fn default() -> Self {
        Settings {
            base_url: None,
            layout: Layout::Classic,
            anchors: None,
            launch: LaunchOptions::default(),
            tools: ToolOptions::default(),
            limits: Limits::default(),
            update_snapshots: false,
            unreferenced: Unreferenced::Ignore,
            trace: None,
            consent: None,
            consent_timeout: Duration::from_secs(300),
            guardrail: None,
            control_page: false,
            profile: None,
            state: None,
            suite: SuiteOptions::default(),
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
}
