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
use crate::snapshot::{SnapshotError, SnapshotOptions, SnapshotStore};
use crate::tools::{AllowedSet, Call, ErrorCode, FileScope, Gateway, ReadArgs, RoundTrip, Verb};

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
    // `var(name)` is a syntax of its own (see `vars`): scripts compile with it; the run's
    // engine registers it again with the run's variables.
    super::vars::register_var(&mut engine, Arc::new(super::Vars::default()));
    engine
}

/// What a journey runs against: the gateway over its tab, the runtime it blocks on, its
/// limits and the snapshot store of the run.
pub struct JourneyEnv<T: Tab> {
    /// The gateway over the journey's own tab: the only way a journey reaches it.
    pub gateway: Gateway<T>,
    /// The runtime the tools' futures run on.
    pub handle: Handle,
    /// Resource limits.
    pub limits: Limits,
    /// Where `snapshot(name)` asserts.
    pub snapshots: Arc<SnapshotStore>,
    /// What `var(name)` reads; its secret values are redacted from what the script prints.
    pub vars: Arc<super::Vars>,
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
                .map(|f| read_only_refusal(f, env.gateway.options().read_only))
        }
    };
    // A failure's message may quote what the script threw or expected: a secret
    // variable's value is redacted from it as from what the script printed.
    let failure = failure.map(|mut f| {
        f.message = env.vars.redact(&f.message);
        f
    });
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
    let (gateway, handle, limits) = (env.gateway.clone(), env.handle.clone(), &env.limits);
    let mut engine = sandboxed_engine(limits);
    let deadline = start + limits.deadline;
    engine.on_progress(move |_| (Instant::now() > deadline).then(|| Dynamic::from("deadline")));
    let printed = Arc::clone(&output);
    let (vars, secret) = (Arc::clone(&env.vars), Arc::clone(&env.vars));
    // What a script prints may hold any page text it read: shown cut to a message's length,
    // a secret variable's value redacted.
    engine.on_print(move |s| {
        if let Ok(mut o) = printed.lock() {
            o.push(crate::protocol::shown_message(vars.redact(s)));
        }
    });
    engine.on_debug(move |s, _, pos| {
        if let Ok(mut o) = output.lock() {
            let s = secret.redact(s);
            o.push(crate::protocol::shown_message(format!("{pos:?}: {s}")));
        }
    });
    super::vars::register_vars(&mut engine, &env.vars, gateway.base());

    let blocker = Blocker::new(handle.clone(), gateway.clone(), start, limits.deadline);
    super::calls::register_calls(&mut engine, &gateway, &blocker);
    super::waits::register_waits(&mut engine, &gateway, &handle);
    gateway.set_file_scope(FileScope::for_journey(&journey.path, &journey.name));
    let g = gateway.clone();
    engine.register_fn(
        "allow",
        move |classes: rhai::Array| -> Result<(), Box<EvalAltResult>> {
            g.allow(allowed_set(&classes)?);
            Ok(())
        },
    );
    let snap = Snapper {
        gateway,
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

/// On a read-only surface the acting functions do not exist; calling one says so in words.
fn read_only_refusal(failure: outcome::Failure, read_only: bool) -> outcome::Failure {
    let called = failure
        .message
        .strip_prefix("Function not found: ")
        .and_then(|rest| rest.split([' ', '(']).next())
        .filter(|name| Verb::of_tool(name).is_some_and(Verb::acts))
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
    gateway: Gateway<T>,
    handle: Handle,
    store: Arc<SnapshotStore>,
    journey: String,
    source: std::path::PathBuf,
}

impl<T: Tab> Clone for Snapper<T> {
    fn clone(&self) -> Self {
        Snapper {
            gateway: self.gateway.clone(),
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
        let whole = Call::Read(ReadArgs {
            whole: true,
            ..ReadArgs::default()
        });
        let rt = self
            .handle
            .block_on(self.gateway.call(&whole))
            .unwrap_or_default();
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
                self.gateway.registry(),
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
        // JSON leaves an empty `dialogs` (`console`, `page_errors`) out; a script reading a
        // missing field would get `()`, so its round trip always lists them.
        let mut map = to_dynamic(&rt)?;
        if let Some(mut m) = map.write_lock::<rhai::Map>() {
            for list in ["dialogs", "console", "page_errors"] {
                if !m.contains_key(list) {
                    m.insert(list.into(), Dynamic::from_array(Vec::new()));
                }
            }
        }
        Ok(map)
    } else {
        Err(thrown(&rt.error))
    }
}

pub(super) fn thrown(error: &Option<crate::tools::ToolError>) -> Box<EvalAltResult> {
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
