//! Frames of another site: out-of-process iframes (OOPIFs), which Chromium's site isolation
//! runs in a renderer of their own, with a CDP target of their own.
//!
//! chromiumoxide auto-attaches the tab's page session to them (`Target.setAutoAttach`,
//! flattened; it lets them run at once). waymark reaches each on its own connection (see
//! `wire.rs`): a session per frame target, in which the collector is evaluated as in the
//! top document. To place a frame's controls, the document holding its `<iframe>` must
//! know which target the element shows: [`ChromiumTab::tag_far_frames`] finds the element
//! of each frame target (`DOM.getFrameOwner`, in the page's process or in the process of
//! the frame holding it) and gives it the frame's id (`__waymarkFrame`, a property of the
//! element in the page's own world, which no attribute or mutation shows), once per frame.
//! A frame's content box is asked of the browser when an action aims into it
//! ([`ChromiumTab::far_frame_origin`]): trusted input at that point of the top page reaches
//! the frame, as a person's would.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::BrowserError;
use super::chromium::ChromiumTab;
use super::wire::Wire;

/// What the tab knows of one frame of another site: its session on waymark's connection,
/// and where its element is (a node of the page's process, or of another frame's).
#[derive(Debug, Clone)]
pub(super) struct FarFrame {
    session: String,
    /// The frame whose document holds the element; none: the page's own process.
    parent: Option<String>,
    owner: i64,
}

/// The frames of another site a tab has tagged, by target id.
#[derive(Debug, Default)]
pub(super) struct FarFrames(HashMap<String, FarFrame>);

/// The function that tags a frame's element with its id.
const TAG: &str = "function (id) { Object.defineProperty(this, '__waymarkFrame', \
                   { value: id, configurable: true }); }";

impl ChromiumTab {
    /// Finds the out-of-process frames under this tab not tagged yet and tags each one's
    /// element with its id, within `bound`; how many it tagged.
    pub(super) async fn tag_far_frames(&self, bound: Duration) -> Result<usize, BrowserError> {
        let late = || BrowserError::Timeout {
            what: "finding the frames of another site".into(),
            after: bound,
        };
        tokio::time::timeout(bound, self.tag_far_frames_unbounded())
            .await
            .map_err(|_| late())?
    }

    async fn tag_far_frames_unbounded(&self) -> Result<usize, BrowserError> {
        let (wire, page) = self.wire().await?;
        let targets = wire.call(None, "Target.getTargets", json!({})).await?;
        let frames: Vec<String> = targets["targetInfos"]
            .as_array()
            .map(|list| {
                list.iter()
                    .filter(|t| t["type"] == "iframe")
                    .filter_map(|t| t["targetId"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut book = self.far_frames.lock().await;
        // Frames gone since are forgotten.
        book.0.retain(|id, _| frames.contains(id));
        let mut tagged = 0;
        // A frame held by a frame is found once its holder is: a pass per level.
        for _ in 0..4 {
            let mut progress = false;
            for id in &frames {
                if book.0.contains_key(id) {
                    continue;
                }
                let holders: Vec<(Option<String>, String)> =
                    std::iter::once((None, page.to_string()))
                        .chain(
                            book.0
                                .iter()
                                .map(|(fid, f)| (Some(fid.clone()), f.session.clone())),
                        )
                        .collect();
                for (parent, session) in holders {
                    let Ok(owner) = wire
                        .call(Some(&session), "DOM.getFrameOwner", json!({"frameId": id}))
                        .await
                    else {
                        continue;
                    };
                    let Some(node) = owner["backendNodeId"].as_i64() else {
                        continue;
                    };
                    tag(wire, &session, node, id).await?;
                    let own = wire.attach(id).await?;
                    book.0.insert(
                        id.clone(),
                        FarFrame {
                            session: own,
                            parent,
                            owner: node,
                        },
                    );
                    tagged += 1;
                    progress = true;
                    break;
                }
            }
            if !progress {
                break;
            }
        }
        Ok(tagged)
    }

    /// Evaluates `expression` in the frame `frame` (a target id a read named), as
    /// `Tab::evaluate` does in the top document; as a user gesture when `gesture`.
    pub(super) async fn evaluate_in_far_frame(
        &self,
        frame: &str,
        expression: &str,
        timeout: Duration,
        gesture: bool,
    ) -> Result<String, BrowserError> {
        let session = self.far_session(frame).await?;
        let (wire, _) = self.wire().await?;
        let params = json!({"expression": expression, "returnByValue": true,
            "awaitPromise": true, "userGesture": gesture});
        let reply = tokio::time::timeout(
            timeout,
            wire.call(Some(&session), "Runtime.evaluate", params),
        )
        .await
        .map_err(|_| BrowserError::Timeout {
            what: "an in-page script in a frame of another site (`Runtime.evaluate`)".into(),
            after: timeout,
        })??;
        script_answer(reply)
    }

    /// Where the content box of frame `frame` starts in the top page's viewport, asked of
    /// the browser now (through each frame holding it), within `timeout`.
    pub(super) async fn far_frame_origin(
        &self,
        frame: &str,
        timeout: Duration,
    ) -> Result<(f64, f64), BrowserError> {
        let work = async {
            let (wire, page) = self.wire().await?;
            let (mut x, mut y) = (0.0, 0.0);
            let mut at = Some(frame.to_string());
            for _ in 0..8 {
                let Some(id) = at.take() else { break };
                let f = {
                    let book = self.far_frames.lock().await;
                    book.0.get(&id).cloned()
                }
                .ok_or_else(|| unknown(&id))?;
                let holder = match &f.parent {
                    Some(p) => self.far_session(p).await?,
                    None => page.to_string(),
                };
                let model = wire
                    .call(
                        Some(&holder),
                        "DOM.getBoxModel",
                        json!({"backendNodeId": f.owner}),
                    )
                    .await?;
                let content = &model["model"]["content"];
                x += content[0].as_f64().unwrap_or(0.0);
                y += content[1].as_f64().unwrap_or(0.0);
                at = f.parent;
            }
            Ok::<_, BrowserError>((x, y))
        };
        tokio::time::timeout(timeout, work)
            .await
            .map_err(|_| BrowserError::Timeout {
                what: "where a frame of another site sits (`DOM.getBoxModel`)".into(),
                after: timeout,
            })?
    }

    /// The addresses of the frames running in a process of their own (the browser's
    /// `iframe` targets) under any tab of the browser: what a test checks a page's frame
    /// against, that it really is out of process.
    pub async fn frame_targets(&self) -> Result<Vec<String>, BrowserError> {
        let (wire, _) = self.wire().await?;
        let call = wire.call(None, "Target.getTargets", json!({}));
        let targets = tokio::time::timeout(self.timeout, call)
            .await
            .map_err(|_| BrowserError::Timeout {
                what: "listing the browser's targets (`Target.getTargets`)".into(),
                after: self.timeout,
            })??;
        Ok(targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "iframe")
            .filter_map(|t| t["url"].as_str().map(str::to_string))
            .collect())
    }

    async fn far_session(&self, frame: &str) -> Result<String, BrowserError> {
        let book = self.far_frames.lock().await;
        book.0
            .get(frame)
            .map(|f| f.session.clone())
            .ok_or_else(|| unknown(frame))
    }
}

fn unknown(frame: &str) -> BrowserError {
    BrowserError::Protocol(format!("no frame `{frame}` under this tab"))
}

/// Gives the element `node` (in the document of `session`) the frame id `id`.
async fn tag(wire: &Wire, session: &str, node: i64, id: &str) -> Result<(), BrowserError> {
    let resolved = wire
        .call(
            Some(session),
            "DOM.resolveNode",
            json!({"backendNodeId": node}),
        )
        .await?;
    let object = resolved["object"]["objectId"]
        .as_str()
        .ok_or_else(|| BrowserError::Protocol("a frame's element resolved to nothing".into()))?;
    wire.call(
        Some(session),
        "Runtime.callFunctionOn",
        json!({"objectId": object, "functionDeclaration": TAG,
            "arguments": [{"value": id}], "silent": true}),
    )
    .await?;
    let _ = wire
        .call(
            Some(session),
            "Runtime.releaseObject",
            json!({"objectId": object}),
        )
        .await;
    Ok(())
}

/// The string a `Runtime.evaluate` produced, or the page's exception.
fn script_answer(reply: Value) -> Result<String, BrowserError> {
    if let Some(ex) = reply.get("exceptionDetails") {
        let detail = ex["exception"]["description"]
            .as_str()
            .or(ex["text"].as_str())
            .unwrap_or("an exception")
            .to_string();
        if super::commands::is_context_lost(&detail) {
            return Err(BrowserError::ContextLost);
        }
        return Err(BrowserError::Script(detail));
    }
    match &reply["result"]["value"] {
        Value::String(s) => Ok(s.clone()),
        other => Err(BrowserError::Script(format!(
            "expected a string from the collector, got {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_answers_its_string_or_its_exception() {
        let ok = json!({"result": {"type": "string", "value": "{\"a\":1}"}});
        assert_eq!(script_answer(ok).unwrap(), "{\"a\":1}");
        let thrown = json!({"result": {}, "exceptionDetails":
            {"text": "Uncaught", "exception": {"description": "TypeError: x"}}});
        assert!(
            matches!(script_answer(thrown), Err(BrowserError::Script(m)) if m == "TypeError: x")
        );
        let number = json!({"result": {"type": "number", "value": 3}});
        assert!(matches!(
            script_answer(number),
            Err(BrowserError::Script(_))
        ));
    }
}
