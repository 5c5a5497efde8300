//! Screenshots for the reports (`--screenshots on|failure|off`): the screen after each
//! acting step, or the one a journey failed on. Never while the person has the tab (a
//! handoff, or taken on the control page), and never of a page that shows a secret field
//! holding a value: a picture would show what no read ever does.

use serde_json::json;

use super::Tools;
use crate::browser::Tab;
use crate::control::TabState;

/// When the run keeps screenshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Screenshots {
    /// None.
    Off,
    /// The screen a journey failed on (the default).
    #[default]
    Failure,
    /// The screen after each acting step (navigate, invoke, press, fill), and on failure.
    On,
}

impl<T: Tab> Tools<T> {
    /// A PNG of the tab now, unless the person has it or the page shows a secret field
    /// holding a value (or it cannot be told whether it does).
    pub async fn safe_screenshot(&self) -> Option<Vec<u8>> {
        if let Some(control) = &self.here().control {
            let state = control.hub.tab(control.tab).map(|t| t.state);
            if matches!(state, Some(TabState::Handoff | TabState::User)) {
                return None;
            }
        }
        let shown = self
            .collect_as("secrets", &json!({}), self.options.script_timeout, false)
            .await
            .ok()?;
        if shown.trim() != "0" {
            return None;
        }
        self.here().tab.screenshot().await.ok()
    }
}
