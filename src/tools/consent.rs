//! Asking the person: the consent question (naming the control in the words on screen),
//! who answers it (the journey's own asker, else the control page, else the terminal), and
//! the handoff.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::gate::Action;
use super::target::TargetRef;
use super::verbs::Verb;
use super::{Attribution, ErrorCode, Outcome, RoundTrip, ToolError, Tools, ms_since};
use crate::browser::Tab;
use crate::collector;
use crate::control::{Answer, TabGates};
use crate::protocol::quoted;

/// What an acting call does to its target, for the question.
#[derive(Debug, Clone, Copy)]
pub(super) struct Subject<'a> {
    /// The target.
    pub target: &'a TargetRef,
    /// The key pressed (`press`).
    pub key_name: Option<&'a str>,
    /// The text typed (`fill`).
    pub text: Option<&'a str>,
}

impl<T: Tab> Tools<T> {
    /// The question for `action` on `subject` at `route`: the control in the words of the
    /// last read, its anchor, and where it is. A secret field's value is not repeated.
    pub(super) fn question(
        &self,
        action: &Action,
        subject: Option<Subject<'_>>,
        route: &str,
    ) -> String {
        let route = quoted(route);
        let Some(subject) = subject else {
            return format!("Allow {} on {route}?", action.verb.tool());
        };
        let (label, secret) = self.seen(subject.target).unwrap_or_default();
        // A person reads the question: inputs of any length are quoted in part, with it.
        let target = subject.target.to_string();
        let control = if label.is_empty() {
            quoted(&target).to_string()
        } else {
            format!("\"{}\" ({})", quoted(&label), quoted(&target))
        };
        match (action.verb, subject.key_name, subject.text) {
            (Verb::Press, Some(key), _) => {
                format!("Press {} on {control} on {route}?", quoted(key))
            }
            (Verb::Fill, _, Some(_)) if secret => {
                format!("Fill {control} with a secret value on {route}?")
            }
            (Verb::Fill, _, Some(text)) => {
                format!("Fill {control} with \"{}\" on {route}?", quoted(text))
            }
            (Verb::Upload, _, Some(file)) => {
                format!(
                    "Upload the file \"{}\" with {control} on {route}?",
                    quoted(file)
                )
            }
            (Verb::Drag, _, Some(to)) => {
                format!("Drag {control} onto {} on {route}?", quoted(to))
            }
            (Verb::Invoke, _, Some(how)) => format!("{how} {control} on {route}?"),
            _ => format!("Press {control} on {route}?"),
        }
    }

    /// The label of the target as the last read saw it, and whether it is a secret field.
    fn seen(&self, target: &TargetRef) -> Option<(String, bool)> {
        let here = self.here();
        let held = here.memory.held.lock().ok()?;
        // With frames of another site, the last whole read with their controls placed.
        let framed = here.memory.framed.lock().ok()?;
        let raw = match framed.as_ref() {
            Some(framed) => framed,
            None => &held.as_ref()?.raw,
        };
        match target {
            TargetRef::Anchor(a) => raw
                .controls
                .iter()
                .find(|c| c.anchor == a.id.as_str() && c.key.as_deref() == a.key.as_deref())
                .map(|c| (c.label.to_string(), c.secret)),
            TargetRef::Node(n) => raw
                .evidence
                .as_ref()?
                .unanchored
                .iter()
                .find(|u| u.node == *n)
                .map(|u| (u.label.clone(), false)),
            TargetRef::Nth(a, n) => raw
                .controls
                .iter()
                .filter(|c| c.anchor == a.id.as_str() && c.key.as_deref() == a.key.as_deref())
                .nth(usize::try_from(*n).unwrap_or(usize::MAX))
                .map(|c| (c.label.to_string(), c.secret)),
            TargetRef::Point { .. } | TargetRef::Focused => None,
        }
    }

    /// Asks the person `question`: on the control page when one is open, else on the
    /// terminal when there is one; else nobody can be asked. Never a silent yes.
    pub(super) async fn ask(
        &self,
        control: &TabGates,
        question: &str,
        why: &str,
    ) -> Result<String, ToolError> {
        // The journey's own asker first (an MCP client that can show a question); when it
        // cannot ask, the control page, else the terminal.
        let first = match &control.asker {
            Some(asker) => {
                match tokio::time::timeout(control.consent_timeout, asker(question.to_string()))
                    .await
                {
                    Ok(answer) => answer,
                    Err(_) => Answer::Unavailable(format!(
                        "nobody answered within {} s",
                        control.consent_timeout.as_secs()
                    )),
                }
            }
            None => Answer::Unavailable(String::new()),
        };
        let answer = match first {
            Answer::Unavailable(before) => {
                let next = if control.hub.present() || !control.terminal {
                    control
                        .hub
                        .ask(control.tab, question, control.consent_timeout)
                        .await
                } else {
                    ask_terminal(question, control.consent_timeout).await
                };
                match next {
                    Answer::Unavailable(why) if !before.is_empty() => {
                        Answer::Unavailable(format!("{before}; {why}"))
                    }
                    other => other,
                }
            }
            answered => answered,
        };
        let refused = |code, message: String| {
            Err(ToolError::new(code, message).attributed(Attribution::Gate))
        };
        match answer {
            Answer::Approved(by) => Ok(format!("approved on the {by} ({why}): {question}")),
            Answer::Denied(by) => refused(
                ErrorCode::ConsentDenied,
                format!("denied on the {by}: {question}"),
            ),
            Answer::Unavailable(reason) => refused(
                ErrorCode::ConsentUnavailable,
                format!("nobody could be asked ({reason}; {why}): {question}"),
            ),
        }
    }

    /// Hands the tab to the person for `reason` and waits for Done, up to the handoff
    /// timeout. What the person types into the page is never read back: fields typed into
    /// during the handoff read as `[redacted]` from then on, and the round trip carries
    /// only where the page is now — no screen.
    pub async fn handoff(&self, reason: &str) -> RoundTrip {
        // The reason is only ever shown: to the person, in the round trip, in the trace.
        let reason = crate::protocol::cut(reason);
        let work = self.handoff_inner(&reason);
        self.call(Verb::Handoff, Some(&reason), None, work).await
    }

    async fn handoff_inner(&self, reason: &str) -> Outcome {
        let Some(control) = &self.here().control else {
            return Err((
                None,
                ToolError::new(
                    ErrorCode::HandoffTimedOut,
                    "nobody can take a handoff: the run has no control hub",
                )
                .attributed(Attribution::Environment),
            ));
        };
        let mark = |on: bool| collector::expression("handoff", &serde_json::json!({ "on": on }));
        // Best effort: a page that cannot be marked still gets handed over.
        let _ = self.evaluate(&mark(true)).await;
        let start = Instant::now();
        let timeout = self.options.handoff_timeout;
        let finished = control.hub.handoff(control.tab, reason, timeout).await;
        let _ = self.evaluate(&mark(false)).await;
        // What the person did is theirs: the run starts again from a fresh read, and
        // the next read is not reported as a change of the run's own making.
        self.here().returns_seen.store(
            control.hub.check(control.tab, &control.run).unwrap_or(0),
            Ordering::Relaxed,
        );
        if !finished {
            return Err((
                None,
                ToolError::new(
                    ErrorCode::HandoffTimedOut,
                    format!(
                        "the handoff ({reason}) was not finished within {} s",
                        timeout.as_secs()
                    ),
                )
                .attributed(Attribution::Gate),
            ));
        }
        tracing::debug!("handoff finished after {:.0} ms", ms_since(start));
        let state = self.read().await.map_err(|e| (None, e))?;
        Ok((None, state, None))
    }
}

/// A yes/no question on the terminal (stderr, stdin), bounded by `timeout`.
async fn ask_terminal(question: &str, timeout: Duration) -> Answer {
    if !std::io::stdin().is_terminal() {
        return Answer::Unavailable("no terminal and no control page is open".to_string());
    }
    let prompt = format!("consent: {question} [y/N] ");
    let read = tokio::task::spawn_blocking(move || {
        let mut err = std::io::stderr();
        let _ = write!(err, "{prompt}");
        let _ = err.flush();
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map(|_| line)
    });
    match tokio::time::timeout(timeout, read).await {
        Ok(Ok(Ok(line))) if matches!(line.trim(), "y" | "Y" | "yes") => {
            Answer::Approved("terminal")
        }
        Ok(Ok(Ok(_))) => Answer::Denied("terminal"),
        Ok(_) => Answer::Unavailable("the terminal could not be read".to_string()),
        Err(_) => Answer::Unavailable(format!(
            "nobody answered on the terminal within {} s",
            timeout.as_secs()
        )),
    }
}
