//! The bridge to the in-page collector (`collector.js`): builds the one expression each
//! operation evaluates and types what comes back.
//!
//! Every operation is a single `Runtime.evaluate` answered by a single JSON string: one
//! round trip, one parse.

use serde::Deserialize;
use serde_json::json;

use crate::screen::RawObservation;

const SOURCE: &str = include_str!("collector.js");

/// The expression that runs operation `op` with `args` in the page.
pub(crate) fn expression(op: &str, args: &serde_json::Value) -> String {
    // `op` is one of our own constants; args is serialized JSON, hence a valid JS literal.
    format!("({SOURCE})({}, {args})", json!(op))
}

/// What `prepare` found for the target of an action.
#[derive(Debug, Deserialize)]
pub(crate) struct Prepared {
    /// `ok`, `not_found`, `ambiguous`, `hidden`, `disabled`, `obscured`, `not_editable`, `no_option`.
    pub status: String,
    pub count: usize,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub x: Option<f64>,
    #[serde(default)]
    pub y: Option<f64>,
    /// What lies over the target's centre (obscured).
    #[serde(default)]
    pub cover: Option<String>,
    /// Keys of the first matches (ambiguous).
    #[serde(default)]
    pub keys: Vec<Option<String>>,
    /// With a key that matched nothing: how many controls carry the anchor with other keys.
    #[serde(default)]
    pub unkeyed: usize,
    /// Why a field is not editable.
    #[serde(default)]
    pub why: Option<String>,
    /// How fill goes on: `line`, `multiline`, `contenteditable` (text to insert), `set`,
    /// `select` (already set in the page).
    #[serde(default)]
    pub kind: Option<String>,
    /// The option a select was set to (fill on a select).
    #[serde(default)]
    pub chosen: Option<String>,
    /// A select's options (no_option).
    #[serde(default)]
    pub options: Vec<String>,
}

/// What `settle` saw: `quiet`, `navigating` or `busy`, and the read taken in the same trip.
#[derive(Debug, Deserialize)]
pub(crate) struct Settled {
    pub state: String,
    pub read: Option<RawObservation>,
}

/// What `finish_fill` saw.
#[derive(Debug, Deserialize)]
pub(crate) struct FillFinished {
    /// `ok`, or `lost` when the field went away.
    pub status: String,
    #[serde(default)]
    pub actual: Option<String>,
    pub state: String,
    pub read: Option<RawObservation>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expression_calls_the_collector_with_json_arguments() {
        let e = expression("read", &json!({"max": 5}));
        assert!(e.starts_with('(') && e.contains("(function (op, args)"));
        assert!(e.ends_with(r#")("read", {"max":5})"#));
    }
}
