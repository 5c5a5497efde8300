//! A second CDP connection to the browser, for the one command chromiumoxide must not see:
//! `Page.navigate`.
//!
//! chromiumoxide takes every `Page.navigate` sent through a page for its own navigation: it
//! holds the browser's answer until its watcher of the frame's lifecycle saw the new
//! document's `load`, and that watcher misses it when the page starts a same-document
//! navigation right after its load (see `navigation.rs`), then gives up after a fixed 30 s,
//! and queues the tab's next navigation behind it until then. The command goes on this
//! connection instead, in a session of waymark's own on the tab's target, and its answer
//! comes as the browser sends it; the load is then seen on the tab's own events.
//!
//! One connection per browser (by its websocket address), shared by its tabs and kept
//! while the browser is there (a journey's first navigation does not pay for a new one);
//! the sessions on it enable no domain but Fetch's authentication challenges, when a
//! journey has credentials (see `context_settings.rs`): chromiumoxide answers every
//! challenge on its own sessions itself. A session's events go to whoever asked for them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_tungstenite::tungstenite::Message;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::BrowserError;

/// An answer: the command's `result`, or the browser's error message.
type Answer = Result<Value, String>;

/// Where each session's events go.
type Events = HashMap<String, mpsc::UnboundedSender<Value>>;

/// The connections open, by the browser's websocket address.
static WIRES: tokio::sync::Mutex<Vec<(String, Arc<Wire>)>> =
    tokio::sync::Mutex::const_new(Vec::new());

/// A CDP connection of waymark's own to a browser.
pub(super) struct Wire {
    outgoing: mpsc::UnboundedSender<String>,
    pending: Arc<Mutex<HashMap<u64, oneshot::Sender<Answer>>>>,
    /// Where each session's events go, by session.
    events: Arc<Mutex<Events>>,
    next: AtomicU64,
    task: JoinHandle<()>,
}

impl Wire {
    /// The connection to the browser at `address`, opened unless one is.
    pub(super) async fn to(address: &str) -> Result<Arc<Wire>, BrowserError> {
        let mut wires = WIRES.lock().await;
        // Those whose browser went (or whose runtime ended) are let go.
        wires.retain(|(_, w)| !w.outgoing.is_closed());
        if let Some((_, wire)) = wires.iter().find(|(a, _)| a == address) {
            return Ok(Arc::clone(wire));
        }
        let wire = Arc::new(Wire::open(address).await?);
        wires.push((address.to_string(), Arc::clone(&wire)));
        Ok(wire)
    }

    async fn open(address: &str) -> Result<Wire, BrowserError> {
        let (ws, _) = async_tungstenite::tokio::connect_async(address)
            .await
            .map_err(|e| {
                BrowserError::Protocol(format!(
                    "could not open a second connection to the browser at `{address}`: {e}"
                ))
            })?;
        let (mut sink, mut stream) = ws.split();
        let (outgoing, mut queue) = mpsc::unbounded_channel::<String>();
        let pending: Arc<Mutex<HashMap<u64, oneshot::Sender<Answer>>>> = Arc::default();
        let answers = Arc::clone(&pending);
        let events: Arc<Mutex<Events>> = Arc::default();
        let listeners = Arc::clone(&events);
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    message = queue.recv() => match message {
                        Some(text) => {
                            if sink.send(Message::text(text)).await.is_err() {
                                break;
                            }
                        }
                        None => break,
                    },
                    frame = stream.next() => match frame {
                        Some(Ok(Message::Text(text))) => {
                            if let Some(event) = deliver(&answers, text.as_str()) {
                                hand_over(&listeners, event);
                            }
                        }
                        Some(Ok(_)) => {}
                        Some(Err(_)) | None => break,
                    },
                }
            }
            // The connection ended: every command waiting on it learns so (its sender
            // dropped) rather than waiting for its bound.
            if let Ok(mut answers) = answers.lock() {
                answers.clear();
            }
        });
        Ok(Wire {
            outgoing,
            pending,
            events,
            next: AtomicU64::new(1),
            task,
        })
    }

    /// Sends `method` with `params` (to the target of `session`, or to the browser) and
    /// waits for its answer, unbounded: the caller bounds it.
    pub(super) async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, BrowserError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let (tx, rx) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id, tx);
        }
        if self.outgoing.send(message.to_string()).is_err() {
            return Err(BrowserError::browser_gone());
        }
        match rx.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(refusal)) => Err(BrowserError::Protocol(format!("`{method}`: {refusal}"))),
            Err(_) => Err(BrowserError::browser_gone()),
        }
    }

    /// A session of this connection on the target `target` (a tab).
    pub(super) async fn attach(&self, target: &str) -> Result<String, BrowserError> {
        let params = json!({"targetId": target, "flatten": true});
        let reply = self.call(None, "Target.attachToTarget", params).await?;
        reply["sessionId"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| {
                BrowserError::Protocol("`Target.attachToTarget` named no session".into())
            })
    }
}

impl Wire {
    /// The events of `session` from now on (those before are let go).
    pub(super) fn events(&self, session: &str) -> mpsc::UnboundedReceiver<Value> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut events) = self.events.lock() {
            events.retain(|_, tx| !tx.is_closed());
            events.insert(session.to_string(), tx);
        }
        rx
    }
}

/// Gives `event` to whoever listens to its session, if anyone does.
fn hand_over(listeners: &Mutex<Events>, event: Value) {
    let Some(session) = event["sessionId"].as_str() else {
        return;
    };
    if let Ok(listeners) = listeners.lock()
        && let Some(tx) = listeners.get(session)
    {
        let _ = tx.send(event);
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Hands the answer in `text` to the command waiting for it; an event is given back.
fn deliver(pending: &Mutex<HashMap<u64, oneshot::Sender<Answer>>>, text: &str) -> Option<Value> {
    let message = serde_json::from_str::<Value>(text).ok()?;
    let Some(id) = message["id"].as_u64() else {
        return Some(message);
    };
    let tx = pending.lock().ok().and_then(|mut p| p.remove(&id))?;
    let answer = match message.get("error") {
        Some(error) => Err(error["message"]
            .as_str()
            .unwrap_or("the browser refused the command")
            .to_string()),
        None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
    };
    let _ = tx.send(answer);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_goes_to_its_command_and_an_event_to_nobody() {
        let pending = Mutex::new(HashMap::new());
        let (tx, mut rx) = oneshot::channel();
        pending.lock().unwrap().insert(7, tx);
        deliver(
            &pending,
            r#"{"method":"Target.attachedToTarget","params":{}}"#,
        );
        assert!(rx.try_recv().is_err());
        deliver(
            &pending,
            r#"{"id":7,"result":{"loaderId":"L"},"sessionId":"S"}"#,
        );
        assert_eq!(rx.try_recv().unwrap().unwrap()["loaderId"], "L");
        let (tx, mut rx) = oneshot::channel();
        pending.lock().unwrap().insert(8, tx);
        deliver(
            &pending,
            r#"{"id":8,"error":{"code":-32000,"message":"Cannot navigate to invalid URL"}}"#,
        );
        assert_eq!(
            rx.try_recv().unwrap().unwrap_err(),
            "Cannot navigate to invalid URL"
        );
        assert!(pending.lock().unwrap().is_empty());
    }
}
