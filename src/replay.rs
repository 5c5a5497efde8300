//! Replaying a transcript through the gateway, and the one question asked of every step:
//! would the agent still have been right? The same ok or error code, the same route, and
//! every anchor the agent acted on (anywhere in the journey) still on screen with the
//! label it had when the agent saw it. The first step that differs is the drift.

use std::collections::HashSet;
use std::time::Instant;

use serde_json::{Value, json};

use crate::browser::Tab;
use crate::journey::{Failure, FailureCode, FailureKind, Outcome};
use crate::session::{Open, Session};
use crate::tools::{Attribution, Call, ErrorCode, Gateway};
use crate::transcript::{Step, Transcript};

/// The first step whose result no longer matches the recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Drift {
    /// The step (1-based, as recorded).
    pub step: usize,
    /// Its line in the file (the header is line 1).
    pub line: usize,
    /// The call, as a journey would write it: `` `invoke` of `claim.approve` ``.
    pub call: String,
    /// What differs.
    pub why: String,
    /// The recorded result, cut to what matters for the difference.
    pub recorded: Value,
    /// The replayed result, cut the same way.
    pub replayed: Value,
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "step {} ({}, line {}) drifted: {}\n  recorded: {}\n  replayed: {}",
            self.step, self.call, self.line, self.why, self.recorded, self.replayed
        )
    }
}

/// How a replay ended without drifting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replayed {
    /// Steps replayed and matched.
    pub matched: usize,
    /// Steps that cannot be replayed (a handoff: the person's part), by number.
    pub skipped: Vec<usize>,
}

/// Why a replay could not go on.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayError {
    /// A step drifted.
    Drift(Box<Drift>),
    /// A recorded call is not a call waymark knows (the file is bad input).
    BadStep {
        /// Its line.
        line: usize,
        /// Why.
        why: String,
    },
}

/// Replays every step of `transcript` through `gateway`, stopping at the first drift.
pub async fn replay<T: Tab>(
    gateway: &Gateway<T>,
    transcript: &Transcript,
) -> Result<Replayed, ReplayError> {
    let calls = transcript
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            Call::parse(&s.tool, s.arguments.clone())
                .map_err(|why| ReplayError::BadStep { line: i + 2, why })
        })
        .collect::<Result<Vec<Call>, _>>()?;
    let used: HashSet<String> = calls.iter().filter_map(Call::target).collect();
    let mut done = Replayed::default();
    for (i, (step, call)) in transcript.steps.iter().zip(&calls).enumerate() {
        if matches!(call, Call::Handoff(_)) {
            // The person's part of a journey cannot be replayed: nobody is there in CI.
            done.skipped.push(step.step);
            continue;
        }
        let Some(rt) = gateway.call(call).await else {
            done.matched += 1;
            continue;
        };
        let replayed = serde_json::to_value(&rt).unwrap_or(Value::Null);
        if let Some((why, recorded, now)) = compare(step, &replayed, &used) {
            return Err(ReplayError::Drift(Box::new(Drift {
                step: step.step,
                line: i + 2,
                call: named(call),
                why,
                recorded,
                replayed: now,
            })));
        }
        done.matched += 1;
    }
    Ok(done)
}

fn named(call: &Call) -> String {
    match call.target() {
        Some(t) => format!("`{}` of `{}`", call.tool(), crate::protocol::quoted(&t)),
        None => format!("`{}`", call.tool()),
    }
}

/// What differs between the recorded step and the replayed result, with both results cut
/// to the point; `None` when they match.
fn compare(
    step: &Step,
    replayed: &Value,
    used: &HashSet<String>,
) -> Option<(String, Value, Value)> {
    // A transcript recorded before round trips were cut holds long strings whole: they are
    // compared as the replay shows them.
    let recorded = &shown(&step.result);
    let gist = |v: &Value| {
        json!({"ok": v["ok"], "error": v["error"], "route": v["route"],
               "anchor": v["anchor"], "label": v["label"]})
    };
    let code = |v: &Value| v["error"]["code"].as_str().map(str::to_string);
    if recorded["ok"] != replayed["ok"] || code(recorded) != code(replayed) {
        let say = |v: &Value| code(v).unwrap_or_else(|| "ok".to_string());
        let why = format!("recorded {}, replayed {}", say(recorded), say(replayed));
        return Some((why, gist(recorded), gist(replayed)));
    }
    if recorded["route"] != replayed["route"] {
        let why = format!(
            "recorded on route {}, replayed on {}",
            recorded["route"], replayed["route"]
        );
        return Some((why, gist(recorded), gist(replayed)));
    }
    if !recorded["label"].is_null() && recorded["label"] != replayed["label"] {
        let why = format!(
            "`{}` was labelled {}, now {}",
            recorded["anchor"].as_str().unwrap_or("?"),
            recorded["label"],
            replayed["label"]
        );
        return Some((why, gist(recorded), gist(replayed)));
    }
    let (Some(before), Some(after)) = (
        recorded["screen"]["controls"].as_array(),
        replayed["screen"]["controls"].as_array(),
    ) else {
        return None;
    };
    for control in before {
        let reference = reference(control);
        if !used.contains(&reference) {
            continue;
        }
        let now = after.iter().find(|c| self::reference(c) == reference);
        let cut = |c: Option<&Value>| json!({"route": replayed["route"], "control": c.map(brief).unwrap_or(Value::Null)});
        let why = match now {
            None => format!(
                "`{reference}` ({}) is no longer on screen",
                control["label"]
            ),
            Some(c) if c["label"] != control["label"] => format!(
                "`{reference}` was labelled {}, now {}",
                control["label"], c["label"]
            ),
            Some(_) => continue,
        };
        let was = json!({"route": recorded["route"], "control": brief(control)});
        return Some((why, was, cut(now)));
    }
    None
}

/// `value` with every string in it as a round trip shows it (see [`crate::protocol::cut`]).
fn shown(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(crate::protocol::cut(s).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(shown).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shown(v))).collect())
        }
        other => other.clone(),
    }
}

/// A control as a drift report shows it: what tells it apart, not every field.
fn brief(control: &Value) -> Value {
    json!({"anchor": control["anchor"], "key": control["key"], "label": control["label"],
           "role": control["role"], "disabled": control["disabled"], "region": control["region"]})
}

/// `anchor` or `anchor[key]` of a control as serialized.
fn reference(control: &Value) -> String {
    let anchor = control["anchor"].as_str().unwrap_or_default();
    crate::anchor::reference(anchor, control["key"].as_str())
}

/// Replays one agent journey in a fresh tab of the run, with the run's scripted consent
/// policy (the person approved when it was recorded): its outcome.
pub(crate) async fn run_one(session: &Session, transcript: &Transcript) -> Outcome {
    let start = Instant::now();
    let outcome = |failure: Option<Failure>, output: Vec<String>| Outcome {
        expected_failure: None,
        name: transcript.name.clone(),
        failure,
        elapsed: start.elapsed(),
        output,
    };
    let failure = |kind, code: FailureCode, message: String, attribution, line| Failure {
        kind,
        code: Some(code),
        message,
        attribution,
        file: transcript.path.clone(),
        line,
        column: None,
    };
    let surface = match session.open(Open::script(&transcript.name)).await {
        Ok(surface) => surface,
        Err(e) => {
            let f = failure(
                FailureKind::Tool,
                ErrorCode::BrowserCrashed.into(),
                e.to_string(),
                Attribution::Environment,
                None,
            );
            return outcome(Some(f), Vec::new());
        }
    };
    let deadline = session.settings().limits.deadline;
    let replayed = tokio::time::timeout(deadline, replay(&surface.gateway(), transcript)).await;
    surface.close().await;
    match replayed {
        Ok(Ok(done)) => {
            let output: Vec<String> = done
                .skipped
                .iter()
                .map(|n| format!("step {n} (a handoff) was not replayed: the person's part"))
                .collect();
            // A passing journey's output is not reported: say what was left out here.
            for line in &output {
                eprintln!("note: `{}` {line}", transcript.name);
            }
            outcome(None, output)
        }
        Ok(Err(ReplayError::Drift(drift))) => {
            let f = failure(
                FailureKind::Expectation,
                FailureCode::Drifted,
                drift.to_string(),
                Attribution::App,
                // The message names the line: a transcript line is too long to quote.
                None,
            );
            outcome(Some(f), Vec::new())
        }
        Ok(Err(ReplayError::BadStep { line, why })) => {
            let f = failure(
                FailureKind::Script,
                ErrorCode::InvalidArgument.into(),
                why,
                Attribution::Journey,
                Some(line),
            );
            outcome(Some(f), Vec::new())
        }
        Err(_) => {
            let f = failure(
                FailureKind::Limit,
                ErrorCode::Timeout.into(),
                format!(
                    "the replay ran past its deadline of {} s",
                    deadline.as_secs()
                ),
                Attribution::Environment,
                None,
            );
            outcome(Some(f), Vec::new())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(result: Value) -> Step {
        Step {
            step: 2,
            tool: "read_screen".into(),
            arguments: json!({}),
            result,
        }
    }

    fn read(label: &str) -> Value {
        json!({"ok": true, "error": null, "route": "/w", "label": null, "screen": {"controls": [
            {"anchor": "w.go", "key": null, "label": label},
            {"anchor": "w.other", "key": null, "label": "Other"}]}})
    }

    #[test]
    fn a_used_anchor_relabelled_is_a_drift_and_an_unused_one_is_not() {
        let used: HashSet<String> = ["w.go".to_string()].into();
        assert_eq!(compare(&step(read("Go")), &read("Go"), &used), None);
        let (why, was, now) = compare(&step(read("Go")), &read("Start"), &used).unwrap();
        assert_eq!(why, "`w.go` was labelled \"Go\", now \"Start\"");
        assert_eq!(was["control"]["label"], "Go");
        assert_eq!(now["control"]["label"], "Start");
        let mut other = read("Go");
        other["screen"]["controls"][1]["label"] = json!("Renamed");
        assert_eq!(compare(&step(read("Go")), &other, &used), None);
    }

    #[test]
    fn a_different_outcome_or_route_is_a_drift() {
        let used = HashSet::new();
        let failed = json!({"ok": false, "error": {"code": "not_on_screen"}, "route": "/w"});
        let (why, _, _) = compare(&step(read("Go")), &failed, &used).unwrap();
        assert_eq!(why, "recorded ok, replayed not_on_screen");
        let mut moved = read("Go");
        moved["route"] = json!("/x");
        let (why, _, _) = compare(&step(read("Go")), &moved, &used).unwrap();
        assert_eq!(why, "recorded on route \"/w\", replayed on \"/x\"");
    }
}
