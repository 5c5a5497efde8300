//! Cookie import, human-only: `waymark profile import-cookies` tells file names and counts
//! per domain, never a value; it keeps one domain's cookies and merges with the profile's
//! others; a tab opened with a profile's cookies sends them to the app.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use waymark::browser::Tab;
use waymark::control::cookies::Profile;

use crate::cli::{Run, journey, waymark};
use crate::fixtures;
use crate::harness::{block_on, shared};

/// Values no output may contain.
const VALUES: [&str; 5] = [
    "v4lue-session-9f3a",
    "v4lue-api-77c1",
    "v4lue-other-site",
    "v4lue-json-5e2b",
    "v4lue-old",
];

fn cookies_txt() -> String {
    format!(
        "# Netscape HTTP Cookie File\n\
         # exported by a browser extension\n\
         .example.com\tTRUE\t/\tTRUE\t4102444800\tsession\t{}\n\
         #HttpOnly_api.example.com\tFALSE\t/v1\tTRUE\t0\tapi\t{}\n\
         .other.org\tTRUE\t/\tFALSE\t0\ttrack\t{}\n\
         example.com\tFALSE\t/\tFALSE\t1000000000\told\t{}\n",
        VALUES[0], VALUES[1], VALUES[2], VALUES[4]
    )
}

fn import(home: &Path, cwd: &Path, args: &[&str]) -> Run {
    let mut all = vec!["profile", "import-cookies"];
    all.extend_from_slice(args);
    waymark(cwd, all, &[("WAYMARK_HOME", home.as_os_str())])
}

#[track_caller]
fn tells_no_value(run: &Run) {
    for value in VALUES {
        assert!(
            !run.all().contains(value),
            "`{value}` printed:\n{}",
            run.all()
        );
    }
}

fn stored(home: &Path, profile: &str) -> serde_json::Value {
    let path = home.join("profiles").join(profile).join("cookies.json");
    let text = std::fs::read_to_string(&path).expect("the profile's cookie file");
    serde_json::from_str(&text).expect("the profile file is JSON")
}

fn domains(profile: &serde_json::Value) -> Vec<String> {
    let mut d: Vec<String> = profile["cookies"]
        .as_array()
        .expect("a cookies array")
        .iter()
        .map(|c| format!("{}:{}", c["domain"].as_str().unwrap_or(""), c["name"]))
        .collect();
    d.sort();
    d
}

#[test]
fn importing_cookies_txt_tells_names_and_counts_and_keeps_one_domain() {
    let home = tempfile::tempdir().expect("a temp dir");
    let dir = journey("cookies.txt", &cookies_txt());
    let run = import(
        home.path(),
        dir.path(),
        &["--domain", "example.com", "--from", "cookies.txt"],
    );
    run.exits(0)
        .says("`cookies.txt`")
        .says("example.com: 2 found, 1 imported (1 expired)")
        .says("api.example.com: 1 found, 1 imported")
        .says("1 cookies of 1 other domains skipped")
        .says("profile `default` holds 2 cookies");
    tells_no_value(&run);
    let profile = stored(home.path(), "default");
    assert_eq!(
        domains(&profile),
        ["api.example.com:\"api\"", "example.com:\"session\""]
    );
    let dir_mode = std::fs::metadata(home.path().join("profiles/default"))
        .expect("the profile directory")
        .permissions()
        .mode();
    let file_mode = std::fs::metadata(home.path().join("profiles/default/cookies.json"))
        .expect("the cookie file")
        .permissions()
        .mode();
    assert_eq!((dir_mode & 0o777, file_mode & 0o777), (0o700, 0o600));
}

#[test]
fn a_json_export_merges_with_the_profiles_other_domains() {
    let home = tempfile::tempdir().expect("a temp dir");
    let dir = journey("cookies.txt", &cookies_txt());
    import(
        home.path(),
        dir.path(),
        &[
            "--profile",
            "work",
            "--domain",
            "example.com",
            "--from",
            "cookies.txt",
        ],
    )
    .exits(0);
    let json = format!(
        r#"[{{"domain": ".shop.test", "name": "cart", "value": "{}", "path": "/", "secure": false,
             "httpOnly": false, "expirationDate": 4102444800.25, "sameSite": "lax"}},
           {{"domain": "example.com", "name": "x", "value": "{}", "path": "/"}}]"#,
        VALUES[3], VALUES[2]
    );
    std::fs::write(dir.path().join("export.json"), json).expect("write the export");
    let run = import(
        home.path(),
        dir.path(),
        &[
            "--profile",
            "work",
            "--domain",
            "shop.test",
            "--from",
            "export.json",
        ],
    );
    run.exits(0)
        .says("`export.json`")
        .says("shop.test: 1 found, 1 imported")
        .says("profile `work` holds 3 cookies");
    tells_no_value(&run);
    assert_eq!(
        domains(&stored(home.path(), "work")),
        [
            "api.example.com:\"api\"",
            "example.com:\"session\"",
            "shop.test:\"cart\""
        ]
    );
}

#[test]
fn bad_input_exits_2_naming_file_and_line_never_a_value() {
    let home = tempfile::tempdir().expect("a temp dir");
    let broken = format!(
        "# Netscape HTTP Cookie File\n\n.example.com TRUE / FALSE 0 sid {}\n",
        VALUES[0]
    );
    let dir = journey("cookies.txt", &broken);
    let run = import(
        home.path(),
        dir.path(),
        &["--domain", "example.com", "--from", "cookies.txt"],
    );
    run.exits(2)
        .says("cookies.txt:3: expected 7 tab-separated fields, found 1");
    tells_no_value(&run);
    std::fs::write(dir.path().join("cookies.txt"), cookies_txt()).expect("write");
    let run = import(
        home.path(),
        dir.path(),
        &["--domain", "nowhere.test", "--from", "cookies.txt"],
    );
    run.exits(2).says("no live cookie for `nowhere.test`");
    tells_no_value(&run);
    import(
        home.path(),
        dir.path(),
        &["--domain", "https://example.com/", "--from", "cookies.txt"],
    )
    .exits(2)
    .says("not a host name");
    import(
        home.path(),
        dir.path(),
        &["--domain", "example.com", "--from", "missing.txt"],
    )
    .exits(2)
    .says("missing.txt");
    import(
        home.path(),
        dir.path(),
        &[
            "--profile",
            "../escape",
            "--domain",
            "example.com",
            "--from",
            "cookies.txt",
        ],
    )
    .exits(2)
    .says("not a profile name");
    assert!(
        !home.path().join("profiles").exists(),
        "nothing was written"
    );
}

#[test]
fn a_run_with_an_unknown_profile_exits_2_before_starting_a_browser() {
    let home = tempfile::tempdir().expect("a temp dir");
    let dir = journey("noop.rhai", "navigate(\"/\");\n");
    let env: [(&str, &OsStr); 2] = [
        ("WAYMARK_HOME", home.path().as_os_str()),
        ("WAYMARK_BROWSER", OsStr::new("/nonexistent/chromium")),
    ];
    waymark(
        dir.path(),
        ["--profile", "nobody", "run", "noop.rhai"],
        &env,
    )
    .exits(2)
    .says("no profile `nobody`")
    .says("import-cookies");
}

#[test]
fn a_tab_opened_with_a_profiles_cookies_sends_them_to_the_app() {
    let home = tempfile::tempdir().expect("a temp dir");
    let dir = tempfile::tempdir().expect("a temp dir");
    let host = shared().base().host_str().expect("a host").to_string();
    let export = format!(
        "{host}\tFALSE\t/\tFALSE\t0\tsid\t{}\n#HttpOnly_{host}\tFALSE\t/\tFALSE\t0\thidden\t{}\n.other.org\tTRUE\t/\tFALSE\t0\ttrack\t{}\n",
        VALUES[0], VALUES[1], VALUES[2]
    );
    let from = dir.path().join("cookies.txt");
    std::fs::write(&from, export).expect("write the export");
    let profile = Profile::in_home(home.path(), "demo").expect("a profile name");
    let report = profile.import_cookies(&host, &from).expect("import");
    assert!(!format!("{report}\n{report:?}").contains(VALUES[0]));
    let cookies = profile.cookies().expect("load the profile");
    assert_eq!(cookies.len(), 2);
    assert!(
        !format!("{cookies:?}").contains(VALUES[0]),
        "Debug redacts values"
    );

    let tab = block_on(shared().browser().new_tab_with_cookies(&cookies)).expect("open a tab");
    let url = shared().base().join("/claims").expect("a demo URL");
    block_on(tab.navigate(url.as_str(), Duration::from_secs(20))).expect("open /claims");
    let seen = block_on(tab.evaluate("JSON.stringify(document.cookie)", Duration::from_secs(10)))
        .expect("read document.cookie");
    block_on(tab.close());
    let seen: String = serde_json::from_str(&seen).expect("a JSON string");
    assert!(seen.contains(&format!("sid={}", VALUES[0])), "{seen:?}");
    assert!(
        !seen.contains(VALUES[1]),
        "HttpOnly stays hidden from scripts"
    );
    assert!(
        !seen.contains(VALUES[2]),
        "another domain's cookie is not there"
    );

    let plain = block_on(shared().browser().new_tab()).expect("open a tab");
    block_on(plain.navigate(url.as_str(), Duration::from_secs(20))).expect("open /claims");
    let none = block_on(plain.evaluate("JSON.stringify(document.cookie)", Duration::from_secs(10)))
        .expect("read document.cookie");
    block_on(plain.close());
    assert_eq!(
        none, "\"\"",
        "a tab without a profile starts without cookies"
    );
}

/// A home holding profile `member`: a session cookie for the fixture server's host.
fn member_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("a temp dir");
    let host = fixtures::base().host_str().expect("a host").to_string();
    let from = home.path().join("cookies.txt");
    let line = format!("{host}\tFALSE\t/\tFALSE\t0\tmember\t{}\n", VALUES[0]);
    std::fs::write(&from, line).expect("write the export");
    Profile::in_home(home.path(), "member")
        .expect("a profile name")
        .import_cookies(&host, &from)
        .expect("import");
    home
}

#[test]
fn read_and_bench_see_a_screen_behind_a_sign_in_with_the_profile() {
    let home = member_home();
    let base = fixtures::base().to_string();
    let base = base.trim_end_matches('/');
    let env = [("WAYMARK_HOME", home.path().as_os_str())];
    let cwd = home.path();
    let signed_in = waymark(
        cwd,
        [
            "--base-url",
            base,
            "--profile",
            "member",
            "read",
            "/members.html",
        ],
        &env,
    );
    signed_in.exits(0).says("members.save").says("members.note");
    tells_no_value(&signed_in);
    let signed_out = waymark(cwd, ["--base-url", base, "read", "/members.html"], &env);
    signed_out.exits(0).says("members.sign-in");
    assert!(
        !signed_out.stdout.contains("members.save"),
        "{}",
        signed_out.stdout
    );

    let bench = |profile: &[&str], targets: &[&str]| {
        let mut args = vec!["--base-url", base];
        args.extend_from_slice(profile);
        args.extend(["bench", "/members.html", "--runs", "1", "--json"]);
        args.extend_from_slice(targets);
        waymark(cwd, args, &env)
    };
    let named = ["--invoke", "members.save", "--fill", "members.note"];
    // `auto` reads the page's bench targets over plain HTTP, with the profile's cookies too.
    let auto = ["--invoke", "auto", "--fill", "auto"];
    for targets in [&named, &auto] {
        let measured = bench(&["--profile", "member"], targets);
        measured.exits(0);
        tells_no_value(&measured);
        let report: serde_json::Value = serde_json::from_str(&measured.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", measured.all()));
        let route = &report["routes"][0];
        assert_eq!(route["controls"], 2, "{route}");
        assert_eq!(route["invoke"]["anchor"], "members.save", "{route}");
        assert_eq!(route["fill"]["anchor"], "members.note", "{route}");
        // The page's own floor, taken in the same tab (a 2-control page may be under its
        // clock's resolution: then it divides nothing).
        let floor = route["page_floor"]["median_ms"].as_f64();
        assert!(floor.is_some_and(|ms| ms >= 0.0), "{route}");
        // Each action's answer from the page: the frame after its input.
        for action in ["invoke", "fill"] {
            let frame = route[action]["frame_median_ms"].as_f64();
            assert!(frame.is_some_and(|ms| ms > 0.0), "{action}: {route}");
        }
    }
    bench(&[], &named)
        .exits(1)
        .says("/members.html could not be measured: invoke `members.save` failed: unknown_anchor");
    bench(&[], &auto).exits(2).says(
        "`--invoke auto` on `/members.html`: the page has no `<meta name=\"bench-click-target\">`",
    );
    // An unknown profile is bad input, found before a browser starts.
    let env = [
        ("WAYMARK_HOME", home.path().as_os_str()),
        ("WAYMARK_BROWSER", OsStr::new("/nonexistent/chromium")),
    ];
    for command in [&["read", "/members.html"][..], &["bench", "/members.html"]] {
        let mut args = vec!["--base-url", base, "--profile", "nobody"];
        args.extend_from_slice(command);
        waymark(cwd, args, &env)
            .exits(2)
            .says("no profile `nobody`");
    }
}
