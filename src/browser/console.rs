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

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::js_protocol::runtime::{
    ConsoleApiCalledType, EventConsoleApiCalled, EventExceptionThrown, ExceptionDetails,
    RemoteObject, RemoteObjectSubtype, RemoteObjectType,
};
use futures::StreamExt;
use serde::Serialize;
use tokio::task::JoinHandle;

use super::BrowserError;
use super::commands::bounded;

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

/// What a tab's watchers gathered since it was last taken.
#[derive(Debug, Default)]
pub(super) struct ConsoleBook(Mutex<PageLog>);

impl ConsoleBook {
    /// What was gathered, emptied.
    pub(super) fn take(&self) -> PageLog {
        self.0
            .lock()
            .map(|mut log| std::mem::take(&mut *log))
            .unwrap_or_default()
    }

    fn add(&self, log: PageLog) {
        if let Ok(mut kept) = self.0.lock() {
            kept.extend(log);
        }
    }
}

/// Subscribes to `page`'s console calls and uncaught errors; the watchers fill the book.
pub(super) async fn watch(
    page: &Page,
    timeout: Duration,
) -> Result<(Arc<ConsoleBook>, [JoinHandle<()>; 2]), BrowserError> {
    let (mut calls, mut thrown) = futures::try_join!(
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
    let book = Arc::new(ConsoleBook::default());
    let seen = Arc::clone(&book);
    let console = tokio::spawn(async move {
        while let Some(event) = calls.next().await {
            let level = match event.r#type {
                ConsoleApiCalledType::Error => "error",
                ConsoleApiCalledType::Warning => "warning",
                ConsoleApiCalledType::Assert => "assert",
                _ => continue,
            };
            let text: Vec<String> = event.args.iter().map(preview).collect();
            seen.add(PageLog {
                console: vec![ConsoleMessage {
                    level: level.to_string(),
                    text: text.join(" "),
                }],
                ..PageLog::default()
            });
        }
    });
    let seen = Arc::clone(&book);
    let errors = tokio::spawn(async move {
        while let Some(event) = thrown.next().await {
            seen.add(PageLog {
                page_errors: vec![page_error(&event.exception_details)],
                ..PageLog::default()
            });
        }
    });
    Ok((book, [console, errors]))
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
}
