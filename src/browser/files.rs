//! Files in and out of a tab: the file chooser a control opens, answered with files
//! (`DOM.setFileInputFiles`), and the downloads the page starts, saved by the browser in
//! the tab's own folder and told of when they are complete.
//!
//! Every file chooser is intercepted (`Page.setInterceptFileChooserDialog`): nobody can
//! pick a file in a headless run, so one the page opens outside an upload never opens and
//! is reported in the next read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::task::Context;
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::{
    BrowserContextId, DownloadProgressState, EventDownloadProgress, EventDownloadWillBegin,
    SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::network::{EventResponseReceived, ResourceType};
use chromiumoxide::cdp::browser_protocol::page::EventFileChooserOpened;
use chromiumoxide::listeners::EventStream;
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::chromium::ChromiumTab;
use super::commands::{Commands, bounded};
use super::tap::{Pump, Tap, drain};
use super::{BrowserError, ChromeEvents, Tab};

/// How long a control has to open its file chooser once pressed.
const CHOOSER: Duration = Duration::from_secs(3);

/// A file the page downloaded, complete, where the browser saved it.
#[derive(Debug, Clone, PartialEq)]
pub struct Download {
    /// The name the page gave it (`Content-Disposition`, the link's `download`, the URL).
    pub file: String,
    /// Where it came from.
    pub url: String,
    /// Where the browser saved it (under a name of its own).
    pub path: PathBuf,
    /// The media type the server sent it as (`Content-Type`), when known.
    pub mime: Option<String>,
}

/// Responses whose media type is remembered at most: past it, the older are forgotten.
const MIMES_KEPT: usize = 256;

/// Downloads begun and not yet complete, by the browser's id, and the complete ones not
/// yet taken.
#[derive(Default)]
pub(super) struct DownloadLog {
    begun: HashMap<String, (String, String)>,
    done: Vec<Download>,
    /// The media type the server gave each document-like response, by address (a
    /// download's among them), the last [`MIMES_KEPT`] at most.
    mimes: HashMap<String, String>,
    /// File choosers an upload is about to answer: not reported as left unanswered.
    answering: usize,
}

/// The file choosers the page opens, counted into `chrome` but for those an upload answers
/// (told in `log`); read by a watcher and by the tab as it takes `chrome` for a read (see
/// `src/browser/tap.rs`).
pub(super) struct Choosers {
    opened: Option<EventStream<EventFileChooserOpened>>,
    chrome: Arc<Mutex<ChromeEvents>>,
    log: Arc<Mutex<DownloadLog>>,
}

impl Pump for Choosers {
    fn pump(&mut self, cx: &mut Context<'_>) -> bool {
        let (chrome, log) = (&self.chrome, &self.log);
        drain(&mut self.opened, cx, |_| {
            let answered = log.lock().is_ok_and(|mut l| {
                let answering = l.answering > 0;
                l.answering = l.answering.saturating_sub(1);
                answering
            });
            if !answered && let Ok(mut chrome) = chrome.lock() {
                chrome.file_choosers += 1;
            }
        })
    }
}

/// Counts the file choosers the page opens into `chrome`, but for those an upload answers.
pub(super) fn count_choosers(
    opened: EventStream<EventFileChooserOpened>,
    chrome: Arc<Mutex<ChromeEvents>>,
    log: Arc<Mutex<DownloadLog>>,
) -> (Arc<Tap<Choosers>>, JoinHandle<()>) {
    Tap::start(Choosers {
        opened: Some(opened),
        chrome,
        log,
    })
}

/// A tab's downloads: the log its watchers fill, and the download events, read by their
/// watcher and by each call as it takes the downloads (see `src/browser/tap.rs`): a
/// download Chromium told of before the call's last answer is the call's though the
/// watcher has not had its turn.
pub(super) struct Downloads {
    pub(super) log: Arc<Mutex<DownloadLog>>,
    events: Option<Arc<Tap<DownloadEvents>>>,
}

/// `Browser.downloadWillBegin` and `Browser.downloadProgress` of a tab, read into its log.
struct DownloadEvents {
    begins: Option<EventStream<EventDownloadWillBegin>>,
    progress: Option<EventStream<EventDownloadProgress>>,
    log: Arc<Mutex<DownloadLog>>,
    dir: PathBuf,
}

impl Pump for DownloadEvents {
    fn pump(&mut self, cx: &mut Context<'_>) -> bool {
        let log = &self.log;
        // Begun before progress: a download's end comes after its beginning, and both may
        // be waiting here.
        let begins = drain(&mut self.begins, cx, |e| {
            if let Ok(mut log) = log.lock() {
                log.begun.insert(
                    e.guid.clone(),
                    (e.suggested_filename.clone(), e.url.clone()),
                );
            }
        });
        let dir = &self.dir;
        let progress = drain(&mut self.progress, cx, |e| {
            if e.state == DownloadProgressState::InProgress {
                return;
            }
            if let Ok(mut log) = log.lock()
                && let Some((file, url)) = log.begun.remove(&e.guid)
                && e.state == DownloadProgressState::Completed
            {
                let path = e
                    .file_path
                    .clone()
                    .map_or_else(|| dir.join(&e.guid), PathBuf::from);
                let mime = log.mimes.get(&url).filter(|m| !m.is_empty()).cloned();
                log.done.push(Download {
                    file,
                    url,
                    path,
                    mime,
                });
            }
        });
        begins && progress
    }
}

/// Lets the tab's browser context download into `dir` (each file under the browser's id
/// for it) and follows its downloads. A browser that refuses (a remote one may) leaves the
/// tab without downloads, not without a tab.
pub(super) async fn watch_downloads(
    page: &Page,
    context: BrowserContextId,
    dir: &Path,
    timeout: Duration,
) -> (Downloads, JoinHandle<()>) {
    match try_watch_downloads(page, context, dir, timeout).await {
        Ok(watching) => watching,
        Err(e) => {
            tracing::warn!("downloads are off in this tab: {e}");
            let off = Downloads {
                log: Arc::default(),
                events: None,
            };
            (off, tokio::spawn(async {}))
        }
    }
}

async fn try_watch_downloads(
    page: &Page,
    context: BrowserContextId,
    dir: &Path,
    timeout: Duration,
) -> Result<(Downloads, JoinHandle<()>), BrowserError> {
    let what = "subscribing to downloads";
    std::fs::create_dir_all(dir)
        .map_err(|e| BrowserError::Protocol(format!("cannot create a download folder: {e}")))?;
    let mut params = SetDownloadBehaviorParams::new(SetDownloadBehaviorBehavior::AllowAndName);
    params.browser_context_id = Some(context);
    params.download_path = Some(dir.display().to_string());
    params.events_enabled = Some(true);
    // Together: no download can begin before the tab's first navigation.
    let (begins, progress, _) = futures::try_join!(
        bounded(
            timeout,
            what,
            page.event_listener::<EventDownloadWillBegin>()
        ),
        bounded(
            timeout,
            what,
            page.event_listener::<EventDownloadProgress>()
        ),
        page.command(timeout, "allowing downloads", params),
    )?;
    let log = Arc::new(Mutex::new(DownloadLog::default()));
    let (events, watcher) = Tap::start(DownloadEvents {
        begins: Some(begins),
        progress: Some(progress),
        log: Arc::clone(&log),
        dir: dir.to_path_buf(),
    });
    let events = Some(events);
    Ok((Downloads { log, events }, watcher))
}

/// Keeps the media type of a response that may be a download's (a document, a fetch, an
/// XHR or another kind; never a style sheet, a script or an image), for the download its
/// address starts: the tab's one watcher of responses (see `setup`) calls it.
pub(super) fn note_mime(log: &Mutex<DownloadLog>, e: &EventResponseReceived) {
    if matches!(
        e.r#type,
        ResourceType::Document | ResourceType::Other | ResourceType::Fetch | ResourceType::Xhr
    ) && let Ok(mut log) = log.lock()
    {
        if log.mimes.len() >= MIMES_KEPT {
            log.mimes.clear();
        }
        log.mimes
            .insert(e.response.url.clone(), e.response.mime_type.clone());
    }
}

/// The downloads complete since the last call, once none is under way (waiting up to
/// `wait` for those that are); with `asked` (the page asked for a download: a link with
/// `download`, to a file, a blob or a `data:` address), once one has come as well, which
/// the browser may tell of after the page has settled.
pub(super) async fn take_downloads(
    downloads: &Downloads,
    wait: Duration,
    asked: bool,
) -> Vec<Download> {
    let (log, events) = (&downloads.log, &downloads.events);
    let until = Instant::now() + wait;
    loop {
        if let Some(events) = events {
            events.catch_up();
        }
        let pending = log
            .lock()
            .map(|l| !l.begun.is_empty() || (asked && l.done.is_empty()))
            .unwrap_or(false);
        if !pending || Instant::now() >= until {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    log.lock()
        .map(|mut l| std::mem::take(&mut l.done))
        .unwrap_or_default()
}

impl ChromiumTab {
    /// Presses (`x`, `y`) and answers the file chooser it opens with `files`; `false` when
    /// none opened.
    pub(super) async fn upload_at(
        &self,
        x: f64,
        y: f64,
        files: &[PathBuf],
    ) -> Result<bool, BrowserError> {
        let (page, timeout) = self.page_and_timeout();
        let mut choosers = bounded(
            timeout,
            "subscribing to file choosers",
            page.event_listener::<EventFileChooserOpened>(),
        )
        .await?;
        let answering = |more: bool| {
            if let Ok(mut log) = self.downloads.log.lock() {
                log.answering = if more {
                    log.answering + 1
                } else {
                    log.answering.saturating_sub(1)
                };
            }
        };
        answering(true);
        let opened = match Tab::click(self, x, y).await {
            Ok(()) => tokio::time::timeout(CHOOSER, choosers.next()).await,
            Err(e) => {
                answering(false);
                return Err(e);
            }
        };
        let Ok(Some(opened)) = opened else {
            answering(false);
            return Ok(false);
        };
        let files = files.iter().map(|f| f.display().to_string()).collect();
        let mut params = SetFileInputFilesParams::new(files);
        params.backend_node_id = opened.backend_node_id;
        page.command(timeout, "choosing files", params).await?;
        Ok(true)
    }
}
