//! The journey API's waits beside `wait_for` (a verb, in `calls`):
//! `eventually(|| { … }[, #{timeout_ms}])`, the web-first assertion, which runs its closure
//! again after each change of the page until it passes, never sleeping a fixed time (the
//! page says when it changed); and `set_action_timeout`, `set_settle_timeout`.

use std::time::{Duration, Instant};

use rhai::{Dynamic, Engine, EvalAltResult, FnPtr, NativeCallContext, Position};
use tokio::runtime::Handle;

use super::engine::fail_map;
use crate::browser::Tab;
use crate::tools::{ErrorCode, Gateway};

/// Registers `eventually`, `set_action_timeout` and `set_settle_timeout` over `gateway`.
pub(super) fn register_waits<T: Tab + 'static>(
    engine: &mut Engine,
    gateway: &Gateway<T>,
    handle: &Handle,
) {
    let t = gateway.clone();
    engine.register_fn(
        "set_action_timeout",
        move |ms: i64| -> Result<(), Box<EvalAltResult>> {
            t.set_action_timeout(Some(millis("set_action_timeout", &Dynamic::from(ms))?));
            Ok(())
        },
    );
    let t = gateway.clone();
    engine.register_fn(
        "set_settle_timeout",
        move |ms: i64| -> Result<(), Box<EvalAltResult>> {
            t.set_settle_timeout(Some(millis("set_settle_timeout", &Dynamic::from(ms))?));
            Ok(())
        },
    );
    let (t, h) = (gateway.clone(), handle.clone());
    engine.register_fn(
        "eventually",
        move |cx: NativeCallContext, f: FnPtr| -> Result<Dynamic, Box<EvalAltResult>> {
            let within = t.action_timeout();
            eventually(&cx, &f, within, &t, &h)
        },
    );
    let (t, h) = (gateway.clone(), handle.clone());
    engine.register_fn(
        "eventually",
        move |cx: NativeCallContext,
              f: FnPtr,
              options: rhai::Map|
              -> Result<Dynamic, Box<EvalAltResult>> {
            let mut within = t.action_timeout();
            for (key, value) in &options {
                match key.as_str() {
                    "timeout_ms" => within = millis("timeout_ms", value)?,
                    other => {
                        return Err(fail_map(
                            ErrorCode::InvalidArgument,
                            &format!(
                                "`{other}` is not an option of `eventually` (use `timeout_ms`)"
                            ),
                        ));
                    }
                }
            }
            eventually(&cx, &f, within, &t, &h)
        },
    );
}

/// Runs `f` until it returns without throwing, waiting between tries for the page's next
/// change (see [`Gateway::wait_change`]), for at most `within`; then throws `f`'s last error,
/// its message saying how long it was tried. Errors that are not thrown values (the
/// journey's deadline, its operation limit) stop at once.
fn eventually<T: Tab>(
    cx: &NativeCallContext,
    f: &FnPtr,
    within: Duration,
    gateway: &Gateway<T>,
    handle: &Handle,
) -> Result<Dynamic, Box<EvalAltResult>> {
    let start = Instant::now();
    let mut tries = 0u32;
    loop {
        tries += 1;
        let err = match f.call_within_context::<Dynamic>(cx, ()) {
            Ok(value) => return Ok(value),
            Err(e) => e,
        };
        let thrown = match thrown_value(&err) {
            Some(value) => value.clone(),
            None => return Err(err),
        };
        let left = within.saturating_sub(start.elapsed());
        let changed = !left.is_zero()
            && handle
                .block_on(gateway.wait_change(left))
                .map_err(|e| fail_map(e.code, &e.message))?;
        if !changed {
            return Err(gave_up(thrown, tries, within));
        }
    }
}

/// The value a script threw, under the wrapping of the closure's call.
fn thrown_value(err: &EvalAltResult) -> Option<&Dynamic> {
    match err {
        EvalAltResult::ErrorRuntime(value, _) => Some(value),
        EvalAltResult::ErrorInFunctionCall(_, _, inner, _) => thrown_value(inner),
        _ => None,
    }
}

/// The closure's last error, its message saying for how long and how often it was tried.
fn gave_up(thrown: Dynamic, tries: u32, within: Duration) -> Box<EvalAltResult> {
    let suffix = format!(
        " (`eventually` tried {tries} time(s) in {} ms)",
        within.as_millis()
    );
    let shown = thrown.to_string();
    let value = match thrown.try_cast::<rhai::Map>() {
        Some(mut map) => {
            let message = map
                .get("message")
                .map(|m| m.to_string())
                .unwrap_or_default();
            map.insert("message".into(), format!("{message}{suffix}").into());
            Dynamic::from(map)
        }
        None => Dynamic::from(format!("{shown}{suffix}")),
    };
    EvalAltResult::ErrorRuntime(value, Position::NONE).into()
}

fn millis(key: &str, value: &Dynamic) -> Result<Duration, Box<EvalAltResult>> {
    value
        .as_int()
        .ok()
        .and_then(|n| u64::try_from(n).ok())
        .map(Duration::from_millis)
        .ok_or_else(|| {
            fail_map(
                ErrorCode::InvalidArgument,
                &format!("`{key}` takes a number of milliseconds, not `{value}`"),
            )
        })
}
