//! Waiting in the page: an action's wait for its target (present, visible, enabled,
//! uncovered), driven by the page's own mutations (see collector's 10-wait.js), and what a
//! round trip says of it.

use std::fmt;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::act::Act;
use super::target::TargetRef;
use super::{Attribution, ErrorCode, RoundTrip, ToolError, Tools, Verb};
use super::{browser_error, capture_error, ms_since};
use crate::anchor::AnchorRef;
use crate::browser::{BrowserError, Tab};
use crate::collector::Prepared;
use crate::protocol::quoted;
use crate::screen::InferredState;

impl<T: Tab> Tools<T> {
    /// How long an action waits for its target (and `wait_for` and `eventually` by
    /// default): what the journey set last, else `--action-timeout`.
    pub fn action_timeout(&self) -> Duration {
        self.shared.action_timeout.or(self.options.action_timeout)
    }

    /// Sets the action timeout of the calls that follow on this tab (`None`: back to
    /// `--action-timeout`).
    pub fn set_action_timeout(&self, timeout: Option<Duration>) {
        self.shared.action_timeout.set(timeout);
    }

    /// How long an action waits for the page to settle after it: what the journey set
    /// last, else the options' settle timeout.
    pub fn settle_timeout(&self) -> Duration {
        self.shared.settle_timeout.or(self.options.settle_timeout)
    }

    /// Sets the settle timeout of the calls that follow on this tab (`None`: back to the
    /// options' own).
    pub fn set_settle_timeout(&self, timeout: Option<Duration>) {
        self.shared.settle_timeout.set(timeout);
    }

    /// Tells `prepare` how long it may wait for `target`, and whether a missing anchor is
    /// worth waiting for: one the registry knows (or any, with no registry: the page names
    /// its own anchors). An anchor the registry does not know, or a point, is answered at once.
    pub(super) fn wait_args(&self, target: &TargetRef, args: &mut serde_json::Value) {
        let ms = match target {
            TargetRef::Point { .. } => 0,
            _ => self.action_timeout().as_millis() as u64,
        };
        let missing = target.anchor().is_some_and(|a| {
            self.registry.anchors().is_empty() || self.registry.anchor(a.id.as_str()).is_some()
        });
        args["wait_ms"] = json!(ms);
        args["wait_missing"] = json!(missing);
    }

    /// The bound of an evaluation that may wait for its target: the page gives up on its
    /// own after the action timeout, and the script's own bound comes on top, so a page that
    /// never answers cannot hold the call.
    pub(super) fn action_bound(&self) -> Duration {
        self.options.script_timeout + self.action_timeout()
    }

    /// [`check`](Tools::check), noting how long the page waited; a failure after a wait
    /// that ran out says how long it waited before what it last saw.
    pub(super) fn checked(
        &self,
        act: &Act<'_>,
        target: &TargetRef,
        prepared: &Prepared,
    ) -> Result<(), ToolError> {
        let waited = prepared.waited.unwrap_or(0.0);
        if let Ok(mut w) = self.shared.waited_ms.lock() {
            *w = waited;
        }
        self.check(act, target, prepared).map_err(|mut e| {
            if prepared.gave_up {
                e.message = format!("after waiting {} ms, {}", waited.round(), e.message);
            }
            e
        })
    }
}

/// What `wait_for` waits for: an anchor shown (enabled, or disabled, when `enabled` says),
/// text on the page, the route; with `gone`, the anchor or the text absent instead. Every
/// part given must hold at once.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Condition {
    /// An anchor (`claims.open[1042]` or with `key`).
    pub anchor: Option<String>,
    /// The anchor's key, for repeated controls.
    pub key: Option<String>,
    /// Which of the anchor's controls, counted from 0 in document order.
    pub nth: Option<u64>,
    /// Text the page shows.
    pub text: Option<String>,
    /// The route (path, and its query and fragment when given).
    pub route: Option<String>,
    /// The anchor (or else the text) must be absent or hidden.
    pub gone: bool,
    /// The anchor must be enabled (`true`) or disabled (`false`).
    pub enabled: Option<bool>,
    /// How long to wait; `None`: the action timeout.
    #[serde(skip)]
    pub timeout: Option<Duration>,
    /// A request to this pattern sent (see `traffic`).
    #[serde(skip)]
    pub request: Option<String>,
    /// A response to a request to this pattern come.
    #[serde(skip)]
    pub response: Option<String>,
    /// The request's method.
    #[serde(skip)]
    pub method: Option<String>,
    /// The response's status.
    #[serde(skip)]
    pub status: Option<u16>,
}

impl fmt::Display for Condition {
    /// The condition in words: "`claim.approve` enabled", "text \"Saved\" gone", "route /claims".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(a) = &self.anchor {
            let key = self
                .key
                .as_ref()
                .map(|k| format!("[{}]", quoted(k)))
                .unwrap_or_default();
            let state = match (self.gone, self.enabled) {
                (true, _) => "gone",
                (false, Some(true)) => "shown and enabled",
                (false, Some(false)) => "shown and disabled",
                (false, None) => "shown",
            };
            let nth = self.nth.map(|n| format!(" (nth {n})")).unwrap_or_default();
            parts.push(format!("`{}{key}`{nth} {state}", quoted(a)));
        }
        if let Some(t) = &self.text {
            let gone = if self.gone && self.anchor.is_none() {
                " gone"
            } else {
                ""
            };
            parts.push(format!("text \"{}\"{gone}", quoted(t)));
        }
        if let Some(r) = &self.route {
            parts.push(format!("route {}", quoted(r)));
        }
        let method = self
            .method
            .as_deref()
            .map(|m| format!("{} ", m.to_ascii_uppercase()));
        if let Some(p) = &self.request {
            let method = method.clone().unwrap_or_default();
            parts.push(format!("request {method}`{}`", quoted(p)));
        }
        if let Some(p) = &self.response {
            let status = self.status.map(|s| format!(" {s}")).unwrap_or_default();
            let method = method.unwrap_or_default();
            parts.push(format!("response to {method}`{}`{status}", quoted(p)));
        }
        write!(f, "{}", parts.join(" and "))
    }
}

/// What the page answers a `wait`.
#[derive(Deserialize)]
struct Waited {
    holds: bool,
    waited_ms: f64,
    /// What the page showed of each part of the condition, in words.
    seen: Vec<String>,
    /// The route held in a document still loading, whose load the page waited for.
    #[serde(default)]
    loaded: bool,
}

impl<T: Tab> Tools<T> {
    /// Waits until `condition` holds, then reads the screen; fails with `timeout` naming the
    /// condition and what the page last showed. A read (class `read`): it passes the gates
    /// as a read does. Tried again in the page after each of its mutations (see `waitFor` in
    /// collector's 10-wait.js), across the loads of a navigation.
    pub async fn wait_for(&self, condition: &Condition) -> RoundTrip {
        let shown = condition.to_string();
        let work = async {
            self.wait_inner(condition)
                .await
                .map(|state| (None, state, None))
                .map_err(|e| (None, e))
        };
        let mut rt = self.call(Verb::WaitFor, Some(&shown), None, work).await;
        rt.exchange = self.shared.exchange.lock().ok().and_then(|mut x| x.take());
        rt
    }

    async fn wait_inner(&self, condition: &Condition) -> Result<InferredState, ToolError> {
        let mut c = condition.clone();
        let page = c.anchor.is_some() || c.text.is_some() || c.route.is_some();
        if !page && c.request.is_none() && c.response.is_none() {
            return Err(ToolError::new(
                ErrorCode::InvalidArgument,
                "`wait_for` needs a condition: `anchor`, `text`, `route`, `request` or `response`",
            ));
        }
        if let (Some(a), None) = (&c.anchor, &c.key) {
            let parsed = AnchorRef::parse(a)
                .map_err(|e| ToolError::new(ErrorCode::UnknownAnchor, e.to_string()))?;
            c.anchor = Some(parsed.id.as_str().to_string());
            c.key = parsed.key;
        }
        let within = c.timeout.unwrap_or_else(|| self.action_timeout());
        let start = Instant::now();
        // The network's part first (it may have happened already), then the page's in
        // the time left.
        let exchange = self.wait_traffic(&c, start + within).await?;
        if exchange.is_some() {
            if let Ok(mut slot) = self.shared.exchange.lock() {
                *slot = exchange;
            }
            if let Ok(mut w) = self.shared.waited_ms.lock() {
                *w = ms_since(start);
            }
        }
        if !page {
            return self.read().await;
        }
        loop {
            let left = within.saturating_sub(start.elapsed());
            let args = json!({"condition": &c, "wait_ms": left.as_millis() as u64});
            let bound = left + self.options.script_timeout;
            let waiting = Instant::now();
            let reply = self.collect_as("wait", &args, bound, false).await;
            // The condition's wait in the page is timed as an action's wait for its target.
            self.timed(super::timing::Phase::Target, waiting);
            let waited = match reply {
                Ok(json) => serde_json::from_str::<Waited>(&json).map_err(capture_error)?,
                // A navigation under the wait: the new document is asked again once it is in,
                // looked for every 5 ms (an evaluation before it commits fails at once; 50 ms
                // here was a third of a `wait_for(#{route})` across a sign-in's redirect).
                Err(BrowserError::ContextLost) if !left.is_zero() => {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                Err(e) => return Err(browser_error(e)),
            };
            if let Ok(mut w) = self.shared.waited_ms.lock() {
                *w = ms_since(start).max(waited.waited_ms);
            }
            if waited.holds {
                // A document whose load the page waited for sent its first read at that
                // load: taken as `navigate` takes it.
                if waited.loaded
                    && let Some(sent) = self.sent_first_read().await
                {
                    return sent;
                }
                return self.read().await;
            }
            return Err(ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "{condition} did not come within {} ms; last seen: {}",
                    within.as_millis(),
                    waited
                        .seen
                        .iter()
                        .map(|part| quoted(part).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .attributed(Attribution::App));
        }
    }

    /// Waits for the page's next change (a mutation, a new address) and a quiet window
    /// after it, at most `within`: what `eventually` waits for between two tries. `false`
    /// when nothing changed in time.
    pub async fn wait_change(&self, within: Duration) -> Result<bool, ToolError> {
        let args = json!({"quiet_ms": self.options.quiet.as_millis() as u64,
                          "wait_ms": within.as_millis() as u64});
        let bound = within + self.options.script_timeout;
        match self.collect_as("change", &args, bound, false).await {
            Ok(answer) => Ok(answer.contains("changed")),
            // The page navigated: that is a change.
            Err(BrowserError::ContextLost) => Ok(true),
            Err(e) => Err(browser_error(e)),
        }
    }
}
