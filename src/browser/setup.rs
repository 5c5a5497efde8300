//! What a new tab is set up with before its first navigation: the events it watches
//! (JavaScript dialogs, a crash, file choosers, downloads, the console's errors and the
//! page's uncaught ones, the responses: those that
//! bring style sheets, and the media type of what may be a download; and the network
//! error of a document that could not be loaded), file choosers
//! intercepted, touch emulation as the device has it, and its main frame.
//!
//! The subscriptions and commands are independent of each other, and the page does
//! nothing before its first navigation (no event can come before its subscription is
//! in): they are sent together, so a fresh tab costs one round trip here, not eight.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::inspector::{
    EnableParams as InspectorEnableParams, EventTargetCrashed,
};
use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventResponseReceived, RequestId, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    EventFileChooserOpened, EventJavascriptDialogOpening, FrameId,
    SetInterceptFileChooserDialogParams,
};
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::commands::{Commands, bounded};
use super::launch::LaunchOptions;
use super::{BrowserError, ChromeEvents};

/// Style sheet requests remembered at most: past it, the older ones are forgotten.
const SHEETS_KEPT: usize = 1024;

/// What the browser did in a tab that its next read tells (see [`ChromeEvents`]): the
/// dialogs answered, the file choosers opened, a crash; the choosers are read off their
/// stream as the events are taken (see `src/browser/tap.rs`).
pub(super) struct Chrome {
    events: Arc<Mutex<ChromeEvents>>,
    choosers: Arc<super::tap::Tap<super::files::Choosers>>,
}

impl Chrome {
    /// What came since the last take; a crash stays a crash, the rest is told once.
    pub(super) fn take(&self) -> ChromeEvents {
        self.choosers.catch_up();
        match self.events.lock() {
            Ok(mut chrome) => {
                let crashed = chrome.crashed;
                let mut taken = std::mem::take(&mut *chrome);
                chrome.crashed = crashed;
                taken.crashed = crashed;
                taken
            }
            Err(_) => ChromeEvents::default(),
        }
    }

    /// Whether the tab's renderer crashed.
    pub(super) fn crashed(&self) -> bool {
        self.events.lock().is_ok_and(|c| c.crashed)
    }
}

/// What a tab is set up with: what its watchers fill in, and the watchers.
pub(super) struct SetUp {
    pub(super) main_frame: Option<FrameId>,
    pub(super) chrome: Chrome,
    /// JavaScript dialogs answered since the tab opened.
    pub(super) answered: Arc<AtomicU64>,
    /// How dialogs are answered, and those answered since the last call.
    pub(super) dialog_book: Arc<super::dialogs::DialogBook>,
    /// The console's errors and warnings, and uncaught errors, since the last call.
    pub(super) console: super::console::ConsoleBook,
    /// The request that brought each style sheet, by address.
    pub(super) sheets: Arc<Mutex<HashMap<String, RequestId>>>,
    pub(super) downloads: super::files::Downloads,
    /// The network error of the last document that failed to load, unless one loaded
    /// since (`net::ERR_CONNECTION_REFUSED`).
    pub(super) load_error: Arc<Mutex<Option<String>>>,
    /// The requests its pages made (see `traffic.rs`).
    pub(super) traffic: Arc<super::traffic::TrafficLog>,
    pub(super) watchers: Vec<JoinHandle<()>>,
}

/// Sets up `page`, a tab of the browser context `context` whose downloads go to
/// `downloads`.
pub(super) async fn set_up(
    page: &Page,
    options: &LaunchOptions,
    (context, downloads): (BrowserContextId, PathBuf),
) -> Result<SetUp, BrowserError> {
    let timeout = options.command_timeout;
    let subscribed = async {
        futures::try_join!(
            bounded(
                timeout,
                "subscribing to dialogs",
                page.event_listener::<EventJavascriptDialogOpening>(),
            ),
            bounded(
                timeout,
                "subscribing to crashes",
                page.event_listener::<EventTargetCrashed>(),
            ),
            bounded(
                timeout,
                "subscribing to file choosers",
                page.event_listener::<EventFileChooserOpened>(),
            ),
            // The request behind each style sheet, whose body the browser keeps: what a
            // sheet of another origin holds, which the page cannot read (see
            // `style_sheet_facts`); and the media type of what may be a download.
            bounded(
                timeout,
                "subscribing to responses",
                page.event_listener::<EventResponseReceived>(),
            ),
            // A document that could not be loaded: Chromium's error page says why, but
            // the headless shell's is empty.
            bounded(
                timeout,
                "subscribing to failed loads",
                page.event_listener::<EventLoadingFailed>(),
            ),
        )
    };
    let commanded = async {
        futures::try_join!(
            page.command(
                timeout,
                "enabling crash reports",
                InspectorEnableParams::default()
            ),
            // Nobody can pick a file in a headless run: the chooser is intercepted (it never
            // opens, the page gets no file) and reported in the next read.
            page.command(
                timeout,
                "intercepting file choosers",
                SetInterceptFileChooserDialogParams::new(true)
            ),
            // chromiumoxide's setup of a tab turns touch emulation on whatever the device.
            super::device::emulate_touch(page, options.mobile, timeout),
            super::device::emulate_color_scheme(page, options.color_scheme, timeout),
            bounded(timeout, "finding the main frame", page.mainframe()),
            // chromiumoxide turns on the Performance and Log domains on every tab; waymark
            // reads neither, and each costs the browser work for every page.
            page.command(
                timeout,
                "turning off performance metrics",
                chromiumoxide::cdp::browser_protocol::performance::DisableParams::default()
            ),
            page.command(
                timeout,
                "turning off the log",
                chromiumoxide::cdp::browser_protocol::log::DisableParams::default()
            ),
        )
    };
    // The network `--network` asks for, before the first request (nothing to send for the
    // network as it is).
    let network = async {
        if options.network != super::NetworkConditions::default() {
            super::network::emulate(page, options.network, timeout).await?;
        }
        // And the run's headers, locale and time zone (`--header`, `--locale`, `--timezone`).
        super::context_settings::apply(page, &options.context, timeout).await
    };
    let watching = super::files::watch_downloads(page, context, &downloads, timeout);
    // Each boxed: inline, the joined futures of a tab's set-up outgrew a tokio worker's
    // stack (2 MiB) in a debug build once the console and the traffic were watched too.
    let console = Box::pin(super::console::watch(page, timeout));
    let traffic = Arc::new(super::traffic::TrafficLog::default());
    let logging = Box::pin(super::traffic::watch(page, Arc::clone(&traffic), timeout));
    let (subscribed, commanded, (downloads, saving), network, console, logging) = tokio::join!(
        Box::pin(subscribed),
        Box::pin(commanded),
        Box::pin(watching),
        Box::pin(network),
        console,
        logging
    );
    // Every watcher started, or none is kept.
    let (console, logging) = match (network, console, logging) {
        (Ok(()), Ok((console, watcher)), Ok(traffic)) => (console, [watcher, traffic]),
        (network, console, logging) => {
            let mut error = network.err();
            match console {
                Ok((_, watcher)) => watcher.abort(),
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
            match logging {
                Ok(task) => task.abort(),
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
            saving.abort();
            return Err(error.unwrap_or_else(|| {
                BrowserError::Protocol("a tab's watchers did not start".into())
            }));
        }
    };
    let (
        (opening, mut crashed, choosers, mut responses, mut failures),
        (_, _, (), (), main_frame, _, _),
    ) = match (subscribed, commanded) {
        (Ok(subscribed), Ok(commanded)) => (subscribed, commanded),
        (Err(e), _) | (_, Err(e)) => {
            saving.abort();
            logging.iter().for_each(JoinHandle::abort);
            return Err(e);
        }
    };
    let chrome = Arc::new(Mutex::new(ChromeEvents::default()));
    let answered = Arc::new(AtomicU64::new(0));
    let dialog_book = Arc::new(super::dialogs::DialogBook::default());
    let dialogs = super::dialogs::answer_all(
        page.clone(),
        opening,
        Arc::clone(&chrome),
        Arc::clone(&dialog_book),
        Arc::clone(&answered),
        timeout,
    );
    let seen = Arc::clone(&chrome);
    let crashes = tokio::spawn(async move {
        while crashed.next().await.is_some() {
            if let Ok(mut chrome) = seen.lock() {
                chrome.crashed = true;
            }
        }
    });
    let (choosers, files) =
        super::files::count_choosers(choosers, Arc::clone(&chrome), Arc::clone(&downloads.log));
    let sheets = Arc::new(Mutex::new(HashMap::new()));
    let load_error = Arc::new(Mutex::new(None));
    let (seen, saved, loaded) = (
        Arc::clone(&sheets),
        Arc::clone(&downloads.log),
        Arc::clone(&load_error),
    );
    let responded = tokio::spawn(async move {
        while let Some(event) = responses.next().await {
            if event.r#type == ResourceType::Document
                && let Ok(mut error) = loaded.lock()
            {
                *error = None;
            }
            if event.r#type != ResourceType::Stylesheet {
                super::files::note_mime(&saved, &event);
                continue;
            }
            if let Ok(mut sheets) = seen.lock() {
                if sheets.len() >= SHEETS_KEPT {
                    sheets.clear();
                }
                sheets.insert(event.response.url.clone(), event.request_id.clone());
            }
        }
    });
    let failed = Arc::clone(&load_error);
    let failing = tokio::spawn(async move {
        while let Some(event) = failures.next().await {
            if event.r#type == ResourceType::Document
                && event.canceled != Some(true)
                && let Ok(mut error) = failed.lock()
            {
                *error = Some(event.error_text.clone());
            }
        }
    });
    Ok(SetUp {
        main_frame,
        chrome: Chrome {
            events: chrome,
            choosers,
        },
        answered,
        dialog_book,
        console,
        sheets,
        downloads,
        load_error,
        traffic,
        watchers: [dialogs, crashes, files, responded, failing, saving]
            .into_iter()
            .chain(logging)
            .collect(),
    })
}
