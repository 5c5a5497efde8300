//! Frames of another site in a read and an action.
//!
//! A read of the top document names the frames of another origin it holds (each iframe's
//! content box, region, title, name and src; see `farFrames` in the collector). Each is read
//! by the collector in its own process, one evaluation per frame, the frames of one level in
//! parallel (a frame held by a frame is read once its holder answered), whole every time (a
//! frame's read is not held for a delta as the top document's is), and its controls are
//! placed where its iframe sits: their boxes moved by the iframe's content origin (less the
//! frame's own scroll), so they are in the top document's box coordinates, after the top
//! document's controls, frame by frame in document order, in the region the iframe names
//! (its `data-anchor-region`, else its `title`, else its `name`; the frame's own regions
//! inside it stand). A frame that does not answer within [`FRAME_BOUND`] (or the script
//! bound, when shorter) is named in `frames_unread`, never dropped silently.
//!
//! An action on a control of such a frame finds and checks its target, and settles, in the
//! frame; the point it presses is the frame's point moved by where the frame sits in the top
//! page now, and the trusted input goes to the top page, which routes it into the frame as
//! it would a person's. The read after it is a whole read, the top document's and every
//! frame's.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::Tools;
use super::tabs::OpenTab;
use crate::anchor::AnchorRef;
use crate::browser::{BrowserError, Tab};
use crate::collector::{self, CollectorRead, FrameSeen};
use crate::screen::{RawControl, RawObservation, UnreadFrame};

/// How long a read waits for a frame of another site to answer, at most.
pub const FRAME_BOUND: Duration = Duration::from_secs(2);

/// Frames held by frames are read this many levels deep.
const LEVELS: usize = 4;

/// What the frames of a read gave: their controls, placed, and where each came from.
#[derive(Default)]
struct Gathered {
    controls: Vec<RawControl>,
    total: usize,
    dropped_by_region: BTreeMap<String, usize>,
    dropped_by_role: BTreeMap<String, usize>,
    unread: Vec<UnreadFrame>,
    far: HashMap<String, String>,
}

impl<T: Tab> Tools<T> {
    /// The bound on a frame's read.
    fn frame_bound(&self) -> Duration {
        self.options.script_timeout.min(FRAME_BOUND)
    }

    /// [`with_far_frames`](Tools::with_far_frames) when the read names frames, boxed (its
    /// state stays out of every read's future: a worker's stack holds those). A region read
    /// names none: what the last whole read placed stands. Also boxed in `collect_as`: an
    /// operation run in the acting frame.
    pub(super) async fn placed(
        &self,
        raw: &RawObservation,
        seen: Vec<FrameSeen>,
        whole: bool,
    ) -> Option<RawObservation> {
        match seen.is_empty() {
            true if !whole => None,
            true => self.forget_far_frames(),
            false => Box::pin(self.with_far_frames(raw, seen)).await,
        }
    }

    /// The top document's read `raw` with the controls of the frames of another site it
    /// holds (`seen`, as its read named them), or none when it holds none. Remembers which
    /// frame each control is in, for an action on it.
    pub(super) async fn with_far_frames(
        &self,
        raw: &RawObservation,
        mut seen: Vec<FrameSeen>,
    ) -> Option<RawObservation> {
        if seen.is_empty() {
            return self.forget_far_frames();
        }
        let bound = self.frame_bound();
        if seen.iter().any(|f| f.frame.is_none())
            && self.here().tab.tag_far_frames(bound).await.unwrap_or(0) > 0
            && let Ok(answer) = self.collect_with("frames", &json!({}), bound, false).await
            && let Ok(named) = serde_json::from_str::<Vec<FrameSeen>>(&answer)
        {
            seen = named;
        }
        let mut got = Gathered::default();
        let mut level = seen;
        for _ in 0..LEVELS {
            if level.is_empty() {
                break;
            }
            let reads =
                futures::future::join_all(level.iter().map(|f| self.read_far(f, bound))).await;
            let mut next = Vec::new();
            for (frame, read) in level.into_iter().zip(reads) {
                match read {
                    Ok((id, fraw, nested)) => {
                        let dx = frame.origin[0] - fraw.scroll[0];
                        let dy = frame.origin[1] - fraw.scroll[1];
                        got.place(&id, fraw, (dx, dy));
                        next.extend(nested.into_iter().map(|mut n| {
                            n.origin = [n.origin[0] + dx, n.origin[1] + dy];
                            n.anchors.extend(frame.anchors.iter().cloned());
                            n
                        }));
                    }
                    Err(reason) => got.unread.push(UnreadFrame {
                        src: frame.src,
                        title: frame.title,
                        name: frame.name,
                        reason,
                    }),
                }
            }
            level = next;
        }
        if let Ok(mut far) = self.here().memory.far.lock() {
            *far = std::mem::take(&mut got.far);
        }
        let mut merged = raw.clone();
        let mut controls = merged.controls.into_vec();
        controls.extend(got.controls);
        merged.controls = controls.into();
        merged.total += got.total;
        for (into, from) in [
            (&mut merged.dropped_by_region, got.dropped_by_region),
            (&mut merged.dropped_by_role, got.dropped_by_role),
        ] {
            for (k, n) in from {
                *into.entry(k).or_default() += n;
            }
        }
        merged.frames_unread = got.unread;
        Some(merged)
    }

    /// Keeps a whole read's observation with its frames' controls (none: it held none).
    pub(super) fn keep_framed(&self, framed: Option<RawObservation>) {
        if let Ok(mut kept) = self.here().memory.framed.lock() {
            *kept = framed;
        }
    }

    /// The last whole read's observation with its frames' controls, when it held frames.
    pub(super) fn framed_observation(&self) -> Option<RawObservation> {
        self.here()
            .memory
            .framed
            .lock()
            .ok()
            .and_then(|k| k.clone())
    }

    /// A read that held no frame of another site: none of its controls is in one.
    pub(super) fn forget_far_frames(&self) -> Option<RawObservation> {
        if let Ok(mut far) = self.here().memory.far.lock() {
            far.clear();
        }
        None
    }

    /// One frame's whole read, in its own process: its id, its observation and the frames
    /// of another site it holds in turn; or why it could not be read.
    async fn read_far(
        &self,
        frame: &FrameSeen,
        bound: Duration,
    ) -> Result<(String, RawObservation, Vec<FrameSeen>), String> {
        let Some(id) = frame.frame.clone() else {
            return Err("no process of its own was found for it (not loaded yet, or the browser runs it in \
                 the page's own: start it with --site-per-process)".into());
        };
        let args = json!({"max": self.options.max_controls, "since": null, "region": null,
            "evidence": null, "whole": false, "inherit": frame.region, "outer": frame.anchors});
        let reply = self
            .collect_in_frame(&id, "read", &args, bound, false)
            .await
            .map_err(|e| match e {
                BrowserError::Timeout { after, .. } => {
                    format!("it did not answer within {} ms", after.as_millis())
                }
                other => other.to_string(),
            })?;
        let mut read: CollectorRead =
            collector::parse_answer(reply).map_err(|e| format!("its read did not parse: {e}"))?;
        let nested = std::mem::take(&mut read.frames);
        let (_, raw, _, _) = read.apply(None)?;
        Ok((id, raw, nested))
    }

    /// Runs collector operation `op` in frame `frame`: by the collector installed there
    /// when there is one, else by sending it whole, with the registry's matchers when the
    /// frame asks for them.
    pub(super) async fn collect_in_frame(
        &self,
        frame: &str,
        op: &str,
        args: &serde_json::Value,
        timeout: Duration,
        gesture: bool,
    ) -> Result<String, BrowserError> {
        let here = self.here();
        let matchers = self.registry.matchers();
        let mut args = args.clone();
        if let Some(m) = matchers {
            args["mv"] = json!(m.v);
        }
        let run = |expr: String| {
            let here = Arc::clone(&here);
            async move {
                here.tab
                    .evaluate_in_frame(frame, &expr, timeout, gesture)
                    .await
            }
        };
        let mut reply = run(collector::installed(op, &args)).await?;
        if reply == collector::MISSING {
            reply = run(collector::expression(op, &args)).await?;
        }
        if reply == collector::NEED_MATCHERS
            && let Some(m) = matchers
        {
            args["matchers"] = json!(m.as_ref());
            reply = run(collector::installed(op, &args)).await?;
        }
        Ok(reply)
    }

    /// The frame of another site the control `anchor` is in, by the last read: none when the
    /// top document has a control of that anchor, or the last read placed none in a frame.
    pub(super) fn far_frame_of(&self, anchor: Option<&AnchorRef>) -> Option<String> {
        let anchor = anchor?;
        let here = self.here();
        let frame = {
            let far = here.memory.far.lock().ok()?;
            if far.is_empty() {
                return None;
            }
            far.get(&crate::anchor::reference(
                anchor.id.as_str(),
                anchor.key.as_deref(),
            ))
            .cloned()?
        };
        let held = here.memory.held.lock().ok()?;
        let in_top = held.as_ref().is_some_and(|h| {
            h.raw
                .controls
                .iter()
                .any(|c| c.anchor.as_str() == anchor.id.as_str())
        });
        (!in_top).then_some(frame)
    }

    /// Makes the operations of the action under way run in `frame` (none: the top
    /// document) until the guard it gives is dropped.
    pub(super) fn acting_in(&self, frame: Option<String>) -> Acting<T> {
        let here = self.here();
        if let Ok(mut acting) = here.memory.acting.lock() {
            *acting = frame;
        }
        Acting(here)
    }

    /// The frame the action under way works in, if it is not the top document.
    pub(super) fn acting_frame(&self) -> Option<String> {
        self.here()
            .memory
            .acting
            .lock()
            .ok()
            .and_then(|a| a.clone())
    }

    /// Moves a point `prepare` found in the acting frame into the top page's viewport.
    pub(super) async fn moved_to_top(
        &self,
        x: Option<f64>,
        y: Option<f64>,
    ) -> Result<(Option<f64>, Option<f64>), BrowserError> {
        let Some(frame) = self.acting_frame() else {
            return Ok((x, y));
        };
        let (ox, oy) = self
            .here()
            .tab
            .frame_origin(&frame, self.options.script_timeout)
            .await?;
        Ok((x.map(|x| x + ox), y.map(|y| y + oy)))
    }
}

impl Gathered {
    /// Places a frame's controls where the frame sits (`by`), noting the frame of each.
    fn place(&mut self, id: &str, raw: RawObservation, by: (f64, f64)) {
        let (dx, dy) = (by.0.round() as i64, by.1.round() as i64);
        self.total += raw.total;
        for (into, from) in [
            (&mut self.dropped_by_region, raw.dropped_by_region),
            (&mut self.dropped_by_role, raw.dropped_by_role),
        ] {
            for (k, n) in from {
                *into.entry(k).or_default() += n;
            }
        }
        for mut c in raw.controls.into_vec() {
            c.bbox[0] += dx;
            c.bbox[1] += dy;
            if let Some(view) = &mut c.view {
                view[0] += dx;
                view[1] += dy;
            }
            // A frame's document keeps its last focus while the page's focus is elsewhere.
            c.focused = false;
            self.far
                .insert(c.anchor.as_str().to_string(), id.to_string());
            self.far.insert(c.reference(), id.to_string());
            self.controls.push(c);
        }
    }
}

/// While it lives, the action's operations run in a frame of another site.
pub(super) struct Acting<T>(Arc<OpenTab<T>>);

impl<T> Drop for Acting<T> {
    fn drop(&mut self) {
        if let Ok(mut acting) = self.0.memory.acting.lock() {
            *acting = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::Facts;

    fn control(anchor: &str, bbox: [i64; 4]) -> RawControl {
        RawControl {
            facts: Facts {
                anchor: anchor.into(),
                key: None,
                label: "L".into(),
                role: "button".into(),
                disabled: false,
                editable: false,
                value: None,
                checked: None,
                region: "Payment".into(),
                visible: true,
            },
            secret: false,
            focused: true,
            bbox,
            view: None,
        }
    }

    #[test]
    fn a_frames_controls_are_moved_where_it_sits_and_noted_by_frame() {
        let mut raw =
            crate::collector::parse_full(crate::collector::encode_full(&RawObservation {
                url: "http://localhost/f".into(),
                title: String::new(),
                status: None,
                dialog: None,
                controls: vec![control("pay.submit", [10, 20, 80, 30])].into(),
                total: 3,
                dropped_by_region: BTreeMap::from([("Payment".to_string(), 2)]),
                dropped_by_role: BTreeMap::new(),
                viewport: [800.0, 600.0],
                scroll: [0.0, 0.0],
                collector_ms: 1.0,
                evidence: None,
                chrome: Default::default(),
                audit: None,
                frames_unread: Vec::new(),
            }))
            .unwrap();
        raw.controls[0].focused = true;
        let mut got = Gathered::default();
        got.place("F1", raw, (100.4, 250.0));
        assert_eq!(got.controls[0].bbox, [110, 270, 80, 30]);
        assert!(!got.controls[0].focused);
        assert_eq!(got.far["pay.submit"], "F1");
        assert_eq!((got.total, got.dropped_by_region["Payment"]), (3, 2));
    }
}
