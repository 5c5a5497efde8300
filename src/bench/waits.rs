//! What waiting for a target costs, in `waymark bench --suite`: an invoke of a control that
//! is already there, with the action timeout and with none (the goal: within 5 %), and how
//! soon after a control appears (100 ms after the action before) the press reaches it (the
//! goal: under 20 ms).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::median;
use super::page::bench_targets;
use crate::registry::Registry;
use crate::session::{Open, RunError, Session};

/// Invokes per mode on the present control.
const RUNS: usize = 20;
/// Presses of the control that appears.
const APPEARS: usize = 10;

/// Measures both and prints a line each; a failed step says so and ends the measure.
pub(super) async fn waits(session: &Session) -> Result<(), RunError> {
    let surface = session.open(Open::script("bench-waits")).await?;
    let tools = surface.backstage();
    let report = |what: &str, e: &crate::tools::ToolError| {
        eprintln!("error: {what}: {}: {}", e.code, e.message);
    };
    // A control that is there: the dense page's click target, invoked in turns with the
    // action timeout and with none.
    let route = "/dense?n=1000";
    let target = bench_targets(session.base(), route, "invoke", session.cookies())
        .await
        .ok()
        .and_then(|t| t.click);
    let rt = tools.navigate(route).await;
    if let (Some(target), None) = (target, &rt.error) {
        let (mut waiting, mut at_once) = (Vec::new(), Vec::new());
        for i in 0..RUNS * 2 {
            let none = i % 2 == 1;
            tools.set_action_timeout(none.then_some(Duration::ZERO));
            let started = Instant::now();
            let rt = tools.invoke(&target, None).await;
            if let Some(e) = &rt.error {
                report("invoking the dense page's target", e);
                break;
            }
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            if none {
                at_once.push(ms)
            } else {
                waiting.push(ms)
            }
        }
        tools.set_action_timeout(None);
        let (w, o) = (median(&waiting), median(&at_once));
        crate::out::outln!(
            "an invoke of a control already there: {w:.1} ms waiting allowed, {o:.1} ms with --action-timeout 0 ({:+.1} %; the goal: within 5 %), medians of {RUNS}",
            (w / o - 1.0) * 100.0
        );
    } else if let Some(e) = &rt.error {
        report(route, e);
    }
    surface.close().await;
    // A control that appears 100 ms after the action before it, in a tab that resolves
    // anchors as the page names them (the app's registry does not know the bench page's,
    // and an anchor it does not know is not waited for).
    let open = Open::script("bench-appear").with_registry(Arc::new(Registry::empty()));
    let surface = session.open(open).await?;
    let tools = surface.backstage();
    let rt = tools.navigate("/widgets/appear").await;
    if let Some(e) = &rt.error {
        report("/widgets/appear", e);
    } else {
        let mut lags = Vec::new();
        for _ in 0..APPEARS {
            if let Some(e) = tools.invoke("appear.arm", None).await.error {
                report("arming", &e);
                break;
            }
            let rt = tools.invoke("appear.late", None).await;
            let lag = rt.screen.as_ref().and_then(|s| {
                s.control("appear.lag", None)
                    .and_then(|c| c.value.as_deref()?.parse::<f64>().ok())
            });
            match (&rt.error, lag) {
                (None, Some(lag)) => lags.push(lag),
                (Some(e), _) => {
                    report("pressing the control that appeared", e);
                    break;
                }
                (None, None) => {
                    eprintln!("error: the page did not tell how late the press came");
                    break;
                }
            }
        }
        crate::out::outln!(
            "a control appearing 100 ms after the action before: pressed {:.1} ms after it appeared (the goal: under 20), median of {}",
            median(&lags),
            lags.len()
        );
    }
    surface.close().await;
    Ok(())
}
