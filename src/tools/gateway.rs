//! The two handles on a tab's tools. A journey of any kind (Rhai, an agent over MCP, a
//! replayed transcript) holds a [`Gateway`], whose one door is [`Gateway::call`]: every
//! [`Call`] passes the gates, acts, reads back and is recorded. What the product does
//! beside journeys (the bench's floors, `suggest`'s questions, `state save`, the runner's
//! screenshot after a failure) holds a [`Backstage`], whose narrow methods are named for
//! what each asks. Neither derefs to [`Tools`]: a journey cannot reach an ungated method.
//!
//! ```compile_fail
//! // A journey's handle has no way past the gates: `ping` is the bench's.
//! async fn sneak(gateway: &waymark::tools::Gateway<waymark::browser::ChromiumTab>) {
//!     let _ = gateway.ping().await;
//! }
//! ```
//!
//! ```no_run
//! // What a journey does with it instead: one call, gated and recorded.
//! use waymark::tools::{Call, Gateway, ReadArgs};
//! async fn read(gateway: &Gateway<waymark::browser::ChromiumTab>) {
//!     let _ = gateway.call(&Call::Read(ReadArgs::default())).await;
//! }
//! ```

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::clock::ClockOp;
use super::trace::Trace;
use super::verbs::Call;
use super::{
    AllowedSet, FileScope, Found, NodeFacts, RoundTrip, ToolError, ToolOptions, Tools, Verb,
};
use crate::anchor::AnchorRef;
use crate::browser::Tab;
use crate::control::TabGates;
use crate::control::cookies::state::StorageState;
use crate::registry::{Matchers, Registry};
use crate::screen::View;
use crate::screen::audit::PerceptionAudit;

/// A journey's handle on its tab: calls through the gates, and the few settings a journey
/// makes for its own later calls.
pub struct Gateway<T: Tab> {
    tools: Arc<Tools<T>>,
}

impl<T: Tab> Clone for Gateway<T> {
    fn clone(&self) -> Self {
        Gateway {
            tools: Arc::clone(&self.tools),
        }
    }
}

impl<T: Tab> Gateway<T> {
    /// The gateway over `tools`.
    pub fn new(tools: Arc<Tools<T>>) -> Gateway<T> {
        Gateway { tools }
    }

    /// Performs `call`: the gates, the action through the tab, the read back, the record.
    /// `finish` acts on nothing: `None`.
    pub async fn call(&self, call: &Call) -> Option<RoundTrip> {
        let t = &*self.tools;
        let aimed = call.aimed();
        t.mark_traffic(call);
        // Every arm's future boxed: inline, the call's future is its largest arm's size,
        // held on the stack of the thread that polls it (a tokio worker's, or a journey's, 2
        // MiB), and a debug build outgrew it once the verbs of issues 51 and 52 were in.
        Some(match call {
            // The pointer's and the scroll's calls, and the targets a hover or an upload
            // names by `nth` or a point: one boxed future (see `tools::pointer`).
            Call::Invoke(a) if a.click().is_some() => Box::pin(t.pointer_call(call, aimed)).await,
            Call::Hover(_) | Call::Upload(_) if matches!(aimed, Ok(Some(_))) => {
                t.pointer_call(call, aimed).await
            }
            Call::Drag(a) if a.from_nth.is_some() || a.to_nth.is_some() => {
                t.pointer_call(call, aimed).await
            }
            Call::MovePointer(_) | Call::Scroll(_) | Call::ScrollTo(_) => {
                t.pointer_call(call, aimed).await
            }
            Call::Navigate(a) => Box::pin(t.navigate(&a.route)).await,
            Call::Read(a) => Box::pin(t.read_screen_with(a.view(t.options().budget))).await,
            Call::Invoke(a) => match aimed {
                Ok(Some(target)) => Box::pin(t.invoke_target(&target)).await,
                _ => Box::pin(t.invoke(&a.anchor, a.key.as_deref())).await,
            },
            Call::Press(a) => match aimed {
                Ok(Some(target)) => Box::pin(t.press_target(&target, &a.key_name)).await,
                _ => Box::pin(t.press(&a.anchor, &a.key_name)).await,
            },
            Call::Fill(a) => match aimed {
                Ok(Some(target)) => Box::pin(t.fill_target(&target, &a.text)).await,
                _ => Box::pin(t.fill(&a.anchor, &a.text)).await,
            },
            Call::WaitFor(a) => Box::pin(t.wait_for(&a.condition())).await,
            Call::Hover(a) => Box::pin(t.hover(&a.anchor, a.key.as_deref())).await,
            Call::Drag(a) => Box::pin(t.drag(&a.from, &a.to)).await,
            Call::Upload(a) => Box::pin(t.upload(&a.anchor, &a.path)).await,
            Call::Tabs(_) => Box::pin(t.list_tabs()).await,
            Call::SwitchTab(a) => {
                Box::pin(t.switch_tab(usize::try_from(a.tab).unwrap_or(usize::MAX))).await
            }
            Call::CloseTab(a) => {
                let tab = a.tab.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
                Box::pin(t.close_tab(tab)).await
            }
            Call::OnDialog(a) => Box::pin(t.on_dialog(a)).await,
            Call::Route(a) => Box::pin(t.route(a)).await,
            Call::Unroute(a) => Box::pin(t.unroute(&a.pattern)).await,
            Call::Request(a) => Box::pin(t.request(a)).await,
            Call::SetOffline(a) => Box::pin(t.set_offline(a.offline)).await,
            Call::SetNetwork(a) => Box::pin(t.set_network(a)).await,
            Call::HttpCredentials(a) => Box::pin(t.http_credentials(a)).await,
            Call::SetHeaders(a) => Box::pin(t.set_headers(a)).await,
            Call::SetGeolocation(a) => Box::pin(t.set_geolocation(a)).await,
            Call::GrantPermissions(a) => Box::pin(t.grant_permissions(a)).await,
            Call::ClockInstall(a) => Box::pin(t.clock(ClockOp::Install(a.time.clone()))).await,
            Call::ClockSet(a) => Box::pin(t.clock(ClockOp::Set(a.time.clone()))).await,
            Call::ClockAdvance(a) => Box::pin(t.clock(ClockOp::Advance(a.ms))).await,
            Call::ClockPause(_) => Box::pin(t.clock(ClockOp::Pause)).await,
            Call::ClockResume(_) => Box::pin(t.clock(ClockOp::Resume)).await,
            Call::Handoff(a) => Box::pin(t.handoff(&a.reason)).await,
            Call::Finish(_) => return None,
        })
    }

    /// [`call`](Gateway::call), cut short at `until`, the journey's deadline (`deadline`
    /// long from its start): a call cut short is asked why (a page that no longer
    /// responds is `page_unresponsive`, anything else the deadline's `timeout`).
    pub async fn call_until(
        &self,
        call: &Call,
        until: tokio::time::Instant,
        deadline: Duration,
    ) -> Option<RoundTrip> {
        match tokio::time::timeout_at(until, self.call(call)).await {
            Ok(rt) => rt,
            Err(_) => Some(self.tools.past_deadline(call.tool(), deadline).await),
        }
    }

    /// The bounds and caps the calls work within.
    pub fn options(&self) -> &ToolOptions {
        self.tools.options()
    }

    /// The registry anchors resolve against.
    pub fn registry(&self) -> &Registry {
        self.tools.registry()
    }

    /// Permits exactly `classes` for the following calls (see [`Tools::allow`]).
    pub fn allow(&self, classes: AllowedSet) {
        self.tools.allow(classes);
    }

    /// How long an action waits for its target now.
    pub fn action_timeout(&self) -> Duration {
        self.tools.action_timeout()
    }

    /// Sets how long the following actions wait for their target (`None`: the run's).
    pub fn set_action_timeout(&self, timeout: Option<Duration>) {
        self.tools.set_action_timeout(timeout);
    }

    /// Sets how long the following actions wait for the page to settle.
    pub fn set_settle_timeout(&self, timeout: Option<Duration>) {
        self.tools.set_settle_timeout(timeout);
    }

    /// Which files `upload` may send, and where downloads are kept.
    pub fn set_file_scope(&self, scope: FileScope) {
        self.tools.set_file_scope(scope);
    }

    /// Waits, at most `within`, for the page to change, saying whether it did: what
    /// `eventually` waits on between tries. Nothing of the page comes back.
    pub async fn wait_change(&self, within: Duration) -> Result<bool, ToolError> {
        self.tools.wait_change(within).await
    }

    /// Whether the last read saw the field `target` as a secret one (a password field),
    /// whose text is never recorded.
    pub fn is_secret(&self, target: &AnchorRef) -> bool {
        self.tools.last_observation().is_some_and(|raw| {
            raw.controls.iter().any(|c| {
                c.secret
                    && c.anchor == target.id.as_str()
                    && c.key.as_deref() == target.key.as_deref()
            })
        })
    }

    /// The hub, tab and policies the current tab's calls are gated by, if any.
    pub fn control(&self) -> Option<TabGates> {
        self.tools.control()
    }

    /// The app's base URL (a journey's `base_url()`).
    pub fn base(&self) -> &url::Url {
        self.tools.base()
    }

    /// Whether the surface offers `verb` at all (a read-only one offers no acting verb).
    pub fn offers(&self, verb: Verb) -> bool {
        !(self.tools.options().read_only && verb.acts())
    }
}

/// The trusted side's handle on a tab: the gated verbs the bench and the commands use, and
/// the questions only they ask, each a method of its own.
pub struct Backstage<T: Tab> {
    tools: Arc<Tools<T>>,
}

impl<T: Tab> Clone for Backstage<T> {
    fn clone(&self) -> Self {
        Backstage {
            tools: Arc::clone(&self.tools),
        }
    }
}

impl<T: Tab> Backstage<T> {
    /// The backstage over `tools`.
    pub fn new(tools: Arc<Tools<T>>) -> Backstage<T> {
        Backstage { tools }
    }

    /// The gateway over the same tools, for the calls a command makes as a journey would.
    pub fn gateway(&self) -> Gateway<T> {
        Gateway::new(Arc::clone(&self.tools))
    }

    /// `navigate`, gated (see [`Tools::navigate`]).
    pub async fn navigate(&self, route: &str) -> RoundTrip {
        self.tools.navigate(route).await
    }

    /// `read_screen`, gated.
    pub async fn read_screen(&self) -> RoundTrip {
        self.tools.read_screen().await
    }

    /// `read_screen` as `view` says, gated.
    pub async fn read_screen_with(&self, view: View) -> RoundTrip {
        self.tools.read_screen_with(view).await
    }

    /// `handoff`, gated: the person's turn (`state save` waits for a sign-in).
    pub async fn handoff(&self, reason: &str) -> RoundTrip {
        self.tools.handoff(reason).await
    }

    /// `invoke`, gated.
    pub async fn invoke(&self, target: &str, key: Option<&str>) -> RoundTrip {
        self.tools.invoke(target, key).await
    }

    /// `fill`, gated.
    pub async fn fill(&self, target: &str, text: &str) -> RoundTrip {
        self.tools.fill(target, text).await
    }

    /// A whole read as a document's first read does it (see [`Tools::read_screen_whole`]).
    pub async fn read_screen_whole(&self) -> RoundTrip {
        self.tools.read_screen_whole().await
    }

    /// Sets how long the following actions wait for their target.
    pub fn set_action_timeout(&self, timeout: Option<Duration>) {
        self.tools.set_action_timeout(timeout);
    }

    /// One trivial in-page round trip, in milliseconds (see [`Tools::ping`]).
    pub async fn ping(&self) -> Result<f64, ToolError> {
        self.tools.ping().await
    }

    /// What the page charges for the least a read does (see [`Tools::page_floor`]).
    pub async fn page_floor(&self) -> Result<Option<f64>, ToolError> {
        self.tools.page_floor().await
    }

    /// A change behind the tools' back (see [`Tools::touch`]).
    pub async fn touch(&self) -> Result<(), ToolError> {
        self.tools.touch().await
    }

    /// The in-page time of the last read (see [`Tools::last_in_page_ms`]).
    pub fn last_in_page_ms(&self) -> Option<f64> {
        self.tools.last_in_page_ms()
    }

    /// The page's own time to answer the last action (see [`Tools::last_frame_ms`]).
    pub fn last_frame_ms(&self) -> Option<f64> {
        self.tools.last_frame_ms()
    }

    /// The perception audit of the last read, when the tools audit.
    pub fn last_audit(&self) -> Option<PerceptionAudit> {
        self.tools.last_audit()
    }

    /// The tab's cookies and storage, for `state save`.
    pub async fn storage_state(&self) -> Result<StorageState, ToolError> {
        self.tools.storage_state().await
    }

    /// The facts of the unanchored controls the last read listed, for `suggest`.
    pub async fn describe_nodes(&self, nodes: &[u64]) -> Result<Vec<Option<NodeFacts>>, ToolError> {
        self.tools.describe_nodes(nodes).await
    }

    /// What candidate matchers find on the page now, for `suggest`.
    pub async fn count_matches(
        &self,
        candidates: &Matchers,
    ) -> Result<HashMap<String, Found>, ToolError> {
        self.tools.count_matches(candidates).await
    }

    /// The pairs of anchors whose matchers find one same element now, for `check`.
    pub async fn shared_matches(&self) -> Result<Vec<[String; 2]>, ToolError> {
        self.tools.shared_matches().await
    }

    /// The app's base URL.
    pub fn base(&self) -> &url::Url {
        self.tools.base()
    }

    /// The registry anchors resolve against.
    pub fn registry(&self) -> &Registry {
        self.tools.registry()
    }

    /// The bounds and caps the tools work within.
    pub fn options(&self) -> &ToolOptions {
        self.tools.options()
    }

    /// With `--fail-on-page-error`, what the pages threw after the journey's last call, as
    /// the journey ends (see [`Tools::late_page_error`]).
    pub async fn late_page_error(&self) -> Option<ToolError> {
        self.tools.late_page_error().await
    }

    /// A screenshot of the tab, when one can be taken safely (after a failure).
    pub async fn safe_screenshot(&self) -> Option<Vec<u8>> {
        self.tools.safe_screenshot().await
    }

    /// The trace the calls are recorded in, if any.
    pub fn trace(&self) -> Option<&Arc<Trace>> {
        self.tools.trace()
    }
}
