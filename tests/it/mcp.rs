//! `waymark mcp`: a real MCP client (rmcp's, over stdio) drives the `waymark` binary, which
//! drives the demo app in a real Chromium. The person behind the client is played by a
//! handler that answers consent questions (elicitation) yes or no, or cannot be asked.
//! Every call is bounded; the server's process group is killed if it outlives its test.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ErrorData, Implementation,
};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};

use crate::cli::{anchors, waymark};

/// Bound on starting the server, and on every call.
const LIMIT: Duration = Duration::from_secs(60);

/// The person behind the client.
#[derive(Clone)]
pub(crate) struct Person {
    /// The client can show questions (declares elicitation).
    elicitation: bool,
    /// What the person answers.
    approve: bool,
    /// The questions they were asked.
    asked: Arc<Mutex<Vec<String>>>,
}

impl Person {
    pub(crate) fn new(elicitation: bool, approve: bool) -> Person {
        Person {
            elicitation,
            approve,
            asked: Arc::default(),
        }
    }
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.elicitation {
            ClientCapabilities::builder().enable_elicitation().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("waymark-tests", "0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        Ok(if self.approve {
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true}))
        } else {
            ElicitResult::new(ElicitationAction::Decline)
        })
    }
}

/// A running `waymark mcp` and the client talking to it.
pub(crate) struct Session {
    client: Option<RunningService<RoleClient, Person>>,
    asked: Arc<Mutex<Vec<String>>>,
    group: Option<i32>,
}

impl Session {
    pub(crate) async fn start(person: Person, args: &[&str]) -> Session {
        Session::start_with(person, args, Stdio::inherit()).await.0
    }

    /// Starts the server with `stderr` as given; the piped stderr, when asked for.
    async fn start_with(
        person: Person,
        args: &[&str],
        stderr: Stdio,
    ) -> (Session, Option<tokio::process::ChildStderr>) {
        Session::start_in(person, args, stderr, None).await
    }

    /// [`Session::start_with`], the server running in `cwd` when given.
    pub(crate) async fn start_in(
        person: Person,
        args: &[&str],
        stderr: Stdio,
        cwd: Option<&Path>,
    ) -> (Session, Option<tokio::process::ChildStderr>) {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_waymark"));
        if let Some(cwd) = cwd {
            cmd.current_dir(cwd);
        }
        cmd.arg("mcp")
            .arg("--anchors")
            .arg(anchors())
            .args(args)
            // its own process group, so a server that hangs dies with its browser
            .process_group(0);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("WAYMARK_") {
                cmd.env_remove(key);
            }
        }
        let (transport, err) = TokioChildProcess::builder(cmd)
            .stderr(stderr)
            .spawn()
            .expect("spawn `waymark mcp`");
        let group = transport.id().and_then(|id| i32::try_from(id).ok());
        let asked = Arc::clone(&person.asked);
        let client = tokio::time::timeout(LIMIT, person.serve(transport))
            .await
            .expect("the server answered initialize in time")
            .expect("the MCP session starts");
        let session = Session {
            client: Some(client),
            asked,
            group,
        };
        (session, err)
    }

    pub(crate) fn client(&self) -> &RunningService<RoleClient, Person> {
        self.client.as_ref().expect("the session is open")
    }

    pub(crate) async fn call(&self, tool: &'static str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else {
            panic!("arguments are an object")
        };
        let params = CallToolRequestParams::new(tool).with_arguments(args);
        tokio::time::timeout(LIMIT, self.client().call_tool(params))
            .await
            .unwrap_or_else(|_| panic!("`{tool}` answered within {} s", LIMIT.as_secs()))
            .unwrap_or_else(|e| panic!("`{tool}` is a valid call: {e}"))
    }

    async fn tools(&self) -> Vec<String> {
        let tools = tokio::time::timeout(LIMIT, self.client().list_all_tools())
            .await
            .expect("tools/list answered in time")
            .expect("tools/list works");
        tools.into_iter().map(|t| t.name.to_string()).collect()
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.group.and_then(|g| u32::try_from(g).ok())
    }

    pub(crate) fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }

    /// Closes the client, which ends the server (and its browser) gracefully.
    pub(crate) async fn stop(mut self) {
        if let Some(client) = self.client.take() {
            let _ = tokio::time::timeout(LIMIT, client.cancel()).await;
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(group) = self.group.take() {
            // SAFETY: kill(2) on the process group of a child we started ourselves; a
            // group that already exited only yields ESRCH.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
    }
}

/// Runs one test's async body on a runtime of its own.
pub(crate) fn run<F: std::future::Future<Output = ()>>(body: F) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(body);
}

pub(crate) fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[track_caller]
pub(crate) fn ok(result: &CallToolResult) -> &Value {
    assert_eq!(result.is_error, Some(false), "{}", text(result));
    let value = result
        .structured_content
        .as_ref()
        .expect("structured content");
    assert_eq!(value["ok"], true, "{value}");
    value
}

#[track_caller]
pub(crate) fn failed(result: &CallToolResult, code: &str) -> Value {
    assert_eq!(result.is_error, Some(true), "{}", text(result));
    let value = result
        .structured_content
        .clone()
        .expect("structured content");
    assert_eq!(value["error"]["code"], code, "{value}");
    assert!(
        text(result).contains(&format!("failed: {code}: ")),
        "the text names the code: {}",
        text(result)
    );
    value
}

pub(crate) fn control<'a>(rt: &'a Value, anchor: &str) -> &'a Value {
    rt["screen"]["controls"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["anchor"] == anchor))
        .unwrap_or_else(|| panic!("no `{anchor}` on screen: {rt}"))
}

#[test]
fn tools_list_offers_every_tool_and_a_read_only_surface_no_acting_tool() {
    run(async {
        // No browser exists at this path: listing must not need one.
        let absent = ["--browser", "/no/such/chromium"];
        let full = Session::start(Person::new(false, false), &absent).await;
        let mut names = full.tools().await;
        names.sort();
        assert_eq!(
            names,
            [
                "clock_advance",
                "clock_install",
                "clock_pause",
                "clock_resume",
                "clock_set",
                "close_tab",
                "drag",
                "fill",
                "finish",
                "grant_permissions",
                "handoff",
                "hover",
                "http_credentials",
                "invoke",
                "move_pointer",
                "navigate",
                "on_dialog",
                "press",
                "read_screen",
                "request",
                "route",
                "scroll",
                "scroll_to",
                "set_geolocation",
                "set_headers",
                "set_network",
                "set_offline",
                "switch_tab",
                "tabs",
                "unroute",
                "upload",
                "wait_for"
            ]
        );
        let listed = full.client().list_all_tools().await.unwrap();
        let fill = listed.iter().find(|t| t.name == "fill").unwrap();
        assert!(
            fill.description
                .as_deref()
                .unwrap()
                .contains("never submits"),
            "{fill:?}"
        );
        let schema = serde_json::to_value(&*fill.input_schema).unwrap();
        assert_eq!(schema["required"], json!(["anchor", "text"]), "{schema}");
        assert!(
            schema["properties"]["anchor"]["description"]
                .as_str()
                .unwrap()
                .contains("read_screen"),
            "{schema}"
        );
        full.stop().await;

        let mut args = vec!["--read-only"];
        args.extend(absent);
        let read_only = Session::start(Person::new(false, false), &args).await;
        let mut names = read_only.tools().await;
        names.sort();
        // Hover and the tabs are reads: offered; drag and upload act: not.
        assert_eq!(
            names,
            [
                "finish",
                "hover",
                "move_pointer",
                "navigate",
                "read_screen",
                "scroll",
                "scroll_to",
                "switch_tab",
                "tabs",
                "wait_for"
            ]
        );
        read_only.stop().await;
    });
}

#[test]
fn an_agent_navigates_reads_fills_and_invokes_with_the_person_approving() {
    run(async {
        let s = Session::start(Person::new(true, true), &[]).await;
        let nav = s.call("navigate", json!({"route": "/widgets"})).await;
        let value = ok(&nav);
        assert_eq!(value["route"], "/widgets");
        assert_eq!(value["untrusted"], true);
        assert_eq!(value["screen"]["untrusted"], true);
        assert!(
            text(&nav).contains("widgets.counter \"Clicked 0 times\" button"),
            "{}",
            text(&nav)
        );
        assert!(text(&nav).contains("untrusted"), "{}", text(&nav));

        let read = s.call("read_screen", json!({"region": "labels"})).await;
        let controls = ok(&read)["screen"]["controls"].as_array().unwrap().clone();
        assert_eq!(controls.len(), 6, "{controls:?}");
        assert!(
            controls.iter().all(|c| c["region"] == "labels"),
            "{controls:?}"
        );
        let nowhere = s.call("read_screen", json!({"region": "billing"})).await;
        failed(&nowhere, "invalid_argument");

        let fill = s
            .call(
                "fill",
                json!({"anchor": "widgets.labelledby", "text": "SW1A 1AA"}),
            )
            .await;
        let value = ok(&fill);
        assert_eq!(value["label"], "Billing Postcode");
        assert_eq!(control(value, "widgets.labelledby")["value"], "SW1A 1AA");

        let invoke = s.call("invoke", json!({"anchor": "widgets.counter"})).await;
        let value = ok(&invoke);
        assert_eq!(value["anchor"], "widgets.counter");
        assert_eq!(
            control(value, "widgets.counter")["label"],
            "Clicked 1 times"
        );
        assert!(
            text(&invoke).starts_with("invoke of widgets.counter (\"Clicked 0 times\") ok"),
            "{}",
            text(&invoke)
        );

        ok(&s.call("navigate", json!({"route": "/claims"})).await);
        let moved = s
            .call("invoke", json!({"anchor": "claims.open", "key": "1042"}))
            .await;
        assert_eq!(ok(&moved)["route"], "/claims/1042", "{}", text(&moved));
        assert!(
            text(&moved).contains("moved from /claims to /claims/1042"),
            "{}",
            text(&moved)
        );
        assert_eq!(
            s.asked(),
            [
                "Fill \"Billing Postcode\" (widgets.labelledby) with \"SW1A 1AA\" on /widgets?",
                "Press \"Clicked 0 times\" (widgets.counter) on /widgets?",
                "Press \"Claim 1042\" (claims.open[1042]) on /claims?",
            ]
        );
        s.stop().await;
    });
}

#[test]
fn an_agents_on_dialog_is_asked_like_invoke_and_its_answers_are_listed() {
    run(async {
        let s = Session::start(Person::new(true, true), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let set = s.call("on_dialog", json!({"action": "dismiss"})).await;
        assert!(ok(&set).get("dialogs").is_none(), "none answered: left out");
        assert_eq!(s.asked().len(), 1, "{:?}", s.asked());
        assert!(s.asked()[0].contains("on_dialog"), "{:?}", s.asked());
        let alert = s.call("invoke", json!({"anchor": "widgets.alert"})).await;
        assert_eq!(
            ok(&alert)["dialogs"],
            json!([{"type": "alert", "message": "Heads up", "answer": "dismiss", "text": null}])
        );
        assert!(
            text(&alert).contains("The page opened an alert dialog (untrusted page text: \"Heads up\"), answered dismiss"),
            "{}",
            text(&alert)
        );
        s.stop().await;

        let s = Session::start(Person::new(true, false), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let refused = s.call("on_dialog", json!({"action": "dismiss"})).await;
        failed(&refused, "consent_denied");
        s.stop().await;
    });
}

/// The context's verbs act: an agent's is asked like invoke, refused when the person says
/// no; credentials and header values are recorded `[redacted]` and never shown back.
#[test]
fn an_agents_context_settings_are_asked_like_invoke_and_their_secrets_recorded_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("context.agent.jsonl");
    let path = file.to_str().unwrap();
    run(async {
        let s = Session::start(Person::new(true, true), &["--record", path]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let calls = [
            (
                "http_credentials",
                json!({"user": "ada", "pass": "mcp-secret-pass"}),
            ),
            (
                "set_headers",
                json!({"headers": {"X-Tenant": "mcp-secret-tenant"}}),
            ),
            ("grant_permissions", json!({"permissions": ["geolocation"]})),
            (
                "set_geolocation",
                json!({"latitude": 52.5, "longitude": 13.4}),
            ),
        ];
        for (n, (tool, args)) in calls.iter().enumerate() {
            let rt = s.call(tool, args.clone()).await;
            ok(&rt);
            assert_eq!(s.asked().len(), n + 1, "{tool}: {:?}", s.asked());
            assert!(s.asked()[n].contains(tool), "{:?}", s.asked());
            assert!(!text(&rt).contains("mcp-secret"), "{}", text(&rt));
        }
        for question in s.asked() {
            assert!(!question.contains("mcp-secret"), "{question}");
        }
        s.stop().await;

        let s = Session::start(Person::new(true, false), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let refused = s
            .call("set_headers", json!({"headers": {"X-Tenant": "acme"}}))
            .await;
        failed(&refused, "consent_denied");
        s.stop().await;
    });
    let recorded = std::fs::read_to_string(&file).unwrap();
    assert!(!recorded.contains("mcp-secret"), "{recorded}");
    assert!(recorded.contains("[redacted]"), "{recorded}");
}

#[test]
fn a_person_who_says_no_through_the_client_leaves_the_page_untouched() {
    run(async {
        let s = Session::start(Person::new(true, false), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let refused = s.call("invoke", json!({"anchor": "widgets.counter"})).await;
        let value = failed(&refused, "consent_denied");
        assert!(value["screen"].is_null(), "a refused call reads nothing");
        assert_eq!(s.asked().len(), 1);
        let read = s.call("read_screen", json!({})).await;
        assert_eq!(
            control(ok(&read), "widgets.counter")["label"],
            "Clicked 0 times"
        );
        s.stop().await;
    });
}

#[test]
fn wait_for_answers_with_the_screen_asks_nobody_and_times_out_naming_the_condition() {
    run(async {
        // A person who would refuse everything: a wait is a read, never a question.
        let s = Session::start(Person::new(true, false), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let there = s
            .call(
                "wait_for",
                json!({"anchor": "widgets.counter", "enabled": true}),
            )
            .await;
        assert_eq!(ok(&there)["tool"], "wait_for");
        let never = s
            .call(
                "wait_for",
                json!({"text": "no such words", "timeout_ms": 200}),
            )
            .await;
        let value = failed(&never, "timeout");
        assert!(
            value["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("text \"no such words\"")),
            "{value}"
        );
        assert!(s.asked().is_empty(), "{:?}", s.asked());
        s.stop().await;
    });
}

#[test]
fn a_client_that_cannot_ask_gets_consent_unavailable_never_a_silent_yes() {
    run(async {
        let s = Session::start(Person::new(false, true), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let refused = s.call("invoke", json!({"anchor": "widgets.counter"})).await;
        let value = failed(&refused, "consent_unavailable");
        assert!(
            value["error"]["message"]
                .as_str()
                .unwrap()
                .contains("no elicitation support"),
            "{value}"
        );
        assert!(s.asked().is_empty());
        s.stop().await;
    });
}

#[test]
fn a_cut_read_says_what_was_not_shown_in_one_sentence() {
    run(async {
        let s = Session::start(Person::new(false, false), &["--max-controls", "50"]).await;
        let nav = s.call("navigate", json!({"route": "/dense?n=1000"})).await;
        let value = ok(&nav);
        assert_eq!(value["screen"]["truncation"]["dropped"], 950, "{value}");
        let said = text(&nav);
        assert!(
            said.contains(
                "The screen has more controls than I could read: 950 not shown, mostly in region"
            ),
            "{said}"
        );
        assert!(
            said.contains("ask for a region with read_screen(region)."),
            "{said}"
        );
        let budgeted = s.call("read_screen", json!({"budget": 2000})).await;
        let cut = &ok(&budgeted)["screen"]["truncation"];
        assert_eq!(cut["cut_at"], "description", "{cut}");
        assert!(
            text(&budgeted).contains("not shown, mostly in region"),
            "{}",
            text(&budgeted)
        );
        s.stop().await;
    });
}

#[test]
fn a_handoff_ends_when_the_person_says_done_through_the_client_and_times_out_otherwise() {
    run(async {
        let done = Session::start(Person::new(true, true), &[]).await;
        ok(&done.call("navigate", json!({"route": "/widgets"})).await);
        let handed = done.call("handoff", json!({"reason": "log in"})).await;
        let value = ok(&handed);
        assert_eq!(value["route"], "/widgets");
        assert!(
            value["screen"].is_null(),
            "nothing of the person's time comes back"
        );
        assert!(
            done.asked().iter().any(|q| q.contains("to log in")),
            "{:?}",
            done.asked()
        );
        done.stop().await;

        let args = ["--handoff-timeout", "1"];
        let away = Session::start(Person::new(true, false), &args).await;
        ok(&away.call("navigate", json!({"route": "/widgets"})).await);
        let handed = away.call("handoff", json!({"reason": "log in"})).await;
        failed(&handed, "handoff_timed_out");
        away.stop().await;
    });
}

/// Records an agent's session into `dir/journeys/widgets.agent.jsonl`.
async fn record(dir: &Path) -> std::path::PathBuf {
    let file = dir.join("journeys/widgets.agent.jsonl");
    let path = file.to_str().unwrap();
    let s = Session::start(Person::new(true, true), &["--record", path]).await;
    ok(&s.call("navigate", json!({"route": "/widgets"})).await);
    ok(&s.call("read_screen", json!({})).await);
    ok(&s
        .call(
            "fill",
            json!({"anchor": "widgets.labelledby", "text": "SW1A 1AA"}),
        )
        .await);
    ok(&s
        .call(
            "fill",
            json!({"anchor": "widgets.secret", "text": "correct horse"}),
        )
        .await);
    ok(&s.call("invoke", json!({"anchor": "widgets.counter"})).await);
    ok(&s.call("finish", json!({"summary": "counted once"})).await);
    s.stop().await;
    file
}

#[test]
fn a_recorded_session_replays_and_a_relabelled_control_is_the_drifted_step() {
    let dir = tempfile::tempdir().unwrap();
    run(async {
        record(dir.path()).await;
    });
    let file = dir.path().join("journeys/widgets.agent.jsonl");
    let recorded = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<Value> = recorded
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["transcript"], "waymark-agent-transcript");
    let tools: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["tool"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "navigate",
            "read_screen",
            "fill",
            "fill",
            "invoke",
            "finish"
        ]
    );
    assert_eq!(lines[3]["arguments"]["text"], "SW1A 1AA");
    assert_eq!(lines[4]["arguments"]["text"], "[redacted]");
    assert!(!recorded.contains("correct horse"), "a secret was recorded");

    let no_env: [(&str, &OsStr); 0] = [];
    let anchors = anchors();
    let args = ["run", "--anchors", anchors.as_str()];
    waymark(dir.path(), args, &no_env)
        .exits(0)
        .says("widgets.agent");

    // The app "renamed" the counter since the recording.
    std::fs::write(&file, recorded.replace("Clicked 0 times", "Count clicks")).unwrap();
    waymark(dir.path(), args, &no_env)
        .exits(1)
        .says("step 1 (`navigate`, line 2) drifted")
        .says("`widgets.counter` was labelled \"Count clicks\", now \"Clicked 0 times\"")
        .says("recorded:")
        .says("replayed:");
}

/// The control page's URL, as the server prints it on stderr; the rest of stderr is passed
/// through.
async fn control_page_url(stderr: tokio::process::ChildStderr) -> String {
    use tokio::io::AsyncBufReadExt;
    let (found, url) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        let mut found = Some(found);
        while let Ok(Some(line)) = lines.next_line().await {
            match (line.strip_prefix("control page: "), found.take()) {
                (Some(url), Some(tx)) => {
                    let _ = tx.send(url.to_string());
                }
                (_, tx) => {
                    found = tx;
                    eprintln!("{line}");
                }
            }
        }
    });
    tokio::time::timeout(LIMIT, url)
        .await
        .expect("the control page's URL is printed in time")
        .expect("the control page's URL is printed")
}

/// `method` on `path` under the control page at `url`: the status and the body.
async fn page(url: &str, method: &str, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let url = url::Url::parse(url).expect("the control page's URL parses");
    let addr = url.authority().to_string();
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let request = format!(
            "{method} {}{path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            url.path()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).await.unwrap();
        reply
    };
    let reply = tokio::time::timeout(LIMIT, exchange)
        .await
        .expect("the control page answers in time");
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, body.to_string())
}

#[test]
fn a_person_who_takes_the_tab_mid_session_pauses_every_call_until_they_give_it_back() {
    run(async {
        let (s, stderr) = Session::start_with(
            Person::new(false, false),
            &["--control-page"],
            Stdio::piped(),
        )
        .await;
        let url = control_page_url(stderr.expect("piped stderr")).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let (status, state) = page(&url, "GET", "api/state").await;
        assert_eq!(status, 200, "{state}");
        let state: Value = serde_json::from_str(&state).unwrap();
        let tab = state["tabs"][0]["id"]
            .as_u64()
            .expect("the session's tab is listed");
        assert_eq!(
            page(&url, "POST", &format!("api/tabs/{tab}/take")).await.0,
            204
        );

        let paused = s.call("read_screen", json!({})).await;
        failed(&paused, "paused_by_user");
        failed(
            &s.call("invoke", json!({"anchor": "widgets.counter"})).await,
            "paused_by_user",
        );

        assert_eq!(
            page(&url, "POST", &format!("api/tabs/{tab}/return"))
                .await
                .0,
            204
        );
        ok(&s.call("read_screen", json!({})).await);
        s.stop().await;
    });
}

/// A 2 MB route was quoted whole in the error and again in the text beside it: a 4 MB reply
/// into the agent's context. Every message quotes at most a couple of hundred characters of
/// an input, with its length.
#[test]
fn a_huge_argument_is_quoted_in_part_with_its_length() {
    run(async {
        let s = Session::start(Person::new(false, false), &[]).await;
        let route = format!("/{}", "a".repeat(2 << 20));
        let nav = s.call("navigate", json!({"route": route})).await;
        let said = text(&nav);
        assert!(said.len() < 1_000, "{} bytes said", said.len());
        assert!(said.contains("(2097153 characters)"), "{said}");
        let value = serde_json::to_string(&nav.structured_content).expect("JSON");
        assert!(
            value.len() < 2_000,
            "{} bytes of structured content",
            value.len()
        );
        let anchor = format!("x{}", "y".repeat(1 << 20));
        let invoked = s.call("invoke", json!({"anchor": anchor})).await;
        let said = text(&invoked);
        assert!(
            said.len() < 1_000,
            "{} bytes said: {}",
            said.len(),
            &said[..300]
        );
        assert!(said.contains("(1048577 characters)"), "{said}");
        s.stop().await;
    });
}

/// A line that is not JSON got no answer at all (rmcp skips it): it gets JSON-RPC's parse
/// error, with a null id, and the session goes on serving the next calls.
#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_next_calls_are_served() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_waymark"))
        .args(["mcp", "--anchors", &anchors()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start waymark mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (lines, read) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let script = [
        "this is not json".to_string(),
        initialize.to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": ".to_string(),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}).to_string(),
    ];
    for line in &script {
        writeln!(stdin, "{line}").expect("write a line");
    }
    stdin.flush().expect("flush");
    let mut answers: Vec<Value> = Vec::new();
    let parse_error = |a: &Value| a["error"]["code"] == -32700;
    while !answers.iter().any(|a| a["id"] == 3)
        || answers.iter().filter(|a| parse_error(a)).count() < 2
    {
        let line = read
            .recv_timeout(LIMIT)
            .unwrap_or_else(|_| panic!("no answer to tools/list; got {answers:?}"));
        answers.push(serde_json::from_str(&line).expect("every line out is JSON"));
    }
    let parse_errors: Vec<&Value> = answers.iter().filter(|a| parse_error(a)).collect();
    assert_eq!(parse_errors.len(), 2, "{answers:?}");
    assert!(
        parse_errors.iter().all(|e| e["id"].is_null()),
        "{answers:?}"
    );
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == 1 && a["result"].is_object())
    );
    let tools = answers.iter().find(|a| a["id"] == 3).expect("tools/list");
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    drop(stdin);
    let status = child.wait().expect("the server ends with its input");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn an_agents_upload_asks_the_person_naming_the_file_and_takes_only_fixtures() {
    run(async {
        let s = Session::start(Person::new(true, true), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let upload = s
            .call(
                "upload",
                json!({"anchor": "widgets.counter", "path": "../Cargo.toml"}),
            )
            .await;
        failed(&upload, "invalid_argument");
        let asked = s.asked();
        assert!(
            asked
                .iter()
                .any(|q| q.contains("Upload the file \"../Cargo.toml\"")),
            "{asked:?}"
        );
        s.stop().await;
    });
}

#[test]
fn an_agent_lists_its_tabs_and_a_tab_that_is_not_there_is_named() {
    run(async {
        let s = Session::start(Person::new(true, true), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let listed = s.call("tabs", json!({})).await;
        let listed = ok(&listed);
        assert_eq!(listed["tabs"][0]["tab"], 0, "{listed}");
        assert_eq!(listed["tabs"][0]["route"], "/widgets", "{listed}");
        assert_eq!(listed["tabs"][0]["current"], true, "{listed}");
        let switched = s.call("switch_tab", json!({"tab": 3})).await;
        failed(&switched, "invalid_argument");
        ok(&s.call("switch_tab", json!({"tab": 0})).await);
        s.stop().await;
    });
}

#[test]
fn an_agents_upload_asks_even_under_consent_allow() {
    run(async {
        // A client that cannot ask: under `allow`, an invoke goes through, an upload not.
        let s = Session::start(Person::new(false, false), &["--consent", "allow"]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        ok(&s.call("invoke", json!({"anchor": "widgets.counter"})).await);
        let upload = s
            .call(
                "upload",
                json!({"anchor": "widgets.counter", "path": "receipt.csv"}),
            )
            .await;
        failed(&upload, "consent_unavailable");
        s.stop().await;
    });
}

/// The clock's tools over MCP are class `act`: asked like invoke, refused when the person
/// says no; what they set is in the round trip (`clock`). A network wait over MCP finds the
/// request the call before it sent, its exchange in the structured content.
#[test]
fn an_agents_clock_is_asked_like_invoke_and_a_network_wait_finds_its_request() {
    run(async {
        let s = Session::start(Person::new(true, true), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        let installed = s
            .call("clock_install", json!({"time": "2026-01-31T23:59:00Z"}))
            .await;
        assert_eq!(ok(&installed)["clock"]["paused"], false);
        assert_eq!(s.asked().len(), 1, "{:?}", s.asked());
        assert!(s.asked()[0].contains("clock_install"), "{:?}", s.asked());
        ok(&s.call("clock_pause", json!({})).await);
        let set = s
            .call("clock_set", json!({"time": 1_800_000_000_000_i64}))
            .await;
        assert_eq!(ok(&set)["clock"]["time"], 1_800_000_000_000.0_f64);
        let advanced = s.call("clock_advance", json!({"ms": 1500})).await;
        assert_eq!(
            ok(&advanced)["clock"]["iso"],
            "2027-01-15T08:00:01.500Z",
            "{}",
            text(&advanced)
        );
        ok(&s.call("request", json!({"route": "/widgets"})).await);
        let seen = s
            .call("wait_for", json!({"request": "/widgets", "method": "GET"}))
            .await;
        assert_eq!(ok(&seen)["exchange"]["method"], "GET", "{}", text(&seen));
        s.stop().await;

        let s = Session::start(Person::new(true, false), &[]).await;
        ok(&s.call("navigate", json!({"route": "/widgets"})).await);
        failed(&s.call("clock_install", json!({})).await, "consent_denied");
        s.stop().await;
    });
}
