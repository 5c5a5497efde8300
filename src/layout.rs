//! The layout of the app under test: a setting (`--layout`) that journey marks
//! (`expect-fail layout=…`) and the snapshot folder follow, and that the embedded demo app
//! serves. A leaf: the product names a layout without depending on the demo app.
//!
//! The demo app's two layouts show, check and test on one app what a redesign does to a
//! registry's promises:
//!
//! - `classic`: the app the registry (`anchors.yaml`) and the journeys were written against;
//! - `redesign`: the same screens and data rebuilt the way a redesign goes. The nav is a
//!   sidebar; the stylesheet names its classes differently; the claim's actions sit in a
//!   toolbar above it (region `toolbar`), Reject and Escalate there are links marked up as
//!   buttons, and "Add line" of a sales order joins the order's actions. On purpose it
//!   rewords one label (`claim.escalate` reads "Send to supervisor") and drops one control
//!   (`claim.back`, the "Back to claims" link: a breadcrumb replaces it). Its return form
//!   carries no `data-anchor` at all, nav included: that screen's anchors are found
//!   through the registry's matchers (`anchors.yaml`), and its landmarks name their
//!   regions as the classic markers do.
//!
//! `waymark check --against` a redesign names exactly the relabel, the drop and the moves,
//! with the journeys that use them.

use std::fmt;

/// A layout of the app under test (the one the demo app serves, or the one an app at
/// `--base-url` is known to serve).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Layout {
    /// The layout the registry and the journeys were written against.
    #[default]
    Classic,
    /// The redesign: moved controls, other markup, one label reworded, one control dropped,
    /// and a screen without `data-anchor`.
    Redesign,
}

impl Layout {
    /// Every layout, the default first.
    pub const ALL: [Layout; 2] = [Layout::Classic, Layout::Redesign];

    /// The name the command line and journey marks use.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Classic => "classic",
            Layout::Redesign => "redesign",
        }
    }

    /// The layout named `name`, as [`Layout::as_str`] spells it.
    pub fn parse(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_match_the_command_line() {
        use clap::ValueEnum;
        for layout in Layout::ALL {
            assert_eq!(Layout::parse(layout.as_str()), Some(layout));
            let value = layout.to_possible_value().expect("a command-line value");
            assert_eq!(value.get_name(), layout.as_str());
        }
        assert_eq!(Layout::parse("Redesign"), None);
        assert_eq!(Layout::default(), Layout::Classic);
    }
}
