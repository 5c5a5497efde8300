//! What the page says of itself: its console's errors and warnings, and its uncaught
//! exceptions and unhandled promise rejections, kept for the round trip of the call during
//! which (or after which) they came.
//!
//! Read off the Runtime domain, which every tab has enabled already (chromiumoxide turns it
//! on for its execution contexts): `Runtime.consoleAPICalled` (the page's own `console.*`
//! calls, their arguments with previews) and `Runtime.exceptionThrown` (what the page threw
//! and nobody caught, a rejection nobody handled among them). Not `Log.entryAdded`: those
//! are the browser's own messages (a resource that failed to load, a CSP violation, a
//! deprecation), which Playwright also reports as console messages; the Log domain stays
//! off on every tab (`setup.rs`), and a failed load is the network's story
//! (`navigation_failed`, routes). The text is rendered as Playwright's `ConsoleMessage.text()`
//! renders it, and an error as `String(error)` of Playwright's `pageerror`.

use std::sync::Arc;
use std::task::Context;
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::js_protocol::runtime::{
    ConsoleApiCalledType, EventConsoleApiCalled, EventExceptionThrown, ExceptionDetails,
    RemoteObject, RemoteObjectSubtype, RemoteObjectType,
};
use chromiumoxide::listeners::EventStream;
use serde::Serialize;
use tokio::task::JoinHandle;

use super::BrowserError;
use super::commands::bounded;
use super::tap::{Pump, Tap, drain};

/// Console messages, and page errors, kept per call at most: past it they are counted.
pub const CONSOLE_KEPT: usize = 100;

/// A console message the page logged at error or warning level.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsoleMessage {
    /// Playwright's `type()` of it: `error`, `warning`, or `assert` (a failed
    /// `console.assert`, which DevTools shows as an error).
    pub level: String,
    /// Its arguments as Playwright's `text()` writes them, joined by spaces.
    pub text: String,
}

/// An exception the page threw and did not catch, or a promise rejection it did not handle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageError {
    /// The error as `String(error)` gives it for Playwright's `pageerror`
    /// (`TypeError: x is undefined`; a rejected plain value as itself).
    pub message: String,
    /// Where it was thrown: the script's address, line and column (`…/app.js:12:5`), as
    /// the top line of its stack says; empty when the browser did not say.
    pub source: String,
}

/// What a tab's pages said since it was last asked: the first [`CONSOLE_KEPT`] of each,
/// and how many more came.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageLog {
    /// Console errors and warnings, in order.
    pub console: Vec<ConsoleMessage>,
    /// Uncaught exceptions and unhandled rejections, in order.
    pub page_errors: Vec<PageError>,
    /// Console messages past those kept.
    pub console_dropped: u64,
    /// Page errors past those kept.
    pub page_errors_dropped: u64,
}

impl PageLog {
    /// Adds `other` (a later tab's, or a later time's) to it.
    pub fn extend(&mut self, other: PageLog) {
        keep(
            &mut self.console,
            &mut self.console_dropped,
            other.console,
            other.console_dropped,
        );
        keep(
            &mut self.page_errors,
            &mut self.page_errors_dropped,
            other.page_errors,
            other.page_errors_dropped,
        );
    }
}

fn keep<T>(kept: &mut Vec<T>, dropped: &mut u64, more: Vec<T>, more_dropped: u64) {
    for item in more {
        if kept.len() < CONSOLE_KEPT {
            kept.push(item);
        } else {
            *dropped += 1;
        }
    }
    *dropped += more_dropped;
}

/// What a tab's pages said since it was last taken, fed by its two event streams: between
/// calls by a watcher task, which keeps at most [`CONSOLE_KEPT`] of each (not heaping them
/// in the channels), and by [`ConsoleBook::take`] itself, which first reads what the
/// streams hold (see `src/browser/tap.rs`).
pub(super) struct ConsoleBook(Arc<Tap<Watched>>);

struct Watched {
    log: PageLog,
    calls: Option<EventStream<EventConsoleApiCalled>>,
    thrown: Option<EventStream<EventExceptionThrown>>,
}

impl ConsoleBook {
    /// What was gathered, emptied.
    pub(super) fn take(&self) -> PageLog {
        self.0
            .with(|watched| std::mem::take(&mut watched.log))
            .unwrap_or_default()
    }
}

impl Pump for Watched {
    fn pump(&mut self, cx: &mut Context<'_>) -> bool {
        let mut more = PageLog::default();
        let calls = drain(&mut self.calls, cx, |event| {
            let level = match event.r#type {
                ConsoleApiCalledType::Error => "error",
                ConsoleApiCalledType::Warning => "warning",
                ConsoleApiCalledType::Assert => "assert",
                _ => return,
            };
            let text: Vec<String> = event.args.iter().map(preview).collect();
            more.console.push(ConsoleMessage {
                level: level.to_string(),
                text: text.join(" "),
            });
        });
        let thrown = drain(&mut self.thrown, cx, |event| {
            more.page_errors.push(page_error(&event.exception_details));
        });
        self.log.extend(more);
        calls && thrown
    }
}

/// Subscribes to `page`'s console calls and uncaught errors; the watcher fills the book
/// between calls.
pub(super) async fn watch(
    page: &Page,
    timeout: Duration,
) -> Result<(ConsoleBook, JoinHandle<()>), BrowserError> {
    let (calls, thrown) = futures::try_join!(
        bounded(
            timeout,
            "subscribing to the console",
            page.event_listener::<EventConsoleApiCalled>(),
        ),
        bounded(
            timeout,
            "subscribing to uncaught errors",
            page.event_listener::<EventExceptionThrown>(),
        ),
    )?;
    let (tap, watcher) = Tap::start(Watched {
        log: PageLog::default(),
        calls: Some(calls),
        thrown: Some(thrown),
    });
    Ok((ConsoleBook(tap), watcher))
}

/// A console argument as Playwright's `text()` writes it (its `renderPreview`).
fn preview(object: &RemoteObject) -> String {
    if object.r#type == RemoteObjectType::Undefined {
        return "undefined".into();
    }
    if object.subtype == Some(RemoteObjectSubtype::Null) {
        return "null".into();
    }
    if let Some(value) = &object.value {
        return match value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    if let Some(value) = &object.unserializable_value {
        return value.inner().clone();
    }
    if let Some(preview) = &object.preview {
        let value = |v: &Option<String>| v.clone().unwrap_or_default();
        if object.description.as_deref() == Some("Object") {
            let tokens: Vec<String> = preview
                .properties
                .iter()
                .map(|p| format!("{}: {}", p.name, value(&p.value)))
                .collect();
            return format!("{{{}}}", tokens.join(", "));
        }
        if object.subtype == Some(RemoteObjectSubtype::Array) {
            return sparse_array(
                preview
                    .properties
                    .iter()
                    .map(|p| (p.name.as_str(), value(&p.value))),
            );
        }
    }
    object.description.clone().unwrap_or_default()
}

/// An array's preview as Playwright writes it: `[1, <empty>, 3]`.
fn sparse_array<'a>(entries: impl Iterator<Item = (&'a str, String)>) -> String {
    let mut items: Vec<(u64, String)> = entries
        .filter_map(|(name, value)| name.parse().ok().map(|i| (i, value)))
        .collect();
    items.sort_by_key(|(i, _)| *i);
    let (mut tokens, mut last) = (Vec::new(), -1i128);
    for (index, value) in items {
        match i128::from(index) - last - 1 {
            0 => {}
            1 => tokens.push("<empty>".to_string()),
            n => tokens.push(format!("<{n} empty items>")),
        }
        tokens.push(value);
        last = i128::from(index);
    }
    format!("[{}]", tokens.join(", "))
}

/// An uncaught error as Playwright's `pageerror` gives it, and where it was thrown.
fn page_error(details: &ExceptionDetails) -> PageError {
    let with_stack = match &details.exception {
        Some(e) => e.description.clone().unwrap_or_else(|| preview(e)),
        None => details.text.clone(),
    };
    // The lines before the stack's: `TypeError: boom`.
    let head: Vec<&str> = with_stack
        .lines()
        .take_while(|line| !line.starts_with("    at"))
        .collect();
    let head = head.join("\n");
    let (mut name, message) = match head.split_once(':') {
        Some((name, rest)) => (
            name.to_string(),
            rest.strip_prefix(' ').unwrap_or(rest).to_string(),
        ),
        None => (String::new(), head.clone()),
    };
    // A thrown object's own `name` names it, as Playwright's does.
    let named = details.exception.as_ref().and_then(|e| e.preview.as_ref());
    if let Some(p) = named.and_then(|p| p.properties.iter().find(|p| p.name == "name")) {
        name = p.value.clone().unwrap_or_else(|| "Error".into());
    }
    let message = match (name.is_empty(), message.is_empty()) {
        (true, _) => message,
        (false, true) => name,
        (false, false) => format!("{name}: {message}"),
    };
    let top = details
        .stack_trace
        .as_ref()
        .and_then(|s| s.call_frames.first());
    let source = match top {
        Some(f) if !f.url.is_empty() => {
            format!("{}:{}:{}", f.url, f.line_number + 1, f.column_number + 1)
        }
        _ => match details.url.as_deref().filter(|u| !u.is_empty()) {
            Some(url) => format!(
                "{url}:{}:{}",
                details.line_number + 1,
                details.column_number + 1
            ),
            None => String::new(),
        },
    };
    PageError { message, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(json: serde_json::Value) -> RemoteObject {
        serde_json::from_value(json).expect("a remote object")
    }

    #[test]
    fn arguments_are_written_as_playwright_writes_them() {
        assert_eq!(
            preview(&object(
                serde_json::json!({"type": "string", "value": "failed"})
            )),
            "failed"
        );
        assert_eq!(
            preview(&object(serde_json::json!({"type": "number", "value": 1.5}))),
            "1.5"
        );
        assert_eq!(
            preview(&object(serde_json::json!({"type": "undefined"}))),
            "undefined"
        );
        assert_eq!(
            preview(&object(
                serde_json::json!({"type": "object", "subtype": "null", "value": null})
            )),
            "null"
        );
        let obj = serde_json::json!({"type": "object", "description": "Object", "objectId": "1",
            "preview": {"type": "object", "description": "Object", "overflow": false,
              "properties": [{"name": "code", "type": "number", "value": "42"},
                             {"name": "name", "type": "string", "value": "x"}]}});
        assert_eq!(preview(&object(obj)), "{code: 42, name: x}");
        assert_eq!(
            sparse_array(
                [
                    ("0", "1".to_string()),
                    ("2", "3".to_string()),
                    ("6", "7".to_string())
                ]
                .into_iter()
            ),
            "[1, <empty>, 3, <3 empty items>, 7]"
        );
    }

    #[test]
    fn an_uncaught_error_is_named_as_string_of_it_gives_and_placed_by_its_stack() {
        let details: ExceptionDetails = serde_json::from_value(serde_json::json!({
            "exceptionId": 1, "text": "Uncaught", "lineNumber": 12, "columnNumber": 25,
            "url": "http://a/p.html",
            "exception": {"type": "object", "subtype": "error", "className": "TypeError",
              "description": "TypeError: boom\n    at http://a/p.html:13:26"}
        }))
        .expect("exception details");
        let error = page_error(&details);
        assert_eq!(error.message, "TypeError: boom");
        assert_eq!(error.source, "http://a/p.html:13:26");
        let plain: ExceptionDetails = serde_json::from_value(serde_json::json!({
            "exceptionId": 2, "text": "Uncaught (in promise)", "lineNumber": 0,
            "columnNumber": 0, "exception": {"type": "string", "value": "plain"}
        }))
        .expect("exception details");
        assert_eq!(
            page_error(&plain),
            PageError {
                message: "plain".into(),
                source: String::new()
            }
        );
    }

    /// A book and its watcher, fed by two channels the test feeds as chromiumoxide's
    /// handler feeds a tab's (on a runtime: the watcher is spawned).
    #[allow(clippy::type_complexity)]
    fn started() -> (
        ConsoleBook,
        JoinHandle<()>,
        futures::channel::mpsc::UnboundedSender<Arc<dyn chromiumoxide::cdp::Event>>,
        futures::channel::mpsc::UnboundedSender<Arc<dyn chromiumoxide::cdp::Event>>,
    ) {
        let (calls, calls_rx) = futures::channel::mpsc::unbounded();
        let (thrown, thrown_rx) = futures::channel::mpsc::unbounded();
        let (tap, watcher) = Tap::start(Watched {
            log: PageLog::default(),
            calls: Some(EventStream::new(calls_rx)),
            thrown: Some(EventStream::new(thrown_rx)),
        });
        (ConsoleBook(tap), watcher, calls, thrown)
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime")
    }

    fn thrown(message: &str) -> Arc<dyn chromiumoxide::cdp::Event> {
        let event: EventExceptionThrown = serde_json::from_value(serde_json::json!({
            "timestamp": 1.0,
            "exceptionDetails": {"exceptionId": 1, "text": "Uncaught (in promise)",
              "lineNumber": 0, "columnNumber": 0,
              "exception": {"type": "string", "value": message}}
        }))
        .expect("an exceptionThrown event");
        Arc::new(event)
    }

    fn logged(text: &str) -> Arc<dyn chromiumoxide::cdp::Event> {
        let event: EventConsoleApiCalled = serde_json::from_value(serde_json::json!({
            "type": "error", "executionContextId": 1, "timestamp": 1.0,
            "args": [{"type": "string", "value": text}]
        }))
        .expect("a consoleAPICalled event");
        Arc::new(event)
    }

    fn errors(log: &PageLog) -> Vec<&str> {
        log.page_errors.iter().map(|e| e.message.as_str()).collect()
    }

    /// What chromiumoxide handed over before a call takes the book is the call's, though
    /// the watcher task never had its turn (several journeys share two busy workers).
    #[test]
    fn taking_reads_what_the_streams_hold_before_the_watcher_has_run() {
        runtime().block_on(async {
            let (book, _watcher, calls, thrown_tx) = started();
            thrown_tx
                .unbounded_send(thrown("payment declined"))
                .unwrap();
            thrown_tx.unbounded_send(thrown("plain reason")).unwrap();
            calls.unbounded_send(logged("save failed")).unwrap();
            // No await between: on this runtime's one thread the watcher has not run.
            let log = book.take();
            assert_eq!(errors(&log), ["payment declined", "plain reason"]);
            assert_eq!(log.console[0].text, "save failed");
            assert_eq!(book.take(), PageLog::default(), "each event once");
        });
    }

    /// Between calls the watcher keeps the book (at most [`CONSOLE_KEPT`], the rest
    /// counted), and a call's taking leaves it woken for what comes next: it ends when the
    /// tab's streams do.
    #[test]
    fn the_watcher_keeps_the_book_between_calls_and_is_woken_after_a_take() {
        runtime().block_on(async {
            let (book, watcher, calls, thrown_tx) = started();
            tokio::task::yield_now().await;
            for n in 0..CONSOLE_KEPT + 5 {
                thrown_tx.unbounded_send(thrown(&format!("e{n}"))).unwrap();
            }
            // The watcher takes them in, and waits for more.
            tokio::task::yield_now().await;
            let log = book.take();
            assert_eq!(log.page_errors.len(), CONSOLE_KEPT);
            assert_eq!(log.page_errors_dropped, 5);
            assert_eq!(log.page_errors[0].message, "e0");
            thrown_tx.unbounded_send(thrown("after the take")).unwrap();
            drop((calls, thrown_tx));
            tokio::time::timeout(Duration::from_secs(5), watcher)
                .await
                .expect("the watcher, woken after the take, ends with the streams")
                .expect("the watcher did not panic");
            assert_eq!(errors(&book.take()), ["after the take"]);
        });
    }
}
