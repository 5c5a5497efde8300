//! `waymark mcp` given bad input (issue 40's corpus): an unknown tool, arguments of the
//! wrong types, a call larger than 1 MB, a client that disconnects mid-call. Each ends in a
//! JSON-RPC error or a clear message, the server serves the next call, and no panic reaches
//! stderr. Driven over raw stdio lines, as a careless client would.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cli::anchors;

/// Bound on every answer, and on the server ending.
const LIMIT: Duration = Duration::from_secs(60);

/// A `waymark mcp` spoken to line by line.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    next_id: u64,
}

impl Raw {
    /// Starts the server and completes the handshake.
    fn start() -> Raw {
        let mut child = Command::new(env!("CARGO_BIN_EXE_waymark"))
            .args(["mcp", "--anchors", &anchors()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start waymark mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut err = child.stderr.take().expect("stderr");
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        let mut raw = Raw {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
            next_id: 1,
        };
        let init = raw.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}),
        );
        assert!(init["result"].is_object(), "{init}");
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        raw
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write a line");
        stdin.flush().expect("flush");
    }

    /// Sends a request and waits for the answer with its id.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line.to_string());
        self.answer(id)
    }

    fn answer(&mut self, id: u64) -> Value {
        let start = Instant::now();
        loop {
            let left = LIMIT.saturating_sub(start.elapsed());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to request {id}"));
            let value: Value = serde_json::from_str(&line).expect("every line out is JSON");
            if value["id"] == id {
                return value;
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// The server still serves: `tools/list` answers with the tools.
    #[track_caller]
    fn still_serves(&mut self) {
        let tools = self.request("tools/list", json!({}));
        assert!(
            tools["result"]["tools"]
                .as_array()
                .is_some_and(|t| !t.is_empty()),
            "{tools}"
        );
    }

    /// Closes stdin (the client goes away) and waits for the server to end; its exit code,
    /// how long it took, and what it wrote on stderr.
    fn hang_up(mut self) -> (Option<i32>, Duration, String) {
        drop(self.stdin.take());
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("poll the server") {
                break Some(status);
            }
            if start.elapsed() > LIMIT {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(25));
        };
        let took = start.elapsed();
        let stderr = self
            .stderr
            .take()
            .map(|t| t.join().expect("read stderr"))
            .unwrap_or_default();
        assert!(
            status.is_some(),
            "the server outlived its client:\n{stderr}"
        );
        (status.and_then(|s| s.code()), took, stderr)
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a failed `tools/call` said: a JSON-RPC error's message, or a tool result flagged
/// as an error's text.
fn refusal(answer: &Value) -> String {
    eprintln!(
        "refused: {}",
        &answer.to_string().chars().take(300).collect::<String>()
    );
    if let Some(message) = answer["error"]["message"].as_str() {
        return message.to_string();
    }
    assert_eq!(answer["result"]["isError"], true, "not refused: {answer}");
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn bad_calls_each_get_an_error_and_the_next_call_is_served() {
    let mut raw = Raw::start();

    let unknown = raw.call("delete_everything", json!({}));
    let said = refusal(&unknown);
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        said.contains("no tool `delete_everything` here; the tools are `"),
        "{unknown}"
    );
    raw.still_serves();

    let wrong = raw.call("navigate", json!({"route": 42}));
    let said = refusal(&wrong);
    assert!(
        said.contains("route") || said.contains("invalid"),
        "{wrong}"
    );
    raw.still_serves();

    let missing = raw.call("invoke", json!({}));
    refusal(&missing);
    raw.still_serves();

    let not_an_object = raw.call("read_screen", json!([1, 2, 3]));
    assert_eq!(not_an_object["error"]["code"], -32602, "{not_an_object}");
    assert!(
        refusal(&not_an_object).contains("`arguments` must be an object"),
        "{not_an_object}"
    );
    let no_name = raw.request("tools/call", json!({"arguments": {}}));
    assert_eq!(no_name["error"]["code"], -32602, "{no_name}");
    raw.still_serves();

    // larger than 1 MB: an argument nobody asked for, and a huge anchor
    let padded = raw.call("read_screen", json!({"padding": "p".repeat(3 << 20 >> 1)}));
    let line = padded.to_string();
    eprintln!("padded: {}", &line.chars().take(300).collect::<String>());
    assert!(line.len() < 100_000, "{} bytes answered", line.len());
    raw.still_serves();
    let huge = raw.call("invoke", json!({"anchor": "a".repeat(3 << 20 >> 1)}));
    let said = refusal(&huge);
    assert!(said.len() < 2_000, "{} bytes said", said.len());
    raw.still_serves();

    let (code, _, stderr) = raw.hang_up();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_client_that_disconnects_mid_call_ends_the_server_cleanly() {
    let mut raw = Raw::start();
    // a call that starts the browser and loads a page, and the client gone before its answer
    let id = raw.next_id;
    raw.next_id += 1;
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "navigate", "arguments": {"route": "/claims"}}});
    raw.send(&call.to_string());
    let (code, took, stderr) = raw.hang_up();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(code.is_some(), "ended by a signal:\n{stderr}");
    eprintln!("disconnect mid-call: the server ended in {took:?} with {code:?}");
}
