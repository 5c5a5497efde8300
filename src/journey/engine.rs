//! The Rhai engine a journey runs in: the journey API of docs/design.md and nothing that touches
//! files, processes or the network, under limits on operations, depth, sizes and time.
//!
//! Rhai is synchronous and the tools are async: a journey runs on a blocking thread and
//! each tool call blocks on the runtime's handle until its round trip is back.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rhai::{Dynamic, Engine, EvalAltResult, Position, Scope};
use tokio::runtime::Handle;

use super::Journey;
use super::deadline::Blocker;
use crate::browser::Tab;
use crate::protocol::{self as outcome, FailureCode, Outcome};
use crate::screen::View;
use crate::snapshot::{SnapshotError, SnapshotOptions, SnapshotStore};
use crate::tools::{AllowedSet, ErrorCode, FileScope, RoundTrip, TargetRef, Tools};

/// Resource limits of one journey.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock deadline of the whole journey.
    pub deadline: Duration,
    /// Rhai operations (a loop that never ends hits this first).
    pub max_operations: u64,
    /// Nested function calls.
    pub max_call_levels: usize,
    /// Characters in one string.
    pub max_string_size: usize,
    /// Items in arrays, nested ones included (a 50,000-control read fits).
    pub max_array_size: usize,
    /// Entries in object maps, nested ones included.
    pub max_map_size: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            deadline: Duration::from_secs(120),
            max_operations: 50_000_000,
            max_call_levels: 64,
            max_string_size: 4 * 1024 * 1024,
            // Rhai counts nested items: a 50,000-control read is ~50,000 array items and
            // ~600,000 map entries.
            max_array_size: 1_000_000,
            max_map_size: 5_000_000,
        }
    }
}

/// An engine with the limits and without `eval` or module loading (`import` would read files).
pub(super) fn sandboxed_engine(limits: &Limits) -> Engine {
    let mut engine = Engine::new();
    engine
        .set_max_operations(limits.max_operations)
        .set_max_call_levels(limits.max_call_levels)
        .set_max_expr_depths(128, 64)
        .set_max_string_size(limits.max_string_size)
        .set_max_array_size(limits.max_array_size)
        .set_max_map_size(limits.max_map_size)
        .set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new())
        .disable_symbol("eval");
    engine
}

/// What a journey runs against: the tools over its tab, the runtime they block on, its
/// limits and the snapshot store of the run.
pub struct JourneyEnv<T: Tab> {
    /// The gateway over the journey's own tab.
    pub tools: Arc<Tools<T>>,
    /// The runtime the tools' futures run on.
    pub handle: Handle,
    /// Resource limits.
    pub limits: Limits,
    /// Where `snapshot(name)` asserts.
    pub snapshots: Arc<SnapshotStore>,
}

/// Runs one compiled journey. Call it on a blocking thread: every tool call blocks on
/// the environment's runtime handle.
pub fn run_journey<T: Tab + 'static>(journey: &Journey, env: &JourneyEnv<T>) -> Outcome {
    let start = Instant::now();
    let limits = &env.limits;
    let output = Arc::new(Mutex::new(Vec::new()));
    let failure = match &journey.compiled {
        Err(f) => Some(f.clone()),
        Ok(ast) => {
            let engine = journey_engine(journey, env, start, Arc::clone(&output));
            let mut scope = Scope::new();
            engine
                .run_ast_with_scope(&mut scope, ast)
                .err()
                .map(|e| outcome::run_failure(&journey.path, &e, limits.deadline))
                .map(|f| read_only_refusal(f, env.tools.options().read_only))
        }
    };
    let output = output.lock().map(|o| o.clone()).unwrap_or_default();
    Outcome {
        name: journey.name.clone(),
        failure,
        expected_failure: None,
        elapsed: start.elapsed(),
        output,
    }
}

fn journey_engine<T: Tab + 'static>(
    journey: &Journey,
    env: &JourneyEnv<T>,
    start: Instant,
    output: Arc<Mutex<Vec<String>>>,
) -> Engine {
    let (tools, handle, limits) = (Arc::clone(&env.tools), env.handle.clone(), &env.limits);
    let mut engine = sandboxed_engine(limits);
    let deadline = start + limits.deadline;
    engine.on_progress(move |_| (Instant::now() > deadline).then(|| Dynamic::from("deadline")));
    let printed = Arc::clone(&output);
    // What a script prints may hold any page text it read: shown cut to a message's length.
    engine.on_print(move |s| {
        if let Ok(mut o) = printed.lock() {
            o.push(crate::protocol::shown_message(s.to_string()));
        }
    });
    engine.on_debug(move |s, _, pos| {
        if let Ok(mut o) = output.lock() {
            o.push(crate::protocol::shown_message(format!("{pos:?}: {s}")));
        }
    });

    let blocker = Blocker::new(handle.clone(), Arc::clone(&tools), start, limits.deadline);
    let (t, h) = (Arc::clone(&tools), blocker.clone());
    engine.register_fn("navigate", move |route: &str| {
        round_trip(h.on("navigate", t.navigate(route)))
    });
    let (t, h) = (Arc::clone(&tools), blocker.clone());
    engine.register_fn("read_screen", move || {
        let rt = h.on("read_screen", t.read_screen());
        match (rt.ok, rt.screen) {
            (true, Some(screen)) => to_dynamic(&screen),
            _ => Err(thrown(&rt.error)),
        }
    });
    let (t, h) = (Arc::clone(&tools), blocker.clone());
    engine.register_fn("read_screen", move |options: rhai::Map| {
        let view = view_options(&options, t.options().budget)?;
        let rt = h.on("read_screen", t.read_screen_with(view));
        match (rt.ok, rt.screen) {
            (true, Some(screen)) => to_dynamic(&screen),
            _ => Err(thrown(&rt.error)),
        }
    });
    // A read-only surface offers no acting function at all (see `read_only_refusal`).
    if !tools.options().read_only {
        register_acting(&mut engine, &tools, &blocker, &handle);
    }
    super::waits::register_waits(&mut engine, &tools, &handle);
    let read_only = tools.options().read_only;
    super::gestures::register_gestures(&mut engine, &tools, &blocker, read_only);
    super::tabs::register_tabs(&mut engine, &tools, &blocker);
    tools.set_file_scope(FileScope::for_journey(&journey.path, &journey.name));
    let t = Arc::clone(&tools);
    engine.register_fn(
        "allow",
        move |classes: rhai::Array| -> Result<(), Box<EvalAltResult>> {
            t.allow(allowed_set(&classes)?);
            Ok(())
        },
    );
    let snap = Snapper {
        tools,
        handle,
        store: Arc::clone(&env.snapshots),
        journey: journey.name.clone(),
        source: journey.path.clone(),
    };
    let s = snap.clone();
    engine.register_fn("snapshot", move |name: &str| {
        s.assert(name, &SnapshotOptions::default())
    });
    engine.register_fn("snapshot", move |name: &str, options: rhai::Map| {
        snap.assert(name, &snapshot_options(&options)?)
    });
    engine.register_fn("expect", |cond: bool, message: &str| expect(cond, message));
    engine.register_fn("expect", |cond: bool| {
        expect(cond, "expected a true condition")
    });
    engine
}

/// `invoke`, `press`, `fill` (by anchor, or by a target map) and `handoff`.
fn register_acting<T: Tab + 'static>(
    engine: &mut Engine,
    tools: &Arc<Tools<T>>,
    blocker: &Blocker<T>,
    handle: &Handle,
) {
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("invoke", move |anchor: &str| {
        round_trip(h.on("invoke", t.invoke(anchor, None)))
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("invoke", move |anchor: &str, key: Dynamic| {
        let key = key.to_string();
        round_trip(h.on("invoke", t.invoke(anchor, Some(&key))))
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("invoke", move |target: rhai::Map| {
        let target = target_of(&target)?;
        round_trip(h.on("invoke", t.invoke_target(&target)))
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("press", move |target: rhai::Map, key_name: &str| {
        let target = target_of(&target)?;
        round_trip(h.on("press", t.press_target(&target, key_name)))
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("fill", move |target: rhai::Map, text: &str| {
        let target = target_of(&target)?;
        round_trip(h.on("fill", t.fill_target(&target, text)))
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("press", move |anchor: &str, key_name: &str| {
        round_trip(h.on("press", t.press(anchor, key_name)))
    });
    let (t, h) = (Arc::clone(tools), blocker.clone());
    engine.register_fn("fill", move |anchor: &str, text: &str| {
        round_trip(h.on("fill", t.fill(anchor, text)))
    });
    let (t, h) = (Arc::clone(tools), handle.clone());
    engine.register_fn("handoff", move |reason: &str| {
        let rt = h.block_on(t.handoff(reason));
        if !rt.ok {
            return Err(thrown(&rt.error));
        }
        let mut map = rhai::Map::new();
        map.insert("finished".into(), true.into());
        map.insert("route".into(), rt.route.clone().into());
        Ok(Dynamic::from(map))
    });
}

/// On a read-only surface the acting functions do not exist; calling one says so in words.
fn read_only_refusal(failure: outcome::Failure, read_only: bool) -> outcome::Failure {
    const ACTING: [&str; 6] = ["invoke", "press", "fill", "handoff", "drag", "upload"];
    let called = failure
        .message
        .strip_prefix("Function not found: ")
        .and_then(|rest| rest.split([' ', '(']).next())
        .filter(|name| ACTING.contains(name))
        .map(str::to_string);
    match called {
        Some(name) if read_only => outcome::Failure {
            kind: outcome::FailureKind::Tool,
            code: Some(ErrorCode::ReadOnlySurface.into()),
            message: format!("`{name}` is not available on a read-only surface"),
            attribution: crate::tools::Attribution::Gate,
            ..failure
        },
        _ => failure,
    }
}

/// `snapshot(name[, options])`: a fresh read of the screen asserted against its file.
struct Snapper<T: Tab> {
    tools: Arc<Tools<T>>,
    handle: Handle,
    store: Arc<SnapshotStore>,
    journey: String,
    source: std::path::PathBuf,
}

impl<T: Tab> Clone for Snapper<T> {
    fn clone(&self) -> Self {
        Snapper {
            tools: Arc::clone(&self.tools),
            handle: self.handle.clone(),
            store: Arc::clone(&self.store),
            journey: self.journey.clone(),
            source: self.source.clone(),
        }
    }
}

impl<T: Tab> Snapper<T> {
    fn assert(&self, name: &str, options: &SnapshotOptions) -> Result<(), Box<EvalAltResult>> {
        // A snapshot records the whole read, whatever budget the run shows readers.
        let rt = self
            .handle
            .block_on(self.tools.read_screen_with(View::default()));
        let screen = match (rt.ok, &rt.screen) {
            (true, Some(screen)) => screen,
            _ => return Err(thrown(&rt.error)),
        };
        self.store
            .assert(
                &self.journey,
                &self.source,
                name,
                screen,
                self.tools.registry(),
                options,
            )
            .map_err(|e| {
                let code = match e {
                    SnapshotError::Changed { .. } => FailureCode::SnapshotChanged,
                    SnapshotError::New { .. } => FailureCode::SnapshotNew,
                    SnapshotError::Io { .. } => FailureCode::SnapshotUnwritable,
                    _ => ErrorCode::InvalidArgument.into(),
                };
                fail_map(code, &e.to_string())
            })
    }
}

fn snapshot_options(map: &rhai::Map) -> Result<SnapshotOptions, Box<EvalAltResult>> {
    let mut options = SnapshotOptions::default();
    for (key, value) in map {
        match key.as_str() {
            "region" => options.region = Some(value.to_string()),
            "redact" => {
                let items = value
                    .clone()
                    .into_typed_array::<rhai::ImmutableString>()
                    .map_err(|_| {
                        fail_map(
                            ErrorCode::InvalidArgument,
                            "`redact` takes an array of strings",
                        )
                    })?;
                options.redact = items.into_iter().map(|s| s.to_string()).collect();
            }
            other => {
                return Err(fail_map(
                    ErrorCode::InvalidArgument,
                    &format!("`{other}` is not a snapshot option (use `region` or `redact`)"),
                ));
            }
        }
    }
    Ok(options)
}

/// `read_screen(#{budget: N, region: "…", nodes: true})`: the description budget in
/// characters (default: the run's `--budget`), one region to read in full, and whether to
/// list the controls without an anchor.
fn view_options(map: &rhai::Map, budget: Option<usize>) -> Result<View, Box<EvalAltResult>> {
    let mut view = View {
        budget,
        ..View::default()
    };
    for (key, value) in map {
        match key.as_str() {
            "budget" => {
                let n = value
                    .as_int()
                    .ok()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| {
                        fail_map(
                            ErrorCode::InvalidArgument,
                            &format!("`budget` takes a number of characters, not `{value}`"),
                        )
                    })?;
                view.budget = Some(n);
            }
            "region" => {
                let region = value.clone().into_immutable_string().map_err(|_| {
                    fail_map(
                        ErrorCode::InvalidArgument,
                        &format!("`region` takes a region's name, not `{value}`"),
                    )
                })?;
                view.region = Some(region.to_string());
            }
            "nodes" => {
                view.nodes = value.as_bool().map_err(|_| {
                    fail_map(
                        ErrorCode::InvalidArgument,
                        &format!("`nodes` takes true or false, not `{value}`"),
                    )
                })?;
            }
            other => {
                return Err(fail_map(
                    ErrorCode::InvalidArgument,
                    &format!(
                        "`{other}` is not a read_screen option (use `budget`, `region` or `nodes`)"
                    ),
                ));
            }
        }
    }
    Ok(view)
}

/// A target written as a map: `#{node: 17}` (a control without an anchor, from a read with
/// `nodes: true`) or `#{x: 120, y: 340}` (a point in the coordinates of the page).
fn target_of(map: &rhai::Map) -> Result<TargetRef, Box<EvalAltResult>> {
    let number = |key: &str| -> Result<Option<f64>, Box<EvalAltResult>> {
        match map.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_float()
                .ok()
                .or_else(|| v.as_int().ok().map(|i| i as f64))
                .filter(|f| f.is_finite())
                .map(Some)
                .ok_or_else(|| {
                    fail_map(
                        ErrorCode::InvalidArgument,
                        &format!("`{key}` takes a number, not `{v}`"),
                    )
                }),
        }
    };
    if let Some(other) = map
        .keys()
        .find(|k| !matches!(k.as_str(), "node" | "x" | "y"))
    {
        return Err(fail_map(
            ErrorCode::InvalidArgument,
            &format!("`{other}` names no target (use `#{{node: N}}` or `#{{x: X, y: Y}}`)"),
        ));
    }
    match (map.get("node"), number("x")?, number("y")?) {
        (Some(node), None, None) => node
            .as_int()
            .ok()
            .and_then(|n| u64::try_from(n).ok())
            .map(TargetRef::Node)
            .ok_or_else(|| {
                fail_map(
                    ErrorCode::InvalidArgument,
                    &format!("`node` takes a node id from a read, not `{node}`"),
                )
            }),
        (None, Some(x), Some(y)) => Ok(TargetRef::Point { x, y }),
        _ => Err(fail_map(
            ErrorCode::InvalidArgument,
            "a target map is `#{node: N}` or `#{x: X, y: Y}`",
        )),
    }
}

/// The argument of `allow([classes...])`: the classes permitted for the following steps.
/// An unknown class is a mistake in the script (exit 2), not a failed step.
fn allowed_set(classes: &rhai::Array) -> Result<AllowedSet, Box<EvalAltResult>> {
    let names = classes
        .iter()
        .map(|c| c.clone().into_string().unwrap_or_else(|_| c.to_string()));
    AllowedSet::parse(names).map_err(|e| fail_map(FailureCode::InvalidActionClass, &e.to_string()))
}

pub(super) fn fail_map(code: impl Into<FailureCode>, message: &str) -> Box<EvalAltResult> {
    let mut map = rhai::Map::new();
    map.insert("code".into(), code.into().as_str().into());
    map.insert("message".into(), message.into());
    map.insert("attribution".into(), "journey".into());
    EvalAltResult::ErrorRuntime(map.into(), Position::NONE).into()
}

fn expect(cond: bool, message: &str) -> Result<(), Box<EvalAltResult>> {
    if cond {
        return Ok(());
    }
    let message = crate::protocol::shown_message(message.to_string());
    let mut map = rhai::Map::new();
    map.insert(
        "code".into(),
        FailureCode::ExpectationFailed.as_str().into(),
    );
    map.insert("message".into(), message.into());
    map.insert("attribution".into(), "journey".into());
    Err(EvalAltResult::ErrorRuntime(map.into(), Position::NONE).into())
}

/// Success returns the round-trip map; failure throws its `error` map.
pub(super) fn round_trip(rt: RoundTrip) -> Result<Dynamic, Box<EvalAltResult>> {
    if rt.ok {
        to_dynamic(&rt)
    } else {
        Err(thrown(&rt.error))
    }
}

fn thrown(error: &Option<crate::tools::ToolError>) -> Box<EvalAltResult> {
    let value = rhai::serde::to_dynamic(error).unwrap_or_else(|e| e.to_string().into());
    EvalAltResult::ErrorRuntime(value, Position::NONE).into()
}

fn to_dynamic<S: serde::Serialize>(value: &S) -> Result<Dynamic, Box<EvalAltResult>> {
    rhai::serde::to_dynamic(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_sandbox_has_no_eval_and_no_imports() {
        let engine = sandboxed_engine(&Limits::default());
        assert!(engine.compile(r#"eval("1")"#).is_err());
        let err = engine.run(r#"import "/etc/passwd" as p;"#).unwrap_err();
        assert!(err.to_string().contains("/etc/passwd"), "{err}");
    }

    #[test]
    fn an_endless_loop_stops_at_the_operation_limit() {
        let limits = Limits {
            max_operations: 100_000,
            ..Limits::default()
        };
        let engine = sandboxed_engine(&limits);
        let err = engine.run("loop { }").unwrap_err();
        let failure = outcome::run_failure(Path::new("j.rhai"), &err, limits.deadline);
        assert_eq!(failure.kind, super::super::FailureKind::Limit);
        assert_eq!(failure.line, Some(1));
    }

    #[test]
    fn an_unknown_action_class_is_a_script_error_at_its_line() {
        let mut engine = sandboxed_engine(&Limits::default());
        engine.register_fn(
            "allow",
            |c: rhai::Array| -> Result<(), Box<EvalAltResult>> { allowed_set(&c).map(|_| ()) },
        );
        engine
            .run(r#"allow(["read", "navigate", "act", "type", "pause", "end"]); allow([]);"#)
            .unwrap();
        let err = engine
            .run("allow([\"read\"]);\nallow([\"read\", 3]);")
            .unwrap_err();
        let failure = outcome::run_failure(Path::new("j.rhai"), &err, Duration::from_secs(1));
        assert_eq!(failure.kind, super::super::FailureKind::Script);
        assert!(failure.kind.is_bad_input());
        assert_eq!(failure.line, Some(2));
        assert!(
            failure
                .message
                .starts_with("`3` is not an action class (classes: read,"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn expect_throws_a_map_with_a_code() {
        let mut engine = sandboxed_engine(&Limits::default());
        engine.register_fn("expect", |c: bool, m: &str| expect(c, m));
        let code: String = engine
            .eval(r#"let c = ""; try { expect(1 == 2, "one is not two"); } catch (e) { c = e.code; } c"#)
            .unwrap();
        assert_eq!(code, "expectation_failed");
    }
}
