//! The control page over real HTTP: the token guards every path, and take / return /
//! approve / deny / done reach the run's hub; a real Chromium tab's screenshot is a PNG.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use waymark::browser::Tab;
use waymark::control::page::{self, ControlPage};
use waymark::control::{Answer, Hub, TabState};

use crate::harness::{block_on, shared, spawn};

/// One HTTP reply: status, head (lowercase header lines) and body.
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// A blocking request to `page`'s server (the server runs on the shared runtime's
/// workers); `path` follows the host, token included or not. `host` overrides the `Host`.
fn request(page: &ControlPage, method: &str, path: &str, host: Option<&str>) -> Reply {
    request_to(page.url(), method, path, host)
}

/// [`request`] to the page at `page_url`.
fn request_to(page_url: &str, method: &str, path: &str, host: Option<&str>) -> Reply {
    let url = url::Url::parse(page_url).expect("the page URL parses");
    let addr = url.authority().to_string();
    let mut stream = TcpStream::connect(&addr).expect("connect to the control page");
    let bound = Some(Duration::from_secs(20));
    stream.set_read_timeout(bound).expect("set a read timeout");
    stream
        .set_write_timeout(bound)
        .expect("set a write timeout");
    let host = host.unwrap_or(&addr);
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .expect("send the request");
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).expect("read the reply");
    let split = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete reply");
    let head = String::from_utf8_lossy(&reply[..split]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    Reply {
        status,
        head,
        body: reply[split + 4..].to_vec(),
    }
}

/// `path` under the page's token (`api/state`, `api/tabs/1/take`…).
fn call(page: &ControlPage, method: &str, path: &str) -> Reply {
    let url = url::Url::parse(page.url()).expect("the page URL parses");
    request(page, method, &format!("{}{path}", url.path()), None)
}

fn served() -> (Arc<Hub>, ControlPage) {
    let hub = Arc::new(Hub::new());
    let page = block_on(page::serve(Arc::clone(&hub))).expect("serve the control page");
    (hub, page)
}

/// Polls the page's state until `found` picks something out of it.
fn wait_for<T>(page: &ControlPage, found: impl Fn(&serde_json::Value) -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        let state = call(page, "GET", "api/state").json();
        if let Some(t) = found(&state) {
            return t;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "not in the state: {state}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_request_without_the_right_token_is_refused_without_a_hint() {
    let (_hub, page) = served();
    let url = url::Url::parse(page.url()).expect("the page URL parses");
    let token = url.path().trim_matches('/').to_string();
    assert_eq!(token.len(), 32, "{}", page.url());
    let mut wrong = token.clone();
    wrong.replace_range(31.., if token.ends_with('0') { "1" } else { "0" });
    for path in [
        "/".to_string(),
        "/api/state".to_string(),
        format!("/{wrong}/"),
        format!("/{wrong}/api/state"),
        format!("/{}/api/state", &token[..31]),
        format!("/x{token}/api/state"),
    ] {
        let reply = request(&page, "GET", &path, None);
        assert_eq!(reply.status, 404, "{path}: {}", reply.text());
        assert!(!reply.text().contains(&token), "{path} told the token");
        assert!(!reply.head.contains(&token), "{path} told the token");
        let post = request(&page, "POST", &format!("{path}/tabs/1/take"), None);
        assert_eq!(post.status, 404, "{path}");
    }
    // Another site's name rebound to 127.0.0.1 sends its own Host: refused as well.
    let rebound = request(
        &page,
        "GET",
        &format!("/{token}/api/state"),
        Some("evil.example"),
    );
    assert_eq!(rebound.status, 404);
    assert_eq!(call(&page, "GET", "api/state").status, 200);
    let bare = request(&page, "GET", &format!("/{token}"), None);
    assert_eq!(bare.status, 308, "the page's links need its trailing slash");
}

#[test]
fn state_lists_tabs_and_take_and_return_go_through_the_hub() {
    let (hub, page) = served();
    let tab = hub.register("run-a", "checkout");
    hub.set_route(tab, "/orders/42");
    let state = call(&page, "GET", "api/state").json();
    let listed = &state["tabs"][0];
    assert_eq!(listed["id"], tab, "{state}");
    assert_eq!(listed["journey"], "checkout");
    assert_eq!(listed["route"], "/orders/42");
    assert_eq!(listed["state"], "agent");
    assert!(state["questions"].as_array().is_some_and(Vec::is_empty));
    assert!(
        hub.present(),
        "asking for the state makes the person present"
    );

    let took = call(&page, "POST", &format!("api/tabs/{tab}/take"));
    assert_eq!(took.status, 204, "{}", took.text());
    assert_eq!(hub.tab(tab).map(|t| t.state), Some(TabState::User));
    assert_eq!(
        call(&page, "GET", "api/state").json()["tabs"][0]["state"],
        "user"
    );
    let returned = call(&page, "POST", &format!("api/tabs/{tab}/return"));
    assert_eq!(returned.status, 204, "{}", returned.text());
    assert_eq!(hub.tab(tab).map(|t| t.state), Some(TabState::Agent));

    let again = call(&page, "POST", &format!("api/tabs/{tab}/return"));
    assert_eq!(again.status, 409);
    assert!(
        again.json()["error"]
            .as_str()
            .is_some_and(|e| e.contains("only a tab the person took")),
        "{}",
        again.text()
    );
    let unknown = call(&page, "POST", "api/tabs/999/take");
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"], "no tab 999");
    assert_eq!(
        call(&page, "GET", &format!("api/tabs/{tab}/take")).status,
        405
    );
    assert_eq!(call(&page, "POST", "api/tabs/x/take").status, 404);
}

#[test]
fn a_long_poll_answers_as_soon_as_the_hub_changes() {
    let (hub, page) = served();
    let version = call(&page, "GET", "api/state").json()["version"]
        .as_u64()
        .expect("a version");
    let changer = Arc::clone(&hub);
    let later = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        changer.register("run", "late");
    });
    let start = Instant::now();
    let state = call(&page, "GET", &format!("api/state?since={version}")).json();
    later.join().expect("the changer ran");
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(state["tabs"][0]["journey"], "late", "{state}");
    assert!(state["version"].as_u64() > Some(version));
}

#[test]
fn consent_questions_show_and_approve_or_deny_over_http_answers_them() {
    let (hub, page) = served();
    let tab = hub.register("run", "orders");
    for (verdict, expected) in [
        ("approve", Answer::Approved("control page")),
        ("deny", Answer::Denied("control page")),
    ] {
        call(&page, "GET", "api/state");
        let asker = Arc::clone(&hub);
        let asked = spawn(async move {
            asker
                .ask(
                    tab,
                    "Press \"Submit Order\" (order.submit) on /orders/42?",
                    Duration::from_secs(20),
                )
                .await
        });
        let id = wait_for(&page, |s| {
            let q = &s["questions"][0];
            q["text"]
                .as_str()
                .is_some_and(|t| t.contains("Submit Order"))
                .then(|| q["id"].as_u64())
                .flatten()
        });
        let answered = call(&page, "POST", &format!("api/questions/{id}/{verdict}"));
        assert_eq!(answered.status, 204, "{}", answered.text());
        assert_eq!(block_on(asked).expect("the question task"), expected);
        let twice = call(&page, "POST", &format!("api/questions/{id}/{verdict}"));
        assert_eq!(twice.status, 404, "an answered question is gone");
    }
}

#[test]
fn done_over_http_finishes_a_handoff() {
    let (hub, page) = served();
    let tab = hub.register("run", "login");
    let early = call(&page, "POST", &format!("api/tabs/{tab}/done"));
    assert_eq!(early.status, 409, "no handoff is waiting: {}", early.text());
    let waiter = Arc::clone(&hub);
    let handed = spawn(async move {
        waiter
            .handoff(tab, "log in with 2FA", Duration::from_secs(20))
            .await
    });
    wait_for(&page, |s| {
        (s["tabs"][0]["state"] == "handoff" && s["tabs"][0]["handoff_reason"] == "log in with 2FA")
            .then_some(())
    });
    let shot = call(&page, "GET", &format!("api/tabs/{tab}/screenshot"));
    assert_eq!(
        shot.status, 409,
        "no screenshot while the person has the tab"
    );
    let done = call(&page, "POST", &format!("api/tabs/{tab}/done"));
    assert_eq!(done.status, 204, "{}", done.text());
    assert!(block_on(handed).expect("the handoff task"), "finished");
    assert_eq!(hub.tab(tab).map(|t| t.state), Some(TabState::Agent));
}

#[test]
fn the_page_has_every_button_and_no_outside_asset() {
    let (_hub, page) = served();
    let reply = call(&page, "GET", "");
    assert_eq!(reply.status, 200);
    assert!(
        reply.head.contains("content-type: text/html"),
        "{}",
        reply.head
    );
    assert!(reply.head.contains("referrer-policy: no-referrer"));
    assert!(reply.head.contains("frame-ancestors 'none'"));
    let html = reply.text();
    for needed in [
        "Take control",
        "Return control",
        "Approve",
        "Deny",
        ">Done<",
        "api/state",
        "screenshot",
    ] {
        assert!(html.contains(needed), "no `{needed}` on the page");
    }
    assert!(!html.contains("innerHTML"), "page text is inserted as text");
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "no outside asset"
    );
}

#[test]
fn a_screenshot_of_a_chromium_tab_is_a_png_until_the_person_takes_it() {
    let (hub, page) = served();
    let shared = shared();
    let tab = block_on(shared.browser().new_tab()).expect("open a tab");
    let url = shared.base().join("/claims").expect("a demo URL");
    block_on(tab.navigate(url.as_str(), Duration::from_secs(20))).expect("open /claims");
    let tab = Arc::new(tab);
    let id = hub.register("run", "claims");
    hub.set_screenshot(
        id,
        waymark::browser::screenshot_source(Arc::downgrade(&tab)),
    );
    let shot = call(&page, "GET", &format!("api/tabs/{id}/screenshot"));
    assert_eq!(shot.status, 200, "{}", shot.text());
    assert!(
        shot.head.contains("content-type: image/png"),
        "{}",
        shot.head
    );
    assert!(
        shot.body.starts_with(b"\x89PNG\r\n\x1a\n"),
        "not a PNG: {} bytes",
        shot.body.len()
    );
    hub.take(id).expect("take the tab");
    assert_eq!(
        call(&page, "GET", &format!("api/tabs/{id}/screenshot")).status,
        409
    );
    hub.give_back(id).expect("give it back");
    if let Ok(tab) = Arc::try_unwrap(tab) {
        block_on(tab.close());
    }
    let gone = call(&page, "GET", &format!("api/tabs/{id}/screenshot"));
    assert_eq!(gone.status, 502, "the closed tab says so: {}", gone.text());
    hub.unregister(id);
    assert_eq!(
        call(&page, "GET", &format!("api/tabs/{id}/screenshot")).status,
        404
    );
}

#[test]
fn a_run_with_control_page_prints_its_url() {
    let dir = crate::cli::journey("noop.rhai", "navigate(\"/claims\");\n");
    let run = crate::cli::run_journey(dir.path(), "noop.rhai", &["--control-page"]);
    run.exits(0);
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("control page: http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no control page URL in:\n{}", run.all()));
    let url = url::Url::parse(line.trim_start_matches("control page: ")).expect("a URL");
    assert_eq!(url.path().len(), 34, "/TOKEN/: {url}");
}

/// A real run asks before it presses; the person approves (or denies) on the page whose URL
/// the run printed, and the journey goes on (or fails with `consent_denied`).
#[test]
fn a_running_journey_waits_for_the_person_s_answer_on_the_control_page() {
    for approve in [true, false] {
        let dir = crate::cli::journey(
            "ask.rhai",
            r#"navigate("/widgets");
let rt = invoke("widgets.counter");
expect(rt.screen.controls.filter(|c| c.anchor == "widgets.counter")[0].label == "Clicked 1 times", "pressed");
"#,
        );
        let anchors = crate::cli::anchors();
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_waymark"));
        cmd.args([
            "--anchors",
            anchors.as_str(),
            "--consent",
            "ask",
            "--control-page",
            "run",
            "--no-trace",
            "ask.rhai",
        ])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("WAYMARK_") {
                cmd.env_remove(key);
            }
        }
        let mut child = cmd.spawn().expect("start waymark");
        let stderr = child.stderr.take().expect("stderr");
        let (lines, seen) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let url = loop {
            let line = seen
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| {
                    let _ = child.kill();
                    panic!("the run printed no control page URL")
                });
            if let Some(url) = line.strip_prefix("control page: ") {
                break url.to_string();
            }
        };
        let path = url::Url::parse(&url).expect("a URL").path().to_string();
        let start = Instant::now();
        let question = loop {
            let state = request_to(&url, "GET", &format!("{path}api/state"), None).json();
            if let Some(q) = state["questions"]
                .as_array()
                .and_then(|q| q.first())
                .cloned()
            {
                break q;
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("no question came: {state}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(
            question["text"],
            "Press \"Clicked 0 times\" (widgets.counter) on /widgets?"
        );
        let verb = if approve { "approve" } else { "deny" };
        let id = question["id"].as_u64().expect("an id");
        let reply = request_to(
            &url,
            "POST",
            &format!("{path}api/questions/{id}/{verb}"),
            None,
        );
        assert_eq!(reply.status, 204, "{}", reply.text());
        let mut out = String::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for waymark") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the run did not end after the answer");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        if let Some(mut stdout) = child.stdout.take() {
            let _ = stdout.read_to_string(&mut out);
        }
        let err: Vec<String> = seen.try_iter().collect();
        let all = format!("{out}\n{}", err.join("\n"));
        if approve {
            assert_eq!(status.code(), Some(0), "{all}");
        } else {
            assert_eq!(status.code(), Some(1), "{all}");
            assert!(all.contains("consent_denied"), "{all}");
        }
    }
}
