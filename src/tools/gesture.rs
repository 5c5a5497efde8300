//! The gestures beyond a press: `hover` (the pointer onto a control; class `read`, it
//! changes nothing by itself), `drag` (from one control onto another) and `upload` (files
//! into the chooser a control opens). Each waits for its target like `invoke` and returns
//! the settled screen (see `act.rs`).

use std::path::PathBuf;

use super::act::{Act, Landed, parse_target};
use super::consent::Subject;
use super::target::TargetRef;
use super::{ErrorCode, RoundTrip, ToolError, Tools, Verb};
use crate::browser::Tab;
use crate::collector::Prepared;
use crate::protocol::quoted;

impl<T: Tab> Tools<T> {
    /// Moves the pointer onto the control `target` (`anchor` or `anchor[key]`).
    pub async fn hover(&self, target: &str, key: Option<&str>) -> RoundTrip {
        self.act(Act::Hover, target, key).await
    }

    /// [`hover`](Tools::hover) on any kind of target.
    pub async fn hover_target(&self, target: &TargetRef) -> RoundTrip {
        self.act_on(Act::Hover, target).await
    }

    /// Drags the control `from` onto the control `to` (anchors, `anchor[key]` for repeated
    /// ones).
    pub async fn drag(&self, from: &str, to: &str) -> RoundTrip {
        match (parse_target(from, None), parse_target(to, None)) {
            (Ok(f), Ok(t)) => {
                self.drag_target(&TargetRef::Anchor(f), &TargetRef::Anchor(t))
                    .await
            }
            (Err(e), _) | (_, Err(e)) => {
                let outcome = async { Err((None, e)) };
                self.call(Verb::Drag, Some(from), None, outcome).await
            }
        }
    }

    /// [`drag`](Tools::drag) between any kinds of target.
    pub async fn drag_target(&self, from: &TargetRef, to: &TargetRef) -> RoundTrip {
        self.act_on(Act::Drag(to), from).await
    }

    /// Answers the file chooser the control `target` opens (a file input, or a button that
    /// opens one) with the file `path` of the journey's `fixtures/` folder.
    pub async fn upload(&self, target: &str, path: &str) -> RoundTrip {
        match parse_target(target, None) {
            Ok(anchor) => self.upload_target(&TargetRef::Anchor(anchor), path).await,
            Err(e) => {
                let outcome = async { Err((None, e)) };
                self.call(Verb::Upload, Some(target), None, outcome).await
            }
        }
    }

    /// [`upload`](Tools::upload) on any kind of target.
    pub async fn upload_target(&self, target: &TargetRef, path: &str) -> RoundTrip {
        let shown = target.to_string();
        let subject = Subject {
            target,
            key_name: None,
            text: Some(path),
        };
        let fixtures = self.file_scope().fixtures;
        let work = async {
            let file = super::files::fixture(&fixtures, path).map_err(|e| (None, e))?;
            self.act_inner(&Act::Upload(&[file]), target).await
        };
        self.call(Verb::Upload, Some(&shown), Some(subject), work)
            .await
    }

    /// The gesture itself, on a prepared and checked target: `Some` when it is known at
    /// once that its press missed the target (an upload that opened no chooser because the
    /// press was stopped), else the settle tells.
    pub(super) async fn gesture(
        &self,
        act: &Act<'_>,
        prepared: &Prepared,
    ) -> Result<Option<Landed>, ToolError> {
        let at = (prepared.x.unwrap_or(0.0), prepared.y.unwrap_or(0.0));
        let fail = super::browser_error;
        match act {
            Act::Hover => self
                .here()
                .tab
                .hover(at.0, at.1)
                .await
                .map(|()| None)
                .map_err(fail),
            Act::Drag(to) => {
                let dropped = self.prepare(act, to).await?;
                self.checked(act, to, &dropped)?;
                let onto = (dropped.x.unwrap_or(0.0), dropped.y.unwrap_or(0.0));
                self.here()
                    .tab
                    .drag(at, onto, prepared.draggable)
                    .await
                    .map(|()| None)
                    .map_err(fail)
            }
            Act::Upload(files) => {
                let files: Vec<PathBuf> = files.to_vec();
                match self
                    .here()
                    .tab
                    .upload(at.0, at.1, &files)
                    .await
                    .map_err(fail)?
                {
                    true => Ok(None),
                    false if let Some(missed) = self.press_missed().await => Ok(Some(missed)),
                    false => Err(ToolError::new(
                        ErrorCode::NotEditable,
                        format!(
                            "`{}` opened no file chooser: upload names a file input or a control that opens one",
                            quoted(prepared.label.as_deref().unwrap_or("the control"))
                        ),
                    )),
                }
            }
            _ => Ok(None),
        }
    }

    /// Whether the last aimed press was stopped in the page for reaching another element
    /// than its target (see `aimHits` in collector's 10-act.js).
    async fn press_missed(&self) -> Option<Landed> {
        #[derive(serde::Deserialize)]
        struct Missed {
            hit: String,
            moved: bool,
        }
        let answer = self
            .collect_as(
                "pressed",
                &serde_json::json!({}),
                self.options.script_timeout,
                false,
            )
            .await
            .ok()?;
        let m: Missed = serde_json::from_str::<Option<Missed>>(&answer).ok()??;
        Some(Landed::Missed {
            hit: m.hit,
            moved: m.moved,
        })
    }
}
