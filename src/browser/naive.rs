//! The naive way to read a dense screen, kept only as the contrast the benches measure
//! against: find the elements over CDP, then ask for each element's attributes, box and
//! markup one command at a time, each awaited before the next. Every element costs three
//! round trips to the renderer, where the collector spends one round trip on the whole
//! screen. Nothing in waymark reads a page this way.

use std::time::Duration;

use chromiumoxide::Page;
use serde_json::{Value, json};

use super::BrowserError;
use super::accessibility::send;

/// One element as the naive reader sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NaiveElement {
    /// Its attributes, as name/value pairs.
    pub attributes: Vec<(String, String)>,
    /// Its border box in viewport pixels (x, y, width, height), when it has one.
    pub bbox: Option<[f64; 4]>,
    /// Its outer HTML (where a label would be dug out of).
    pub html: String,
}

/// The first `limit` elements matching `selector`, read one CDP command per property per
/// element (`DOM.getAttributes`, `DOM.getBoxModel`, `DOM.getOuterHTML`), in order. Each
/// command is bounded by `timeout`.
pub(super) async fn read(
    page: &Page,
    selector: &str,
    limit: usize,
    timeout: Duration,
) -> Result<Vec<NaiveElement>, BrowserError> {
    let doc = send(page, timeout, "DOM.getDocument", json!({ "depth": 0 })).await?;
    let root = doc["root"]["nodeId"].clone();
    let found = send(
        page,
        timeout,
        "DOM.querySelectorAll",
        json!({ "nodeId": root, "selector": selector }),
    )
    .await?;
    let ids: Vec<Value> = found["nodeIds"]
        .as_array()
        .map(|ids| ids.iter().take(limit).cloned().collect())
        .unwrap_or_default();
    let mut elements = Vec::with_capacity(ids.len());
    for id in ids {
        let node = json!({ "nodeId": id });
        let attrs = send(page, timeout, "DOM.getAttributes", node.clone()).await?;
        let flat: Vec<String> = attrs["attributes"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let attributes = flat
            .chunks(2)
            .map(|p| (p[0].clone(), p.get(1).cloned().unwrap_or_default()))
            .collect();
        // A node without a box (display: none) answers with an error, which is an answer.
        let bbox = send(page, timeout, "DOM.getBoxModel", node.clone())
            .await
            .ok()
            .and_then(|b| {
                let q: Vec<f64> = b["model"]["border"]
                    .as_array()?
                    .iter()
                    .filter_map(Value::as_f64)
                    .collect();
                (q.len() == 8).then(|| [q[0], q[1], q[2] - q[0], q[5] - q[1]])
            });
        let html = send(page, timeout, "DOM.getOuterHTML", node).await?["outerHTML"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        elements.push(NaiveElement {
            attributes,
            bbox,
            html,
        });
    }
    Ok(elements)
}
