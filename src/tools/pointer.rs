//! The pointer and the page's scroll beyond a plain press: `invoke` with another button,
//! a double click or modifiers held (an act, gated as `invoke`); `move_pointer` (the
//! pointer to a point of the viewport, or out of the page), `scroll` (the page by an
//! amount) and `scroll_to` (a control into view), which change nothing by themselves
//! (class `read`). Each returns the settled screen and what changed.

use std::time::Instant;

use serde_json::json;

use super::act::{Act, parse_target};
use super::target::TargetRef;
use futures::future::BoxFuture;

use super::verbs::{Call, ScrollArgs};
use super::{Outcome, RoundTrip, ToolError, Tools, Verb};
use super::{browser_error, capture_error};
use crate::browser::{BrowserError, Button, Click, Tab};
use crate::collector::{Settled, parse_answer};

/// A click in words, for the person asked to consent (`Double-click`, `Shift+Right-click`).
pub(super) fn said(click: &Click) -> String {
    let mut s: String = click
        .modifiers
        .iter()
        .map(|m| format!("{}+", m.key()))
        .collect();
    let button = match click.button {
        Button::Left => "",
        Button::Right => "right-",
        Button::Middle => "middle-",
    };
    let times = match click.count {
        0 | 1 => "",
        2 => "double-",
        _ => "triple-",
    };
    let word = format!("{times}{button}click");
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        s.push(first.to_ascii_uppercase());
        s.push_str(chars.as_str());
    }
    s
}

/// The last event a click fires in the page, which arms its settle: `contextmenu` for the
/// right button, `auxclick` for the middle one, `dblclick` for a double click, else `click`.
pub(super) fn last_event(click: &Click) -> &'static str {
    match (click.button, click.count) {
        (Button::Right, _) => "contextmenu",
        (Button::Middle, _) => "auxclick",
        (Button::Left, 2) => "dblclick",
        (Button::Left, _) => "click",
    }
}

impl<T: Tab> Tools<T> {
    /// The calls of this module, and the hover or upload of a target named by `nth` or a
    /// point, as `Gateway::call` hands them over (`aimed`: the target the call names
    /// beside an anchor): one boxed future, built here, so that the gateway's own future
    /// (every call's) does not grow by theirs.
    pub(super) fn pointer_call<'a>(
        &'a self,
        call: &'a Call,
        aimed: Result<Option<TargetRef>, String>,
    ) -> BoxFuture<'a, RoundTrip> {
        // Each arm's future is built in a frame of its own (`boxed`) and polled on the
        // heap: in a debug build a future built here would take this frame's room once per
        // arm, on top of the gateway's, on a journey thread's 2 MB stack.
        match (call, aimed.ok().flatten()) {
            (Call::Invoke(a), aimed) => {
                let click = a.click().unwrap_or_default();
                match aimed {
                    Some(target) => {
                        boxed(move || async move { self.click_target(&target, &click).await })
                    }
                    None => boxed(move || async move {
                        self.click(&a.anchor, a.key.as_deref(), &click).await
                    }),
                }
            }
            (Call::Hover(_), Some(target)) => {
                boxed(move || async move { self.hover_target(&target).await })
            }
            (Call::Hover(a), None) => boxed(move || self.hover(&a.anchor, a.key.as_deref())),
            (Call::Upload(a), Some(target)) => {
                boxed(move || async move { self.upload_target(&target, &a.path).await })
            }
            (Call::Upload(a), None) => boxed(move || self.upload(&a.anchor, &a.path)),
            (Call::Drag(a), _) => {
                let end = |anchor: &str, nth: Option<u64>| {
                    parse_target(anchor, None).map(|a| match nth {
                        Some(n) => TargetRef::Nth(a, n),
                        None => TargetRef::Anchor(a),
                    })
                };
                match (end(&a.from, a.from_nth), end(&a.to, a.to_nth)) {
                    (Ok(from), Ok(to)) => {
                        boxed(move || async move { self.drag_target(&from, &to).await })
                    }
                    _ => boxed(move || self.drag(&a.from, &a.to)),
                }
            }
            (Call::MovePointer(a), _) => boxed(move || self.move_pointer(a.x, a.y)),
            (Call::Scroll(a), _) => boxed(move || self.scroll(a)),
            (Call::ScrollTo(_), Some(target)) => {
                boxed(move || async move { self.scroll_to_target(&target).await })
            }
            (Call::ScrollTo(a), None) => boxed(move || self.scroll_to(&a.anchor, a.key.as_deref())),
            (other, _) => boxed(move || {
                let tool = other.tool();
                let outcome = async move {
                    Err((
                        None,
                        capture_error(format!("`{tool}` is not a call of the pointer's")),
                    ))
                };
                self.call(other.verb(), None, None, outcome)
            }),
        }
    }

    /// `invoke` as `click` presses: the control `target` (`anchor` or `anchor[key]`).
    pub async fn click(&self, target: &str, key: Option<&str>, click: &Click) -> RoundTrip {
        self.act(Act::Click(click), target, key).await
    }

    /// [`click`](Tools::click) on any kind of target.
    pub async fn click_target(&self, target: &TargetRef, click: &Click) -> RoundTrip {
        self.act_on(Act::Click(click), target).await
    }

    /// Scrolls the control `target` (`anchor` or `anchor[key]`) into view: centred, when
    /// it was not wholly in view; left where it is, when it was.
    pub async fn scroll_to(&self, target: &str, key: Option<&str>) -> RoundTrip {
        match parse_target(target, key) {
            Ok(anchor) => self.scroll_to_target(&TargetRef::Anchor(anchor)).await,
            Err(e) => {
                let outcome = async { Err((None, e)) };
                self.call(Verb::ScrollTo, Some(target), None, outcome).await
            }
        }
    }

    /// [`scroll_to`](Tools::scroll_to) on any kind of target.
    pub async fn scroll_to_target(&self, target: &TargetRef) -> RoundTrip {
        let shown = target.to_string();
        let work = self.act_inner(&Act::ScrollTo, target);
        self.call(Verb::ScrollTo, Some(&shown), None, work).await
    }

    /// Moves the pointer to viewport point (`x`, `y`) with a trusted move, as a hand moves
    /// the mouse: the page gets its `mouseover`, `mouseenter`, `mousemove`, and what the
    /// pointer left its `mouseout` and `mouseleave`. A point outside the viewport takes
    /// the pointer out of the page: what it was over gets `mouseout` and `mouseleave` with
    /// no element to go to (an exit-intent popup's cue).
    pub async fn move_pointer(&self, x: f64, y: f64) -> RoundTrip {
        let shown = format!("the point ({x}, {y}) of the viewport");
        let work = async {
            if !(x.is_finite() && y.is_finite()) {
                return Err((None, invalid("`move_pointer` needs a finite `x` and `y`")));
            }
            let start = Instant::now();
            self.collect("acted", &json!({}))
                .await
                .map_err(|e| (None, e))?;
            self.here()
                .tab
                .hover(x, y)
                .await
                .map_err(|e| (None, browser_error(e)))?;
            self.settled(start).await
        };
        self.call(Verb::MovePointer, Some(&shown), None, work).await
    }

    /// Scrolls the page by `args.x` across and `args.y` down (CSS pixels), at once, as a
    /// person's wheel or keys scroll it: the page gets its `scroll` events.
    pub async fn scroll(&self, args: &ScrollArgs) -> RoundTrip {
        let (x, y) = (args.x.unwrap_or(0.0), args.y.unwrap_or(0.0));
        let shown = format!("the page by ({x}, {y})");
        let work = async {
            if !(x.is_finite() && y.is_finite()) || (args.x.is_none() && args.y.is_none()) {
                return Err((
                    None,
                    invalid("`scroll` needs `x` or `y`: how far to scroll, in CSS pixels"),
                ));
            }
            let start = Instant::now();
            self.collect("scroll", &json!({"x": x, "y": y}))
                .await
                .map_err(|e| (None, e))?;
            self.settled(start).await
        };
        self.call(Verb::Scroll, Some(&shown), None, work).await
    }

    /// The page read once it is quiet after an input the page may answer (a popup shown, a
    /// header stuck), with what changed since the read held.
    async fn settled(&self, start: Instant) -> Outcome {
        let quiet = self.options.quiet.as_millis() as u64;
        let settle_timeout = self.settle_timeout();
        let args = json!({"quiet_ms": quiet, "max_ms": settle_timeout.as_millis() as u64,
                "max": self.options.max_controls, "since": self.held_token(),
                "evidence": self.evidence()});
        let bound = settle_timeout + self.options.script_timeout;
        let settled = match self.collect_as("settle", &args, bound, false).await {
            Ok(answer) => {
                Some(parse_answer::<Settled>(answer).map_err(|e| (None, capture_error(e)))?)
            }
            // The input led to another document: read it once it is in.
            Err(BrowserError::ContextLost) => None,
            Err(e) => return Err((None, browser_error(e))),
        };
        match settled {
            Some(Settled {
                state,
                read: Some(read),
                ..
            }) if state != "navigating" => {
                let (state, changes) = self
                    .conclude(read, start, &self.view(), true)
                    .await
                    .map_err(|e| (None, e))?;
                Ok((None, state, changes))
            }
            _ => self
                .read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e)),
        }
    }
}

/// The future `make` builds, built in this frame and moved to the heap at once.
#[inline(never)]
fn boxed<'a, F>(make: impl FnOnce() -> F) -> BoxFuture<'a, RoundTrip>
where
    F: std::future::Future<Output = RoundTrip> + Send + 'a,
{
    Box::pin(make())
}

fn invalid(message: &str) -> ToolError {
    ToolError::new(super::ErrorCode::InvalidArgument, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::Modifier;

    #[test]
    fn a_click_is_said_in_words_and_armed_on_its_last_event() {
        let right = Click {
            button: Button::Right,
            count: 1,
            modifiers: vec![],
        };
        assert_eq!(said(&right), "Right-click");
        assert_eq!(last_event(&right), "contextmenu");
        let double = Click {
            button: Button::Left,
            count: 2,
            modifiers: vec![Modifier::Shift],
        };
        assert_eq!(said(&double), "Shift+Double-click");
        assert_eq!(last_event(&double), "dblclick");
        let middle = Click {
            button: Button::Middle,
            count: 1,
            modifiers: vec![],
        };
        assert_eq!(last_event(&middle), "auxclick");
    }
}
