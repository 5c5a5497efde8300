//! The HAR flags (`--har record=FILE | replay=FILE`, `--har-missing abort|pass`), for
//! every command that opens a tab.

use std::path::PathBuf;

use clap::Args;

use crate::browser::har::HarMissing;
use crate::settings::HarMode;

/// `--har` and what a replay does with a request its file has no entry for.
#[derive(Debug, Clone, Args)]
pub(crate) struct HarFlags {
    /// `record=FILE`: write each journey's traffic as HAR 1.2 (with several journeys, one
    /// file each beside FILE: `STEM.JOURNEY.har`); `replay=FILE`: answer the journeys'
    /// requests from FILE, as Playwright's `routeFromHAR` (a journey's own routes win).
    #[arg(long, global = true, env = "WAYMARK_HAR", value_name = "record=FILE|replay=FILE",
          value_parser = har, help_heading = "Network")]
    har: Option<HarMode>,
    /// With `--har replay`: fail a request the file has no entry for (`abort`), or let it
    /// through to the network (`pass`).
    #[arg(long, global = true, env = "WAYMARK_HAR_MISSING", value_enum, default_value_t = HarMissing::Abort,
          value_name = "WHAT", help_heading = "Network")]
    har_missing: HarMissing,
}

impl HarFlags {
    /// What `--har` asks, the replay's `--har-missing` with it.
    pub(crate) fn mode(&self) -> Option<HarMode> {
        self.har.clone().map(|mode| match mode {
            HarMode::Replay(file, _) => HarMode::Replay(file, self.har_missing),
            record => record,
        })
    }
}

fn har(text: &str) -> Result<HarMode, String> {
    let bad = || format!("`{text}` is not a HAR mode: give `record=FILE` or `replay=FILE`");
    let (mode, file) = text.split_once('=').ok_or_else(bad)?;
    let file = PathBuf::from(file.trim());
    if file.as_os_str().is_empty() {
        return Err(bad());
    }
    match mode.trim() {
        "record" => Ok(HarMode::Record(file)),
        "replay" => Ok(HarMode::Replay(file, HarMissing::Abort)),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_har_mode_is_record_or_replay_of_a_file() {
        assert_eq!(
            har("record=out/a.har"),
            Ok(HarMode::Record("out/a.har".into()))
        );
        assert_eq!(
            har("replay=a.har"),
            Ok(HarMode::Replay("a.har".into(), HarMissing::Abort))
        );
        assert!(har("a.har").is_err());
        assert!(har("update=a.har").is_err());
        assert!(har("record=").is_err());
    }
}
