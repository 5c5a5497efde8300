//! Trusted input beyond a click: moving onto a control (hover), dragging from one point to
//! another, and pressing a named key.
//!
//! A drag is a press, moves and a release, as a hand makes it. Where the page starts an
//! HTML5 drag (a `draggable` element), headless Chromium has no system drag loop to carry
//! it: the drag is intercepted (`Input.setInterceptDrags`) and its data dropped on the
//! target with `Input.dispatchDragEvent` (enter, over, drop), so the page gets its real
//! `dragstart` … `drop` events.

use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchDragEventParams, DispatchDragEventType, DispatchKeyEventParams, DispatchKeyEventType,
    DispatchMouseEventParams, DispatchMouseEventType, DragData, EventDragIntercepted, MouseButton,
    SetInterceptDragsParams,
};
use futures::StreamExt;

use super::BrowserError;
use super::chromium::ChromiumTab;
use super::commands::{Commands, MOUSE, bounded, within};

/// Moves between the press and the release of a plain (not HTML5) drag: enough for a
/// slider or a sortable list that follows `mousemove`.
const STEPS: u32 = 10;

/// How long a page has to start an HTML5 drag after the first move; past it the drag is a
/// plain one.
const DRAG_START: Duration = Duration::from_millis(150);

/// A mouse event at (`x`, `y`) with the left button `down` or not.
fn mouse(kind: DispatchMouseEventType, (x, y): (f64, f64), down: bool) -> DispatchMouseEventParams {
    let mut e = DispatchMouseEventParams::new(kind.clone(), x, y);
    let pressing = matches!(
        kind,
        DispatchMouseEventType::MousePressed | DispatchMouseEventType::MouseReleased
    );
    e.button = Some(if down || pressing {
        MouseButton::Left
    } else {
        MouseButton::None
    });
    e.buttons = Some(i64::from(down));
    if pressing {
        e.click_count = Some(1);
    }
    e
}

async fn send(
    page: &Page,
    timeout: Duration,
    e: DispatchMouseEventParams,
) -> Result<(), BrowserError> {
    page.command(timeout, "moving the mouse", e).await?;
    Ok(())
}

impl ChromiumTab {
    /// Moves the pointer onto (`x`, `y`) with a trusted move (over, enter, move).
    pub(super) async fn hover_at(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.forget_pointer();
        let (page, timeout) = self.page_and_timeout();
        send(
            page,
            timeout,
            mouse(DispatchMouseEventType::MouseMoved, (x, y), false),
        )
        .await
    }

    /// Drags from `from` to `to` with the left button: an HTML5 drag when the page starts
    /// one (looked for only when `html5`: a plain drag does not wait for one), else a press,
    /// [`STEPS`] moves and a release.
    pub(super) async fn drag_between(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        html5: bool,
    ) -> Result<(), BrowserError> {
        self.forget_pointer();
        let (page, timeout) = self.page_and_timeout();
        let mut intercepted = bounded(
            timeout,
            "subscribing to drags",
            page.event_listener::<EventDragIntercepted>(),
        )
        .await?;
        let intercept =
            |on: bool, what| page.command(timeout, what, SetInterceptDragsParams::new(on));
        intercept(true, "intercepting drags").await?;
        let result = async {
            send(
                page,
                timeout,
                mouse(DispatchMouseEventType::MouseMoved, from, false),
            )
            .await?;
            send(
                page,
                timeout,
                mouse(DispatchMouseEventType::MousePressed, from, true),
            )
            .await?;
            let at = |i: u32| {
                let f = f64::from(i) / f64::from(STEPS);
                (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f)
            };
            send(
                page,
                timeout,
                mouse(DispatchMouseEventType::MouseMoved, at(1), true),
            )
            .await?;
            let data: Option<DragData> = match html5 {
                true => tokio::time::timeout(DRAG_START, intercepted.next())
                    .await
                    .ok()
                    .flatten()
                    .map(|e| e.data.clone()),
                false => None,
            };
            match data {
                Some(data) => {
                    for kind in [
                        DispatchDragEventType::DragEnter,
                        DispatchDragEventType::DragOver,
                        DispatchDragEventType::Drop,
                    ] {
                        let e = DispatchDragEventParams::new(kind, to.0, to.1, data.clone());
                        page.command(timeout, "dropping", e).await?;
                    }
                }
                None => {
                    // Sent back to back, handled in order: one trip, not a frame per move.
                    let moves = (2..=STEPS).map(|i| {
                        page.execute(mouse(DispatchMouseEventType::MouseMoved, at(i), true))
                    });
                    let moved = futures::future::try_join_all(moves);
                    within(timeout, "dragging", Some(MOUSE), moved).await?;
                }
            }
            send(
                page,
                timeout,
                mouse(DispatchMouseEventType::MouseReleased, to, false),
            )
            .await
        }
        .await;
        let _ = intercept(false, "ending drag interception").await;
        result
    }
}

impl ChromiumTab {
    /// `Tab::press_key`: the key's down (with its text, when it has one) and up.
    pub(super) async fn press_named_key(&self, key: &str) -> Result<(), BrowserError> {
        let def = chromiumoxide::keys::get_key_definition(key)
            .ok_or_else(|| BrowserError::Protocol(format!("unknown key `{key}`")))?;
        // The layout table gives no text for letters and digits; a printable single
        // character is its own text, as on a real keyboard.
        let printable =
            (key.chars().count() == 1 && !key.chars().all(char::is_control)).then_some(key);
        let text = def.text.or(printable);
        let event = |kind: DispatchKeyEventType, text: Option<&str>| {
            let mut e = DispatchKeyEventParams::new(kind);
            e.key = Some(def.key.to_string());
            e.code = Some(def.code.to_string());
            e.windows_virtual_key_code = Some(def.key_code);
            e.native_virtual_key_code = Some(def.key_code);
            e.text = text.map(str::to_string);
            e.unmodified_text = text.map(str::to_string);
            e
        };
        let down = match text {
            Some(text) => event(DispatchKeyEventType::KeyDown, Some(text)),
            None => event(DispatchKeyEventType::RawKeyDown, None),
        };
        let down = self.page.command(self.timeout, "pressing a key", down);
        self.while_open(down).await?;
        let up = event(DispatchKeyEventType::KeyUp, None);
        let up = self.page.command(self.timeout, "releasing a key", up);
        self.while_open(up).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_carries_the_button_only_while_it_is_down() {
        let up = mouse(DispatchMouseEventType::MouseMoved, (1.0, 2.0), false);
        assert_eq!(up.buttons, Some(0));
        assert_eq!(up.button, Some(MouseButton::None));
        let down = mouse(DispatchMouseEventType::MouseMoved, (1.0, 2.0), true);
        assert_eq!(down.buttons, Some(1));
        let release = mouse(DispatchMouseEventType::MouseReleased, (1.0, 2.0), false);
        assert_eq!(release.button, Some(MouseButton::Left));
        assert_eq!(release.click_count, Some(1));
    }
}
