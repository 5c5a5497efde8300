//! `route` and `unroute`: the journey's answers to the requests its pages make (see
//! `browser::RouteBook`). The routes are the journey's, in every tab it has and opens;
//! each round trip says what they answered since the call before (`routed`).

use std::time::Duration;

use serde::Serialize;

use super::verbs::{AbortArg, RouteArgs};
use super::{RoundTrip, Tools, Verb};
use crate::browser::{Abort, Reply, Route, Routed, Tab};
use crate::protocol::{ErrorCode, ToolError, quoted};

/// The longest a route may hold its answer.
const MAX_DELAY: Duration = Duration::from_secs(60);

/// How many requests one route answered during a call, for its round trip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteCount {
    /// The route's pattern, as the journey gave it.
    pub pattern: String,
    /// The requests it answered.
    pub answered: u64,
}

impl<T: Tab> Tools<T> {
    /// Answers the requests `args.pattern` matches as `args` says, in every tab of the
    /// journey, from now on.
    pub async fn route(&self, args: &RouteArgs) -> RoundTrip {
        let work = async {
            let route = self.route_of_args(args).map_err(|e| (None, e))?;
            self.shared.routes.add(route);
            self.apply_routes().await.map_err(|e| (None, e))?;
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        self.call(Verb::Route, Some(&args.pattern), None, work)
            .await
    }

    /// Stops answering the requests of `pattern` (its routes of every method).
    pub async fn unroute(&self, pattern: &str) -> RoundTrip {
        let work = async {
            if self.shared.routes.remove(pattern) == 0 {
                let e = ToolError::new(
                    ErrorCode::InvalidArgument,
                    format!("no route has the pattern `{}`", quoted(pattern)),
                );
                return Err((None, e));
            }
            self.apply_routes().await.map_err(|e| (None, e))?;
            self.read()
                .await
                .map(|s| (None, s, None))
                .map_err(|e| (None, e))
        };
        self.call(Verb::Unroute, Some(pattern), None, work).await
    }

    /// Makes every open tab of the journey route by its routes as they stand.
    pub(super) async fn apply_routes(&self) -> Result<(), ToolError> {
        for open in self.tabs.all() {
            if open.tab.is_closed() {
                continue;
            }
            open.tab
                .route(&self.shared.routes)
                .await
                .map_err(super::browser_error)?;
        }
        Ok(())
    }

    /// Makes a tab that joined the journey route by its routes, when it has any.
    pub(super) async fn route_joined(&self, tab: &T) {
        if self.shared.routes.is_empty() && self.shared.routes.credentials().is_none() {
            return;
        }
        let _ = tab.route(&self.shared.routes).await;
    }

    /// The requests routed since the last call, counted by route, and each for the trace.
    pub(super) fn take_routed(&self) -> (Vec<RouteCount>, Vec<Routed>) {
        let (routed, _) = self.shared.routes.take();
        let mut counts: Vec<RouteCount> = Vec::new();
        for r in &routed {
            match counts.iter_mut().find(|c| c.pattern == r.pattern) {
                Some(c) => c.answered += 1,
                None => counts.push(RouteCount {
                    pattern: r.pattern.clone(),
                    answered: 1,
                }),
            }
        }
        (counts, routed)
    }

    fn route_of_args(&self, args: &RouteArgs) -> Result<Route, ToolError> {
        let invalid = |why: String| ToolError::new(ErrorCode::InvalidArgument, why);
        let pattern = args.pattern.trim();
        let absolute = self.absolute_pattern(pattern, "route")?;
        let respond = args.status.is_some()
            || args.body.is_some()
            || args.json.is_some()
            || args.headers.is_some()
            || args.content_type.is_some()
            || args.delay_ms.is_some();
        let reply = match (respond, args.abort, &args.pass) {
            (false, Some(abort), None) => Reply::Abort(match abort {
                AbortArg::Failed => Abort::Failed,
                AbortArg::Timedout => Abort::TimedOut,
                AbortArg::Refused => Abort::Refused,
            }),
            (false, None, Some(pass)) => Reply::Continue {
                headers: pass
                    .headers
                    .clone()
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
            },
            (_, None, None) => self.response(args).map_err(invalid)?,
            _ => {
                return Err(invalid(format!(
                    "`route` `{}`: a route answers, aborts or continues: one of them",
                    quoted(pattern)
                )));
            }
        };
        Route::new(pattern, &absolute, args.method.as_deref(), reply).map_err(invalid)
    }

    fn response(&self, args: &RouteArgs) -> Result<Reply, String> {
        let status = args.status.unwrap_or(200);
        if !(100..=599).contains(&status) {
            return Err(format!("`route`: {status} is not an HTTP status"));
        }
        let delay = Duration::from_millis(args.delay_ms.unwrap_or(0));
        if delay > MAX_DELAY {
            return Err(format!(
                "`route`: a delay is {} ms at most",
                MAX_DELAY.as_millis()
            ));
        }
        let (body, kind) = match (&args.json, &args.body) {
            (Some(_), Some(_)) => return Err("`route`: a body is `body` or `json`".into()),
            (Some(json), None) => (json.to_string().into_bytes(), "application/json"),
            (None, body) => (
                body.clone().unwrap_or_default().into_bytes(),
                "text/plain; charset=utf-8",
            ),
        };
        let mut headers: Vec<(String, String)> = args
            .headers
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        if !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        {
            let kind = args.content_type.as_deref().unwrap_or(kind);
            headers.push(("content-type".into(), kind.into()));
        }
        Ok(Reply::Fulfill {
            status,
            headers,
            body,
            delay,
        })
    }
}
