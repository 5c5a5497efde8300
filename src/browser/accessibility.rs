//! Chromium's accessibility view of a batch of elements: the independent second reading
//! the perception audit compares the collector's with.
//!
//! `Accessibility.getFullAXTree` on a 10,000-control page costs seconds and tens of
//! megabytes, so it is never fetched. Instead: one `Runtime.evaluate` leaves the elements
//! as an array object in the page, one `Runtime.getProperties` turns it into element
//! handles, and one `Accessibility.getPartialAXTree {objectId, fetchRelatives: false}` per
//! element asks for just that node — pipelined over the one connection, a bounded number
//! in flight. The renderer answers them one after the other, so more in flight does not
//! help past a few dozen. Every command runs under the caller's deadline; the handles are
//! released and the renderer's accessibility tree dropped again (`Accessibility.disable`)
//! whatever happened, so an audited tab does not keep paying for the tree on every
//! mutation.
//!
//! The commands are sent raw and answered as plain JSON rather than through the generated
//! protocol types: their enums (ignored reasons, property names) grow with every Chromium
//! release, and one unknown value must not fail the whole answer.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::types::{Command, Method, MethodId};
use futures::{StreamExt, TryStreamExt};
use serde::Serialize;
use serde_json::{Value, json};

use super::BrowserError;
use super::commands::{Commands, is_context_lost};
use crate::screen::audit::AxView;

/// Elements asked about at once. The renderer serves them one by one; this only keeps the
/// connection busy.
const IN_FLIGHT: usize = 32;

static GROUP: AtomicU64 = AtomicU64::new(0);

/// One CDP command, sent as given and answered as JSON.
#[derive(Debug)]
struct Raw {
    method: &'static str,
    params: Value,
}

impl Serialize for Raw {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.params.serialize(s)
    }
}

impl Method for Raw {
    fn identifier(&self) -> MethodId {
        Cow::Borrowed(self.method)
    }
}

impl Command for Raw {
    type Response = Value;
}

pub(super) async fn send(
    page: &Page,
    limit: Duration,
    method: &'static str,
    params: Value,
) -> Result<Value, BrowserError> {
    let reply = page.command(limit, method, Raw { method, params }).await?;
    Ok(reply.result)
}

/// Chromium's view of each element `elements` (a JavaScript expression evaluating to an
/// array) holds, in order; `None` where an entry is not an element or has no node.
pub(super) async fn views(
    page: &Page,
    elements: &str,
    limit: Duration,
) -> Result<Vec<Option<AxView>>, BrowserError> {
    let group = format!("waymark-audit-{}", GROUP.fetch_add(1, Ordering::Relaxed));
    let outcome = match tokio::time::timeout(limit, query(page, elements, &group, limit)).await {
        Ok(outcome) => outcome,
        Err(_) => Err(BrowserError::Timeout {
            what: "the accessibility query".into(),
            after: limit,
        }),
    };
    // Whatever happened: free the handles and drop the tree the queries built.
    let cleanup = Duration::from_secs(2).min(limit);
    let _ = send(
        page,
        cleanup,
        "Runtime.releaseObjectGroup",
        json!({ "objectGroup": group }),
    )
    .await;
    let _ = send(page, cleanup, "Accessibility.disable", json!({})).await;
    outcome
}

async fn query(
    page: &Page,
    elements: &str,
    group: &str,
    limit: Duration,
) -> Result<Vec<Option<AxView>>, BrowserError> {
    let reply = send(
        page,
        limit,
        "Runtime.evaluate",
        json!({ "expression": elements, "objectGroup": group, "returnByValue": false }),
    )
    .await?;
    if let Some(ex) = reply.get("exceptionDetails") {
        let detail = ex["exception"]["description"]
            .as_str()
            .or_else(|| ex["text"].as_str())
            .unwrap_or("an exception")
            .to_string();
        return Err(if is_context_lost(&detail) {
            BrowserError::ContextLost
        } else {
            BrowserError::Script(detail)
        });
    }
    let array = match reply["result"]["objectId"].as_str() {
        Some(id) if reply["result"]["subtype"] == "array" => id.to_string(),
        _ => {
            return Err(BrowserError::Script(format!(
                "expected an array of elements, got {}",
                reply["result"]["description"]
                    .as_str()
                    .or_else(|| reply["result"]["type"].as_str())
                    .unwrap_or("nothing")
            )));
        }
    };
    let props = send(
        page,
        limit,
        "Runtime.getProperties",
        json!({ "objectId": array, "ownProperties": true }),
    )
    .await?;
    let handles = element_handles(&props)?;
    futures::stream::iter(handles)
        .map(|handle| async move {
            let Some(object_id) = handle else {
                return Ok(None);
            };
            let params = json!({ "objectId": object_id, "fetchRelatives": false });
            match send(page, limit, "Accessibility.getPartialAXTree", params).await {
                Ok(reply) => Ok(reply["nodes"].get(0).map(view_of)),
                // A node gone from the document is an answer about that node, not a failure.
                Err(BrowserError::Protocol(_)) => Ok(None),
                Err(e) => Err(e),
            }
        })
        .buffered(IN_FLIGHT)
        .try_collect()
        .await
}

/// The element handles of an array's `Runtime.getProperties` answer, by index.
fn element_handles(props: &Value) -> Result<Vec<Option<String>>, BrowserError> {
    let entries = props["result"]
        .as_array()
        .ok_or_else(|| BrowserError::Protocol("getProperties answered without a result".into()))?;
    let mut handles: Vec<Option<String>> = Vec::new();
    for entry in entries {
        let Some(index) = entry["name"].as_str().and_then(|n| n.parse::<usize>().ok()) else {
            continue;
        };
        if handles.len() <= index {
            handles.resize(index + 1, None);
        }
        let value = &entry["value"];
        if value["subtype"] == "node" {
            handles[index] = value["objectId"].as_str().map(str::to_string);
        }
    }
    // Trailing holes (`[el, null]`) still count: the array's length says how many.
    let length = entries
        .iter()
        .find(|e| e["name"] == "length")
        .and_then(|e| e["value"]["value"].as_u64())
        .and_then(|n| usize::try_from(n).ok());
    if let Some(length) = length
        && length > handles.len()
    {
        handles.resize(length, None);
    }
    Ok(handles)
}

/// One `AXNode` of the protocol, as the fields the audit compares.
fn view_of(node: &Value) -> AxView {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let property = |name: &str| {
        node["properties"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["name"] == name))
            .map(|p| &p["value"]["value"])
    };
    AxView {
        name: text(&node["name"]["value"]),
        role: text(&node["role"]["value"]),
        disabled: property("disabled")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        editable: property("editable").is_some(),
        ignored: node["ignored"].as_bool().unwrap_or(false),
        ignored_reasons: node["ignoredReasons"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .filter(|r| r["value"]["value"] != false)
                    .filter_map(|r| r["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_reads_as_its_view() {
        let node = json!({
            "nodeId": "12", "ignored": false,
            "role": {"type": "role", "value": "button"},
            "name": {"type": "computedString", "value": "Save "},
            "properties": [{"name": "disabled", "value": {"type": "boolean", "value": true}},
                           {"name": "focusable", "value": {"type": "booleanOrUndefined", "value": true}}]
        });
        let view = view_of(&node);
        assert_eq!(view.name, "Save ");
        assert_eq!(view.role, "button");
        assert!(view.disabled && !view.ignored && !view.editable);
    }

    #[test]
    fn an_ignored_node_keeps_its_reasons() {
        let node = json!({
            "nodeId": "3", "ignored": true,
            "ignoredReasons": [{"name": "ariaHiddenSubtree", "value": {"type": "idref", "relatedNodes": []}},
                               {"name": "somethingNew", "value": {"type": "boolean", "value": true}}],
            "role": {"type": "role", "value": "none"}
        });
        let view = view_of(&node);
        assert!(view.ignored);
        assert_eq!(view.ignored_reasons, ["ariaHiddenSubtree", "somethingNew"]);
        assert_eq!(view.name, "");
    }

    #[test]
    fn handles_follow_indexes_and_length() {
        let props = json!({"result": [
            {"name": "1", "value": {"type": "object", "subtype": "node", "objectId": "b"}},
            {"name": "0", "value": {"type": "object", "subtype": "node", "objectId": "a"}},
            {"name": "length", "value": {"type": "number", "value": 4}},
            {"name": "2", "value": {"type": "object", "subtype": "null"}},
            {"name": "__proto__", "value": {"type": "object"}}
        ]});
        let handles = element_handles(&props).unwrap();
        assert_eq!(
            handles,
            [Some("a".to_string()), Some("b".to_string()), None, None]
        );
    }
}
