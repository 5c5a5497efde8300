//! `waymark check`: does a build of the app keep the registry's promises? Every declared
//! screen is visited (its route, or its `example` for a route with parameters) and every
//! anchor declared on it is looked for: found (with its label, role, region and state),
//! missing, or ambiguous (an anchor without a key on more than one control). Against a
//! second build (a redesign), the two are compared anchor by anchor: removed, added,
//! relabelled, role changed, moved to another region, and which journeys use each anchor
//! that broke (a static scan of their string literals, see [`usage`]).
//!
//! Collecting goes through the session's tools like any journey; everything after is pure,
//! so the comparison and the report are tested without a browser.

mod diff;
mod render;
pub mod usage;

use std::collections::BTreeMap;

use serde::Serialize;

pub use diff::{Change, ChangeKind, Diff, compare};
pub use render::{changes, coverage, table};

use crate::browser::BrowserError;
use crate::registry::Registry;
use crate::screen::InferredState;
use crate::session::{Open, Session};

/// What one build of the app showed of the registry.
#[derive(Debug, Clone, Serialize)]
pub struct BuildCheck {
    /// The app's base URL.
    pub base: String,
    /// Every declared screen, in registry order.
    pub screens: Vec<ScreenCheck>,
}

/// One declared screen, as visited.
#[derive(Debug, Clone, Serialize)]
pub struct ScreenCheck {
    /// The screen's id.
    pub screen: String,
    /// The route visited; `None` when the screen could not be visited.
    pub route: Option<String>,
    /// Why the screen was not read, when it was not.
    pub skipped: Option<String>,
    /// The screen the registry names for where the visit landed, when not this one.
    pub landed_on: Option<String>,
    /// Each anchor the registry declares on the screen, in registry order.
    pub anchors: Vec<AnchorCheck>,
    /// Anchors on the page that the registry does not declare on this screen.
    pub undeclared: Vec<Seen>,
    /// Pairs of anchors declared here whose matchers find one same element: the first in
    /// the file shows it, the other reads missing.
    pub shared: Vec<[String; 2]>,
}

/// A declared anchor on a visited screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnchorCheck {
    /// The anchor.
    pub anchor: String,
    /// Found, missing or ambiguous.
    pub state: Presence,
    /// How many controls carry it (rows, for a keyed anchor).
    pub count: usize,
    /// The first control's facts, when found.
    pub seen: Option<Seen>,
}

/// Whether a declared anchor is on the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// On the screen, once (or on one row or more, for a keyed anchor).
    Found,
    /// Not on the screen.
    Missing,
    /// On more than one control, without a key to tell them apart.
    Ambiguous,
}

/// A control as the check reports it: what a redesign may change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Seen {
    /// Its anchor.
    pub anchor: String,
    /// Its words on screen.
    pub label: String,
    /// Its role.
    pub role: String,
    /// Its region.
    pub region: String,
    /// Whether it is disabled.
    pub disabled: bool,
}

impl BuildCheck {
    /// Every declared anchor found nowhere it is declared, or ambiguous somewhere: what
    /// makes `check` exit 1.
    pub fn broken(&self) -> Vec<(&str, &AnchorCheck)> {
        self.screens
            .iter()
            .flat_map(|s| s.anchors.iter().map(move |a| (s.screen.as_str(), a)))
            .filter(|(_, a)| a.state != Presence::Found)
            .collect()
    }
}

/// Visits every screen of `registry` in one tab of `session` and checks its anchors.
pub async fn collect(session: &Session, registry: &Registry) -> Result<BuildCheck, BrowserError> {
    let surface = session.open(Open::script("check")).await?;
    let tools = surface.backstage();
    let mut screens = Vec::new();
    for spec in registry.screens() {
        let declared: Vec<&str> = registry
            .anchors_on_screen(&spec.id)
            .map(|a| a.id.as_str())
            .collect();
        let mut check = ScreenCheck {
            screen: spec.id.clone(),
            route: spec.example.clone(),
            skipped: None,
            landed_on: None,
            anchors: Vec::new(),
            undeclared: Vec::new(),
            shared: Vec::new(),
        };
        let Some(route) = &spec.example else {
            let params = spec.route.params().join("`, `");
            check.skipped = Some(format!(
                "its route `{}` needs `example:` values for `{params}`",
                spec.route
            ));
            screens.push(check);
            continue;
        };
        let rt = tools.navigate(route).await;
        match (&rt.error, &rt.screen) {
            (None, Some(state)) => {
                if state.screen.as_deref() != Some(spec.id.as_str()) {
                    check.landed_on = Some(
                        state
                            .screen
                            .clone()
                            .unwrap_or_else(|| format!("no declared screen ({})", state.route)),
                    );
                }
                let keyed: Vec<bool> = declared
                    .iter()
                    .map(|id| registry.anchor(id).is_some_and(|a| a.keyed))
                    .collect();
                check.anchors = anchors_on(state, &declared, &keyed);
                check.undeclared = undeclared_on(state, &declared);
                check.shared = tools
                    .shared_matches()
                    .await
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|[a, b]| {
                        declared.contains(&a.as_str()) && declared.contains(&b.as_str())
                    })
                    .collect();
            }
            (Some(error), _) => {
                check.skipped = Some(format!("{}: {}", error.code.as_str(), error.message));
            }
            (None, None) => check.skipped = Some("the visit read no screen".into()),
        }
        screens.push(check);
    }
    surface.close().await;
    Ok(BuildCheck {
        base: session.base().to_string(),
        screens,
    })
}

/// The declared anchors (`keyed` beside each) as `state` shows them.
pub fn anchors_on(state: &InferredState, declared: &[&str], keyed: &[bool]) -> Vec<AnchorCheck> {
    let mut by_anchor: BTreeMap<&str, Vec<Seen>> = BTreeMap::new();
    for c in state.controls.iter() {
        by_anchor.entry(&c.anchor).or_default().push(seen(c));
    }
    declared
        .iter()
        .zip(keyed)
        .map(|(&anchor, &keyed)| {
            let found = by_anchor.get(anchor).map_or(&[][..], Vec::as_slice);
            let state = match found.len() {
                0 => Presence::Missing,
                1 => Presence::Found,
                _ if keyed => Presence::Found,
                _ => Presence::Ambiguous,
            };
            AnchorCheck {
                anchor: anchor.to_string(),
                state,
                count: found.len(),
                seen: found.first().cloned(),
            }
        })
        .collect()
}

/// The anchors on `state` the registry does not declare on its screen, once each.
fn undeclared_on(state: &InferredState, declared: &[&str]) -> Vec<Seen> {
    let mut out: Vec<Seen> = Vec::new();
    for c in state.controls.iter() {
        if !declared.contains(&&*c.anchor) && !out.iter().any(|s| s.anchor == *c.anchor) {
            out.push(seen(c));
        }
    }
    out
}

fn seen(c: &crate::screen::Control) -> Seen {
    Seen {
        anchor: c.anchor.to_string(),
        label: c.label.to_string(),
        role: c.role.to_string(),
        region: c.region.to_string(),
        disabled: c.disabled,
    }
}
