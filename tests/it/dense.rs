//! Truncation: a read of a dense screen gathers at most `max_controls` controls and says
//! exactly what it dropped, by region and by role; nothing is dropped silently.

use waymark::screen::{View, description_len};
use waymark::tools::{ErrorCode, ToolOptions};

use crate::harness::{block_on, failed, ok, open, tools, tools_with};

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
