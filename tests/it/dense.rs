//! Truncation: a read of a dense screen gathers at most `max_controls` controls and says
//! exactly what it dropped, by region and by role; nothing is dropped silently.

use std::sync::Arc;

use waymark::screen::{InferredState, View, description_len};
use waymark::tools::{ErrorCode, ToolOptions};

use crate::fixtures;
use crate::harness::{block_on, control, failed, ok, open, probed_tools_at, tools, tools_with};

#[test]
fn a_capped_read_reports_what_it_dropped() {
    let (tools, _) = tools_with(ToolOptions {
        max_controls: 1_000,
        ..ToolOptions::default()
    });
    block_on(async {
        let screen = open(&tools, "/dense?n=10000").await;
        assert_eq!(screen.screen.as_deref(), Some("dense"));
        assert_eq!(screen.controls.len(), 1_000);
        let t = screen
            .truncation
            .as_ref()
            .expect("a capped read reports truncation");
        assert_eq!(t.total, 10_000);
        assert_eq!(t.shown, 1_000);
        assert_eq!(t.dropped, 9_000);
        assert_eq!(t.shown + t.dropped, t.total);
        assert_eq!(t.dropped_by_region.values().sum::<usize>(), t.dropped);
        assert_eq!(t.dropped_by_role.values().sum::<usize>(), t.dropped);
        assert_eq!(t.cut_at, "collection");
        // the hint points at a region that lost the most (several may tie)
        let most = t.dropped_by_region.values().max().copied();
        assert!(
            t.dropped_by_region
                .iter()
                .any(|(region, n)| Some(*n) == most && t.hint.contains(region.as_str())),
            "{}",
            t.hint
        );
        tools.close().await;
    });
}

#[test]
fn an_uncapped_read_gathers_every_control() {
    let (tools, _) = tools_with(ToolOptions {
        max_controls: 10_000,
        ..ToolOptions::default()
    });
    block_on(async {
        let screen = open(&tools, "/dense?n=10000").await;
        assert_eq!(screen.truncation, None);
        assert_eq!(screen.controls.len(), 10_000);
        tools.close().await;
    });
}

#[test]
fn a_region_read_returns_exactly_that_region_even_beyond_the_cap() {
    let (tools, _) = tools_with(ToolOptions {
        max_controls: 1_000,
        ..ToolOptions::default()
    });
    block_on(async {
        let whole = open(&tools, "/dense?n=10000").await;
        let t = whole.truncation.as_ref().expect("capped");
        // The region that lost the most is beyond the cap: the whole read has none of it.
        let (region, dropped) = t
            .dropped_by_region
            .iter()
            .max_by_key(|(_, n)| **n)
            .map(|(r, n)| (r.clone(), *n))
            .expect("regions were dropped");
        assert!(!whole.controls.iter().any(|c| c.region == region));

        let rt = tools
            .read_screen_with(View {
                budget: None,
                region: Some(region.clone()),
                ..View::default()
            })
            .await;
        let part = ok(&rt);
        assert_eq!(part.region.as_deref(), Some(region.as_str()));
        assert_eq!(part.controls.len(), dropped, "every control of the region");
        assert!(part.controls.iter().all(|c| c.region == region));
        assert!(part.truncation.is_none(), "{:?}", part.truncation);

        // The region read is not held: the next read is still of the whole screen.
        let again = ok(&tools.read_screen().await).clone();
        assert_eq!(again.controls.len(), 1_000);
        assert!(again.region.is_none());
        tools.close().await;
    });
}

#[test]
fn a_region_the_screen_does_not_have_is_named_with_the_ones_it_has() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/claims").await;
        let rt = tools
            .read_screen_with(View {
                budget: None,
                region: Some("claimz".into()),
                ..View::default()
            })
            .await;
        let e = failed(&rt, ErrorCode::InvalidArgument);
        assert!(e.message.contains("no region `claimz`"), "{}", e.message);
        assert!(
            e.message.contains("did you mean `claims`?"),
            "{}",
            e.message
        );
        assert!(e.message.contains("filters ("), "{}", e.message);
        tools.close().await;
    });
}

#[test]
fn a_budget_cuts_whole_controls_keeps_the_focus_and_says_what_it_dropped() {
    let (tools, _) = tools_with(ToolOptions {
        max_controls: 20_000,
        ..ToolOptions::default()
    });
    block_on(async {
        let whole = open(&tools, "/dense?n=1000").await;
        // Focus a field far down the page: its region is kept first.
        let field = whole
            .controls
            .iter()
            .rev()
            .find(|c| c.role == "textbox" && c.editable && !c.disabled)
            .expect("the dense page has text fields");
        let target = field.reference();
        ok(&tools.fill(&target, "x").await);
        let rt = tools
            .read_screen_with(View {
                budget: Some(4_000),
                region: None,
                ..View::default()
            })
            .await;
        let s = ok(&rt);
        assert_eq!(s.focus.as_deref(), Some(target.as_str()));
        assert!(
            s.controls.iter().any(|c| c.reference() == target),
            "the focused control is shown"
        );
        let t = s.truncation.as_ref().expect("the budget cuts");
        assert_eq!(t.cut_at, "description");
        assert_eq!(t.budget, Some(4_000));
        assert_eq!((t.total, t.collected), (1_000, 1_000));
        assert_eq!(t.shown, s.controls.len());
        assert_eq!(t.shown + t.dropped, t.total);
        assert_eq!(t.dropped_by_region.values().sum::<usize>(), t.dropped);
        let used: usize = s.controls.iter().map(description_len).sum();
        assert!(used <= 4_000, "{used} characters shown");
        tools.close().await;
    });
}

/// A cut read is incremental like any other: after an action the page sends what changed
/// against the read the runner holds, including controls the cut now takes in or leaves
/// out, and the result is the screen a whole read gives.
#[test]
fn a_cut_read_after_an_action_is_a_delta_that_moves_the_cut() {
    let (tools, probe) = fixtures::probed_tools_with(ToolOptions {
        max_controls: 5,
        ..ToolOptions::default()
    });
    block_on(async {
        let opened = open(&tools, "/cut.html").await;
        let shown = |s: &InferredState| -> Vec<String> {
            s.controls.iter().map(|c| c.reference()).collect()
        };
        assert_eq!(
            shown(&opened),
            [
                "cut.drop-first",
                "cut.add-first",
                "cut.note",
                "cut.item[1]",
                "cut.item[2]"
            ]
        );
        let t = opened.truncation.as_ref().expect("the read is cut");
        assert_eq!((t.total, t.shown, t.dropped), (9, 5, 4));
        assert_eq!(probe.read_kinds(), ["full"]);

        // Each action's read is a delta; a whole read of the same screen agrees with it.
        // (target, text to fill or none to invoke, then what the action added, removed and
        // changed among the shown controls)
        type Step = (
            &'static str,
            Option<&'static str>,
            Vec<&'static str>,
            Vec<&'static str>,
            Vec<&'static str>,
        );
        let steps: [Step; 4] = [
            ("cut.note", Some("hello"), vec![], vec![], vec!["cut.note"]),
            (
                "cut.drop-first",
                None,
                vec!["cut.item[3]"],
                vec!["cut.item[1]"],
                vec![],
            ),
            (
                "cut.add-first",
                None,
                vec!["cut.item[0]"],
                vec!["cut.item[3]"],
                vec![],
            ),
            // beyond the cut: typed, and nothing shown changes
            ("cut.late", Some("later"), vec![], vec![], vec![]),
        ];
        for (target, text, added, removed, changed) in steps {
            let rt = match text {
                Some(text) => tools.fill(target, text).await,
                None => tools.invoke(target, None).await,
            };
            let after = ok(&rt).clone();
            assert_eq!(probe.read_kinds(), ["delta"], "{target}");
            let changes = rt.changes.as_ref().expect("an action says what changed");
            assert_eq!(changes.added, added, "{target}");
            assert_eq!(changes.removed, removed, "{target}");
            assert_eq!(changes.changed, changed, "{target}");
            let whole = ok(&tools.read_screen_whole().await).clone();
            assert_eq!(probe.read_kinds(), ["full"]);
            assert_eq!(after.controls, whole.controls, "{target}");
            assert_eq!(after.truncation, whole.truncation, "{target}");
        }
        let last = ok(&tools.read_screen().await).clone();
        assert_eq!(probe.read_kinds(), ["delta"], "a warm read of a cut screen");
        assert_eq!(
            shown(&last),
            [
                "cut.drop-first",
                "cut.add-first",
                "cut.note",
                "cut.item[0]",
                "cut.item[2]"
            ]
        );
        assert_eq!(
            control(&last, "cut.note", None).value.as_deref(),
            Some("hello")
        );
        assert_eq!(last.truncation.as_ref().map(|t| t.total), Some(9));

        // Controls the cut left out are found by anchor and key all the same.
        let rt = tools.invoke("cut.item", Some("5")).await;
        assert_eq!(probe.read_kinds(), ["delta"]);
        assert!(rt.changes.as_ref().is_some_and(|c| c.changed.is_empty()));
        let twins = tools.invoke("cut.item", None).await;
        let e = failed(&twins, ErrorCode::AmbiguousAnchor);
        assert!(e.message.contains('5'), "five items: {}", e.message);

        // What the dropped are counted by (region and role) is kept for the controls past
        // the cut no mutation reached, and taken again for those one did.
        probe.read_kinds();
        for script in [
            "document.getElementById('items').setAttribute('data-anchor-region', 'items')",
            "document.querySelector('[data-anchor=\"cut.late\"]').setAttribute('role', 'searchbox')",
            "document.querySelector('main').insertAdjacentHTML('beforeend', '<p>Note</p>')",
        ] {
            probe.run(script).await;
            let read = ok(&tools.read_screen().await).clone();
            assert_eq!(probe.read_kinds(), ["delta"], "{script}");
            let whole = ok(&tools.read_screen_whole().await).clone();
            probe.read_kinds();
            assert_eq!(read.controls, whole.controls, "{script}");
            assert_eq!(read.truncation, whole.truncation, "{script}");
        }
        let t = ok(&tools.read_screen().await)
            .truncation
            .clone()
            .expect("cut");
        assert_eq!(t.dropped_by_region.get("items"), Some(&3), "{t:?}");
        assert_eq!(t.dropped_by_role.get("searchbox"), Some(&1), "{t:?}");
        tools.close().await;
    });
}

/// A read of more controls than one part holds sends its records in parts while the page
/// still makes them (see `src/tools/parts.rs`): put back together, they are every control
/// once, in the page's order, as the page's own list has them. A page whose scripts took
/// the function the parts go by is read whole all the same (asked again, without parts),
/// and its read is the same.
#[test]
fn a_read_sent_in_parts_is_the_read_sent_whole() {
    let shared = crate::harness::shared();
    let (tools, probe) = probed_tools_at(
        shared.base(),
        Arc::clone(shared.registry()),
        ToolOptions {
            max_controls: 10_000,
            ..ToolOptions::default()
        },
    );
    block_on(async {
        open(&tools, "/dense?n=3000").await;
        probe.parts();
        let parted = ok(&tools.read_screen_whole().await).clone();
        assert!(probe.parts() >= 2, "3,000 controls went in one answer");
        let anchors = probe
            .value("Array.from(document.querySelectorAll('[data-anchor]'), e => e.getAttribute('data-anchor'))")
            .await;
        let read: Vec<&str> = parted.controls.iter().map(|c| c.anchor.as_str()).collect();
        assert_eq!(serde_json::json!(read), anchors);

        probe
            .run("window.__waymark.sendPart = function () {}")
            .await;
        let whole = ok(&tools.read_screen_whole().await).clone();
        assert_eq!(probe.parts(), 0);
        assert_eq!(whole.controls, parted.controls);
        tools.close().await;
    });
}
