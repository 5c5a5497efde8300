//! The inference step, and the description cut it makes: turns a [`RawObservation`] into
//! the [`InferredState`] everything downstream reads. The cut keeps, in this order, the
//! focused control and its region, the controls in the viewport, the enabled actionable
//! ones, then the rest in document order — whole controls only — and reports what it
//! dropped beside what the collection cut dropped.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::inferred::{
    Control, Controls, CutAt, FramesUnread, InferredState, Node, Sealed, Truncation, View,
};
use super::raw::{RawControl, RawObservation};
use super::role::Role;
use crate::protocol::quoted;
use crate::registry::Registry;
use crate::screen::audit::PerceptionAudit;

/// The inference step: turns evidence into the state everything downstream reads.
/// `route` is the URL made app-relative by the caller; `elapsed_ms` the read's own cost;
/// `view` the description budget and region of the read.
pub fn infer(
    raw: &RawObservation,
    route: String,
    registry: &Registry,
    elapsed_ms: f64,
    view: &View,
) -> InferredState {
    let screen = registry.screen_for_route(&route).map(|s| s.id.clone());
    let mut reasons = Vec::new();
    let mut confidence: f64 = 1.0;
    let chrome = &raw.chrome;
    if chrome.crashed {
        confidence = 0.0;
        reasons.push("the tab's renderer crashed".to_string());
    }
    if let Some(why) = &chrome.error_page {
        confidence = confidence.min(0.5);
        reasons.push(format!("an error page: {why}"));
    }
    if !chrome.js_dialogs.is_empty() {
        confidence = confidence.min(0.9);
        reasons.push(format!(
            "the page opened {} JavaScript dialog(s), answered by the runner",
            chrome.js_dialogs.len()
        ));
    }
    for (ceiling, reason) in raw.audit.iter().flat_map(PerceptionAudit::confidence) {
        confidence = confidence.min(ceiling);
        reasons.push(reason);
    }
    if !raw.frames_unread.is_empty() {
        confidence = confidence.min(0.8);
        reasons.push(format!(
            "{} frame(s) of another origin did not answer: their controls are not read",
            raw.frames_unread.len()
        ));
    }
    if chrome.file_chooser {
        confidence = confidence.min(0.9);
        reasons.push("the page opened a file chooser; no file was picked".to_string());
    }
    if !registry.anchors().is_empty() && screen.is_some() {
        let mut unknown = raw
            .controls
            .iter()
            .filter(|c| registry.anchor(&c.anchor).is_none());
        if let Some(first) = unknown.next() {
            confidence = confidence.min(0.9);
            reasons.push(format!(
                "{} control(s) carry anchors the registry does not know (first: `{}`)",
                1 + unknown.count(),
                quoted(&first.anchor)
            ));
        }
    }
    let (controls, truncation, focused) = cut(raw, view);
    let focus = focused.map(|i| raw.controls[i].reference());
    let nodes = match (&raw.evidence, view.nodes) {
        (Some(ev), true) => Some((
            ev.unanchored
                .iter()
                .map(|n| Node {
                    node: n.node,
                    role: n.role.clone(),
                    label: n.label.clone(),
                    region: n.region.clone(),
                    disabled: n.disabled,
                    visible: n.visible,
                })
                .collect::<Vec<_>>(),
            ev.unanchored_total,
        )),
        _ => None,
    };
    let dialog = raw
        .dialog
        .clone()
        .or_else(|| chrome.js_dialogs.last().map(|d| d.message.clone()));
    InferredState {
        route,
        app: registry.app().to_string(),
        screen,
        dialog,
        focus,
        confidence,
        confidence_reasons: reasons,
        controls,
        truncation,
        untrusted: true,
        elapsed_ms,
        status: raw.status,
        title: raw.title.clone(),
        region: view.region.clone(),
        nodes: nodes.as_ref().map(|(n, _)| n.clone()),
        nodes_total: nodes.map(|(_, total)| total),
        frames_unread: (!raw.frames_unread.is_empty()).then(|| FramesUnread {
            count: raw.frames_unread.len(),
            frames: raw.frames_unread.clone(),
        }),
        _sealed: Sealed,
    }
}

/// How many ranks [`rank`] has.
const RANKS: u8 = 5;

/// Priority of keeping a control under the description budget: 0 it has the focus, 1 its
/// region has, 2 in the viewport, 3 enabled and actionable, 4 the rest.
fn rank(c: &RawControl, focus_region: Option<&str>, viewport: [f64; 4]) -> u8 {
    if c.focused {
        return 0;
    }
    if focus_region == Some(c.region.as_str()) {
        return 1;
    }
    let [x, y, w, h] = c.bbox.map(|v| v as f64);
    let [vx, vy, vw, vh] = viewport;
    if c.visible && x < vx + vw && x + w > vx && y < vy + vh && y + h > vy {
        return 2;
    }
    if c.visible && !c.disabled && Role::of(&c.role).is_actionable() {
        return 3;
    }
    4
}

/// Controls the description cut dropped, counted by region and role on borrowed names:
/// regions come in runs (document order), roles are few, so a 50,000-control cut touches a
/// map once per run of a region rather than allocating two keys per control.
#[derive(Default)]
struct Dropped<'a> {
    regions: Vec<(&'a str, usize)>,
    roles: Vec<(&'a str, usize)>,
}

impl<'a> Dropped<'a> {
    fn count(&mut self, c: &'a RawControl) {
        match self.regions.last_mut() {
            Some((region, n)) if *region == c.region.as_str() => *n += 1,
            _ => self.regions.push((c.region.as_str(), 1)),
        }
        match self
            .roles
            .iter_mut()
            .find(|(role, _)| *role == c.role.as_str())
        {
            Some((_, n)) => *n += 1,
            None => self.roles.push((c.role.as_str(), 1)),
        }
    }

    fn add_to(
        self,
        by_region: &mut BTreeMap<String, usize>,
        by_role: &mut BTreeMap<String, usize>,
    ) {
        let mut runs: BTreeMap<&str, usize> = BTreeMap::new();
        for (region, n) in self.regions {
            *runs.entry(region).or_default() += n;
        }
        for (region, n) in runs {
            *by_region.entry(region.to_string()).or_default() += n;
        }
        for (role, n) in self.roles {
            *by_role.entry(role.to_string()).or_default() += n;
        }
    }
}

/// Counts the characters written to it.
struct Chars(usize);

impl std::io::Write for Chars {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // UTF-8: every byte but a continuation byte starts a character.
        self.0 += buf.iter().filter(|b| (**b & 0xC0) != 0x80).count();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What one control costs of the budget: the characters of its JSON record as it is shown
/// (a long label or value cut, see [`Facts::cut`](super::Facts::cut)), and a comma. One
/// control with a 1 MB label costs a couple of hundred characters, as it is shown: it
/// neither takes the budget whole nor is dropped for it.
pub fn description_len(c: &Control) -> usize {
    let mut chars = Chars(1);
    // Writing to a counter cannot fail, and facts always serialize.
    let _ = match c.cut() {
        Some(shown) => serde_json::to_writer(&mut chars, &shown),
        None => serde_json::to_writer(&mut chars, c),
    };
    chars.0
}

/// Both cuts: the collection cut the collector made, and the description cut of `view`;
/// with the index of the (first) focused control.
fn cut(raw: &RawObservation, view: &View) -> (Controls, Option<Truncation>, Option<usize>) {
    let collected = raw.controls.len();
    let mut by_region = raw.dropped_by_region.clone();
    let mut by_role = raw.dropped_by_role.clone();
    let focused = raw.controls.iter().position(|c| c.focused);
    // The viewport the read saw, in box coordinates: each control's `in_viewport`.
    let seen = [
        raw.scroll[0],
        raw.scroll[1],
        raw.viewport[0],
        raw.viewport[1],
    ];
    let (controls, described) = match view.budget {
        // Every control gathered is shown: the raw layer's list itself.
        None => (Controls(Arc::clone(&raw.controls.0), seen), false),
        Some(budget) => {
            let focus_region = focused.map(|i| raw.controls[i].region.as_str());
            let viewport = [
                raw.scroll[0],
                raw.scroll[1],
                raw.viewport[0],
                raw.viewport[1],
            ];
            let ranks: Vec<u8> = raw
                .controls
                .iter()
                .map(|c| rank(c, focus_region, viewport))
                .collect();
            let mut keep = vec![false; collected];
            let (mut used, mut kept) = (0, 0);
            'fill: for r in 0..RANKS {
                for (i, c) in raw.controls.iter().enumerate() {
                    if ranks[i] != r {
                        continue;
                    }
                    let cost = description_len(Control::of(c));
                    if used + cost > budget {
                        break 'fill;
                    }
                    used += cost;
                    keep[i] = true;
                    kept += 1;
                }
            }
            if kept == collected {
                (Controls(Arc::clone(&raw.controls.0), seen), false)
            } else {
                let mut controls = Vec::with_capacity(kept);
                let mut dropped = Dropped::default();
                for (kept, c) in keep.into_iter().zip(raw.controls.iter()) {
                    if kept {
                        controls.push(c.clone());
                    } else {
                        dropped.count(c);
                    }
                }
                dropped.add_to(&mut by_region, &mut by_role);
                (Controls(Arc::new(controls), seen), true)
            }
        }
    };
    let shown = controls.len();
    let total = raw.total.max(collected);
    if shown >= total {
        return (controls, None, focused);
    }
    let why = if described {
        format!(
            "more controls than fit the description budget ({} characters{})",
            view.budget.unwrap_or_default(),
            if collected < total {
                format!(", and more than one read gathers: {collected} of {total}")
            } else {
                String::new()
            }
        )
    } else {
        "more controls than one read gathers (--max-controls)".to_string()
    };
    let hint = match &view.region {
        Some(region) => format!(
            "region `{}` has {why}; raise {} to see it all",
            quoted(region),
            if described {
                "the budget"
            } else {
                "--max-controls"
            }
        ),
        None => {
            let mut busiest: Vec<(&String, &usize)> = by_region.iter().collect();
            busiest.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let names = busiest
                .iter()
                .take(5)
                .map(|(r, n)| format!("{} ({n})", quoted(r)))
                .collect::<Vec<_>>()
                .join(", ");
            let more = match busiest.len() {
                0..=5 => String::new(),
                n => format!(" and {} more", n - 5),
            };
            let first = busiest.first().map_or(quoted("…"), |(r, _)| quoted(r));
            format!(
                "the screen has {why}; ask for one region with read_screen(#{{region: \"{first}\"}}): {names}{more}"
            )
        }
    };
    let truncation = Truncation {
        shown,
        total,
        dropped: total - shown,
        dropped_by_region: by_region,
        dropped_by_role: by_role,
        cut_at: if described {
            CutAt::Description
        } else {
            CutAt::Collection
        },
        collected,
        budget: view.budget,
        hint,
    };
    (controls, Some(truncation), focused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::{Chrome, JsDialog};

    fn control(anchor: &str, region: &str) -> RawControl {
        RawControl::button(anchor, region)
    }

    fn raw(controls: Vec<RawControl>, total: usize) -> RawObservation {
        RawObservation {
            url: "http://127.0.0.1/x".into(),
            title: "x".into(),
            status: Some(200),
            dialog: None,
            controls: controls.into(),
            total,
            dropped_by_region: BTreeMap::new(),
            dropped_by_role: BTreeMap::new(),
            viewport: [1280.0, 800.0],
            scroll: [0.0, 0.0],
            collector_ms: 1.0,
            evidence: None,
            chrome: Chrome::default(),
            audit: None,
            frames_unread: Vec::new(),
        }
    }

    fn state(raw: &RawObservation, view: &View) -> InferredState {
        infer(raw, "/x".into(), &Registry::empty(), 1.0, view)
    }

    #[test]
    fn full_read_has_no_truncation() {
        let state = state(&raw(vec![control("a.b", "r")], 1), &View::default());
        assert!(state.truncation.is_none());
        assert_eq!(state.confidence, 1.0);
        assert!(state.untrusted);
    }

    #[test]
    fn capped_read_reports_what_it_dropped() {
        let mut r = raw(vec![control("a.b", "r1")], 4);
        r.dropped_by_region.insert("r1".into(), 1);
        r.dropped_by_region.insert("r2".into(), 2);
        r.dropped_by_role.insert("button".into(), 3);
        let t = state(&r, &View::default())
            .truncation
            .expect("a cut read reports its truncation");
        assert_eq!((t.shown, t.dropped, t.total), (1, 3, 4));
        assert_eq!(t.cut_at, "collection");
        assert_eq!(t.dropped_by_region.values().sum::<usize>(), t.dropped);
        assert!(t.hint.contains("r2 (2), r1 (1)"), "{}", t.hint);
        assert!(
            t.hint.contains(r#"read_screen(#{region: "r2"})"#),
            "{}",
            t.hint
        );
    }

    #[test]
    fn error_status_lowers_confidence_with_a_reason() {
        let mut r = raw(vec![], 0);
        r.status = Some(404);
        r.chrome.error_page = Some("the server answered HTTP 404".into());
        let state = state(&r, &View::default());
        assert!(state.confidence < 1.0);
        assert_eq!(
            state.confidence_reasons,
            ["an error page: the server answered HTTP 404"]
        );
    }

    #[test]
    fn a_javascript_dialog_is_the_dialog_of_the_inferred_state() {
        let mut r = raw(vec![], 0);
        r.chrome.js_dialogs.push(JsDialog {
            kind: "alert".into(),
            message: "Saved!".into(),
        });
        let state = state(&r, &View::default());
        assert_eq!(state.dialog.as_deref(), Some("Saved!"));
        assert!(state.confidence < 1.0);
    }

    #[test]
    fn the_focus_is_the_first_focused_control_cut_or_not() {
        let mut controls = vec![
            control("a.one", "a"),
            control("a.two", "a"),
            control("b.one", "b"),
        ];
        let none = state(&raw(controls.clone(), 3), &View::default());
        assert_eq!(none.focus, None);
        controls[1].focused = true;
        controls[1].key = Some("7".into());
        controls[2].focused = true;
        let r = raw(controls, 3);
        assert_eq!(
            state(&r, &View::default()).focus.as_deref(),
            Some("a.two[7]")
        );
        let budget = View {
            budget: Some(1),
            ..View::default()
        };
        assert_eq!(state(&r, &budget).focus.as_deref(), Some("a.two[7]"));
    }

    #[test]
    fn the_budget_keeps_the_focused_region_then_the_viewport_then_actionable() {
        let mut controls = vec![
            control("far.text", "far"),
            control("far.button", "far"),
            control("seen.one", "seen"),
            control("form.field", "form"),
            control("form.other", "form"),
        ];
        controls[0].role = "status".into();
        controls[2].bbox = [0, 100, 10, 10];
        controls[3].focused = true;
        let r = raw(controls, 5);
        let cost = |a: &str| {
            description_len(Control::of(
                r.controls.iter().find(|c| c.anchor == a).unwrap(),
            ))
        };
        // Room for the focused region and the control in the viewport, not for more.
        let budget = cost("form.field") + cost("form.other") + cost("seen.one") + 1;
        let s = state(
            &r,
            &View {
                budget: Some(budget),
                region: None,
                ..View::default()
            },
        );
        let kept: Vec<&str> = s.controls.iter().map(|c| c.anchor.as_str()).collect();
        assert_eq!(
            kept,
            ["seen.one", "form.field", "form.other"],
            "document order"
        );
        let t = s.truncation.expect("a cut is reported");
        assert_eq!((t.shown, t.dropped, t.total, t.collected), (3, 2, 5, 5));
        assert_eq!(t.cut_at, "description");
        assert_eq!(
            t.dropped_by_region,
            BTreeMap::from([("far".to_string(), 2)])
        );
        assert_eq!(
            t.dropped_by_role,
            BTreeMap::from([("button".to_string(), 1), ("status".to_string(), 1)])
        );
        // One more control's worth: the actionable button comes before the status.
        let s = state(
            &r,
            &View {
                budget: Some(budget + cost("far.button")),
                ..View::default()
            },
        );
        assert!(s.control("far.button", None).is_some());
        assert!(s.control("far.text", None).is_none());
    }

    #[test]
    fn both_cuts_add_up() {
        let mut r = raw(vec![control("a.one", "r1"), control("a.two", "r2")], 10);
        r.dropped_by_region.insert("r3".into(), 8);
        r.dropped_by_role.insert("textbox".into(), 8);
        let one = description_len(Control::of(&r.controls[0]));
        let t = state(
            &r,
            &View {
                budget: Some(one),
                region: None,
                ..View::default()
            },
        )
        .truncation
        .unwrap();
        assert_eq!((t.shown, t.dropped, t.total, t.collected), (1, 9, 10, 2));
        assert_eq!(t.cut_at, "description");
        assert_eq!(t.dropped_by_region.values().sum::<usize>(), 9);
        assert_eq!(t.dropped_by_role.values().sum::<usize>(), 9);
        assert!(t.hint.contains("2 of 10"), "{}", t.hint);
    }

    /// Shown whole, a read's state shows the raw layer's own records; a change to the raw
    /// list then copies it, and the state still shows what was read.
    #[test]
    fn a_state_shown_whole_shares_the_records_it_shows() {
        let mut r = raw(vec![control("a.b", "r"), control("a.c", "r")], 2);
        r.controls[1].focused = true;
        let s = state(&r, &View::default());
        assert!(Arc::ptr_eq(&s.controls.0, &r.controls.0));
        assert_eq!(s.focus.as_deref(), Some("a.c"));
        r.controls[0].label = "Changed".into();
        assert!(!Arc::ptr_eq(&s.controls.0, &r.controls.0));
        assert_eq!(s.controls[0].label, "a.b");
        // A budget that keeps every control shows the same list too.
        let roomy = View {
            budget: Some(100_000),
            ..View::default()
        };
        let s = state(&r, &roomy);
        assert!(s.truncation.is_none());
        assert!(Arc::ptr_eq(&s.controls.0, &r.controls.0));
    }

    #[test]
    fn description_len_counts_characters_not_bytes() {
        let mut a = control("a.b", "r");
        let ascii = description_len(Control::of(&a));
        a.label = "ab".into();
        let two = description_len(Control::of(&a));
        a.label = "äö".into();
        assert_eq!(description_len(Control::of(&a)), two);
        assert!(ascii > 0);
    }

    /// One control with a 1 MB label cost the budget a megabyte: the whole screen's budget
    /// went to it (or it stopped the fill). It costs what it shows: its label cut, with its
    /// length.
    #[test]
    fn a_megabyte_label_costs_the_budget_what_it_shows() {
        let mut huge = control("a.huge", "r");
        huge.label = "L".repeat(1 << 20).as_str().into();
        huge.value = Some("V".repeat(1 << 20).as_str().into());
        huge.focused = true;
        let r = raw(vec![huge, control("a.next", "r")], 2);
        let cost = description_len(Control::of(&r.controls[0]));
        assert!(cost < 1_000, "{cost} characters");
        let budget = View {
            budget: Some(2_000),
            ..View::default()
        };
        let s = state(&r, &budget);
        assert!(s.truncation.is_none(), "{:?}", s.truncation);
        assert_eq!(s.controls.len(), 2);
        // The engine's own state keeps the label whole; the state shown cuts it.
        assert_eq!(s.controls[0].label.len(), 1 << 20);
        let shown = s.shown();
        assert!(
            shown.controls[0].label.ends_with("… (1048576 characters)"),
            "{}",
            &shown.controls[0].label[..300]
        );
        assert!(
            shown.controls[0]
                .value
                .as_ref()
                .unwrap()
                .ends_with("… (1048576 characters)")
        );
        assert!(serde_json::to_string(&shown).unwrap().len() < 2_000);
    }

    /// Everything of a state shown from a page is cut: route, title, dialog, focus, each
    /// control's strings, the nodes, the names a truncation counts by; counts still add up.
    #[test]
    fn a_state_shown_cuts_every_page_string_and_keeps_the_counts() {
        let long = |c: &str| c.repeat(300);
        let mut c = control(&format!("a.{}", long("b")), &long("r"));
        c.key = Some(long("k").as_str().into());
        c.role = long("o").as_str().into();
        c.focused = true;
        let mut r = raw(vec![c, control("a.short", "s")], 4);
        r.title = long("t");
        r.dialog = Some(long("d"));
        r.dropped_by_region.insert(format!("{}1", long("x")), 1);
        r.dropped_by_region.insert(format!("{}2", long("x")), 1);
        r.dropped_by_role.insert("button".into(), 2);
        let s = infer(&r, long("/"), &Registry::empty(), 1.0, &View::default()).shown();
        for text in [
            &s.route,
            &s.title,
            s.dialog.as_ref().unwrap(),
            s.focus.as_ref().unwrap(),
        ] {
            assert!(text.ends_with(" characters)"), "{text}");
            assert!(text.chars().count() <= crate::protocol::QUOTED_CHARS);
        }
        let shown = &s.controls[0];
        for text in [
            &shown.anchor,
            shown.key.as_ref().unwrap(),
            &shown.label,
            &shown.role,
            &shown.region,
        ] {
            assert!(text.ends_with(" characters)"), "{text}");
        }
        assert_eq!(s.controls[1].anchor, "a.short");
        let t = s.truncation.unwrap();
        // The two names cut alike: one entry, both counted.
        assert_eq!(t.dropped_by_region.len(), 1);
        assert_eq!(t.dropped_by_region.values().sum::<usize>(), t.dropped);
        assert!(t.hint.len() < 1_000, "{}", t.hint);
    }

    /// A state whose strings are all short is shown as it is: the same list of records.
    #[test]
    fn a_state_of_short_strings_is_shown_without_a_copy() {
        let r = raw(vec![control("a.b", "r"), control("a.c", "r")], 2);
        let s = state(&r, &View::default()).shown();
        assert!(Arc::ptr_eq(&s.controls.0, &r.controls.0));
        assert_eq!(s.route, "/x");
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn screens() -> impl Strategy<Value = (RawObservation, usize)> {
            let one = (0..6usize, 0..4usize, any::<bool>(), 0..3000i64, 0..40usize);
            (
                prop::collection::vec(one, 0..60),
                0..40usize,
                prop::option::of(0..60usize),
                0..6000usize,
            )
                .prop_map(|(specs, extra, focus, budget)| {
                    let roles = ["button", "textbox", "status", "link"];
                    let mut controls: Vec<RawControl> = specs
                        .iter()
                        .enumerate()
                        .map(|(i, (region, role, disabled, y, label))| {
                            let mut c = control(&format!("c.n{i}"), &format!("r{region}"));
                            c.role = roles[*role].into();
                            c.disabled = *disabled;
                            c.bbox = [0, *y, 100, 20];
                            c.label = "x".repeat(*label).into();
                            c
                        })
                        .collect();
                    if let Some(f) = focus.filter(|f| *f < controls.len()) {
                        controls[f].focused = true;
                    }
                    let n = controls.len();
                    let mut r = raw(controls, n + extra);
                    for i in 0..extra {
                        *r.dropped_by_region
                            .entry(format!("r{}", i % 7))
                            .or_default() += 1;
                        *r.dropped_by_role.entry("button".into()).or_default() += 1;
                    }
                    (r, budget)
                })
        }

        proptest! {
            #[test]
            fn cuts_are_whole_counted_and_keep_the_focused_region((r, budget) in screens()) {
                let s = state(&r, &View { budget: Some(budget), region: None, nodes: false });
                let shown_len: usize = s.controls.iter().map(description_len).sum();
                prop_assert!(shown_len <= budget, "the budget holds");
                // No control cut in half: every shown control is one of the read's, whole.
                for c in &s.controls {
                    prop_assert!(r.controls.iter().any(|raw| Control::of(raw) == c));
                }
                match &s.truncation {
                    None => prop_assert_eq!(s.controls.len(), r.total),
                    Some(t) => {
                        prop_assert_eq!(t.shown, s.controls.len());
                        prop_assert_eq!(t.shown + t.dropped, t.total);
                        prop_assert_eq!(t.total, r.total);
                        prop_assert_eq!(t.dropped_by_region.values().sum::<usize>(), t.dropped);
                        prop_assert_eq!(t.dropped_by_role.values().sum::<usize>(), t.dropped);
                        // Per region: shown + dropped = what the page has there.
                        let mut on_page: BTreeMap<String, usize> = r.dropped_by_region.clone();
                        for c in &r.controls {
                            *on_page.entry(c.region.to_string()).or_default() += 1;
                        }
                        for (region, n) in &on_page {
                            let kept = s.controls.iter().filter(|c| &c.region == region).count();
                            let dropped = t.dropped_by_region.get(region).copied().unwrap_or(0);
                            prop_assert_eq!(kept + dropped, *n, "region {}", region);
                        }
                    }
                }
                // Shown in document order.
                let positions: Vec<usize> = s
                    .controls
                    .iter()
                    .map(|c| r.controls.iter().position(|raw| raw.anchor == c.anchor).unwrap())
                    .collect();
                prop_assert!(positions.windows(2).all(|w| w[0] < w[1]));
                // The focused region goes first: anything else kept means all of it was.
                if let Some(focused) = r.controls.iter().find(|c| c.focused) {
                    let region = &focused.region;
                    let other_kept = s.controls.iter().any(|c| &c.region != region);
                    let all_focused_kept = r
                        .controls
                        .iter()
                        .filter(|c| &c.region == region)
                        .all(|c| s.control(&c.anchor, None).is_some());
                    prop_assert!(!other_kept || all_focused_kept);
                    if description_len(Control::of(focused)) <= budget {
                        prop_assert!(s.control(&focused.anchor, None).is_some(),
                            "the focused control fits, so it is kept");
                    }
                }
            }
        }
    }
}
