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
    /// Why the matcher cannot run in this page (an invalid pattern or selector).
    pub bad: Option<String>,
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
        let args = json!({ "candidates": candidates });
        let reply = self.collect("count", &args).await?;
        serde_json::from_str(&reply)
            .map_err(|e| capture_error(format!("the collector's counts are not JSON: {e}")))
    }
}
