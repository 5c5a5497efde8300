//! Dialogs: a JavaScript alert never hangs a journey and is reported on the screen; a
//! modal dialog is named in the read and its controls can be used. The browser's own
//! dialogs are answered as the journey says (`on_dialog`), on a page of their own
//! (`tests/fixtures/apps/answers/`, served on 127.0.0.1), and each round trip lists them.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::response::Html;
use url::Url;
use waymark::registry::Registry;
use waymark::tools::{DialogAction, OnDialogArgs, ToolOptions, Tools};

use crate::cli::waymark;
use crate::harness::{
    block_on, bounded, control, ok, open, probed_tools, saves_of, shared, tools, value,
};

#[test]
fn a_javascript_alert_does_not_hang_and_is_reported() {
    let (tools, _) = tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let limit = Duration::from_secs(60);
        let rt = bounded(
            limit,
            "invoking `widgets.alert`",
            tools.invoke("widgets.alert", None),
        )
        .await;
        let screen = ok(&rt);
        let dialog = screen.dialog.as_deref().expect("the alert is reported");
        assert!(dialog.contains("Heads up"), "{dialog}");
        assert!(
            screen.confidence < 1.0,
            "an answered alert lowers confidence"
        );

        // the page is not blocked: it still reads and reacts
        let after = bounded(
            limit,
            "invoking `widgets.counter`",
            tools.invoke("widgets.counter", None),
        )
        .await;
        assert_eq!(
            control(ok(&after), "widgets.counter", None).label,
            "Clicked 1 times"
        );
        tools.close().await;
    });
}

#[test]
fn a_modal_dialog_is_named_and_its_confirm_rejects_the_claim() {
    // claim 1044 is rejected by this test only
    let (tools, _) = tools();
    block_on(async {
        let rejected_before = saves_of("claim.reject-confirm");
        open(&tools, "/claims/1044").await;
        let rt = tools.invoke("claim.reject", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.route, "/claims/1044");
        assert_eq!(screen.dialog.as_deref(), Some("Reject claim 1044?"));
        assert_eq!(screen.focus.as_deref(), Some("claim.reject-reason"));
        let confirm = control(screen, "claim.reject-confirm", None);
        assert!(confirm.visible);
        assert_eq!(confirm.region, "dialog");

        ok(&tools
            .fill("claim.reject-reason", "Duplicate of claim 1040")
            .await);
        let rt = tools.invoke("claim.reject-confirm", None).await;
        let screen = ok(&rt);
        assert_eq!(rt.label.as_deref(), Some("Confirm rejection"));
        assert_eq!(rt.route_before, "/claims/1044");
        assert_eq!(screen.route.split('?').next(), Some("/claims"));
        assert_eq!(screen.screen.as_deref(), Some("claims-list"));
        assert_eq!(screen.dialog, None);
        assert_eq!(saves_of("claim.reject-confirm"), rejected_before + 1);

        let detail = open(&tools, "/claims/1044").await;
        assert!(
            control(&detail, "claim.reject", None).disabled,
            "the claim is closed"
        );
        tools.close().await;
    });
}

#[test]
fn a_modal_dialog_takes_input_and_closes() {
    let (tools, probe) = probed_tools();
    block_on(async {
        open(&tools, "/widgets").await;
        let rt = tools.invoke("widgets.open-dialog", None).await;
        assert_eq!(ok(&rt).dialog.as_deref(), Some("Rename item"));
        ok(&tools.fill("widgets.dialog-name", "Quarterly report").await);
        let rt = tools.invoke("widgets.dialog-ok", None).await;
        let screen = ok(&rt);
        assert_eq!(screen.dialog, None);
        assert_eq!(
            probe.text("#rename-result").await.as_deref(),
            Some("Name: Quarterly report")
        );
        tools.close().await;
    });
}

fn answers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apps/answers")
}

/// The page of dialogs, served once.
fn answers_base() -> Url {
    static BASE: OnceLock<Url> = OnceLock::new();
    BASE.get_or_init(|| {
        let page = std::fs::read_to_string(answers().join("index.html")).expect("read index.html");
        let page: &'static str = Box::leak(page.into_boxed_str());
        block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind the page's server");
            let addr = listener.local_addr().expect("the page's address");
            let app = axum::Router::new()
                .route("/", axum::routing::get(move || async move { Html(page) }));
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            Url::parse(&format!("http://{addr}/")).expect("the URL parses")
        })
    })
    .clone()
}

fn answering_tools() -> Tools<waymark::browser::ChromiumTab> {
    let tab = block_on(shared().browser().new_tab()).unwrap_or_else(|e| panic!("open a tab: {e}"));
    Tools::new(
        tab,
        answers_base(),
        Arc::new(Registry::empty()),
        ToolOptions::default(),
    )
}

fn answer(action: DialogAction, text: Option<&str>) -> OnDialogArgs {
    OnDialogArgs {
        action,
        text: text.map(str::to_string),
    }
}

#[test]
fn dialogs_are_accepted_by_default_then_answered_as_the_journey_says_and_listed() {
    let tools = answering_tools();
    block_on(async {
        ok(&tools.navigate("/").await);
        let rt = tools.invoke("item.delete", None).await;
        assert_eq!(value(ok(&rt), "result"), "deleted");
        assert_eq!(rt.dialogs.len(), 1, "{:?}", rt.dialogs);
        let confirm = &rt.dialogs[0];
        assert_eq!(
            (
                confirm.kind.as_str(),
                confirm.message.as_str(),
                confirm.answer
            ),
            ("confirm", "Delete the item?", "accept")
        );

        let rt = tools.on_dialog(&answer(DialogAction::Dismiss, None)).await;
        ok(&rt);
        assert_eq!(rt.tool, "on_dialog");
        assert_eq!(rt.anchor, None, "the answer is not a control");
        let rt = tools.invoke("item.delete", None).await;
        assert_eq!(value(ok(&rt), "result"), "kept");
        assert_eq!(rt.dialogs[0].answer, "dismiss");
        // A dismissed prompt gives the page null, whatever text was asked for.
        ok(&tools
            .on_dialog(&answer(DialogAction::Dismiss, Some("ignored")))
            .await);
        let rt = tools.invoke("item.rename", None).await;
        assert_eq!(value(ok(&rt), "result"), "not renamed");
        assert_eq!(rt.dialogs[0].text, None, "{:?}", rt.dialogs);

        ok(&tools
            .on_dialog(&answer(DialogAction::Accept, Some("Quarterly report")))
            .await);
        let rt = tools.invoke("item.rename", None).await;
        assert_eq!(value(ok(&rt), "result"), "renamed to Quarterly report");
        let prompt = &rt.dialogs[0];
        assert_eq!(prompt.kind, "prompt");
        assert_eq!(prompt.text.as_deref(), Some("Quarterly report"));
        // An alert takes no text; the next call lists nothing already listed.
        let rt = tools.invoke("item.save", None).await;
        assert_eq!(value(ok(&rt), "result"), "saved");
        assert_eq!(rt.dialogs.len(), 1, "{:?}", rt.dialogs);
        assert_eq!(
            (rt.dialogs[0].kind.as_str(), rt.dialogs[0].text.as_deref()),
            ("alert", None)
        );
        assert!(tools.read_screen().await.dialogs.is_empty());

        ok(&tools.on_dialog(&answer(DialogAction::Accept, None)).await);
        let rt = tools.invoke("item.rename", None).await;
        assert_eq!(
            value(ok(&rt), "result"),
            "renamed to Untitled",
            "the prompt's own default"
        );
        assert_eq!(rt.dialogs[0].text.as_deref(), Some("Untitled"));
    });
    block_on(tools.close());
}

#[test]
fn the_dialogs_journey_passes_and_its_trace_and_report_list_the_answers() {
    let cwd = tempfile::tempdir().expect("a temp dir");
    let journey = answers().join("journeys/dialogs.rhai");
    let url = answers_base();
    let args = [
        "run".as_ref(),
        journey.as_os_str(),
        "--base-url".as_ref(),
        url.as_str().as_ref(),
        "--report".as_ref(),
        "html=out".as_ref(),
    ];
    waymark(cwd.path(), args, &[]).exits(0).says("1 passed");
    let report = std::fs::read_to_string(cwd.path().join("out/index.html")).expect("the report");
    assert!(
        report.contains("dialogs answered: prompt “New name?”: accept with “Quarterly report”"),
        "the report's step lists the prompt"
    );
    let trace = std::fs::read_to_string(cwd.path().join("target/waymark/traces/dialogs.jsonl"))
        .expect("the journey's trace");
    assert!(
        trace.contains("\"verb\":\"on_dialog\""),
        "on_dialog is a step"
    );
    assert!(
        trace.contains(
            "\"dialogs\":[{\"type\":\"prompt\",\"message\":\"New name?\",\"answer\":\"accept\",\"text\":\"Quarterly report\"}]"
        ),
        "the step lists the prompt it answered"
    );
}

/// Variables: `--var`, `WAYMARK_VAR_*`, `--secret-var`, `var()` and `base_url()` in a
/// journey; the secret's value never reaches the trace, the console or the failure.
#[test]
fn a_journey_reads_its_variables_and_a_secret_one_is_redacted_from_what_is_written() {
    let cwd = tempfile::tempdir().expect("a temp dir");
    let url = answers_base();
    let secret = "s3cr3t-t0ken";
    let given = format!("TOKEN={secret}");
    let journey = answers().join("journeys/vars.rhai");
    let args = [
        "run".as_ref(),
        journey.as_os_str(),
        "--base-url".as_ref(),
        url.as_str().as_ref(),
        "--var".as_ref(),
        "USER=ada".as_ref(),
        "--secret-var".as_ref(),
        given.as_ref(),
    ];
    let region = [("WAYMARK_VAR_REGION", std::ffi::OsStr::new("eu"))];
    waymark(cwd.path(), args, &region).exits(0).says("1 passed");
    let trace = std::fs::read_to_string(cwd.path().join("target/waymark/traces/vars.jsonl"))
        .expect("the journey's trace");
    assert!(!trace.contains(secret), "the secret reached the trace");
    assert!(
        trace.contains("[redacted]"),
        "the field's value is redacted"
    );

    let journey = answers().join("journeys/vars_fail.rhai");
    let args = [
        "run".as_ref(),
        journey.as_os_str(),
        "--base-url".as_ref(),
        url.as_str().as_ref(),
        "--secret-var".as_ref(),
        given.as_ref(),
    ];
    let run = waymark(cwd.path(), args, &[]);
    run.exits(1).says("the token [redacted] was refused");
    assert!(!run.all().contains(secret), "{}", run.all());
}
