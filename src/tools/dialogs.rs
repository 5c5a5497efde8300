//! How the journey's JavaScript dialogs are answered (`on_dialog`), and what each call's
//! round trip says of those answered during it. The answer is the journey's, whichever tab
//! its pages open a dialog in: every tab is told, and a tab that joins later is told too.

use serde::Serialize;

use super::verbs::{DialogAction, OnDialogArgs};
use super::{RoundTrip, Tools, Verb};
use crate::browser::{AnsweredDialog, DialogAnswer, Tab};

/// A JavaScript dialog answered during a call, as its round trip lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DialogAnswered {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text the page showed.
    pub message: String,
    /// `accept` or `dismiss`.
    pub answer: &'static str,
    /// What was typed into a `prompt` accepted with text.
    pub text: Option<String>,
}

impl From<AnsweredDialog> for DialogAnswered {
    fn from(d: AnsweredDialog) -> DialogAnswered {
        DialogAnswered {
            kind: d.kind,
            message: d.message,
            answer: if d.answer.dismiss {
                "dismiss"
            } else {
                "accept"
            },
            text: d.answer.text,
        }
    }
}

impl OnDialogArgs {
    /// The answer these arguments ask for.
    pub(crate) fn answer(&self) -> DialogAnswer {
        DialogAnswer {
            dismiss: self.action == DialogAction::Dismiss,
            text: self.text.clone(),
        }
    }
}

impl<T: Tab> Tools<T> {
    /// Answers the journey's following JavaScript dialogs as `how` says (`accept` until
    /// told otherwise; a prompt accepted with `text` gets it typed in), and reads the
    /// screen. An acting call: consented like `invoke`.
    pub async fn on_dialog(&self, how: &OnDialogArgs) -> RoundTrip {
        let answer = how.answer();
        let shown = match how.action {
            DialogAction::Accept => "accept",
            DialogAction::Dismiss => "dismiss",
        };
        let work = async {
            if let Ok(mut journey) = self.shared.dialogs.lock() {
                *journey = answer.clone();
            }
            for open in self.tabs.all() {
                open.tab.answer_dialogs(&answer);
            }
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        self.call(Verb::OnDialog, Some(shown), None, work).await
    }

    /// The answer the journey set, for a tab that joins it.
    pub(super) fn dialog_answer(&self) -> DialogAnswer {
        self.shared
            .dialogs
            .lock()
            .map(|a| a.clone())
            .unwrap_or_default()
    }

    /// The dialogs every tab answered since the last call ended.
    pub(super) fn take_dialogs(&self) -> Vec<DialogAnswered> {
        self.tabs
            .all()
            .iter()
            .flat_map(|open| open.tab.take_answered())
            .map(DialogAnswered::from)
            .collect()
    }
}
