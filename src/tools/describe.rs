//! What `waymark suggest` asks a page beside a read: the facts of its unanchored controls,
//! and what candidate matchers would find there now.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::json;

use super::{Tools, capture_error};
use crate::browser::Tab;
use crate::protocol::ToolError;
use crate::registry::Matchers;

/// What a matcher can be built from, for one unanchored control of the last read.
#[derive(Debug, Clone, Deserialize)]
pub struct NodeFacts {
    /// The element's tag, lowercase.
    pub tag: String,
    /// Its `id`.
    pub id: Option<String>,
    /// Its `placeholder`.
    pub placeholder: Option<String>,
    /// The value of the registry's test id attribute.
    pub test_id: Option<String>,
    /// Its own text (else all its text), collapsed, at most 80 characters.
    pub text: String,
    /// The texts of its labels (`<label>`, `aria-labelledby`, `aria-label`).
    pub labels: Vec<String>,
    /// A short path to it, for a person.
    pub path: String,
}

/// What one candidate matcher finds on the page.
#[derive(Debug, Clone, Deserialize)]
pub struct Found {
    /// How many elements.
    pub count: usize,
    /// The node ids of the first three.
    pub nodes: Vec<u64>,
    /// With [`Tools::mark_matches`]: every element found, in document order.
    #[serde(default)]
    pub marks: Vec<Marked>,
    /// Why the matcher cannot run in this page (an invalid pattern or selector).
    pub bad: Option<String>,
}

/// One element a matcher found, named by a marker attribute (see [`Tools::mark_matches`]).
#[derive(Debug, Clone, Deserialize)]
pub struct Marked {
    /// Its value of the marker attribute (`None` without one).
    #[serde(rename = "m")]
    pub mark: Option<String>,
    /// Whether a read would show it as visible.
    #[serde(rename = "v")]
    pub visible: bool,
    /// Its accessible name, as a read shows it.
    #[serde(rename = "n")]
    pub name: String,
    /// Its role, as a read shows it.
    #[serde(rename = "r")]
    pub role: String,
}

impl<T: Tab> Tools<T> {
    /// The app's base URL the tools resolve routes against.
    pub fn base(&self) -> &url::Url {
        &self.base
    }

    /// The facts of the unanchored controls the last read listed as `nodes` (`None` for
    /// one the page no longer has).
    pub async fn describe_nodes(&self, nodes: &[u64]) -> Result<Vec<Option<NodeFacts>>, ToolError> {
        let args = json!({ "ids": nodes, "tid": self.registry.test_id_attribute() });
        let reply = self.collect("describe", &args).await?;
        serde_json::from_str(&reply)
            .map_err(|e| capture_error(format!("the collector's description is not JSON: {e}")))
    }

    /// The pairs of anchors whose matchers find one same element on the page now (the
    /// first in the file shows it; the other reads missing there).
    pub async fn shared_matches(&self) -> Result<Vec<[String; 2]>, ToolError> {
        let reply = self.collect("shared", &json!({})).await?;
        serde_json::from_str(&reply)
            .map_err(|e| capture_error(format!("the collector's pairs are not JSON: {e}")))
    }

    /// What `candidates` would find on the page now, by anchor; the page's own matchers
    /// are left as they were.
    pub async fn count_matches(
        &self,
        candidates: &Matchers,
    ) -> Result<HashMap<String, Found>, ToolError> {
        self.count_with(json!({ "candidates": candidates })).await
    }

    /// As [`Tools::count_matches`], with every element found named by its value of the
    /// attribute `mark`, its visibility, name and role: what the differential test compares
    /// with Playwright's locators.
    pub async fn mark_matches(
        &self,
        candidates: &Matchers,
        mark: &str,
    ) -> Result<HashMap<String, Found>, ToolError> {
        self.count_with(json!({ "candidates": candidates, "mark": mark }))
            .await
    }

    async fn count_with(
        &self,
        args: serde_json::Value,
    ) -> Result<HashMap<String, Found>, ToolError> {
        let reply = self.collect("count", &args).await?;
        serde_json::from_str(&reply)
            .map_err(|e| capture_error(format!("the collector's counts are not JSON: {e}")))
    }
}
