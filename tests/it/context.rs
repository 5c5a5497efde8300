//! The browser context settings (issue 51, item 6): HTTP credentials answered to basic and
//! digest challenges, extra headers, the locale and the time zone, from the run's flags
//! and from a journey's calls; geolocation after a grant; none of the secrets in the trace
//! or the report. Against a server of this test's own on 127.0.0.1 that checks the
//! credentials as servers do (basic, and digest with SHA-256 as RFC 7616 has it).

use std::sync::OnceLock;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use base64::Engine;
use sha2::{Digest, Sha256};
use url::Url;

use crate::cli::waymark;
use crate::harness::block_on;

/// The users the server knows: (user, password).
const USERS: [(&str, &str); 2] = [("ada", "s3cret-pass"), ("bob", "other-pass-2")];

const REALM: &str = "waymark-test";
const NONCE: &str = "7f1c2a9e55b04d6c";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>"
    )
}

fn signed_in(how: &str, user: &str) -> Response {
    let body = format!("<p data-anchor=\"who\">Signed in ({how}) as {user}</p>");
    Html(page("Signed in", &body)).into_response()
}

fn challenge(value: String) -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, value)],
        Html(page("Sign in", "<p>401: who are you?</p>")),
    )
        .into_response()
}

async fn basic(headers: HeaderMap) -> Response {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    match given.as_deref().and_then(|g| g.split_once(':')) {
        Some((user, pass)) if USERS.contains(&(user, pass)) => signed_in("basic", user),
        _ => challenge(format!("Basic realm=\"{REALM}\"")),
    }
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The fields of a `Digest …` authorization header.
fn fields(value: &str) -> std::collections::HashMap<String, String> {
    let mut out = std::collections::HashMap::new();
    let mut rest = value;
    while let Some((name, after)) = rest.split_once('=') {
        let name = name.trim().trim_start_matches(',').trim().to_string();
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').unwrap_or(quoted.len());
                (&quoted[..end], &quoted[(end + 1).min(quoted.len())..])
            }
            None => {
                let end = after.find(',').unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        out.insert(name, value.to_string());
        rest = next;
    }
    out
}

/// HTTP digest (RFC 7616, SHA-256, qop=auth), checked as a server checks it.
async fn digest(headers: HeaderMap) -> Response {
    let fresh = || {
        challenge(format!(
            "Digest realm=\"{REALM}\", qop=\"auth\", algorithm=SHA-256, nonce=\"{NONCE}\", opaque=\"0a1b\""
        ))
    };
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Digest "))
    else {
        return fresh();
    };
    let f = fields(given);
    let get = |k: &str| f.get(k).map(String::as_str).unwrap_or_default();
    let Some(&(user, pass)) = USERS.iter().find(|(u, _)| *u == get("username")) else {
        return fresh();
    };
    let ha1 = sha256(&format!("{user}:{REALM}:{pass}"));
    let ha2 = sha256(&format!("GET:{}", get("uri")));
    let expected = sha256(&format!(
        "{ha1}:{NONCE}:{}:{}:auth:{ha2}",
        get("nc"),
        get("cnonce")
    ));
    if get("nonce") == NONCE && get("qop") == "auth" && get("response") == expected {
        signed_in("digest", user)
    } else {
        fresh()
    }
}

async fn tenant(headers: HeaderMap) -> Response {
    let tenant = headers
        .get("x-tenant")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("none");
    let body = format!("<p data-anchor=\"tenant\">Tenant: {tenant}</p>");
    Html(page("Tenant", &body)).into_response()
}

/// Where the page thinks it is: language, time zone, and (on a press) the position.
const WHERE: &str = r#"<p data-anchor="language" id="language"></p><p data-anchor="zone" id="zone"></p>
<button data-anchor="where.locate" type="button" id="locate">Where am I?</button>
<p data-anchor="position" id="position">unknown</p>
<a data-anchor="where.popup" href="/where" target="_blank">Again, in a new tab</a>
<script>
  document.getElementById('language').textContent = 'Language: ' + navigator.language;
  document.getElementById('zone').textContent =
    'Zone: ' + Intl.DateTimeFormat().resolvedOptions().timeZone;
  document.getElementById('locate').addEventListener('click', function () {
    var out = document.getElementById('position');
    out.textContent = 'asking';
    navigator.geolocation.getCurrentPosition(function (p) {
      out.textContent = 'At ' + p.coords.latitude + ', ' + p.coords.longitude + ' ±' + p.coords.accuracy;
    }, function (e) { out.textContent = 'Refused: ' + e.code; });
  });
</script>"#;

fn base() -> Url {
    static BASE: OnceLock<Url> = OnceLock::new();
    BASE.get_or_init(|| {
        block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind the context server");
            let addr = listener.local_addr().expect("its address");
            let app = axum::Router::new()
                .route("/basic", get(basic))
                .route("/digest", get(digest))
                .route("/tenant", get(tenant))
                .route("/where", get(|| async { Html(page("Where", WHERE)) }));
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            Url::parse(&format!("http://{addr}/")).expect("the URL parses")
        })
    })
    .clone()
}

/// Every secret of the runs below.
const SECRETS: [&str; 4] = [
    "s3cret-pass",
    "other-pass-2",
    "acme-tenant-secret",
    "globex-secret-2",
];

/// Every file under `dir`, as text.
fn texts(dir: &std::path::Path) -> Vec<(String, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let text = std::fs::read(e.path()).ok()?;
            Some((
                e.path().display().to_string(),
                String::from_utf8_lossy(&text).into_owned(),
            ))
        })
        .collect()
}

#[test]
fn the_runs_credentials_headers_locale_and_time_zone_reach_every_tab_and_no_secret_is_written() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
navigate("/basic");
wait_for(#{text: "Signed in (basic) as ada"});
navigate("/digest");
wait_for(#{text: "Signed in (digest) as ada"});
navigate("/tenant");
wait_for(#{text: "Tenant: acme-tenant-secret"});
navigate("/where");
wait_for(#{text: "Language: de-DE"});
wait_for(#{text: "Zone: Asia/Tokyo"});
// A popup's tab is set up the same way (from the document after the one it opened with,
// which loads before waymark joins the tab).
let r = invoke("where.popup");
switch_tab(r.opened.tab);
navigate("/where");
wait_for(#{text: "Language: de-DE"});
wait_for(#{text: "Zone: Asia/Tokyo"});
"#;
    std::fs::write(dir.path().join("context.rhai"), source).expect("write the journey");
    let url = base().to_string();
    let args = [
        "--base-url",
        url.as_str(),
        "--http-credentials",
        "ada:s3cret-pass",
        "--header",
        "X-Tenant: acme-tenant-secret",
        "--locale",
        "de-DE",
        "--timezone",
        "Asia/Tokyo",
        "run",
        "context.rhai",
        "--report",
        "html=out",
        "--report",
        "json=out/report.json",
    ];
    let run = waymark(dir.path(), args, &[]);
    run.exits(0).says("1 passed");
    for secret in SECRETS {
        assert!(!run.all().contains(secret), "printed: {}", run.all());
    }
    let written = texts(dir.path());
    assert!(written.iter().any(|(p, _)| p.ends_with("context.jsonl")));
    for (path, text) in &written {
        if path.ends_with(".rhai") {
            continue;
        }
        for secret in SECRETS {
            assert!(!text.contains(secret), "{secret} is written in {path}");
        }
    }
    let trace = written
        .iter()
        .find(|(p, _)| p.ends_with("context.jsonl"))
        .map(|(_, t)| t.clone())
        .unwrap_or_default();
    assert!(
        trace.contains("Tenant: [redacted]"),
        "the page's echo is redacted"
    );
}

#[test]
fn a_journey_sets_its_own_credentials_headers_geolocation_and_permissions() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let source = r#"
// Without credentials the server's 401 is the page's answer.
try {
    navigate("/basic");
    throw "a 401 page loaded";
} catch (e) {
    expect(e.code == "navigation_failed", `${e}`);
}
// Wrong ones are tried once, then the challenge is cancelled: the server's 401.
http_credentials("bob", "wrong-pass-3");
try {
    navigate("/digest");
    throw "wrong credentials were taken";
} catch (e) {
    expect(e.code == "navigation_failed", `${e}`);
}
let r = http_credentials("bob", "other-pass-2");
expect(r.ok && r.tool == "http_credentials", `${r}`);
navigate("/digest");
wait_for(#{text: "Signed in (digest) as bob"});
navigate("/basic");
wait_for(#{text: "Signed in (basic) as bob"});
// Routes and credentials side by side.
route("/tenant", #{status: 200, content_type: "text/html", body: "<p>Routed tenant</p>"});
navigate("/tenant");
wait_for(#{text: "Routed tenant"});
unroute("/tenant");

navigate("/tenant");
wait_for(#{text: "Tenant: none"});
set_headers(#{"X-Tenant": "globex-secret-2"});
navigate("/tenant");
wait_for(#{text: "Tenant: globex-secret-2"});
set_headers(#{});
navigate("/tenant");
wait_for(#{text: "Tenant: none"});

navigate("/where");
grant_permissions(["geolocation"]);
set_geolocation(#{latitude: 52.52, longitude: 13.405, accuracy: 10});
invoke("where.locate");
wait_for(#{text: "At 52.52, 13.405 ±10"});
set_geolocation(#{latitude: -33.8688, longitude: 151.2093});
invoke("where.locate");
wait_for(#{text: "At -33.8688, 151.2093 ±0"});

try { set_geolocation(#{latitude: 91.0, longitude: 0.0}); throw "no"; }
catch (e) { expect(e.code == "invalid_argument", `${e}`); }
try { grant_permissions(["no-such-permission"]); throw "no"; }
catch (e) { expect(e.code == "invalid_argument", `${e}`); }
try { set_headers(#{"Bad Name": "x"}); throw "no"; }
catch (e) { expect(e.code == "invalid_argument", `${e}`); }
"#;
    std::fs::write(dir.path().join("own.rhai"), source).expect("write the journey");
    let url = base().to_string();
    let args = [
        "--base-url",
        url.as_str(),
        "run",
        "own.rhai",
        "--report",
        "html=out",
    ];
    let run = waymark(dir.path(), args, &[]);
    run.exits(0).says("1 passed");
    for (path, text) in texts(dir.path()) {
        if path.ends_with(".rhai") {
            continue;
        }
        for secret in ["other-pass-2", "globex-secret-2", "wrong-pass-3"] {
            assert!(!text.contains(secret), "{secret} is written in {path}");
        }
    }
    let trace = std::fs::read_to_string(dir.path().join("target/waymark/traces/own.jsonl"))
        .expect("the trace");
    for verb in [
        "http_credentials",
        "set_headers",
        "set_geolocation",
        "grant_permissions",
    ] {
        let step = trace
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
            .find(|l| l["action"]["verb"] == verb)
            .unwrap_or_else(|| panic!("no `{verb}` step"));
        assert_eq!(step["action"]["class"], "act", "{verb}");
        eprintln!("step time of {verb}: {} ms", step["elapsed_ms"]);
    }
}
