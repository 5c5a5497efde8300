//! The bridge to the in-page collector (its script: `collector/js/`, joined by `source`):
//! builds the one expression each operation evaluates and types what comes back.
//!
//! Every operation is a single `Runtime.evaluate` answered by a single string — JSON,
//! followed by the records of the read it holds (see [`parse_answer`]): one round trip,
//! one parse.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

mod packed;
mod source;

use std::collections::{BTreeMap, HashMap};

use crate::screen::Changes;
use crate::screen::{Chrome, Evidence, RawControl, RawObservation, Records, Text, parse_reply};

/// The expression that runs operation `op` with `args` in the page, and leaves the
/// collector installed in the document for [`installed`] to call.
pub(crate) fn expression(op: &str, args: &serde_json::Value) -> String {
    // `op` is one of our own constants; args is serialized JSON, hence a valid JS literal.
    format!(
        "(window.__waymarkRun = ({}))({}, {args})",
        source::sent(),
        json!(op)
    )
}

/// The expression the tab evaluates in every new document before the document's own
/// scripts: it installs the collector and watches the value setters (and the listeners
/// and animation frames) from the start, so a page script that keeps the setter it found
/// (as React does for each field it mounts) still keeps one that tells the collector.
/// With the registry's `matchers`, it gives them to the document too. `first` holds what
/// the document's first read asks (`max`, `evidence`: the runner's read arguments): the
/// page takes that read itself once its DOM is parsed, while the rest of it loads, and the
/// runner's first read after the load finds it done (see `prime` in the collector).
pub(crate) fn early(
    matchers: Option<&crate::registry::Matchers>,
    first: &serde_json::Value,
) -> String {
    match matchers {
        Some(m) => expression("early", &json!({ "matchers": m, "prime": first })),
        None => expression("early", &json!({ "prime": first })),
    }
}

/// What an operation answers in a document that does not hold the matchers its `mv`
/// names: the caller sends them with the operation again.
pub(crate) const NEED_MATCHERS: &str = "waymark:matchers";

/// What [`installed`] answers in a document the collector was never sent to.
pub(crate) const MISSING: &str = "waymark:missing";

/// The expression that runs operation `op` with the collector an earlier [`expression`]
/// installed in this document, or answers [`MISSING`]: a few bytes to send and compile
/// instead of the whole collector on every call.
pub(crate) fn installed(op: &str, args: &serde_json::Value) -> String {
    format!(
        "(window.__waymarkRun ? window.__waymarkRun({}, {args}) : {})",
        json!(op),
        json!(MISSING)
    )
}

/// An expression giving the elements the page knows by `ids` (the element ids of a read),
/// in that order; `null` for an element the page no longer has. The page's last full read
/// keeps its elements by id; any other (a region read, a cut one) is found among the
/// anchored elements of every root the collector watches.
pub(crate) fn elements(ids: &[u64]) -> String {
    format!(
        "(window.__waymarkRun || function () {{ throw new Error('the page has not been read'); }})\
         (\"elements\", {})",
        json!({ "ids": ids })
    )
}

/// What `prepare` found for the target of an action.
#[derive(Debug, Deserialize)]
pub(crate) struct Prepared {
    /// `ok`, `not_found`, `ambiguous`, `hidden`, `disabled`, `not_stable`, `obscured`,
    /// `not_editable`, `no_option`.
    pub status: String,
    pub count: usize,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub x: Option<f64>,
    #[serde(default)]
    pub y: Option<f64>,
    /// What lies over the target's centre (obscured).
    #[serde(default)]
    pub cover: Option<String>,
    /// The target's box (left, top, width, height) in two animation frames in a row, when
    /// it moved between them (not_stable).
    #[serde(default)]
    pub boxes: Option<[[f64; 4]; 2]>,
    /// Keys of the first matches (ambiguous).
    #[serde(default)]
    pub keys: Vec<Option<String>>,
    /// With a key that matched nothing: how many controls carry the anchor with other keys.
    #[serde(default)]
    pub unkeyed: usize,
    /// Why a field is not editable.
    #[serde(default)]
    pub why: Option<String>,
    /// A select's options (no_option).
    #[serde(default)]
    pub options: Vec<String>,
    /// The first five elements an ambiguous anchor found.
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    /// How long the page waited for the target, in milliseconds (none: it was there).
    #[serde(default)]
    pub waited: Option<f64>,
    /// The wait ran out: the status is the last one seen.
    #[serde(default)]
    pub gave_up: bool,
    /// A drag from here may start an HTML5 drag (a `draggable` element, a link, an image).
    #[serde(default)]
    pub draggable: bool,
}

/// One of the elements an ambiguous anchor found, told apart for a person.
#[derive(Debug, Deserialize)]
pub(crate) struct Candidate {
    pub role: String,
    pub name: String,
    pub region: String,
    pub path: String,
    #[serde(default)]
    pub key: Option<String>,
}

/// A delta changing at most this many records finds each among the held ids by a scan.
const SCAN_AT_MOST: usize = 16;

/// One read as the collector sends it: `full` (every record, with element ids) or `delta`
/// against the read named `base` (only the records that changed, and the new order when
/// it changed). One flat struct rather than a tagged enum: serde buffers flattened and
/// internally tagged content, which a 50,000-control read cannot afford.
#[derive(Debug, Deserialize)]
pub(crate) struct CollectorRead {
    kind: String,
    /// Names this read, for the next one's `since`.
    pub token: String,
    #[serde(default)]
    base: Option<String>,
    url: String,
    title: String,
    status: Option<u16>,
    dialog: Option<String>,
    /// Element id of the focused control.
    focus: Option<u64>,
    total: usize,
    dropped_by_region: BTreeMap<String, usize>,
    dropped_by_role: BTreeMap<String, usize>,
    viewport: [f64; 2],
    #[serde(default)]
    scroll: [f64; 2],
    collector_ms: f64,
    #[serde(default)]
    evidence: Option<Evidence>,
    /// A region read that found nothing: the regions the screen has, counted.
    #[serde(default)]
    pub regions: Option<BTreeMap<String, usize>>,
    /// Element ids of a full read, as runs: `[first, count, first, count…]`.
    #[serde(default)]
    ids: Option<Vec<u64>>,
    /// A delta's new order of element ids, as runs, when it changed.
    #[serde(default)]
    order: Option<Vec<u64>>,
    /// The element ids of a delta's changed records.
    #[serde(default)]
    changed_ids: Vec<u64>,
    /// Where `strings` starts in the document's string table (0 for a full read; a delta
    /// sends only the entries added since its base).
    #[serde(default)]
    strings_from: usize,
    /// Entries of the document's string table (roles and regions), from `strings_from`.
    #[serde(default)]
    strings: Vec<Text>,
    /// The records, packed (see [`packed`]): a full read's every one, a delta's changed
    /// ones. They follow the answer's JSON (see [`parse_answer`]).
    #[serde(skip)]
    records: Option<Text>,
    /// Addresses of style sheets of another origin the page could not read, named once per
    /// document: the runner sends their text with a later operation (`sheets`).
    #[serde(default)]
    pub unread_sheets: Vec<String>,
    /// The frames of another origin (another process) the document holds, for the runner
    /// to read in their own process and place where their element sits.
    #[serde(default)]
    pub frames: Vec<FrameSeen>,
}

/// A frame of another origin as the document holding it sees it (see `farFrames` in
/// `collector/js/06-roots.js`).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FrameSeen {
    /// The id the runner tagged its element with (its target), or none before it did.
    pub frame: Option<String>,
    /// Where its content box starts, in the holding document's box coordinates.
    pub origin: [f64; 2],
    /// The region its controls are placed in (its title, its name, or around it).
    pub region: String,
    pub title: Option<String>,
    pub name: Option<String>,
    pub src: String,
    /// The anchors its element carries (its own `data-anchor`, or a matcher's), and those
    /// of the frames around it: what a matcher's `within:` in the frame may name.
    #[serde(default)]
    pub anchors: Vec<String>,
}

/// An answer of the collector that may hold a read.
pub(crate) trait HoldsRead: DeserializeOwned {
    fn read_mut(&mut self) -> Option<&mut CollectorRead>;
}

impl HoldsRead for CollectorRead {
    fn read_mut(&mut self) -> Option<&mut CollectorRead> {
        Some(self)
    }
}

/// Parses an answer of the collector: its JSON, and the records of the read it holds,
/// which follow the JSON after a newline (see [`parse_reply`]).
pub(crate) fn parse_answer<T: HoldsRead>(reply: String) -> serde_json::Result<T> {
    let (mut answer, records): (T, _) = parse_reply(reply)?;
    if let Some(read) = answer.read_mut() {
        read.records = records;
    }
    Ok(answer)
}

/// What an answer whose records went partly ahead of it says of them (see `sendPart` in
/// `collector/js/07-collect.js`): how many parts the page pushed, and the prefix each came
/// with (`c:`, the read's token, `:`). `None` for an answer that holds all its records.
pub(crate) fn parts_ahead(answer: &str) -> Option<Result<(usize, String), String>> {
    /// The head of such an answer: `parts` is its first key.
    #[derive(Deserialize)]
    struct Parted {
        parts: usize,
        token: String,
    }
    if !answer.starts_with(r#"{"parts":"#) {
        return None;
    }
    let head = &answer[..memchr::memchr(b'\n', answer.as_bytes()).unwrap_or(answer.len())];
    Some(
        serde_json::from_str::<Parted>(head)
            .map(|p| (p.parts, format!("c:{}:", p.token)))
            .map_err(|e| format!("a read's answer names parts it sent ahead, unreadably: {e}")),
    )
}

/// `answer` with the `parts` of its records that went ahead of it (in the order the page
/// sent them) put back before the records it holds: the answer the page would have sent
/// whole.
pub(crate) fn with_parts(answer: &str, parts: &[String]) -> String {
    let (head, last) = answer.split_once('\n').unwrap_or((answer, ""));
    let sep = char::from(packed::SEP);
    let len = head.len() + 1 + parts.iter().map(|p| p.len() + 1).sum::<usize>() + last.len();
    let mut whole = String::with_capacity(len);
    whole.push_str(head);
    whole.push('\n');
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            whole.push(sep);
        }
        whole.push_str(part);
    }
    if !last.is_empty() {
        if !parts.is_empty() {
            whole.push(sep);
        }
        whole.push_str(last);
    }
    whole
}

/// Ids from runs `[first, count, first, count…]`, at most `limit` of them.
fn expand_runs(runs: &[u64], limit: usize) -> Result<Vec<u64>, String> {
    if !runs.len().is_multiple_of(2) {
        return Err("id runs of odd length".into());
    }
    let count = runs
        .chunks_exact(2)
        .try_fold(0u64, |sum, r| sum.checked_add(r[1]))
        .filter(|n| *n <= limit as u64)
        .ok_or_else(|| format!("id runs name more than the {limit} controls of the read"))?;
    let mut ids = Vec::with_capacity(count as usize);
    for r in runs.chunks_exact(2) {
        let end = r[0].checked_add(r[1]).ok_or("an id run overflows")?;
        ids.extend(r[0]..end);
    }
    Ok(ids)
}

/// The wire form of a full read of `raw` (element ids 1…n), as the collector would send it:
/// what benches and tests feed [`parse_full`].
pub fn encode_full<'a>(raw: &'a RawObservation) -> String {
    let mut strings: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut id = |s: &'a str| -> usize {
        *index.entry(s).or_insert_with(|| {
            strings.push(s);
            strings.len() - 1
        })
    };
    let records: Vec<String> = raw
        .controls
        .iter()
        .map(|c| packed::pack(c, id(c.role.as_str()), id(c.region.as_str())))
        .collect();
    let focus = raw.controls.iter().position(|c| c.focused).map(|i| i + 1);
    let head = json!({
        "token": "bench:1", "url": raw.url, "title": raw.title, "status": raw.status,
        "dialog": raw.dialog, "focus": focus, "total": raw.total,
        "dropped_by_region": raw.dropped_by_region, "dropped_by_role": raw.dropped_by_role,
        "viewport": raw.viewport, "scroll": raw.scroll, "kind": "full",
        "ids": [1, raw.controls.len()], "strings_from": 0, "strings": strings,
        "collector_ms": raw.collector_ms,
    });
    format!(
        "{head}\n{}",
        records.join(&char::from(packed::SEP).to_string())
    )
}

/// Parses a full read in the collector's wire form into the observation it describes: the
/// runner's own parse, for benches and tests.
pub fn parse_full(json: String) -> Result<RawObservation, String> {
    let read: CollectorRead = parse_answer(json).map_err(|e| e.to_string())?;
    read.apply(None).map(|(_, raw, _, _)| raw)
}

/// The last read the runner holds: what a delta applies to.
#[derive(Debug)]
pub(crate) struct HeldRead {
    pub token: String,
    pub ids: Vec<u64>,
    pub raw: RawObservation,
    /// The document's string table as of this read.
    pub strings: Vec<Text>,
}

/// A read applied to the one held: the element ids in order, the observation, what changed
/// (same document only) and the document's string table.
pub(crate) type Applied = (Vec<u64>, RawObservation, Option<Changes>, Vec<Text>);

impl CollectorRead {
    /// The full observation this read describes, given the read held before it, with the
    /// element ids in order and — when it is the same document — what changed since. A
    /// delta says what changed itself: nothing else is compared.
    pub fn apply(self, held: Option<HeldRead>) -> Result<Applied, String> {
        let fresh = self.kind == "full";
        let (ids, mut controls, changes, strings) = match self.kind.as_str() {
            "full" => {
                if self.strings_from != 0 {
                    return Err("a full read with part of a string table".into());
                }
                let strings = self.strings;
                let records = self.records.ok_or("a full read without controls")?;
                // Each record takes at least its ten separators: a bound on what the ids
                // may name before they are expanded.
                let most = records.len() / (packed::FIELDS - 1) + 1;
                let ids = expand_runs(&self.ids.ok_or("a full read without ids")?, most)?;
                let controls = packed::records(&records, ids.len(), &strings)?;
                let changes = held
                    .filter(|h| h.raw.url == self.url)
                    .map(|h| compare(&h.raw.controls, &controls));
                (ids, Records::from(controls), changes, strings)
            }
            "delta" => {
                let held = held
                    .filter(|h| Some(&h.token) == self.base.as_ref())
                    .ok_or("a delta against a read the runner does not hold")?;
                let mut strings = held.strings;
                if self.strings_from != strings.len() {
                    return Err(format!(
                        "a delta's strings start at #{} but the runner holds {}",
                        self.strings_from,
                        strings.len()
                    ));
                }
                strings.extend(self.strings);
                let records = match &self.records {
                    Some(packed) => packed::records(packed, self.changed_ids.len(), &strings)?,
                    None => Vec::new(),
                };
                if records.len() != self.changed_ids.len() {
                    return Err(format!(
                        "a delta with {} changed records for {} ids",
                        records.len(),
                        self.changed_ids.len()
                    ));
                }
                let changed: Vec<(u64, RawControl)> =
                    self.changed_ids.into_iter().zip(records).collect();
                match self.order {
                    // Same controls in the same order: replace the changed records in place.
                    None => {
                        let (ids, mut controls) = (held.ids, held.raw.controls);
                        let mut changes = Changes::default();
                        if !changed.is_empty() {
                            // An action changes a few controls: finding each by a scan beats
                            // indexing every id of a 50,000-control read first. Many changes
                            // (a form reset) get the index, so the scan never turns quadratic.
                            let at: Option<HashMap<u64, usize>> = (changed.len() > SCAN_AT_MOST)
                                .then(|| ids.iter().enumerate().map(|(i, id)| (*id, i)).collect());
                            for (id, control) in changed {
                                let i = match &at {
                                    Some(at) => at.get(&id).copied(),
                                    None => ids.iter().position(|x| *x == id),
                                }
                                .ok_or("a delta changes a control the runner never saw")?;
                                let old = std::mem::replace(&mut controls[i], control);
                                if !same(&old, &controls[i]) {
                                    changes.changed.push(reference(&controls[i]));
                                }
                            }
                        }
                        (ids, controls, Some(changes), strings)
                    }
                    Some(order) => {
                        let limit = held.ids.len() + changed.len();
                        let order = expand_runs(&order, limit)?;
                        let mut by_id: HashMap<u64, RawControl> = held
                            .ids
                            .into_iter()
                            .zip(held.raw.controls.into_vec())
                            .collect();
                        let mut changes = Changes::default();
                        for (id, control) in changed {
                            match by_id.insert(id, control) {
                                None => changes.added.push(reference(&by_id[&id])),
                                Some(old) if !same(&old, &by_id[&id]) => {
                                    changes.changed.push(reference(&by_id[&id]));
                                }
                                Some(_) => {}
                            }
                        }
                        let controls = order
                            .iter()
                            .map(|id| by_id.remove(id))
                            .collect::<Option<Vec<_>>>()
                            .ok_or("a delta names a control the runner never saw")?;
                        let mut gone: Vec<&RawControl> = by_id.values().collect();
                        gone.sort_by_key(|c| (c.bbox[1], c.bbox[0]));
                        changes.removed = gone.into_iter().map(reference).collect();
                        (order, Records::from(controls), Some(changes), strings)
                    }
                }
            }
            other => return Err(format!("unknown read kind `{other}`")),
        };
        if ids.len() != controls.len() {
            return Err(format!("{} ids for {} controls", ids.len(), controls.len()));
        }
        // The page names the focused control by its id. A full read's records are all
        // parsed unfocused, so only that one control is written (a pass writing every
        // control cost a 50,000-control read a tenth of a millisecond or more); a delta's
        // held records still carry the previous focus.
        if fresh {
            if let Some(i) = self.focus.and_then(|f| ids.iter().position(|id| *id == f)) {
                controls[i].focused = true;
            }
        } else {
            // Written only when it moved: a list an inferred state still shows is copied on
            // its first change, and a read that changed nothing must not pay that.
            let marked = |c: &RawControl, id: &u64| c.focused == (self.focus == Some(*id));
            if !controls.iter().zip(&ids).all(|(c, id)| marked(c, id)) {
                for (control, id) in controls.iter_mut().zip(&ids) {
                    control.focused = self.focus == Some(*id);
                }
            }
        }
        let raw = RawObservation {
            url: self.url,
            title: self.title,
            status: self.status,
            dialog: self.dialog,
            controls,
            total: self.total,
            dropped_by_region: self.dropped_by_region,
            dropped_by_role: self.dropped_by_role,
            viewport: self.viewport,
            scroll: self.scroll,
            collector_ms: self.collector_ms,
            evidence: self.evidence,
            chrome: Chrome::default(),
            audit: None,
            frames_unread: Vec::new(),
        };
        Ok((ids, raw, changes, strings))
    }
}

/// `anchor` or `anchor[key]`.
fn reference(c: &RawControl) -> String {
    c.reference()
}

/// The same control as a reader sees it: its facts, box and focus aside.
fn same(a: &RawControl, b: &RawControl) -> bool {
    a.facts == b.facts
}

/// What changed between two full reads of the same document.
fn compare(before: &[RawControl], after: &[RawControl]) -> Changes {
    Changes::matching(
        before,
        after,
        |c| (c.anchor.as_str(), c.key.as_deref()),
        same,
    )
}

/// What `settle` saw: `quiet`, `navigating` or `busy`, and the read taken in the same trip.
#[derive(Debug, Deserialize)]
pub(crate) struct Settled {
    /// `quiet`, `busy`, `navigating`, or `missed`: the press did not reach its target and
    /// was stopped before the page saw it (see `aimHits` in `collector/js/10-act.js`).
    pub state: String,
    pub read: Option<CollectorRead>,
    /// What a missed press reached instead of its target.
    #[serde(default)]
    pub hit: Option<String>,
    /// A missed press's target had moved since it was aimed at.
    #[serde(default)]
    pub moved: bool,
    /// The page asked for a download during the action (a link with `download`).
    #[serde(default)]
    pub download: bool,
    /// The page's own time from the action's first input event to the end of the first frame
    /// rendered after its last (see `timeFrame` in `collector/js/11-settle.js`); none when
    /// unknown.
    #[serde(default)]
    pub frame_ms: Option<f64>,
    /// The page's own changes, from its input on to the last (see `settleTiming` in
    /// `collector/js/11-settle.js`).
    #[serde(default)]
    pub page_ms: Option<f64>,
    /// The quiet window waited after the page's last change.
    #[serde(default)]
    pub quiet_ms: Option<f64>,
}

/// What `finish_fill` saw.
#[derive(Debug, Deserialize)]
pub(crate) struct FillFinished {
    /// `ok`, or `lost` when the field went away.
    pub status: String,
    #[serde(default)]
    pub actual: Option<String>,
    pub state: String,
    pub read: Option<CollectorRead>,
    /// As [`Settled::frame_ms`], from the typing on.
    #[serde(default)]
    pub frame_ms: Option<f64>,
    /// As [`Settled::page_ms`].
    #[serde(default)]
    pub page_ms: Option<f64>,
    /// As [`Settled::quiet_ms`].
    #[serde(default)]
    pub quiet_ms: Option<f64>,
}

/// What `fill` did: what `prepare` found, the value the field must end with (for its
/// kind), and who types it.
#[derive(Debug, Deserialize)]
pub(crate) struct Filled {
    pub prepared: Prepared,
    pub expected: String,
    pub typing: Typing,
}

/// Who types a fill's text.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Typing {
    /// The page did, with an editing command.
    Done,
    /// The runner, with CDP's `Input.insertText`: the page could tell the difference.
    Runner,
    /// Nobody: prepare set the value itself, or refused the field, or the text is empty.
    None,
}

impl HoldsRead for Settled {
    fn read_mut(&mut self) -> Option<&mut CollectorRead> {
        self.read.as_mut()
    }
}

impl HoldsRead for FillFinished {
    fn read_mut(&mut self) -> Option<&mut CollectorRead> {
        self.read.as_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read written the way it reads best — records as arrays `[anchor, label, role#,
    /// region#, x, y, w, h, flags, value?, key?]`, a delta's `changed` as `[[id, record]…]`
    /// — in the wire form the collector sends: records packed (see [`packed`]).
    fn wire(json: &str) -> String {
        let pack = |records: &serde_json::Value| -> String {
            let records = records.as_array().expect("records are an array");
            let sep = char::from(packed::SEP).to_string();
            let one = |r: &serde_json::Value| {
                let mut fields: Vec<serde_json::Value> = r.as_array().expect("a record").clone();
                let sep = char::from(packed::SEP);
                let escaped = fields
                    .iter()
                    .any(|f| f.as_str().is_some_and(|s| s.contains(sep)));
                if (9..=11).contains(&fields.len()) {
                    let mut flags = fields[8].as_u64().expect("flags") as u32;
                    if escaped {
                        flags |= packed::ESCAPED;
                    }
                    if fields.get(9).is_some_and(|v| !v.is_null()) {
                        flags |= packed::HAS_VALUE;
                    }
                    if fields.len() == 11 {
                        flags |= packed::HAS_KEY;
                    }
                    fields[8] = flags.into();
                    fields.resize(11, serde_json::Value::Null);
                }
                let field = |v: &serde_json::Value| match v {
                    serde_json::Value::String(s) if escaped => packed::escape(s),
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => String::new(),
                    other => other.to_string(),
                };
                fields
                    .iter()
                    .map(field)
                    .collect::<Vec<_>>()
                    .join(&sep.to_string())
            };
            records.iter().map(one).collect::<Vec<_>>().join(&sep)
        };
        let mut read: serde_json::Value = serde_json::from_str(json).expect("test JSON");
        let object = read.as_object_mut().expect("a read is an object");
        let records = match (object.remove("controls"), object.remove("changed")) {
            (Some(serde_json::Value::String(packed)), _) => Some(packed),
            (Some(records), _) => Some(pack(&records)),
            (None, Some(changed)) => {
                let pairs = changed.as_array().expect("changed pairs");
                object.insert(
                    "changed_ids".into(),
                    pairs.iter().map(|p| p[0].clone()).collect(),
                );
                let records: serde_json::Value = pairs.iter().map(|p| p[1].clone()).collect();
                Some(pack(&records))
            }
            (None, None) => None,
        };
        match records {
            Some(records) => format!("{read}\n{records}"),
            None => read.to_string(),
        }
    }

    #[test]
    fn expression_calls_the_collector_with_json_arguments() {
        let e = expression("read", &json!({"max": 5}));
        assert!(
            e.starts_with('(')
                && e.contains("(function () {")
                && e.contains("return function (op, args) {")
        );
        assert!(e.ends_with(r#")("read", {"max":5})"#));
        let short = installed("read", &json!({"max": 5}));
        assert!(
            !short.contains("function") && short.contains(MISSING),
            "{short}"
        );
    }

    fn head(kind: &str, token: &str) -> String {
        format!(
            r#""kind":"{kind}","token":"{token}","url":"http://x/","title":"t","status":200,"dialog":null,"focus":2,"total":2,"dropped_by_region":{{}},"dropped_by_role":{{}},"viewport":[1,1],"collector_ms":1"#
        )
    }

    // Records as [`wire`] takes them; strings: button, r, textbox.
    const A: &str = r#"["a.one","One",0,1,0,0,1,1,0]"#;
    const B: &str = r#"["a.two","Two",2,1,0,0,1,1,2,""]"#;

    fn full_read() -> (Vec<u64>, RawObservation, Vec<Text>) {
        let full: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"ids":[1,2],"strings":["button","r","textbox"],"controls":[{A},{B}]}}"#,
            head("full", "d:1")
        )))
        .unwrap();
        let (ids, raw, _, strings) = full.apply(None).unwrap();
        (ids, raw, strings)
    }

    #[test]
    fn a_full_read_expands_records_runs_and_strings() {
        let (ids, raw, strings) = full_read();
        assert_eq!(ids, [1, 2]);
        assert_eq!(strings.len(), 3);
        let (a, b) = (&raw.controls[0], &raw.controls[1]);
        assert!(b.focused && !a.focused);
        assert!(a.visible, "visible unless the collector says otherwise");
        // One table entry for the region both controls name (a short string, which each
        // control then holds in place).
        assert_eq!(strings.iter().filter(|s| s.as_str() == "r").count(), 1);
        assert_eq!(a.region, b.region);
        assert_eq!((&*a.role, &*a.region), ("button", "r"));
        assert_eq!(
            (&*b.role, b.editable, b.value.as_deref()),
            ("textbox", true, Some(""))
        );
        assert_eq!(
            (a.value.as_ref(), a.key.as_ref(), a.checked),
            (None, None, None)
        );
    }

    #[test]
    fn flags_value_and_key_read_back() {
        let read: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"ids":[7,1,3,1],"strings":["checkbox","r"],"controls":[["c.one","One",0,1,1,2,3,4,61,null,"k1"],["c.two","Two",0,1,0,0,0,0,32]]}}"#,
            head("full", "d:1")
        )))
        .unwrap();
        let (ids, raw, _, _) = read.apply(None).unwrap();
        assert_eq!(ids, [7, 3]);
        let (a, b) = (&raw.controls[0], &raw.controls[1]);
        assert!(a.disabled && !a.editable && a.secret && !a.visible);
        assert_eq!(
            (a.checked, a.value.as_ref(), a.key.as_deref()),
            (Some(true), None, Some("k1"))
        );
        assert_eq!(a.bbox, [1, 2, 3, 4]);
        assert_eq!(b.checked, Some(false));
        assert_eq!(a.reference(), "c.one[k1]");
    }

    #[test]
    fn the_wire_form_reads_back_as_the_observation() {
        let (_, mut raw, _) = full_read();
        raw.controls[0].key = Some("k".into());
        raw.controls[0].checked = Some(false);
        raw.controls[1].visible = false;
        raw.controls[1].secret = true;
        raw.controls[1].disabled = true;
        // What could be taken for the packing is escaped, and read back as it was.
        // A DEL in any string escapes its record; an ESC alone is sent as it is.
        raw.controls[0].label = "DEL \u{7f}, ESC \u{1b} and \u{1b}1 as typed".into();
        raw.controls[1].value = Some("\u{1b}1 \"quoted\"\nline\u{1b}".into());
        raw.controls[1].bbox = [-20, -3, 0, 7];
        let back = parse_full(encode_full(&raw)).unwrap();
        assert_eq!(back, raw);
    }

    #[test]
    fn malformed_records_runs_and_strings_are_errors_not_panics() {
        let bad = |ids: &str, strings: &str, controls: &str| {
            parse_answer::<CollectorRead>(wire(&format!(
                r#"{{{},"ids":{ids},"strings":{strings},"controls":{controls}}}"#,
                head("full", "d:1")
            )))
            .map_err(|e| e.to_string())
            .and_then(|r| r.apply(None).map(|_| ()))
            .expect_err("refused")
        };
        let e = bad("[1,2]", r#"["button"]"#, &format!("[{A},{A}]"));
        assert!(e.contains("region #1"), "{e}");
        let e = bad("[1,5]", r#"["button","r"]"#, &format!("[{A},{A}]"));
        assert!(e.contains("5 ids for 2 controls"), "{e}");
        // Runs naming far more ids than the records could hold are refused unexpanded.
        let e = bad("[1,4000000000]", r#"["button","r"]"#, &format!("[{A},{A}]"));
        assert!(e.contains("more than the"), "{e}");
        let e = bad("[1]", r#"["button","r"]"#, &format!("[{A}]"));
        assert!(e.contains("odd"), "{e}");
        let e = bad("[1,1]", r#"["button","r"]"#, r#"[["a","b",0]]"#);
        assert!(e.contains("record #0 ends after 3 of its 11 fields"), "{e}");
        let e = bad(
            "[1,1]",
            r#"["button","r"]"#,
            r#"[["a","b",0,1,0,0,0,0,0,null,"k",9]]"#,
        );
        assert!(e.contains("record #1 ends after 1 of its 11"), "{e}");
        let e = bad(
            "[1,1]",
            r#"["button","r"]"#,
            r#"[["a","b",0,1,"wide",0,0,0,0]]"#,
        );
        assert!(
            e.contains("record #0 field 4 is `wide`, not a number"),
            "{e}"
        );
        let e = bad(
            "[1,1]",
            r#"["button","r"]"#,
            r#"[["a","b",-1,1,0,0,0,0,0]]"#,
        );
        assert!(e.contains("names role #-1, past the 2 strings"), "{e}");
        // In an escaped record (flag 256), only `ESC 0` and `ESC 1`, not cut off by the end.
        let sep = char::from(packed::SEP);
        let fields = |label: &str| {
            format!("a{sep}{label}{sep}0{sep}1{sep}0{sep}0{sep}0{sep}0{sep}256{sep}{sep}")
        };
        let e = bad(
            "[1,1]",
            r#"["button","r"]"#,
            &json!(fields("x\u{1b}7")).to_string(),
        );
        assert!(e.contains("record #0 field 1 has a bad escape"), "{e}");
        let e = bad(
            "[1,1]",
            r#"["button","r"]"#,
            &json!(fields("x\u{1b}")).to_string(),
        );
        assert!(e.contains("record #0 field 1 has a bad escape"), "{e}");
        let e = bad(
            "[18446744073709551615,1]",
            r#"["button","r"]"#,
            &format!("[{A}]"),
        );
        assert!(e.contains("overflows"), "{e}");
    }

    #[test]
    fn a_delta_applies_to_the_read_it_names() {
        let (ids, raw, strings) = full_read();
        let held = |ids: Vec<u64>, raw: RawObservation, strings: Vec<Text>| HeldRead {
            token: "d:1".into(),
            ids,
            raw,
            strings,
        };
        // The changed record names a string the delta adds to the table.
        let changed = r#"["a.two","Two",3,1,0,0,1,1,2,"typed"]"#;
        let delta: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"base":"d:1","order":null,"strings_from":3,"strings":["searchbox"],"changed":[[2,{changed}]]}}"#,
            head("delta", "d:2")
        )))
        .unwrap();
        let (_, raw2, changes, strings2) = delta
            .apply(Some(held(ids.clone(), raw.clone(), strings.clone())))
            .unwrap();
        assert_eq!(raw2.controls[0].label, "One");
        assert_eq!(raw2.controls[1].value.as_deref(), Some("typed"));
        assert_eq!(&*raw2.controls[1].role, "searchbox");
        assert_eq!(strings2.len(), 4);
        let changes = changes.expect("a delta says what changed");
        assert_eq!(changes.changed, ["a.two"]);
        assert!(changes.added.is_empty() && changes.removed.is_empty());

        // A delta whose strings do not continue the held table is refused.
        let skewed: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"base":"d:1","order":null,"strings_from":5,"strings":[],"changed":[]}}"#,
            head("delta", "d:2")
        )))
        .unwrap();
        let e = skewed.apply(Some(held(ids.clone(), raw.clone(), strings.clone())));
        assert!(e.is_err_and(|e| e.contains("#5")));

        // A new order (runs) with a control added and one gone.
        let added = r#"["a.three","Three",0,1,0,0,1,1,0]"#;
        let reordered: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"base":"d:1","order":[3,1,1,1],"strings_from":3,"strings":[],"changed":[[3,{added}]]}}"#,
            head("delta", "d:2")
        )))
        .unwrap();
        let (ids3, raw3, changes, _) = reordered.apply(Some(held(ids, raw, strings))).unwrap();
        assert_eq!(ids3, [3, 1]);
        assert_eq!(raw3.controls[0].anchor, "a.three");
        let changes = changes.unwrap();
        assert_eq!(
            (changes.added, changes.removed),
            (vec!["a.three".to_string()], vec!["a.two".to_string()])
        );
    }

    /// A full read marks the one control the page names as focused (none when it names
    /// none); a delta moves the mark off the control that held it.
    #[test]
    fn the_focus_mark_follows_the_page() {
        let (ids, raw, strings) = full_read();
        let marks =
            |raw: &RawObservation| raw.controls.iter().map(|c| c.focused).collect::<Vec<_>>();
        assert_eq!(marks(&raw), vec![false, true]);
        let unfocused: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"ids":[1,2],"strings":["button","r","textbox"],"controls":[{A},{B}]}}"#,
            head("full", "d:1").replace(r#""focus":2"#, r#""focus":null"#)
        )))
        .unwrap();
        assert_eq!(marks(&unfocused.apply(None).unwrap().1), vec![false; 2]);
        let moved: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"base":"d:1","order":null,"strings_from":3,"strings":[],"changed":[]}}"#,
            head("delta", "d:2").replace(r#""focus":2"#, r#""focus":1"#)
        )))
        .unwrap();
        let held = HeldRead {
            token: "d:1".into(),
            ids,
            raw,
            strings,
        };
        assert_eq!(
            marks(&moved.apply(Some(held)).unwrap().1),
            vec![true, false]
        );
    }

    /// The state shown from a read shares its records with the held read. A delta that
    /// changes nothing (the focus where it was) leaves them shared; one that changes a
    /// record copies them first, so the state shown before still shows what it showed.
    #[test]
    fn a_delta_copies_the_records_a_state_shows_only_to_change_them() {
        use crate::registry::Registry;
        use crate::screen::{View, infer};
        let show = |raw: &RawObservation| {
            infer(raw, "/".into(), &Registry::empty(), 1.0, &View::default())
        };
        let delta = |changed: &str| -> CollectorRead {
            parse_answer(wire(&format!(
                r#"{{{},"base":"d:1","order":null,"strings_from":3,"strings":[],"changed":[{changed}]}}"#,
                head("delta", "d:2")
            )))
            .unwrap()
        };
        let held = |ids: &Vec<u64>, raw: &RawObservation, strings: &Vec<Text>| HeldRead {
            token: "d:1".into(),
            ids: ids.clone(),
            raw: raw.clone(),
            strings: strings.clone(),
        };
        let (ids, raw, strings) = full_read();
        let before = show(&raw);

        let (_, quiet, ..) = delta("").apply(Some(held(&ids, &raw, &strings))).unwrap();
        assert!(show(&quiet).controls.same_list(&before.controls));

        let typed = r#"[2,["a.two","Two",2,1,0,0,1,1,2,"typed"]]"#;
        let (_, changed, ..) = delta(typed)
            .apply(Some(held(&ids, &raw, &strings)))
            .unwrap();
        let after = show(&changed);
        assert!(!after.controls.same_list(&before.controls));
        assert_eq!(after.controls[1].value.as_deref(), Some("typed"));
        assert_eq!(before.controls[1].value.as_deref(), Some(""));
        assert_eq!(raw.controls[1].value.as_deref(), Some(""));
    }

    /// A delta finds the records it changes by scanning the held ids when it changes a few,
    /// and by indexing them when it changes many: both land each record on its own id.
    #[test]
    fn a_delta_changing_few_or_many_records_lands_each_on_its_id() {
        let n = 40u64;
        let records: Vec<String> = (1..=n)
            .map(|i| format!(r#"["a.f{i}","Field {i}",2,1,0,0,1,1,2,""]"#))
            .collect();
        let full: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"ids":[1,{n}],"strings":["button","r","textbox"],"controls":[{}]}}"#,
            head("full", "d:1"),
            records.join(",")
        )))
        .unwrap();
        let (ids, raw, _, strings) = full.apply(None).unwrap();
        // The delta `changed` describes, applied to the full read.
        let apply = |changed: Vec<String>| {
            let delta: CollectorRead = parse_answer(wire(&format!(
                r#"{{{},"base":"d:1","order":null,"strings_from":3,"strings":[],"changed":[{}]}}"#,
                head("delta", "d:2"),
                changed.join(",")
            )))
            .unwrap();
            let held = HeldRead {
                token: "d:1".into(),
                ids: ids.clone(),
                raw: raw.clone(),
                strings: strings.clone(),
            };
            delta.apply(Some(held))
        };
        let many = SCAN_AT_MOST as u64 + 1;
        for count in [3u64, many] {
            // Every other id from the end: `count` records, none in order of the ids.
            let touched: Vec<u64> = (0..count).map(|k| n - 2 * k).collect();
            let changed: Vec<String> = touched
                .iter()
                .map(|i| format!(r#"[{i},["a.f{i}","Field {i}",2,1,0,0,1,1,2,"v{i}"]]"#))
                .collect();
            let (_, after, changes, _) = apply(changed).unwrap();
            for (i, c) in (1..=n).zip(&after.controls) {
                assert_eq!(c.anchor.as_str(), format!("a.f{i}"));
                let want = touched.contains(&i).then(|| format!("v{i}"));
                let want = want.as_deref().unwrap_or("");
                assert_eq!(
                    c.value.as_deref(),
                    Some(want),
                    "control {i} of {count} changed"
                );
            }
            assert_eq!(changes.unwrap().changed.len(), count as usize);
        }
        // An id the runner never saw is refused either way.
        for count in [1u64, many] {
            let changed: Vec<String> = (0..count)
                .map(|k| format!(r#"[{},["a.x","X",2,1,0,0,1,1,2,""]]"#, 1000 + k))
                .collect();
            let e = apply(changed).unwrap_err();
            assert!(e.contains("never saw"), "{e}");
        }
    }

    #[test]
    fn a_delta_against_another_read_is_refused() {
        let delta: CollectorRead = parse_answer(wire(&format!(
            r#"{{{},"base":"d:7","order":null,"changed":[]}}"#,
            head("delta", "d:8")
        )))
        .unwrap();
        assert!(delta.apply(None).is_err());
    }

    mod properties {
        use super::*;
        use crate::screen::Facts;
        use proptest::prelude::*;

        /// Strings a page may name a control with: the packing's own bytes (DEL, ESC and
        /// `ESC 1`), quotes, other scripts, and long enough to be shared rather than held.
        fn text() -> impl Strategy<Value = String> {
            "[a-z \u{7f}\u{1b}1\"\\\\é中\n]{0,40}"
        }

        fn controls() -> impl Strategy<Value = Vec<RawControl>> {
            let flags = (any::<[bool; 5]>(), prop::option::of(any::<bool>()));
            // Boxes as the collector rounds them: integers, negative when scrolled past,
            // and never past what a double holds exactly.
            let bbox = prop::array::uniform4(-(1i64 << 53)..(1i64 << 53));
            let strings = (
                text(),
                text(),
                prop::option::of(text()),
                prop::option::of(text()),
            );
            // The part of the box that shows, for a control something clips.
            let view = prop::option::of(prop::array::uniform4(-(1i64 << 53)..(1i64 << 53)));
            let one = (strings, 0..3usize, 0..3usize, bbox, flags, view);
            prop::collection::vec(one, 0..30).prop_map(|specs| {
                specs
                    .into_iter()
                    .map(
                        |((anchor, label, value, key), role, region, bbox, (f, checked), view)| {
                            RawControl {
                                facts: Facts {
                                    anchor: anchor.into(),
                                    key: key.map(Into::into),
                                    label: label.into(),
                                    role: ["button", "textbox", "a role of some length"][role]
                                        .into(),
                                    disabled: f[0],
                                    editable: f[1],
                                    value: value.map(Into::into),
                                    checked,
                                    region: ["r", "billing", "a region named at length"][region]
                                        .into(),
                                    visible: f[3],
                                },
                                secret: f[2],
                                focused: false,
                                bbox,
                                view,
                            }
                        },
                    )
                    .collect()
            })
        }

        proptest! {
            /// Records in the usual form and escaped ones, read by either path, come back as
            /// they were sent.
            #[test]
            fn any_read_comes_back_from_its_wire_form(controls in controls()) {
                let (_, mut raw, _) = full_read();
                raw.total = controls.len();
                raw.controls = controls.into();
                let back = parse_full(encode_full(&raw)).expect("parses");
                prop_assert_eq!(back, raw);
            }
        }
    }

    /// `raw`'s full read as the page sends it with its records partly ahead in parts,
    /// `split` records each: the answer (its head and the records after the parts) and the
    /// parts. Every control of `raw` has the same role and region.
    fn in_parts(raw: &RawObservation, split: usize) -> (String, Vec<String>) {
        let whole = encode_full(raw);
        let (head, records) = whole.split_once('\n').expect("a read with records");
        // The role is the string table's first entry, the region its second.
        let one: Vec<String> = raw.controls.iter().map(|c| packed::pack(c, 0, 1)).collect();
        let sep = char::from(packed::SEP).to_string();
        assert_eq!(one.join(&sep), records, "the records one by one");
        let mut parts: Vec<String> = one.chunks(split).map(|c| c.join(&sep)).collect();
        // The page sends a part once it holds `split` records: what is left over goes in
        // the answer (nothing, when the count divides).
        let last = if one.len().is_multiple_of(split) {
            String::new()
        } else {
            parts.pop().expect("a part")
        };
        let head = head.replacen('{', &format!(r#"{{"parts":{},"#, parts.len()), 1);
        (format!("{head}\n{last}"), parts)
    }

    #[test]
    fn a_read_sent_in_parts_is_the_read_sent_whole() {
        let (_, mut raw, _) = full_read();
        let control = raw.controls[0].clone();
        raw.controls = (0..7)
            .map(|i| {
                let mut c = control.clone();
                c.facts.anchor = format!("a.{i}").into();
                c
            })
            .collect();
        raw.total = 7;
        for split in [1, 2, 3, 7] {
            let (answer, parts) = in_parts(&raw, split);
            let (count, prefix) = parts_ahead(&answer)
                .expect("parts named")
                .expect("readable");
            assert_eq!(
                (count, prefix.as_str()),
                (parts.len(), "c:bench:1:"),
                "{split} a part"
            );
            let joined = with_parts(&answer, &parts);
            assert_eq!(parse_full(joined).expect("parses"), raw, "{split} a part");
        }
        assert!(
            parts_ahead(&encode_full(&raw)).is_none(),
            "a read sent whole names no parts"
        );
    }

    #[test]
    fn parts_named_unreadably_are_an_error() {
        let err = parts_ahead("{\"parts\":\"two\",\"token\":\"d:1\"}\n")
            .expect("parts named")
            .expect_err("not a count");
        assert!(err.contains("parts it sent ahead"), "{err}");
    }
}
