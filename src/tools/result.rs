//! The round-trip result every tool returns.

use serde::Serialize;

use crate::protocol::{ToolError, cut_mut};
use crate::screen::{Changes, InferredState};

/// What a tool call did: ok or why not, where the page was and is, what is on it now.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoundTrip {
    /// `navigate`, `read_screen`, `invoke`, `press` or `fill`.
    pub tool: &'static str,
    /// The action happened and the page answered.
    pub ok: bool,
    /// The target, as the journey named it (`claims.open[1042]`).
    pub anchor: Option<String>,
    /// The target's label on screen.
    pub label: Option<String>,
    /// Route before the call.
    pub route_before: String,
    /// Route after the call.
    pub route: String,
    /// The screen now (inferred layer only); `None` when a gate refused the call (nothing
    /// was read: a refused call never touches the page) or the browser is gone.
    pub screen: Option<InferredState>,
    /// What changed on a screen that did not navigate.
    pub changes: Option<Changes>,
    /// Why the call failed.
    pub error: Option<ToolError>,
    /// Wall time of the whole call, in milliseconds.
    pub elapsed_ms: f64,
    /// Of that, how long the call waited in the page for its target (an action) or its
    /// condition (`wait_for`), in milliseconds; 0 when it was there at once.
    pub waited_ms: f64,
    /// The file an action downloaded (the last, when it started several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download: Option<super::files::DownloadReport>,
    /// The tab the call ended in (0, the journey's first, is not written).
    #[serde(skip_serializing_if = "is_first")]
    pub tab: usize,
    /// A tab the page opened during the call (the first, when it opened several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opened: Option<super::TabOpened>,
    /// The tab the page closed during the call: the round trip is then its opener's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed: Option<usize>,
    /// The JavaScript dialogs answered during the call (and any the page opened since the
    /// previous one), as the journey's `on_dialog` said: the first 20. Left out of JSON
    /// when there were none (a script's round trip always has it, see `journey::engine`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<super::DialogAnswered>,
    /// The console errors and warnings the journey's pages logged during the call (and
    /// since the previous one), the first 100. Left out of JSON when there were none (a
    /// script's round trip always has it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub console: Vec<crate::browser::ConsoleMessage>,
    /// Console messages past the 100 kept; 0 is not written.
    #[serde(skip_serializing_if = "is_zero")]
    pub console_dropped: u64,
    /// The errors the journey's pages threw and did not catch, and the promise rejections
    /// they left unhandled, during the call (and since the previous one), the first 100.
    /// Left out of JSON when there were none (a script's round trip always has it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub page_errors: Vec<crate::browser::PageError>,
    /// Page errors past the 100 kept; 0 is not written.
    #[serde(skip_serializing_if = "is_zero")]
    pub page_errors_dropped: u64,
    /// The journey's tabs, for `tabs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tabs: Option<Vec<super::TabInfo>>,
    /// How many requests each of the journey's routes answered during the call (and
    /// since the call before); none is not written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub routed: Vec<super::RouteCount>,
    /// What the server answered a `request`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<super::Response>,
    /// The request, or the response, a `wait_for(#{request})` or
    /// `wait_for(#{response})` matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchange: Option<super::Exchange>,
    /// The journey's clock after a clock call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<super::ClockReport>,
    /// Each of those requests, for the trace.
    #[serde(skip)]
    pub routed_requests: Vec<crate::browser::Routed>,
    /// Where the call's time went, for the trace.
    #[serde(skip)]
    pub timing: super::Timing,
}

impl RoundTrip {
    /// The round trip as it leaves the gateway (for a script, an agent, the trace, a
    /// report): every string from the page or an input cut by [`crate::protocol::cut`],
    /// with its length — the routes, the target and its label, the screen (see
    /// [`InferredState::shown`]), the changes, the address of a tab opened, the tabs listed,
    /// a download's name as the page gave it. An error's message quotes its inputs cut already.
    pub fn shown(mut self) -> RoundTrip {
        for text in [&mut self.anchor, &mut self.label].into_iter().flatten() {
            cut_mut(text);
        }
        cut_mut(&mut self.route_before);
        cut_mut(&mut self.route);
        self.screen = self.screen.map(InferredState::shown);
        if let Some(changes) = &mut self.changes {
            for reference in changes
                .added
                .iter_mut()
                .chain(&mut changes.removed)
                .chain(&mut changes.changed)
            {
                cut_mut(reference);
            }
        }
        // Its path stays whole: a local path a script may open, bounded by the file system.
        if let Some(download) = &mut self.download {
            cut_mut(&mut download.file);
        }
        if let Some(opened) = &mut self.opened {
            cut_mut(&mut opened.url);
        }
        for dialog in &mut self.dialogs {
            cut_mut(&mut dialog.message);
            if let Some(text) = &mut dialog.text {
                cut_mut(text);
            }
        }
        for message in &mut self.console {
            cut_mut(&mut message.text);
        }
        for error in &mut self.page_errors {
            cut_mut(&mut error.message);
            cut_mut(&mut error.source);
        }
        for tab in self.tabs.iter_mut().flatten() {
            cut_mut(&mut tab.route);
            cut_mut(&mut tab.title);
        }
        self
    }
}

fn is_first(tab: &usize) -> bool {
    *tab == 0
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{TabInfo, TabOpened};

    /// What leaves the gateway says how long each long string was; a short one is as it was.
    #[test]
    fn a_round_trip_shown_cuts_its_long_strings_and_keeps_the_short_ones() {
        let long = |c: &str| c.repeat(1_000);
        let rt = RoundTrip {
            tool: "invoke",
            anchor: Some(long("a")),
            label: Some("Approve".into()),
            route_before: long("/"),
            route: "/claims".into(),
            changes: Some(Changes {
                added: vec![long("k")],
                ..Changes::default()
            }),
            opened: Some(TabOpened {
                tab: 1,
                url: long("u"),
            }),
            tabs: Some(vec![TabInfo {
                tab: 0,
                route: long("r"),
                title: long("t"),
                current: true,
                opener: None,
            }]),
            ..RoundTrip::default()
        }
        .shown();
        let tabs = rt.tabs.as_ref().unwrap();
        let changes = rt.changes.as_ref().unwrap();
        for cut in [
            rt.anchor.as_deref().unwrap(),
            &rt.route_before,
            &changes.added[0],
            &rt.opened.as_ref().unwrap().url,
            &tabs[0].route,
            &tabs[0].title,
        ] {
            assert!(cut.ends_with("… (1000 characters)"), "{cut}");
        }
        assert_eq!(rt.label.as_deref(), Some("Approve"));
        assert_eq!(rt.route, "/claims");
    }
}
