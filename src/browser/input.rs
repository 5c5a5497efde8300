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

/// A mouse button, as a click names it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Button {
    /// The main button.
    #[default]
    Left,
    /// The secondary button: a context menu.
    Right,
    /// The wheel's button.
    Middle,
}

impl Button {
    fn cdp(self) -> MouseButton {
        match self {
            Button::Left => MouseButton::Left,
            Button::Right => MouseButton::Right,
            Button::Middle => MouseButton::Middle,
        }
    }

    /// Its bit in a mouse event's `buttons` (as the DOM's `MouseEvent.buttons`).
    fn bit(self) -> i64 {
        match self {
            Button::Left => 1,
            Button::Right => 2,
            Button::Middle => 4,
        }
    }
}

/// A modifier key held through a click or a key press.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// Alt.
    Alt,
    /// Control.
    Control,
    /// Meta (the Windows or Command key).
    Meta,
    /// Shift.
    Shift,
}

impl Modifier {
    /// The modifier a key name is (`ControlOrMeta` is Control: Chromium runs on Linux here).
    pub fn named(name: &str) -> Option<Modifier> {
        match name {
            "Alt" => Some(Modifier::Alt),
            "Control" | "ControlOrMeta" => Some(Modifier::Control),
            "Meta" => Some(Modifier::Meta),
            "Shift" => Some(Modifier::Shift),
            _ => None,
        }
    }

    /// Its key's name.
    pub fn key(self) -> &'static str {
        match self {
            Modifier::Alt => "Alt",
            Modifier::Control => "Control",
            Modifier::Meta => "Meta",
            Modifier::Shift => "Shift",
        }
    }

    /// Its bit in an input event's `modifiers` (CDP's: Alt 1, Control 2, Meta 4, Shift 8).
    fn bit(self) -> i64 {
        match self {
            Modifier::Alt => 1,
            Modifier::Control => 2,
            Modifier::Meta => 4,
            Modifier::Shift => 8,
        }
    }
}

/// How a click presses: which button, how many times in a row (2: a double click), with
/// which modifier keys held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Click {
    /// The button.
    pub button: Button,
    /// Presses in a row (at least 1).
    pub count: u32,
    /// Modifier keys held down through the presses.
    pub modifiers: Vec<Modifier>,
}

impl Click {
    /// A plain click: the left button once, no modifier.
    pub fn is_plain(&self) -> bool {
        self.button == Button::Left && self.count <= 1 && self.modifiers.is_empty()
    }
}

/// The mask of `held`.
fn mask(held: &[Modifier]) -> i64 {
    held.iter().fold(0, |m, k| m | k.bit())
}

/// A key chord as Playwright's `keyboard.press` reads it (`Control+Shift+A`, `Shift+Tab`,
/// `Control++`): the keys in the order they go down, split at each `+` that follows a
/// key's name. `None` when a part is not a key name.
pub fn parse_chord(chord: &str) -> Option<Vec<&str>> {
    let mut keys = Vec::new();
    let mut start = 0;
    for (i, c) in chord.char_indices() {
        if c == '+' && i > start {
            keys.push(&chord[start..i]);
            start = i + 1;
        }
    }
    keys.push(&chord[start..]);
    keys.iter()
        .all(|k| super::keyboard::known(k))
        .then_some(keys)
}

/// The modifier a key of a chord is: one whose key is a modifier's (`Shift`, `ShiftLeft`,
/// `ShiftRight`), as Playwright tells them.
fn modifier_of(name: &str) -> Option<Modifier> {
    Modifier::named(super::keyboard::key(name, false)?.key)
}

impl ChromiumTab {
    /// `Tab::press_key`: the key's down (with its text, when it has one) and up; for a chord
    /// (`Control+A`), each key before the last held down in turn, the last pressed with
    /// them, then all released in reverse, as Playwright's `keyboard.press` does. While a
    /// modifier other than Shift is held no text is typed (a shortcut types nothing).
    pub(super) async fn press_named_key(&self, chord: &str) -> Result<(), BrowserError> {
        let keys = parse_chord(chord)
            .ok_or_else(|| BrowserError::Protocol(format!("unknown key `{chord}`")))?;
        let mut held: Vec<Modifier> = Vec::new();
        let (last, before) = keys.split_last().unwrap_or((&chord, &[]));
        for key in before {
            self.key_event(key, &held, true).await?;
            if let Some(m) = modifier_of(key) {
                held.push(m);
            }
        }
        self.key_event(last, &held, true).await?;
        self.key_event(last, &held, false).await?;
        for key in before.iter().rev() {
            if let Some(m) = modifier_of(key) {
                held.retain(|h| *h != m);
            }
            self.key_event(key, &held, false).await?;
        }
        Ok(())
    }

    /// One key going down (`down`) or up, with `held` held, as Playwright's keyboard sends
    /// it (see `keyboard.rs`): the key a name gives with Shift held, its text only while no
    /// modifier but Shift is down (a shortcut types nothing), its location.
    async fn key_event(
        &self,
        name: &str,
        held: &[Modifier],
        down: bool,
    ) -> Result<(), BrowserError> {
        let def = super::keyboard::key(name, held.contains(&Modifier::Shift))
            .ok_or_else(|| BrowserError::Protocol(format!("unknown key `{name}`")))?;
        // A modifier going down counts itself, as the DOM's `ctrlKey` on Control's keydown
        // says; going up, it does not (held no longer holds it).
        let own = match (down, Modifier::named(def.key)) {
            (true, Some(m)) if !held.contains(&m) => Some(m),
            _ => None,
        };
        let pressed: Vec<Modifier> = held.iter().copied().chain(own).collect();
        let shortcut = pressed.iter().any(|m| *m != Modifier::Shift);
        let text = (!shortcut && !def.text.is_empty()).then_some(def.text);
        let kind = match (down, text) {
            (false, _) => DispatchKeyEventType::KeyUp,
            (true, Some(_)) => DispatchKeyEventType::KeyDown,
            (true, None) => DispatchKeyEventType::RawKeyDown,
        };
        let mut e = DispatchKeyEventParams::new(kind);
        e.key = Some(def.key.to_string());
        e.code = Some(def.code.to_string());
        e.windows_virtual_key_code = Some(def.key_code);
        e.location = Some(def.location);
        e.is_keypad = Some(def.location == super::keyboard::KEYPAD);
        if down {
            e.text = text.map(str::to_string);
            e.unmodified_text = text.map(str::to_string);
        }
        let mods = mask(&pressed);
        if mods != 0 {
            e.modifiers = Some(mods);
        }
        let what = if down {
            "pressing a key"
        } else {
            "releasing a key"
        };
        let sent = self.page.command(self.timeout, what, e);
        self.while_open(sent).await?;
        Ok(())
    }

    /// `Tab::click_with`: the modifiers held down (as Playwright's click with `modifiers`
    /// holds them, keys and all), the pointer moved to (`x`, `y`), `click.count` presses of
    /// its button in a row (the n-th press's `detail` is n: a second one is a double click),
    /// then the modifiers released.
    pub(super) async fn click_pressing(
        &self,
        x: f64,
        y: f64,
        click: &Click,
    ) -> Result<(), BrowserError> {
        self.forget_pointer();
        // Playwright's order, whatever the order given: Alt, Control, Meta, Shift down, and
        // up again in the same order.
        let order = [
            Modifier::Alt,
            Modifier::Control,
            Modifier::Meta,
            Modifier::Shift,
        ];
        let wanted: Vec<Modifier> = order
            .into_iter()
            .filter(|m| click.modifiers.contains(m))
            .collect();
        let mut held: Vec<Modifier> = Vec::new();
        for m in &wanted {
            self.key_event(m.key(), &held, true).await?;
            held.push(*m);
        }
        let mods = mask(&held);
        let (page, timeout) = self.page_and_timeout();
        let event = |kind: DispatchMouseEventType, count: Option<i64>, buttons: i64| {
            let mut e = DispatchMouseEventParams::new(kind, x, y);
            e.button = Some(match count {
                Some(_) => click.button.cdp(),
                None => MouseButton::None,
            });
            e.buttons = Some(buttons);
            e.click_count = count;
            if mods != 0 {
                e.modifiers = Some(mods);
            }
            e
        };
        let mut events = vec![event(DispatchMouseEventType::MouseMoved, None, 0)];
        for n in 1..=i64::from(click.count.max(1)) {
            events.push(event(
                DispatchMouseEventType::MousePressed,
                Some(n),
                click.button.bit(),
            ));
            events.push(event(DispatchMouseEventType::MouseReleased, Some(n), 0));
        }
        // Sent back to back, handled in order (see `click`).
        let sent = futures::future::try_join_all(events.into_iter().map(|e| page.execute(e)));
        let pressed = self
            .while_open(within(timeout, "clicking", Some(MOUSE), sent))
            .await
            .map(|_| ());
        for m in &wanted {
            held.retain(|h| h != m);
            self.key_event(m.key(), &held, false).await?;
        }
        pressed
    }
}

impl ChromiumTab {
    /// A left click at a point: the pointer's move there (unless it is there), its press
    /// and its release.
    pub(super) async fn left_click(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        let event = |kind: DispatchMouseEventType| {
            let mut e = DispatchMouseEventParams::new(kind, x, y);
            e.button = Some(MouseButton::Left);
            e.buttons = Some(1);
            e.click_count = Some(1);
            e
        };
        let mut moved = DispatchMouseEventParams::new(DispatchMouseEventType::MouseMoved, x, y);
        moved.button = Some(MouseButton::None);
        let press = event(DispatchMouseEventType::MousePressed);
        let mut release = event(DispatchMouseEventType::MouseReleased);
        release.buttons = Some(0);
        // The pointer moves to the point first, as a hand's would, unless it is there
        // already: the browser holds a move until its next frame renders (half a frame's
        // interval on average, 8 ms, of an invoke), and a hand pressing twice in one spot
        // does not move between.
        let here = self.pointer.lock().is_ok_and(|mut pointer| {
            let here = !self.headed && *pointer == Some((x, y));
            *pointer = None;
            here
        });
        // Sent back to back, answered in order: the browser handles one input event after
        // the other, and the answers are awaited together rather than one trip each.
        let press_release =
            futures::future::try_join(self.page.execute(press), self.page.execute(release));
        if here {
            self.while_open(within(self.timeout, "clicking", Some(MOUSE), press_release))
                .await?;
        } else {
            let all = futures::future::try_join(self.page.execute(moved), press_release);
            self.while_open(within(self.timeout, "clicking", Some(MOUSE), all))
                .await?;
        }
        if let Ok(mut pointer) = self.pointer.lock() {
            *pointer = Some((x, y));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_split_as_playwright_splits_them() {
        assert_eq!(parse_chord("Control+A"), Some(vec!["Control", "A"]));
        assert_eq!(
            parse_chord("Control+Shift+ArrowLeft"),
            Some(vec!["Control", "Shift", "ArrowLeft"])
        );
        assert_eq!(parse_chord("Shift++"), Some(vec!["Shift", "+"]));
        assert_eq!(parse_chord("+"), Some(vec!["+"]));
        assert_eq!(parse_chord("Enter"), Some(vec!["Enter"]));
        assert_eq!(
            parse_chord("ControlOrMeta+a"),
            Some(vec!["ControlOrMeta", "a"])
        );
        assert_eq!(parse_chord("Control+Nope"), None);
        assert_eq!(mask(&[Modifier::Shift, Modifier::Control]), 10);
    }

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
