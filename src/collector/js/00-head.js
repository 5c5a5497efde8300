// waymark's in-page agent. `(SOURCE)` makes it, once per document: its tables, its
// functions and the state kept on the window; it evaluates to the operation's function,
// which the document keeps (`window.__waymarkRun`, see src/collector.rs) and each
// operation calls as `window.__waymarkRun("op", {args})` in one Runtime.evaluate. (Made
// again for every operation, its two hundred functions and its tables cost each one
// 0.03-0.06 ms in the page: a read of a page that did not change took 0.04-0.08 ms there,
// against 0.01-0.02; `bench/compare/ab.mjs --unchanged`.) Every operation answers with
// ONE string, so a read of any screen — 10 controls or 50,000 — is one round trip. (A
// read of many controls sends its records ahead in parts during that evaluate, through
// the runner's binding: see `sendPart` in 07-collect.js.)
// The string is JSON; an answer holding a read ends with the read's records after a
// newline (see `withRecords`). Nothing here walks the DOM over CDP,
// and every lookup map (labels, roots) is built in one pass: `el.labels` per element is
// quadratic in Chromium.
//
// Operations:
//   read    {max, since, region, evidence, whole, chunk}
//                                              -> the screen, whole or as a delta against `since`;
//                                                 one region only; with `evidence` (caps), text
//                                                 runs and unanchored controls too; with `whole`,
//                                                 gathered as a first read is (nothing reused);
//                                                 with `chunk`, a full answer's records past
//                                                 `chunk` sent ahead in parts of that many
//   prepare {anchor, key | node | point, mode, quiet_ms, max_ms, wait_ms, wait_missing}
//                                              -> resolve + actionability checks (+ focus for
//                                                 fill/press, + hit point for invoke), and the
//                                                 first quiet window armed for the action's
//                                                 input (see settle); waits up to wait_ms for
//                                                 a target not yet there, visible, enabled
//                                                 or uncovered (see prepareWaiting)
//   settle  {quiet_ms, max_ms, max, since, evidence}
//                                              -> wait until the DOM is quiet or a navigation
//                                                 started; read in the same trip; with the
//                                                 page's frame after the input (see timeFrame)
//   acted   {}                                 -> an input other than a press comes next (a
//                                                 pointer moved): settle counts from now
//   scroll  {x, y}                             -> the page scrolled by x, y (then settle)
//   wait    {condition, wait_ms}               -> {holds, waited_ms, seen} once the condition
//                                                 holds, or when wait_ms ran out (see waitFor)
//   change  {quiet_ms, wait_ms}                -> "changed" after the page's next change and a
//                                                 quiet window, or "timeout" (see nextChange)
//   early   {}                                 -> in a new document, before its scripts: watch
//                                                 the value setters, the listeners and the
//                                                 animation frames (see watchSetters,
//                                                 watchListeners, watchFrames)
//   finish_fill {anchor, key, expected, max, quiet_ms, max_ms, evidence}
//                                              -> change event (unless `fill` sent it), verify
//                                                 the value, settle, read (as settle's)
//   fill    {anchor, key | node | point, text, expected: {line, multiline, words}, quiet_ms, max_ms}
//                                              -> prepare (mode fill), the value the field's
//                                                 kind must end with, and that text typed
//                                                 with an editing command, where the page
//                                                 could not tell that from typing; once the
//                                                 value is in, its change event and the
//                                                 first quiet window
//   describe {ids, tid}                        -> what suggest builds matchers from, per node of
//                                                 the last read's evidence (see describeNodes)
//   count   {candidates}                       -> what matchers would find now, by anchor
//                                                 (see countMatches)
//   elements {ids}                             -> the elements a read named, as objects (not
//                                                 a JSON string: for accessibility queries)
//
//   facts   {texts: {href: text}}              -> what the rules of each style sheet text hold
//                                                 (see sheetFacts), by address: run in a
//                                                 world of its own, never the page's
//
// Any operation may also carry `sheets: {doc, facts: {href: facts | null}}`: what style
// sheets of another origin hold, which the page cannot read (null: not known). They are
// taken in before the operation runs, in the document named `doc` only (see takeSheets).
// A read's answer names the sheets it could not read that nobody was asked for yet, under
// `unread_sheets`.
// The body: parts by job (see collector/source.rs). What an operation sets for the others
// to read starts afresh with each (see 13-ops.js).
(function () {
  'use strict';
  // The browser's own timers and clock, as they were before the page's scripts ran: a fake
  // clock (`clock_install`'s, or the page's own) replaces the globals, and waymark's waits
  // and settling must run on real time while the page's clock stands still. Kept on the
  // window by the collector's first run in a document (the early one, before the page's
  // scripts; see realTimers), or by the clock's script when it came first.
  var REAL = window.__wmReal || realTimers(window);
  var setTimeout = REAL.setTimeout, clearTimeout = REAL.clearTimeout;
  var performance = { now: REAL.now, getEntriesByType: function (t) { return window.performance.getEntriesByType(t); } };
  var t0 = performance.now();
