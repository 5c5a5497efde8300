//! Saved signed-in state: `waymark state save FILE --journey` signs in once on a page that
//! leaves what real apps leave (an HttpOnly session cookie from the server, a cookie of the
//! page's, a localStorage token, a sessionStorage tab id), and `--state FILE` starts each
//! journey with all of it. No value appears in anything the runs print or write, but the
//! state file itself (0600).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use axum::http::{HeaderMap, header};
use axum::response::{Html, IntoResponse};

use crate::cli::waymark;
use crate::harness::block_on;

/// Values no output but the state file may hold.
const PLANTED: [&str; 4] = [
    "PLANTED-cookie-71aa",
    "PLANTED-local-0c2e",
    "PLANTED-session-9d41",
    "PLANTED-http-only-5f08",
];

fn page(name: &str) -> &'static str {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/state")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    Box::leak(text.into_boxed_str())
}

/// The app: its two pages, and `/session`, which sets the HttpOnly session cookie; the
/// account page says on the server's side whether the request carried it.
fn base() -> String {
    static BASE: OnceLock<String> = OnceLock::new();
    BASE.get_or_init(|| {
        let (login, account) = (page("login.html"), page("account.html"));
        block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            let addr = listener.local_addr().expect("an address");
            let app = axum::Router::new()
                .route(
                    "/login.html",
                    axum::routing::get(move || async move { Html(login) }),
                )
                .route(
                    "/account.html",
                    axum::routing::get(move |headers: HeaderMap| async move {
                        let signed = headers
                            .get_all(header::COOKIE)
                            .iter()
                            .filter_map(|v| v.to_str().ok())
                            .any(|v| v.contains(&format!("hsid={}", PLANTED[3])));
                        let words = if signed {
                            "server: signed in"
                        } else {
                            "server: signed out"
                        };
                        Html(account.replace("SERVER", words))
                    }),
                )
                .route(
                    "/session",
                    axum::routing::post(|| async {
                        let cookie = format!("hsid={}; Path=/; HttpOnly; SameSite=Lax", PLANTED[3]);
                        ([(header::SET_COOKIE, cookie)], "ok").into_response()
                    }),
                );
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            format!("http://{addr}")
        })
    })
    .clone()
}

const SIGN_IN: &str = r#"navigate("/login.html");
fill("state.name", "ada");
fill("state.password", "correct horse");
invoke("state.sign-in");
let done = wait_for(#{anchor: "state.status", text: "signed in"});
"#;

/// Expects what the account page finds.
fn account(server: &str, page: &str) -> String {
    format!(
        r#"navigate("/account.html");
let s = read_screen();
let server = s.controls.filter(|c| c.anchor == "account.server")[0].value;
let page = s.controls.filter(|c| c.anchor == "account.page")[0].value;
expect(server == "{server}", server);
expect(page == "{page}", page);
"#
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("make the folder");
    std::fs::write(&path, text).expect("write");
    path
}

/// Every file under `dir`, read as text (lossily).
fn every_file(dir: &Path) -> Vec<(PathBuf, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (
                e.path().to_path_buf(),
                String::from_utf8_lossy(&bytes).into_owned(),
            )
        })
        .collect()
}

#[test]
fn state_saved_after_a_sign_in_starts_journeys_signed_in() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let base = base();
    let login = write(dir.path(), "setup/sign_in.rhai", SIGN_IN);
    let state = dir.path().join("state/ada.json");
    let state_arg = state.display().to_string();
    let login_arg = login.display().to_string();
    let saved = waymark(
        dir.path(),
        [
            "--base-url",
            &base,
            "state",
            "save",
            &state_arg,
            "--journey",
            &login_arg,
        ],
        &[],
    );
    saved
        .exits(0)
        .says("saved 2 cookies of 1 domains (127.0.0.1), 1 localStorage and 1 sessionStorage items of 1 origins");
    let mode = std::fs::metadata(&state)
        .expect("the state file")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the state file is the owner's only");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("read")).expect("JSON");
    // Playwright's storageState shape.
    assert_eq!(file["cookies"].as_array().map(Vec::len), Some(2));
    assert_eq!(file["origins"][0]["origin"], base.as_str());
    assert_eq!(file["origins"][0]["localStorage"][0]["name"], "token");

    // With the state: signed in, server and page; without: signed out.
    let journeys = dir.path().join("journeys");
    write(
        &journeys,
        "signed_in.rhai",
        &account(
            "server: signed in",
            "page: cookie, localStorage, sessionStorage",
        ),
    );
    let out = dir.path().join("out");
    let (html, json, junit) = (
        format!("html={}", out.join("html").display()),
        format!("json={}", out.join("run.json").display()),
        format!("junit={}", out.join("junit.xml").display()),
    );
    let traces = out.join("traces").display().to_string();
    let run = waymark(
        dir.path(),
        [
            "--base-url",
            &base,
            "--state",
            &state_arg,
            "run",
            "--jobs",
            "1",
            "--screenshots",
            "on",
            "--trace",
            &traces,
            "--report",
            &html,
            "--report",
            &json,
            "--report",
            &junit,
        ],
        &[],
    );
    run.exits(0).says("✓ signed_in");
    let plain = tempfile::tempdir().expect("a temp dir");
    write(
        &plain.path().join("journeys"),
        "signed_out.rhai",
        &account("server: signed out", "page: nothing"),
    );
    waymark(plain.path(), ["--base-url", &base, "run"], &[])
        .exits(0)
        .says("✓ signed_out");

    // No value anywhere but the state file: not in what was printed, nor in any trace,
    // screenshot, report or history the runs wrote.
    let printed = format!("{}\n{}", saved.all(), run.all());
    let mut files = every_file(dir.path());
    files.retain(|(path, _)| path != &state);
    files.push((PathBuf::from("<printed>"), printed));
    assert!(
        files.len() > 5,
        "the runs wrote their files: {}",
        files.len()
    );
    for (path, text) in &files {
        for value in PLANTED {
            assert!(!text.contains(value), "`{value}` in {}", path.display());
        }
    }

    // A state file that is not one: exit 2 naming the file and the entry, no value.
    let bad = write(
        dir.path(),
        "bad.json",
        r#"{"cookies": [], "origins": [{"origin": "http://x.org", "localStorage": [{"name": "k", "value": 7}]}]}"#,
    );
    let bad_arg = bad.display().to_string();
    waymark(
        dir.path(),
        ["--base-url", &base, "--state", &bad_arg, "run"],
        &[],
    )
    .exits(2)
    .says("bad.json:origins[0]: `localStorage[0]` needs a string `name` and `value`");
}
