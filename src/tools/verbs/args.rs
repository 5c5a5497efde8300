//! The arguments of each verb of the one list (`super`), as both surfaces send them: each
//! field's doc comment is its description in the JSON schema MCP clients list and
//! `tools.schema.json` holds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::protocol::ActionClass;
use crate::screen::View;
use crate::tools::Condition;

/// `navigate`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NavigateArgs {
    /// The route to open, relative to the app (`/claims/1042`), or an absolute URL on the
    /// app's own origin. Other origins are refused with `off_origin`.
    pub route: String,
}

/// `read_screen`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// How many characters of control descriptions to return at most. Controls past the
    /// budget are not dropped silently: the result says how many, and in which regions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// Read only this region of the screen, in full (region names are in every control's
    /// `region` and in a cut read's `truncation.dropped_by_region`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Also list the controls that have no anchor (as `nodes`), for telling a person what
    /// is there; they cannot be acted on by anchor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<bool>,
    /// Every control gathered, whatever the run's budget (a snapshot's read). Never read
    /// from a surface's arguments.
    #[serde(skip)]
    #[schemars(skip)]
    pub whole: bool,
}

impl ReadArgs {
    /// The view these arguments ask for; `budget` is the run's, for a read that names none.
    pub(crate) fn view(&self, budget: Option<usize>) -> View {
        let budget = match (self.whole, self.budget) {
            (true, _) => None,
            (false, Some(b)) => Some(usize::try_from(b).unwrap_or(usize::MAX)),
            (false, None) => budget,
        };
        View {
            budget,
            region: self.region.clone(),
            nodes: self.nodes.unwrap_or(false),
        }
    }
}

/// `invoke`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = anchor_required)]
pub struct InvokeArgs {
    /// The control's anchor exactly as `read_screen` listed it (`claim.approve`), never a
    /// label, selector or position. A repeated control may carry its key inline:
    /// `claims.open[1042]`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub anchor: String,
    /// The key of a repeated control (`1042`), when it is not written inside `anchor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// A journey's other target: a node id from a read's `nodes` (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub node: Option<u64>,
    /// A journey's other target: a point's horizontal coordinate (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub x: Option<f64>,
    /// A journey's other target: a point's vertical coordinate (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub y: Option<f64>,
    /// Which of the controls the anchor names to press, counted from 0 in document order,
    /// when several share it with no key (Playwright's `nth`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    /// The mouse button: `left` (the default), `right` (a context menu) or `middle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<ButtonArg>,
    /// How many presses in a row: 2 is a double click (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clicks: Option<u32>,
    /// Modifier keys held through the click: `Shift`, `Control`, `Alt`, `Meta`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Vec<ModifierArg>>,
}

/// A mouse button, as `invoke` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ButtonArg {
    /// The main button.
    Left,
    /// The secondary button (a context menu).
    Right,
    /// The wheel's button.
    Middle,
}

/// A modifier key, as `invoke` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ModifierArg {
    /// Shift.
    Shift,
    /// Control.
    Control,
    /// Alt.
    Alt,
    /// Meta (the Windows or Command key).
    Meta,
}

impl InvokeArgs {
    /// How the click presses, when it is not a plain left click.
    pub(crate) fn click(&self) -> Option<crate::browser::Click> {
        use crate::browser::{Button, Click, Modifier};
        let click = Click {
            button: match self.button {
                None | Some(ButtonArg::Left) => Button::Left,
                Some(ButtonArg::Right) => Button::Right,
                Some(ButtonArg::Middle) => Button::Middle,
            },
            count: self.clicks.unwrap_or(1).clamp(1, 3),
            modifiers: (self.modifiers.iter().flatten())
                .map(|m| match m {
                    ModifierArg::Shift => Modifier::Shift,
                    ModifierArg::Control => Modifier::Control,
                    ModifierArg::Alt => Modifier::Alt,
                    ModifierArg::Meta => Modifier::Meta,
                })
                .collect(),
        };
        (!click.is_plain()).then_some(click)
    }
}

/// `press`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PressArgs {
    /// The control's anchor as `read_screen` listed it (`claims.search`, or
    /// `claims.open[1042]` for a repeated control). Left out: the key goes to whatever has
    /// the focus now (`Shift+Tab` from the field just filled).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub anchor: String,
    /// The key to press on it: `Enter`, `Escape`, `Tab`, `ArrowDown`, `Space`, a letter…,
    /// or a chord of keys held together, joined by `+` (`Control+A`, `Shift+Tab`,
    /// `Control+Shift+ArrowLeft`), as Playwright's `keyboard.press` reads it.
    pub key_name: String,
    /// Which of the controls the anchor names, counted from 0 in document order, when
    /// several share it with no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    /// A journey's other target: a node id from a read's `nodes` (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub node: Option<u64>,
    /// A journey's other target: a point's horizontal coordinate (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub x: Option<f64>,
    /// A journey's other target: a point's vertical coordinate (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub y: Option<f64>,
}

/// `fill`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = anchor_required)]
pub struct FillArgs {
    /// The field's anchor as `read_screen` listed it (an editable control).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub anchor: String,
    /// The whole new value; it replaces what the field held. A select is filled by its
    /// option's label.
    pub text: String,
    /// Which of the fields the anchor names, counted from 0 in document order, when
    /// several share it with no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    /// A journey's other target: a node id from a read's `nodes` (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub node: Option<u64>,
    /// A journey's other target: a point's horizontal coordinate (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub x: Option<f64>,
    /// A journey's other target: a point's vertical coordinate (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub y: Option<f64>,
}

/// `hover`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = anchor_required)]
pub struct HoverArgs {
    /// The control's anchor as `read_screen` listed it (`nav.products`), or
    /// `claims.open[1042]` for a repeated control.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub anchor: String,
    /// The key of a repeated control, when it is not written inside `anchor` (a journey's
    /// `hover(anchor, key)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub key: Option<String>,
    /// Which of the controls the anchor names, counted from 0 in document order, when
    /// several share it with no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    /// A journey's other target: a node id from a read's `nodes` (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub node: Option<u64>,
    /// A journey's other target: a point's horizontal coordinate (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub x: Option<f64>,
    /// A journey's other target: a point's vertical coordinate (see [`Aim`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub y: Option<f64>,
}

/// `drag`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DragArgs {
    /// The anchor of the control to drag (`board.card[7]`).
    pub from: String,
    /// The anchor of the control to drop it on (`board.column[done]`).
    pub to: String,
    /// Which of the controls `from` names, counted from 0 in document order, when several
    /// share it with no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_nth: Option<u64>,
    /// Which of the controls `to` names, counted from 0 in document order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_nth: Option<u64>,
}

/// `upload`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UploadArgs {
    /// The anchor of a file input, or of a control that opens a file chooser.
    pub anchor: String,
    /// The file, relative to the project's `fixtures/` folder (`receipt.pdf`). Files
    /// elsewhere are refused with `invalid_argument`.
    pub path: String,
    /// Which of the controls the anchor names, counted from 0 in document order, when
    /// several share it with no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
}

/// `tabs`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TabsArgs {}

/// `switch_tab`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchTabArgs {
    /// The tab's number, as `tabs` lists it and as `opened.tab` named it (0: the first).
    pub tab: u64,
}

/// `close_tab`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseTabArgs {
    /// The tab's number, as `tabs` lists it (left out: the current tab). The journey's
    /// first tab (0) stays open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<u64>,
}

/// How a JavaScript dialog is answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DialogAction {
    /// OK: an alert closed, a confirm or `beforeunload` said yes, a prompt given its text.
    #[default]
    Accept,
    /// Cancel: a confirm said no (`false`), a prompt `null`, a page kept (`beforeunload`).
    Dismiss,
}

/// `on_dialog`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnDialogArgs {
    /// How the page's following JavaScript dialogs (`alert`, `confirm`, `prompt`,
    /// `beforeunload`) are answered: `accept` (the default until told otherwise) or
    /// `dismiss`.
    #[serde(default)]
    pub action: DialogAction,
    /// What is typed into a `prompt` before it is accepted (none: the prompt's own
    /// default text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `wait_for`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitForArgs {
    /// Wait until this control is shown (an anchor as `read_screen` lists it, or one the
    /// registry promises; `claims.open[1042]` for a repeated control).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// The key of a repeated control, when it is not written inside `anchor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// With `anchor`: wait for the one of its controls at this place, counted from 0 in
    /// document order (shown, or with `gone` absent or hidden).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    /// Wait until the page shows this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Wait until the route is this (`/claims`; with its query or fragment when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// Wait instead until the anchor (or else the text) is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gone: Option<bool>,
    /// With `anchor`: wait until it is enabled (true) or disabled (false) as well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// How long to wait at most, in milliseconds (default: the action timeout, 5000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Wait for a request the journey's pages send to this pattern (the routes' globs:
    /// `/api/items/**`, or an absolute URL), since the start of the last call that could
    /// have caused it (so written after the action that sends it); returned as `exchange`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// Wait for the response to a request to this pattern (as `request`), its body loaded;
    /// returned as `exchange` (method, url, status, headers, json or text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// With `request` or `response`: only requests of this method (`POST`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// With `response`: only a response of this HTTP status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

impl WaitForArgs {
    /// The condition waited for.
    pub(crate) fn condition(&self) -> Condition {
        Condition {
            anchor: self.anchor.clone(),
            key: self.key.clone(),
            nth: self.nth,
            text: self.text.clone(),
            route: self.route.clone(),
            gone: self.gone.unwrap_or(false),
            enabled: self.enabled,
            timeout: self.timeout_ms.map(std::time::Duration::from_millis),
            request: self.request.clone(),
            response: self.response.clone(),
            method: self.method.clone(),
            status: self.status,
        }
    }
}

/// `route`: how the journey's tabs answer the requests a pattern matches, from now on.
/// Exactly one of: a response (`status`, `body` or `json`, `headers`, `content_type`,
/// `delay_ms`), `abort`, or `continue`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteArgs {
    /// The requests it answers: a glob on the app-relative path (`/api/items/**`: `*`
    /// within a path segment, `**` across them) or on an absolute URL
    /// (`https://cdn.example/**`). A query is part of what is matched (`/api/items?page=2`).
    /// The route of the same pattern and method before it is replaced.
    pub pattern: String,
    /// Only requests of this method (`POST`); any method when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The response's status (default 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The response's body, as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The response's body as JSON (its content type `application/json` then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<serde_json::Value>,
    /// The response's headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// The response's content type (default `text/plain`, or `application/json` with
    /// `json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Hold the response this long first, in milliseconds (at most 60000): a slow server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Fail the requests instead, as the network would: `failed`, `timedout` or `refused`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<AbortArg>,
    /// Let the requests through to the server, changed: `{headers}` set on them.
    #[serde(default, rename = "continue", skip_serializing_if = "Option::is_none")]
    pub pass: Option<ContinueArgs>,
}

/// How `route` fails a request.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AbortArg {
    /// `net::ERR_FAILED`.
    Failed,
    /// `net::ERR_TIMED_OUT`.
    Timedout,
    /// `net::ERR_CONNECTION_REFUSED`.
    Refused,
}

/// `route`'s `continue`: what is changed on a request let through.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContinueArgs {
    /// Headers set on the request (added, or replacing its own of the same name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<std::collections::BTreeMap<String, String>>,
}

/// `unroute`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnrouteArgs {
    /// The pattern of the routes to remove, as `route` was given it (every method's).
    pub pattern: String,
}

/// `request`: an HTTP request to the app, made from the journey's page with its cookies.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestArgs {
    /// The method (default `GET`). `GET` and `HEAD` are reads; any other acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Where: an app-relative route (`/api/items`), or an absolute URL on the app's origin.
    pub route: String,
    /// A JSON body (sent as `application/json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<serde_json::Value>,
    /// A form body, field by field (sent as `application/x-www-form-urlencoded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<std::collections::BTreeMap<String, String>>,
    /// Request headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<std::collections::BTreeMap<String, String>>,
}

impl RequestArgs {
    /// The method, upper case.
    pub(crate) fn method(&self) -> String {
        self.method
            .as_deref()
            .unwrap_or("GET")
            .trim()
            .to_ascii_uppercase()
    }

    /// Its class: `read` for `GET` and `HEAD`, `act` for any other method.
    pub(crate) fn class(&self) -> ActionClass {
        match self.method().as_str() {
            "GET" | "HEAD" => ActionClass::Read,
            _ => ActionClass::Act,
        }
    }
}

/// `set_offline`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetOfflineArgs {
    /// `true`: the journey's tabs lose the network (every request fails, `navigator.onLine`
    /// is false); `false`: they have it again (with the throttle they had).
    pub offline: bool,
}

/// `set_network`: the throttle of the journey's tabs; with no field, none.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetNetworkArgs {
    /// Latency added to every request, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// Download bandwidth in kilobits per second (unlimited when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_kbps: Option<f64>,
    /// Upload bandwidth in kilobits per second (unlimited when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_kbps: Option<f64>,
}

/// `move_pointer`: the pointer moved to a point of the viewport, as a hand moves the mouse.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MovePointerArgs {
    /// Horizontal, in CSS pixels from the viewport's left edge. Outside the viewport
    /// (negative, or past its width) the pointer leaves the page.
    pub x: f64,
    /// Vertical, in CSS pixels from the viewport's top edge. Outside the viewport
    /// (negative, or past its height) the pointer leaves the page: `y: -1` leaves it
    /// through the top, as a person heading for the tabs or the address bar.
    pub y: f64,
}

/// `scroll`: the page scrolled by an amount, as a person scrolls it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollArgs {
    /// How far to scroll across, in CSS pixels (negative: to the left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// How far to scroll down, in CSS pixels (negative: up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
}

/// `scroll_to`: a control scrolled into view.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollToArgs {
    /// The control's anchor as `read_screen` listed it (`claims.open[1042]` for a repeated
    /// control).
    pub anchor: String,
    /// The key of a repeated control, when it is not written inside `anchor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Which of the controls the anchor names, counted from 0 in document order, when
    /// several share it with no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
}

/// `http_credentials`: the user name and password the journey's pages answer a server's
/// HTTP authentication challenge (basic or digest) with, from now on, in place of
/// `--http-credentials`. Secrets: recorded `[redacted]`, never shown.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCredentialsArgs {
    /// The user name.
    pub user: String,
    /// The password.
    pub pass: String,
}

impl std::fmt::Debug for HttpCredentialsArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HttpCredentialsArgs([redacted])")
    }
}

/// `set_headers`: headers every request of the journey's pages carries from now on (in place
/// of those it set before; over `--header`). Their values are secrets: recorded
/// `[redacted]`, never shown.
#[derive(Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeadersArgs {
    /// Header name → value (`{"X-Tenant": "acme"}`); `{}` takes the journey's own away.
    pub headers: std::collections::BTreeMap<String, String>,
}

impl std::fmt::Debug for HeadersArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&String> = self.headers.keys().collect();
        write!(f, "HeadersArgs({names:?}, values [redacted])")
    }
}

/// `set_geolocation`: where the journey's pages are told the person is (the page also needs
/// the `geolocation` permission: `grant_permissions`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GeolocationArgs {
    /// Degrees north, -90 to 90.
    #[serde(deserialize_with = "number")]
    pub latitude: f64,
    /// Degrees east, -180 to 180.
    #[serde(deserialize_with = "number")]
    pub longitude: f64,
    /// How sure, in metres (default 0).
    #[serde(
        default,
        deserialize_with = "some_number",
        skip_serializing_if = "Option::is_none"
    )]
    pub accuracy: Option<f64>,
}

/// A number written either way (`10` or `10.0`: a script's integer is a number too).
#[derive(Deserialize)]
#[serde(untagged)]
enum Number {
    Int(i64),
    Float(f64),
}

fn number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    #[expect(
        clippy::cast_precision_loss,
        reason = "coordinates and metres are far inside f64's integers"
    )]
    Ok(match Number::deserialize(d)? {
        Number::Int(i) => i as f64,
        Number::Float(f) => f,
    })
}

fn some_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    number(d).map(Some)
}

/// `grant_permissions`: permissions the app's origin is granted in the journey's browser
/// context, by the web's names (`geolocation`, `clipboard-read`, `clipboard-write`,
/// `notifications`, `camera`, `microphone`, `midi`…).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PermissionsArgs {
    /// The permissions' names.
    pub permissions: Vec<String>,
}
/// A time for the clock: epoch milliseconds, or an ISO-8601 string
/// (`2026-01-31T23:59:00`: without a zone, the browser's local time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ClockTime {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    Epoch(i64),
    /// An ISO-8601 date and time (`2026-01-31T23:59:00`, `2026-01-31T23:59:00Z`).
    Iso(String),
}

impl std::fmt::Display for ClockTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClockTime::Epoch(ms) => write!(f, "{ms}"),
            ClockTime::Iso(text) => write!(f, "{text}"),
        }
    }
}

/// `clock_install`: a fake clock in every frame of the journey's tabs, running from
/// `time` (as Playwright's `clock.install`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockInstallArgs {
    /// Where the clock starts (default: now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<ClockTime>,
}

/// `clock_set`: the time the pages see from now on; no timer fires (Playwright's
/// `clock.setSystemTime`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockSetArgs {
    /// The time.
    pub time: ClockTime,
}

/// `clock_advance`: the clock moved on, the timers due on the way run in order
/// (Playwright's `clock.runFor`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockAdvanceArgs {
    /// How far, in milliseconds.
    pub ms: u64,
}

/// `clock_pause`: the clock stands still where it is (Playwright's `clock.pauseAt` now).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockPauseArgs {}

/// `clock_resume`: the clock runs with real time again (Playwright's `clock.resume`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockResumeArgs {}

/// `handoff`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffArgs {
    /// What the person should do, in a few words (`log in`, `enter the 2FA code`).
    pub reason: String,
}

/// `finish`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FinishArgs {
    /// What the journey achieved, or why it stops, in a sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// The schema of an argument struct whose `anchor` a journey may leave out for another
/// target: required all the same for agents, who have no other.
fn anchor_required(schema: &mut schemars::Schema) {
    if let Some(obj) = schema.as_object_mut() {
        let required = obj
            .entry("required")
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
        if let Some(list) = required.as_array_mut()
            && !list.iter().any(|v| v == "anchor")
        {
            list.insert(0, serde_json::Value::from("anchor"));
        }
    }
}
