//! What an action names as its target: an anchor (the normal case), a node from the latest
//! read's evidence (a control without an anchor), or a coordinate.

use std::fmt;

use serde_json::json;

use crate::anchor::AnchorRef;

/// The target of an action.
#[derive(Debug, Clone, PartialEq)]
pub enum TargetRef {
    /// An anchor, with its key for repeated controls.
    Anchor(AnchorRef),
    /// A control without an anchor, by the `node` id a read's evidence gave it. It names the
    /// element as long as the page keeps it; after the element is gone, `stale_read`.
    Node(u64),
    /// One of the controls an anchor names, by its place among them in document order
    /// (from 0): repeated controls that carry no key (Playwright's `nth`).
    Nth(AnchorRef, u64),
    /// Whatever has the keyboard focus (a key pressed with no control named).
    Focused,
    /// A point in top-document CSS pixels (the coordinates of a read's boxes): the action
    /// lands on whatever is there.
    Point {
        /// Horizontal, from the document's left edge.
        x: f64,
        /// Vertical, from the document's top edge.
        y: f64,
    },
}

impl TargetRef {
    /// The collector's arguments naming this target.
    pub(crate) fn args(&self) -> serde_json::Value {
        match self {
            TargetRef::Anchor(a) => json!({"anchor": a.id.as_str(), "key": a.key}),
            TargetRef::Node(n) => json!({"node": n}),
            TargetRef::Nth(a, n) => json!({"anchor": a.id.as_str(), "key": a.key, "nth": n}),
            TargetRef::Focused => json!({"focused": true}),
            TargetRef::Point { x, y } => json!({"point": [x, y]}),
        }
    }

    /// The anchor, when the target is one (or one of its controls).
    pub fn anchor(&self) -> Option<&AnchorRef> {
        match self {
            TargetRef::Anchor(a) | TargetRef::Nth(a, _) => Some(a),
            _ => None,
        }
    }
}

impl fmt::Display for TargetRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetRef::Anchor(a) => write!(f, "{a}"),
            TargetRef::Node(n) => write!(f, "node {n}"),
            TargetRef::Nth(a, n) => write!(f, "{a} (nth {n})"),
            TargetRef::Focused => write!(f, "the focused element"),
            TargetRef::Point { x, y } => write!(f, "the point ({x}, {y})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_name_themselves_and_their_collector_arguments() {
        let a = TargetRef::Anchor(AnchorRef::parse("claims.open[1042]").unwrap());
        assert_eq!(a.to_string(), "claims.open[1042]");
        assert_eq!(a.args(), json!({"anchor": "claims.open", "key": "1042"}));
        assert_eq!(TargetRef::Node(7).to_string(), "node 7");
        assert_eq!(TargetRef::Node(7).args(), json!({"node": 7}));
        let p = TargetRef::Point { x: 10.0, y: 20.5 };
        assert_eq!(p.to_string(), "the point (10, 20.5)");
        assert_eq!(p.args(), json!({"point": [10.0, 20.5]}));
        let nth = TargetRef::Nth(AnchorRef::parse("row.delete").unwrap(), 1);
        assert_eq!(nth.to_string(), "row.delete (nth 1)");
        assert_eq!(
            nth.args(),
            json!({"anchor": "row.delete", "key": null, "nth": 1})
        );
        assert_eq!(TargetRef::Focused.to_string(), "the focused element");
    }
}
