//! Truncation: a read of a dense screen gathers at most `max_controls` controls and says
//! exactly what it dropped, by region and by role; nothing is dropped silently.

use waymark::tools::ToolOptions;

use crate::harness::{block_on, open, tools_with};

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
