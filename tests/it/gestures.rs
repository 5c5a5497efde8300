//! Gestures beyond a press, on a page of their own (`tests/fixtures/apps/gestures/`, served
//! on 127.0.0.1): hover (a menu shown on `:hover`, a tip shown on `mouseenter`), drag (an
//! HTML5 card onto a column, a slider that follows the mouse), upload (a file input, a
//! button that opens a chooser; only fixtures), a download kept and hashed, and the
//! journey run through the CLI on a desktop and on a phone (`--device "Pixel 7"`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use axum::http::header;
use axum::response::{Html, IntoResponse};
use sha2::{Digest, Sha256};
use url::Url;
use waymark::registry::Registry;
use waymark::tools::{ErrorCode, FileScope, ToolOptions, Tools};

use crate::cli::waymark;
use crate::harness::{block_on, control, failed, ok, open, shared, value};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apps/gestures")
}

fn fixtures() -> PathBuf {
    dir().join("journeys/fixtures")
}

/// What `/report.csv` serves (as an attachment).
fn report() -> Vec<u8> {
    std::fs::read(fixtures().join("receipt.csv")).expect("read the receipt fixture")
}

/// The app, served once at `/` with its report at `/report.csv`.
fn base() -> Url {
    static BASE: OnceLock<Url> = OnceLock::new();
    BASE.get_or_init(|| {
        let page = std::fs::read_to_string(dir().join("index.html")).expect("read index.html");
        let page: &'static str = Box::leak(page.into_boxed_str());
        let exports =
            std::fs::read_to_string(dir().join("exports.html")).expect("read exports.html");
        let exports: &'static str = Box::leak(exports.into_boxed_str());
        block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind the app's server");
            let addr = listener.local_addr().expect("the app's address");
            let app = axum::Router::new()
                .route("/", axum::routing::get(move || async move { Html(page) }))
                .route(
                    "/exports",
                    axum::routing::get(move || async move { Html(exports) }),
                )
                .route(
                    "/plain.csv",
                    // A static file as most servers send one: no Content-Disposition.
                    axum::routing::get(|| async {
                        ([(header::CONTENT_TYPE, "text/csv")], report()).into_response()
                    }),
                )
                .route(
                    "/report.csv",
                    axum::routing::get(|| async {
                        (
                            [
                                (header::CONTENT_TYPE, "text/csv"),
                                (
                                    header::CONTENT_DISPOSITION,
                                    "attachment; filename=\"report.csv\"",
                                ),
                            ],
                            report(),
                        )
                            .into_response()
                    }),
                )
                .route(
                    "/export",
                    axum::routing::get(|| async {
                        // A name without an extension: its type is the server's word.
                        let disposition = "attachment; filename=\"export\"";
                        (
                            [
                                (header::CONTENT_TYPE, "application/json"),
                                (header::CONTENT_DISPOSITION, disposition),
                            ],
                            "{\"orders\": []}",
                        )
                            .into_response()
                    }),
                );
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            Url::parse(&format!("http://{addr}/")).expect("the app's URL parses")
        })
    })
    .clone()
}

fn tools(downloads: &Path) -> Tools<waymark::browser::ChromiumTab> {
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    let tools = Tools::new(
        tab,
        base(),
        Arc::new(Registry::empty()),
        ToolOptions::default(),
    );
    tools.set_file_scope(FileScope {
        fixtures: fixtures(),
        downloads: downloads.to_path_buf(),
    });
    tools
}

#[test]
fn a_menu_shown_on_hover_is_hovered_then_its_item_pressed() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let tools = tools(scratch.path());
    block_on(async {
        let screen = open(&tools, "/").await;
        assert!(!control(&screen, "menu.widgets", None).visible);
        let rt = tools.hover("menu.products", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.anchor.as_deref(), Some("menu.products"));
        assert!(control(screen, "menu.widgets", None).visible);
        let screen = ok(&tools.invoke("menu.widgets", None).await).clone();
        assert_eq!(value(&screen, "status"), "picked widgets");
        // A tip shown by a `mouseenter` listener.
        let screen = ok(&tools.hover("tips.trigger", None).await).clone();
        assert!(control(&screen, "tips.more", None).visible);
        let screen = ok(&tools.invoke("tips.more", None).await).clone();
        assert_eq!(value(&screen, "status"), "more help");
        tools.close().await;
    });
}

#[test]
fn an_html5_card_is_dragged_onto_a_column_and_a_slider_follows_the_mouse() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let tools = tools(scratch.path());
    block_on(async {
        open(&tools, "/").await;
        let rt = tools.drag("board.card[1]", "board.column[done]").await;
        let screen = ok(&rt);
        assert_eq!(value(screen, "status"), "Card 1 in done");
        let rt = tools.drag("slider.handle", "slider.end").await;
        let screen = ok(&rt);
        assert_eq!(value(screen, "slider.value"), "100");
        // A target that is not there is told like invoke's.
        let rt = tools.drag("board.card[9]", "board.column[done]").await;
        assert!(!rt.ok);
        tools.close().await;
    });
}

#[test]
fn a_file_input_and_a_chooser_a_button_opens_take_a_fixture() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let tools = tools(scratch.path());
    block_on(async {
        open(&tools, "/").await;
        let screen = ok(&tools.upload("upload.file", "receipt.csv").await).clone();
        assert_eq!(value(&screen, "upload.status"), "receipt.csv (26 bytes)");
        // The chooser the upload answered is not one left unanswered.
        assert_eq!(screen.confidence, 1.0, "{:?}", screen.confidence_reasons);
        let screen = ok(&tools.upload("upload.picker", "photo.txt").await).clone();
        assert_eq!(value(&screen, "upload.picked"), "picked photo.txt");
        // A control that opens no chooser says so.
        let rt = tools.upload("status", "photo.txt").await;
        failed(&rt, ErrorCode::NotEditable);
        tools.close().await;
    });
}

#[test]
fn an_upload_outside_fixtures_is_refused_before_the_page_is_touched() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let outside = scratch.path().join("secret.txt");
    std::fs::write(&outside, "secret").expect("write a file outside fixtures");
    let tools = tools(scratch.path());
    block_on(async {
        open(&tools, "/").await;
        for path in [
            "../gestures.rhai",
            "../../index.html",
            outside.to_str().expect("a UTF-8 path"),
            "missing.csv",
        ] {
            let rt = tools.upload("upload.file", path).await;
            failed(&rt, ErrorCode::InvalidArgument);
        }
        let screen = ok(&tools.read_screen().await).clone();
        assert_eq!(value(&screen, "upload.status"), "no file");
        tools.close().await;
    });
}

#[test]
fn a_download_is_kept_under_the_journeys_folder_with_its_hash() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let downloads = scratch.path().join("downloads/gestures");
    let tools = tools(&downloads);
    block_on(async {
        open(&tools, "/").await;
        let rt = tools.invoke("download.report", None).await;
        ok(&rt);
        let download = rt
            .download
            .clone()
            .expect("the round trip names the download");
        let served = report();
        let sha: String = Sha256::digest(&served)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(download.file, "report.csv");
        assert_eq!(download.bytes, served.len() as u64);
        assert_eq!(download.sha256, sha);
        assert_eq!(download.mime, "text/csv");
        let kept = downloads.join("report.csv");
        assert_eq!(std::fs::read(&kept).expect("the kept download"), served);
        // Told once: the next call downloads nothing.
        let rt = tools.read_screen().await;
        assert!(rt.download.is_none());
        // The media type is the one the server sent, not a guess from the name.
        let rt = tools.invoke("download.export", None).await;
        let export = ok(&rt);
        let download = rt.download.clone().expect("the export downloaded");
        assert_eq!(
            (download.file.as_str(), download.mime.as_str()),
            ("export", "application/json"),
            "{export:?}"
        );
        tools.close().await;
    });
}

/// The anchors of `/exports`, by matchers (the page has no `data-anchor`).
const EXPORTS: &str = "app: exports
screens:
  - id: reports
    route: /exports
anchors:
  - id: reports.plain
    description: a link with `download` to a file sent without Content-Disposition
    screens: [reports]
    match: {role: link, name: Download the plain CSV}
  - id: reports.report
    description: a link with `download` to a file sent as an attachment
    screens: [reports]
    match: {role: link, name: Download the report}
  - id: reports.summary
    description: a data link with `download`
    screens: [reports]
    match: {role: link, name: Download the summary}
  - id: reports.export
    description: builds a blob and clicks a link to it
    screens: [reports]
    match: {role: button, name: Export totals}
";

/// The row of issue 48: `<a href=\"report.csv\" download>` on a server that sends no
/// `Content-Disposition` failed with `timeout: the page … did not load within 15000 ms`
/// (the page's `navigate` event for a download was taken for a navigation). Every way an
/// app starts a download is reported as a download, on the page it started from.
#[test]
fn downloads_from_download_links_blobs_and_data_urls_are_reported_without_a_navigation_wait() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let downloads = scratch.path().join("downloads");
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    let registry = Registry::parse(EXPORTS, "exports.yaml").expect("the registry");
    let tools = Tools::new(tab, base(), Arc::new(registry), ToolOptions::default());
    tools.set_file_scope(FileScope {
        fixtures: fixtures(),
        downloads: downloads.clone(),
    });
    let sha = |bytes: &[u8]| -> String {
        Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    block_on(async {
        open(&tools, "/exports").await;
        let summary = b"region,total\nnorth,12\n".to_vec();
        let totals = b"region,total\nsouth,7\n".to_vec();
        let cases: [(&str, &str, Vec<u8>); 4] = [
            ("reports.plain", "plain.csv", report()),
            ("reports.report", "report.csv", report()),
            ("reports.summary", "summary.csv", summary),
            ("reports.export", "totals.csv", totals),
        ];
        for (anchor, file, bytes) in cases {
            let rt = tools.invoke(anchor, None).await;
            ok(&rt);
            assert_eq!(rt.route, "/exports", "{anchor} left the page");
            let download = rt
                .download
                .clone()
                .unwrap_or_else(|| panic!("{anchor}: the round trip names no download"));
            assert_eq!(download.file, file, "{anchor}");
            assert_eq!(download.bytes, bytes.len() as u64, "{anchor}");
            assert_eq!(download.sha256, sha(&bytes), "{anchor}");
            assert_eq!(download.mime, "text/csv", "{anchor}");
            assert_eq!(
                std::fs::read(downloads.join(file)).expect("the kept download"),
                bytes,
                "{anchor}"
            );
        }
        tools.close().await;
    });
}

#[test]
fn the_gestures_journey_passes_on_a_desktop_and_on_a_phone() {
    let cwd = tempfile::tempdir().expect("a temp dir");
    let journey = dir().join("journeys/gestures.rhai");
    let url = base();
    for device in [None, Some("Pixel 7")] {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "run".as_ref(),
            journey.as_os_str(),
            "--base-url".as_ref(),
            url.as_str().as_ref(),
        ];
        if let Some(d) = device {
            args.push(std::ffi::OsStr::new("--device"));
            args.push(std::ffi::OsStr::new(d));
        }
        waymark(cwd.path(), args, &[]).exits(0).says("1 passed");
        let kept = cwd
            .path()
            .join("target/waymark/downloads/gestures/report.csv");
        assert!(kept.is_file(), "{device:?}: no {}", kept.display());
        let trace =
            std::fs::read_to_string(cwd.path().join("target/waymark/traces/gestures.jsonl"))
                .expect("the journey's trace");
        let header: serde_json::Value =
            serde_json::from_str(trace.lines().next().expect("a header")).expect("JSON");
        let mobile = device.is_some();
        assert_eq!(header["mobile"], mobile, "{header}");
        assert_eq!(header["device"].as_str(), device, "{header}");
        if mobile {
            assert_eq!(header["viewport"][0], 412.0, "{header}");
            assert_eq!(header["device_scale"], 2.625, "{header}");
        }
        assert!(trace.contains("\"drag\""), "the trace records the drag");
    }
}

#[test]
fn an_unknown_device_is_bad_input_naming_the_presets() {
    let cwd = tempfile::tempdir().expect("a temp dir");
    waymark(cwd.path(), ["run", "--device", "Nokia 3310"], &[])
        .exits(2)
        .says("Pixel 7");
}

#[test]
fn read_on_a_phone_shows_the_menu_button_instead_of_the_nav_bar() {
    let cwd = tempfile::tempdir().expect("a temp dir");
    let url = base();
    let visible = |device: &[&str]| -> (bool, bool) {
        let mut args = vec!["read", "/", "--json", "--base-url", url.as_str()];
        args.extend(device);
        let run = waymark(cwd.path(), args, &[]);
        run.exits(0);
        let screen: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        let shown = |anchor: &str| {
            screen["controls"]
                .as_array()
                .expect("controls")
                .iter()
                .any(|c| c["anchor"] == anchor && c["visible"] == true)
        };
        (shown("nav.menu"), shown("nav.reports"))
    };
    assert_eq!(visible(&[]), (false, true));
    assert_eq!(visible(&["--device", "pixel 7"]), (true, false));
    assert_eq!(visible(&["--viewport", "500x900"]), (true, false));
}

/// Issue 51: `drag` names the n-th of an anchor's controls at either end (`from_nth`,
/// `to_nth`), counted from 0 in document order, as `invoke(#{anchor, nth})` does.
#[test]
fn a_drag_names_the_nth_of_an_anchors_controls() {
    use waymark::anchor::AnchorRef;
    use waymark::tools::TargetRef;
    let scratch = tempfile::tempdir().expect("a temp dir");
    let tools = tools(scratch.path());
    block_on(async {
        open(&tools, "/").await;
        let card = TargetRef::Nth(AnchorRef::parse("board.card").expect("an anchor"), 0);
        let done = TargetRef::Anchor(AnchorRef::parse("board.column[done]").expect("an anchor"));
        let rt = tools.drag_target(&card, &done).await;
        assert_eq!(value(ok(&rt), "status"), "Card 1 in done");
        tools.close().await;
    });
}
