//! The tools' arguments as a model sends them (each field's doc comment is its description
//! in the JSON schema the client lists), and one call performed through the gateway. The
//! server and the replay of a transcript both perform calls here, so a replay is the same
//! call the agent made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::browser::Tab;
use crate::screen::View;
use crate::tools::{Condition, RoundTrip, Tools};

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
}

/// `invoke`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InvokeArgs {
    /// The control's anchor exactly as `read_screen` listed it (`claim.approve`), never a
    /// label, selector or position. A repeated control may carry its key inline:
    /// `claims.open[1042]`.
    pub anchor: String,
    /// The key of a repeated control (`1042`), when it is not written inside `anchor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// `press`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PressArgs {
    /// The control's anchor as `read_screen` listed it (`claims.search`, or
    /// `claims.open[1042]` for a repeated control).
    pub anchor: String,
    /// The key to press on it: `Enter`, `Escape`, `Tab`, `ArrowDown`, `Space`, a letter…
    pub key_name: String,
}

/// `fill`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillArgs {
    /// The field's anchor as `read_screen` listed it (an editable control).
    pub anchor: String,
    /// The whole new value; it replaces what the field held. A select is filled by its
    /// option's label.
    pub text: String,
}

/// `hover`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HoverArgs {
    /// The control's anchor as `read_screen` listed it (`nav.products`), or
    /// `claims.open[1042]` for a repeated control.
    pub anchor: String,
}

/// `drag`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DragArgs {
    /// The anchor of the control to drag (`board.card[7]`).
    pub from: String,
    /// The anchor of the control to drop it on (`board.column[done]`).
    pub to: String,
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
}

impl WaitForArgs {
    fn condition(&self) -> Condition {
        Condition {
            anchor: self.anchor.clone(),
            key: self.key.clone(),
            text: self.text.clone(),
            route: self.route.clone(),
            gone: self.gone.unwrap_or(false),
            enabled: self.enabled,
            timeout: self.timeout_ms.map(std::time::Duration::from_millis),
        }
    }
}

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

/// One tool call, as made or recorded.
#[derive(Debug, Clone)]
pub enum Call {
    /// Open a route.
    Navigate(NavigateArgs),
    /// Read the screen.
    Read(ReadArgs),
    /// Press a control.
    Invoke(InvokeArgs),
    /// Press a key on a control.
    Press(PressArgs),
    /// Set a field's value.
    Fill(FillArgs),
    /// Wait for a condition, then read the screen.
    WaitFor(WaitForArgs),
    /// Move the pointer onto a control.
    Hover(HoverArgs),
    /// Drag a control onto another.
    Drag(DragArgs),
    /// Answer a control's file chooser with a fixture.
    Upload(UploadArgs),
    /// List the journey's tabs.
    Tabs(TabsArgs),
    /// Move to another of the journey's tabs.
    SwitchTab(SwitchTabArgs),
    /// Hand the tab to the person.
    Handoff(HandoffArgs),
    /// End the journey.
    Finish(FinishArgs),
}

impl Call {
    /// The call named `tool` with `arguments` (as a transcript records them).
    pub fn parse(tool: &str, arguments: serde_json::Value) -> Result<Call, String> {
        let args = if arguments.is_null() {
            serde_json::json!({})
        } else {
            arguments
        };
        let bad = |e: serde_json::Error| format!("the arguments of `{tool}` do not fit it: {e}");
        Ok(match tool {
            "navigate" => Call::Navigate(serde_json::from_value(args).map_err(bad)?),
            "read_screen" => Call::Read(serde_json::from_value(args).map_err(bad)?),
            "invoke" => Call::Invoke(serde_json::from_value(args).map_err(bad)?),
            "press" => Call::Press(serde_json::from_value(args).map_err(bad)?),
            "fill" => Call::Fill(serde_json::from_value(args).map_err(bad)?),
            "wait_for" => Call::WaitFor(serde_json::from_value(args).map_err(bad)?),
            "hover" => Call::Hover(serde_json::from_value(args).map_err(bad)?),
            "drag" => Call::Drag(serde_json::from_value(args).map_err(bad)?),
            "upload" => Call::Upload(serde_json::from_value(args).map_err(bad)?),
            "tabs" => Call::Tabs(serde_json::from_value(args).map_err(bad)?),
            "switch_tab" => Call::SwitchTab(serde_json::from_value(args).map_err(bad)?),
            "handoff" => Call::Handoff(serde_json::from_value(args).map_err(bad)?),
            "finish" => Call::Finish(serde_json::from_value(args).map_err(bad)?),
            other => return Err(format!("`{other}` is not one of waymark's tools")),
        })
    }

    /// The tool's name.
    pub fn tool(&self) -> &'static str {
        match self {
            Call::Navigate(_) => "navigate",
            Call::Read(_) => "read_screen",
            Call::Invoke(_) => "invoke",
            Call::Press(_) => "press",
            Call::Fill(_) => "fill",
            Call::WaitFor(_) => "wait_for",
            Call::Hover(_) => "hover",
            Call::Drag(_) => "drag",
            Call::Upload(_) => "upload",
            Call::Tabs(_) => "tabs",
            Call::SwitchTab(_) => "switch_tab",
            Call::Handoff(_) => "handoff",
            Call::Finish(_) => "finish",
        }
    }

    /// The arguments as recorded; a fill's text is replaced when `secret`.
    pub fn arguments(&self, secret: bool) -> serde_json::Value {
        let value = match self {
            Call::Navigate(a) => serde_json::to_value(a),
            Call::Read(a) => serde_json::to_value(a),
            Call::Invoke(a) => serde_json::to_value(a),
            Call::Press(a) => serde_json::to_value(a),
            Call::Fill(a) if secret => serde_json::to_value(FillArgs {
                anchor: a.anchor.clone(),
                text: REDACTED.to_string(),
            }),
            Call::Fill(a) => serde_json::to_value(a),
            Call::WaitFor(a) => serde_json::to_value(a),
            Call::Hover(a) => serde_json::to_value(a),
            Call::Drag(a) => serde_json::to_value(a),
            Call::Upload(a) => serde_json::to_value(a),
            Call::Tabs(a) => serde_json::to_value(a),
            Call::SwitchTab(a) => serde_json::to_value(a),
            Call::Handoff(a) => serde_json::to_value(a),
            Call::Finish(a) => serde_json::to_value(a),
        };
        value.unwrap_or(serde_json::Value::Null)
    }

    /// The control an acting call targets, as a reference (`anchor` or `anchor[key]`).
    pub fn target(&self) -> Option<String> {
        match self {
            Call::Invoke(a) => Some(match &a.key {
                Some(key) => format!("{}[{key}]", a.anchor),
                None => a.anchor.clone(),
            }),
            Call::Press(a) => Some(a.anchor.clone()),
            Call::Fill(a) => Some(a.anchor.clone()),
            Call::Drag(a) => Some(a.from.clone()),
            Call::Upload(a) => Some(a.anchor.clone()),
            _ => None,
        }
    }

    /// Performs the call through the gateway. `finish` acts on nothing: `None`.
    pub async fn perform<T: Tab>(&self, tools: &Tools<T>) -> Option<RoundTrip> {
        Some(match self {
            Call::Navigate(a) => tools.navigate(&a.route).await,
            Call::Read(a) => {
                let budget = match a.budget {
                    Some(b) => Some(usize::try_from(b).unwrap_or(usize::MAX)),
                    None => tools.options().budget,
                };
                let view = View {
                    budget,
                    region: a.region.clone(),
                    nodes: a.nodes.unwrap_or(false),
                };
                tools.read_screen_with(view).await
            }
            Call::Invoke(a) => tools.invoke(&a.anchor, a.key.as_deref()).await,
            Call::Press(a) => tools.press(&a.anchor, &a.key_name).await,
            Call::Fill(a) => tools.fill(&a.anchor, &a.text).await,
            Call::WaitFor(a) => tools.wait_for(&a.condition()).await,
            Call::Hover(a) => tools.hover(&a.anchor, None).await,
            Call::Drag(a) => tools.drag(&a.from, &a.to).await,
            Call::Upload(a) => tools.upload(&a.anchor, &a.path).await,
            Call::Tabs(_) => tools.list_tabs().await,
            Call::SwitchTab(a) => {
                tools
                    .switch_tab(usize::try_from(a.tab).unwrap_or(usize::MAX))
                    .await
            }
            Call::Handoff(a) => tools.handoff(&a.reason).await,
            Call::Finish(_) => return None,
        })
    }
}

/// What a secret field's text is recorded as.
pub const REDACTED: &str = "[redacted]";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_calls_parse_back_and_secrets_stay_out() {
        let call = Call::parse(
            "fill",
            serde_json::json!({"anchor": "login.password", "text": "hunter2"}),
        )
        .unwrap();
        assert_eq!(call.tool(), "fill");
        assert_eq!(
            call.arguments(true),
            serde_json::json!({"anchor": "login.password", "text": "[redacted]"})
        );
        assert_eq!(call.target().as_deref(), Some("login.password"));
        let invoke = Call::parse(
            "invoke",
            serde_json::json!({"anchor": "claims.open", "key": "1042"}),
        )
        .unwrap();
        assert_eq!(invoke.target().as_deref(), Some("claims.open[1042]"));
        assert!(Call::parse("read_screen", serde_json::Value::Null).is_ok());
        let err = Call::parse("click", serde_json::json!({})).unwrap_err();
        assert!(err.contains("`click`"), "{err}");
        let err = Call::parse("invoke", serde_json::json!({"anchor": 3})).unwrap_err();
        assert!(err.contains("do not fit"), "{err}");
    }
}
