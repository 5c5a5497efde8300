//! The MCP server: the tools a model may call, each one call through the gateway, its
//! round trip returned as structured content with a short text beside it (the tools as a
//! model sees them are in `tools.rs`).
//!
//! One session drives one tab. The app is started (or checked) when the server starts; the
//! browser only on the first call that needs it, so listing the tools never waits for a
//! browser. Calls are performed one at a time, except `handoff`, which must not stop a
//! call from hearing `paused_by_user` while the person has the tab.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, Peer, RoleServer};
use serde_json::{Value, json};

use super::{elicit, render};
use crate::anchor::AnchorRef;
use crate::browser::ChromiumTab;
use crate::control::TabState;
use crate::session::{Open, Session, Surface};
use crate::tools::{Attribution, Call, ErrorCode, Gateway, REDACTED, RoundTrip, ToolError};
use crate::transcript::Recorder;

/// Longest wait for the browser to start on the first call.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(60);

/// The description budget of a read when `--budget` is not given: what a model's context
/// can take in one answer (about 150 controls); the rest is reported by region.
pub(crate) const DEFAULT_BUDGET: usize = 24_000;

/// The server a client talks to. Cheap to clone (the router needs it).
#[derive(Clone)]
pub(crate) struct Server {
    pub(crate) inner: Arc<Inner>,
    pub(super) tool_router: ToolRouter<Server>,
}

pub(crate) struct Inner {
    /// The app, the browser (started on the first call that needs it), the gates.
    pub(super) session: Session,
    /// The tab's surface, once a call needed it.
    surface: tokio::sync::Mutex<Option<Surface>>,
    /// One call at a time on the tab (a handoff excepted).
    busy: tokio::sync::Mutex<()>,
    /// The client, for asking the person (elicitation).
    peer: Arc<Mutex<Option<Peer<RoleServer>>>>,
    recorder: Option<Recorder>,
}

impl Server {
    /// A server whose tab opens in `session`, recording every call to `recorder`.
    pub(crate) fn new(session: Session, recorder: Option<Recorder>) -> Server {
        let tool_router = super::tools::router(session.settings().tools.read_only);
        Server {
            inner: Arc::new(Inner {
                session,
                surface: tokio::sync::Mutex::new(None),
                busy: tokio::sync::Mutex::new(()),
                peer: Arc::new(Mutex::new(None)),
                recorder,
            }),
            tool_router,
        }
    }

    /// Performs `call` for the client behind `peer`, records it, and renders the result.
    pub(super) async fn perform(
        &self,
        call: Call,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Ok(mut slot) = self.inner.peer.lock() {
            *slot = Some(peer);
        }
        let (value, text, failed, secret) = match &call {
            Call::Finish(args) => {
                let route = self.inner.route().await;
                // The agent's own words, echoed: cut like every input shown.
                let shown = args.summary.as_deref().map(crate::protocol::cut);
                let summary = shown.as_deref().unwrap_or_default();
                let value = json!({"tool": "finish", "ok": true, "route": route,
                                   "summary": shown, "error": null});
                let text = format!("finish ok: the journey ends on {route}. {summary}");
                (value, text, false, false)
            }
            _ => match self.inner.gateway().await {
                Err(e) => {
                    let value = json!({"tool": call.tool(), "ok": false, "error": e});
                    let text =
                        format!("{} failed: {}: {}", call.tool(), e.code.as_str(), e.message);
                    (value, text, true, false)
                }
                Ok(gateway) => {
                    let _turn = match &call {
                        Call::Handoff(args) => {
                            let reason = crate::protocol::cut(&args.reason);
                            self.inner.done_through_client(&reason).await;
                            None
                        }
                        _ => Some(self.inner.busy.lock().await),
                    };
                    let secret = secret_target(&gateway, &call);
                    match gateway.call(&call).await {
                        Some(rt) => {
                            let secret = secret || shows_redacted(&rt, &call);
                            (
                                round_trip_value(&rt),
                                render::round_trip(&rt),
                                !rt.ok,
                                secret,
                            )
                        }
                        None => (Value::Null, String::new(), false, secret),
                    }
                }
            },
        };
        if let Some(recorder) = &self.inner.recorder {
            recorder.record(call.tool(), call.arguments(secret), value.clone());
        }
        let mut result = if failed {
            CallToolResult::structured_error(value)
        } else {
            CallToolResult::structured(value)
        };
        result.content = vec![ContentBlock::text(text)];
        Ok(result)
    }
}

/// The round trip as structured content: its JSON, saying whether page text is in it.
fn round_trip_value(rt: &RoundTrip) -> Value {
    let mut value = serde_json::to_value(rt).unwrap_or(Value::Null);
    if let Some(map) = value.as_object_mut() {
        map.insert("untrusted".to_string(), json!(rt.screen.is_some()));
    }
    value
}

/// Whether the last read saw the field a fill types into as a secret one.
fn secret_target(gateway: &Gateway<ChromiumTab>, call: &Call) -> bool {
    let Call::Fill(args) = call else {
        return false;
    };
    AnchorRef::parse(&args.anchor).is_ok_and(|target| gateway.is_secret(&target))
}

/// Whether the screen after a fill shows the field's value redacted (a secret field).
fn shows_redacted(rt: &RoundTrip, call: &Call) -> bool {
    let (Call::Fill(args), Some(screen)) = (call, &rt.screen) else {
        return false;
    };
    let Ok(target) = AnchorRef::parse(&args.anchor) else {
        return false;
    };
    screen
        .control(target.id.as_str(), target.key.as_deref())
        .is_some_and(|c| c.value.as_deref() == Some(REDACTED))
}

impl Inner {
    /// The tab's gateway, starting the browser on first use.
    async fn gateway(&self) -> Result<Gateway<ChromiumTab>, ToolError> {
        let mut surface = self.surface.lock().await;
        if let Some(s) = surface.as_ref() {
            if self.session.launched().is_none_or(|b| b.is_connected()) {
                return Ok(s.gateway());
            }
            // The browser went away (killed, crashed): this call gets a tab in a new one,
            // as a run's next journey does. The old tab has nobody left to close it.
            if let Some(gone) = surface.take() {
                let _ = tokio::time::timeout(Duration::from_secs(2), gone.close()).await;
            }
        }
        let not_started = |why: String| {
            ToolError::new(
                ErrorCode::BrowserCrashed,
                format!("the browser could not be started: {why}"),
            )
            .attributed(Attribution::Environment)
        };
        tokio::time::timeout(LAUNCH_TIMEOUT, self.session.browser())
            .await
            .map_err(|_| not_started(format!("no answer within {} s", LAUNCH_TIMEOUT.as_secs())))?
            .map_err(|e| not_started(e.to_string()))?;
        let open = Open::agent("mcp", elicit::asker(Arc::clone(&self.peer)));
        let opened = self
            .session
            .open(open)
            .await
            .map_err(|e| not_started(e.to_string()))?;
        let gateway = opened.gateway();
        *surface = Some(opened);
        Ok(gateway)
    }

    /// Lets the person finish the coming handoff through the client too (when it can show
    /// a question): once the tab is handed over, they are asked to say when they are done.
    async fn done_through_client(&self, reason: &str) {
        let peer = self.peer.lock().ok().and_then(|p| p.clone());
        // The tab the calls are on: a popup's own place in the hub, after a switch.
        let tab = self.surface.lock().await.as_ref().and_then(|s| {
            let control = s.gateway().control();
            control.map(|c| c.tab).or_else(|| s.tab())
        });
        let (Some(peer), Some(tab)) = (peer, tab) else {
            return;
        };
        if !elicit::can_ask(&peer) {
            return;
        }
        let hub = Arc::clone(self.session.hub());
        let reason = reason.to_string();
        let timeout = self.session.settings().tools.handoff_timeout;
        tokio::spawn(async move {
            // The handoff begins once the call passes its gates; one refused never begins.
            let handed = async {
                while hub.tab(tab).map(|t| t.state) != Some(TabState::Handoff) {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            };
            if tokio::time::timeout(Duration::from_secs(10), handed)
                .await
                .is_err()
            {
                return;
            }
            let asked = tokio::time::timeout(timeout, elicit::done(&peer, &reason)).await;
            if asked == Ok(true) {
                // A handoff that already ended (timed out) has nothing left to finish.
                let _ = hub.done(tab);
            }
        });
    }

    /// The tab's route as of its last call.
    async fn route(&self) -> String {
        let surface = self.surface.lock().await;
        surface
            .as_ref()
            .and_then(|s| s.tab())
            .and_then(|tab| self.session.hub().tab(tab))
            .map(|t| t.route)
            .unwrap_or_else(|| "about:blank".to_string())
    }

    /// Closes the tab, if it was opened.
    pub(crate) async fn close_tab(&self) {
        if let Some(surface) = self.surface.lock().await.take() {
            surface.close().await;
        }
    }

    /// Closes the tab, then the browser, if they were started.
    pub(crate) async fn close(self) {
        self.close_tab().await;
        self.session.close().await;
    }
}
