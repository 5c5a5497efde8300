// A change to the collector, measured against a commit's: a whole read (`read` with `whole`,
// every control) of the dense page by each collector in turn, in pairs in one tab,
// alternating which goes first, and each one's median in-page time and the pairs' median
// difference.
//
// Usage: node bench/compare/ab.mjs [--base REV] [--runs R] [--style CSS] [--append HTML] [--names TEXT] [--cut PART | --unchanged] N...
//
// REV (default HEAD) names the commit whose src/collector/js/ is read with `git show`; the
// other side is the working tree's. On a shared machine one run of a whole read moves by a
// third from one minute to the next, so two separate runs of collector.mjs cannot tell a
// 5 % change; reads taken in pairs in one tab can (the median of a few hundred pairs). It
// also checks that both collectors sent the same records, so a faster one that reads
// differently shows.
// With `--cut PART`, the other side is REV's collector with one part of a read taken out
// (see CUTS): what that part costs a whole read, paired as a change is. Its records then
// differ, as they must; it is a measure, never a change to land.
// With `--unchanged`, the reads are not whole: each is of a page that did not change since
// the read before and holds that read's token, as a warm read does, so what it measures is
// mostly what any operation costs the page besides its work (the call, and what the
// collector makes for it). Per call in the page, from loops of 300 calls in one evaluate,
// R loops a side in turns; and the round trip of one call, R pairs.
import { collectorSource as source, densePage, launch, median, openPage, options, serve } from './dense.mjs';

// The parts of a read `--cut` can take out, each as the lines of src/collector/js/ it
// replaces: what a read works out beyond a box and a few attributes (what Playwright's JSON
// collector in playwright.mjs reads), and the boxes themselves, which both pay.
const CUTS = {
  // Every control's accessible name (nameOf: aria-labelledby, aria-label, labels, content,
  // title, placeholder), an empty string in its place.
  names: [['    if (label === undefined) label = nameOf(el, role, labels, tag, type);\n',
    "    if (label === undefined) label = '';\n"]],
  // Only the labels' part of the names: the text of each labelled field's <label>.
  labels: [['    var labs = labels.get(el);\n', '    var labs = undefined;\n']],
  // Every field's value (valueOf, and an output's text).
  values: [['    var value = valueOf(el, tag, type, secret);\n', '    var value = null;\n'],
    ['    if (value === null && !WIDGETS[role]) value = outputText(el);\n', '']],
  // What can hide, disable or clip other elements besides a style rule (TESTED in
  // 06-roots.js), asked for in the main scan and tested: visibility, disabled state and
  // clipping then go unseen.
  hiders: [["  var FOUND = MAIN + ',' + TESTED;\n", '  var FOUND = MAIN;\n'],
    ['      else if (mayBeTested(el, tag)) testOne(s, el);\n', '']],
  // The walk that finds open shadow roots and same-origin frames: the document alone.
  roots: [['      for (var el = walker.nextNode(); el; el = walker.nextNode()) {\n',
    '      for (var el = null; el; el = walker.nextNode()) {\n']],
  // Every control's box (getBoundingClientRect), a fixed one in its place.
  boxes: [['    var rect = el.getBoundingClientRect();\n    var x = rect.left',
    '    var rect = CUT_BOX;\n    var x = rect.left'],
  ['  function record(el, tag', '  var CUT_BOX = { left: 1, top: 1, width: 10, height: 10, right: 11, bottom: 11 };\n  function record(el, tag']],
};

const USAGE = 'node bench/compare/ab.mjs [--base REV] [--runs R] [--style CSS] [--append HTML] [--names TEXT] '
  + `[--cut ${Object.keys(CUTS).join('|')} | --unchanged] N...`;
const o = options(process.argv.slice(2), USAGE,
  { numbers: { runs: [30, 2] }, strings: { base: 'HEAD', style: '', append: '', names: '', cut: '' }, flags: ['unchanged'], sizes: [10000] });
if (o.cut && o.unchanged) {
  console.error(`--cut and --unchanged measure different reads: give one\nusage: ${USAGE}`);
  process.exit(2);
}
if (o.cut && !CUTS[o.cut]) {
  console.error(`--cut takes one of ${Object.keys(CUTS).join(', ')}, not ${o.cut}\nusage: ${USAGE}`);
  process.exit(2);
}

// `text` with part `name` cut out (see CUTS); a line the collector no longer holds stops the
// script, so a cut can never silently measure nothing.
function cut(text, name) {
  for (const [from, to] of CUTS[name]) {
    if (!text.includes(from)) throw new Error(`ab.mjs: the collector no longer holds what --cut ${name} replaces: update CUTS`);
    text = text.replace(from, to);
  }
  return text;
}
// The dense page as the generator prints it, or with `--style` rules added to its style
// sheet and `--append` markup at the end of its <main>: what real apps' pages hold besides
// their controls (a utility class, a clearfix, a closed <details>), for a change that
// matters only where they are. With `--names TEXT`, every name the page writes (an
// `aria-label`, a label's, a button's or a link's text) is TEXT and a number: a page named
// in another script (`--names 保存する`, see `narrow` in 07-collect.js).
function pageHtml(n) {
  let html = densePage(n).html;
  if (o.style) html = html.replace('</style>', `${o.style}\n</style>`);
  if (o.append) html = html.replace('</main>', `${o.append}\n</main>`);
  if (o.names) {
    let k = 0;
    const named = (_, open, close) => `${open}${o.names} ${++k}${close}`;
    html = html.replace(/(aria-label=")[^"]*(")/g, named)
      .replace(/(<(?:label|button|a)\b[^>]*>)[^<]+(<\/(?:label|button|a)>)/g, named);
  }
  return html;
}
const base = o.base;
const sides = [{ name: `${base} (base)`, text: source(base) },
  o.cut ? { name: `${base} without its ${o.cut}`, text: cut(source(base), o.cut) } : { name: 'working tree', text: source(null) }];

// Reads of the unchanged page by each side (see --unchanged): per call in the page, and
// the round trip of one.
async function unchanged(cdp, sides2, n) {
  const CALLS = 300;
  // A read that sends every record, then the loop of reads each holding the token of the
  // one before (nothing changed: each answers with the head alone).
  const loop = (name) => `(() => { const f = window.${name};
    const token = (a) => JSON.parse(a.split('\\n', 1)[0]).token;
    let since = token(f('read', {max: ${n}}));
    const t = performance.now();
    for (let i = 0; i < ${CALLS}; i++) since = token(f('read', {max: ${n}, since}));
    return (performance.now() - t) / ${CALLS}; })()`;
  const call = (name, since) => `window.${name}('read', {max: ${n}, since: ${JSON.stringify(since)}})`;
  const inPage = sides2.map(() => []), trips = sides2.map(() => []), diffs = [];
  for (let i = 0; i < o.runs; i++) {
    const order = i % 2 ? [0, 1] : [1, 0];
    for (const k of order) {
      const r = await cdp.send('Runtime.evaluate', { expression: loop(sides2[k].name), returnByValue: true });
      if (r.exceptionDetails) throw new Error(`${sides2[k].side.name}'s collector threw: ${r.exceptionDetails.text}`);
      inPage[k].push(r.result.value);
    }
    const got = [];
    for (const k of order) {
      const first = await cdp.send('Runtime.evaluate', { expression: `window.${sides2[k].name}('read', {max: ${n}})`, returnByValue: true });
      const head = first.result.value.split('\n')[0];
      const start = performance.now();
      await cdp.send('Runtime.evaluate', { expression: call(sides2[k].name, JSON.parse(head).token), returnByValue: true });
      got[k] = performance.now() - start;
      trips[k].push(got[k]);
    }
    diffs.push(got[1] - got[0]);
  }
  const us = (ms) => `${(1000 * ms).toFixed(1).padStart(7)} µs`;
  console.log(`\nN=${n}: a read of the unchanged page, per call in the page (median of ${o.runs} loops of ${CALLS})`);
  sides2.forEach((t, k) => console.log(`  ${us(median(inPage[k]))}  ${t.side.name}`));
  console.log(`  the round trip of one (median of ${o.runs})`);
  sides2.forEach((t, k) => console.log(`  ${us(median(trips[k]))}  ${t.side.name}`));
  console.log(`  ${us(median(diffs))}  ${sides2[1].side.name} against base, the median pair`);
}

const browser = await launch();
const server = await serve();
try {
  console.log(`Chromium ${browser.version()}, ${o.runs} whole reads per side, in pairs in one tab`);
  for (const n of o.ns) {
    server.show(pageHtml(n));
    // Both collectors in one tab, each under a name of its own (their state on the window
    // is one: a whole read keeps nothing of the read before it). One tab, not two: two
    // tabs of one page differ by more than most changes do (their layouts, caches and
    // places in memory), and the machine's speed drifts from one minute to the next; a
    // pair of reads taken back to back, in turns, sees the same page at the same speed.
    const page = await openPage(browser, server, n);
    const cdp = await page.context().newCDPSession(page);
    const sides2 = [];
    for (const [k, side] of sides.entries()) {
      const installed = await cdp.send('Runtime.evaluate', { expression: `window.__waymarkAb${k} = (${side.text}); 1` });
      if (installed.exceptionDetails) throw new Error(`${side.name}'s collector did not compile: ${installed.exceptionDetails.text}`);
      // Room past N for the controls `--append` adds.
      const expression = `window.__waymarkAb${k}("read", {max: ${n + 1000}, whole: true})`;
      const read = async () => {
        const start = performance.now();
        const r = await cdp.send('Runtime.evaluate', { expression, returnByValue: true });
        const trip = performance.now() - start;
        if (r.exceptionDetails) throw new Error(`${side.name}'s collector threw: ${r.exceptionDetails.text}`);
        const text = r.result.value, nl = text.indexOf('\n');
        return { ms: JSON.parse(text.slice(0, nl)).collector_ms, trip, records: text.slice(nl) };
      };
      // The first reads lay the page out, set the collector up and warm its code.
      await read();
      await read();
      sides2.push({ side, read, times: [], trips: [], name: `__waymarkAb${k}` });
    }
    if (o.unchanged) {
      await unchanged(cdp, sides2, n);
      await page.close();
      continue;
    }
    let same = true;
    const diffs = [], tripDiffs = [];
    for (let i = 0; i < o.runs; i++) {
      const order = i % 2 ? sides2 : [...sides2].reverse();
      const got = new Map();
      for (const s of order) {
        const r = await s.read();
        s.times.push(r.ms);
        s.trips.push(r.trip);
        got.set(s, r);
      }
      if (got.get(sides2[0]).records !== got.get(sides2[1]).records) same = false;
      diffs.push(got.get(sides2[1]).ms - got.get(sides2[0]).ms);
      tripDiffs.push(got.get(sides2[1]).trip - got.get(sides2[0]).trip);
    }
    const a = median(sides2[0].times);
    console.log(`\nN=${n}: whole read, in-page collector time (median of ${o.runs})`);
    for (const t of sides2) console.log(`  ${median(t.times).toFixed(1).padStart(7)} ms  ${t.side.name}`);
    // The change is read from the pairs: each pair's difference, their median and their
    // middle half (what a change within it cannot be told from noise by).
    const d = [...diffs].sort((x, y) => x - y), q = (f) => d[Math.round(f * (d.length - 1))];
    console.log(`  ${median(diffs).toFixed(1).padStart(7)} ms  ${sides[1].name} against base, the median pair (${(100 * median(diffs) / a).toFixed(1)} %)`);
    console.log(`  ${q(0.25).toFixed(1)} to ${q(0.75).toFixed(1)} ms  the middle half of the pairs`);
    // The whole evaluate as the runner waits for it: the in-page time, the answer's way out
    // and what the read's garbage costs the page after it (a collection the read set off).
    console.log(`\n  whole evaluate, the round trip (median of ${o.runs})`);
    for (const t of sides2) console.log(`  ${median(t.trips).toFixed(1).padStart(7)} ms  ${t.side.name}`);
    console.log(`  ${median(tripDiffs).toFixed(1).padStart(7)} ms  ${sides[1].name} against base, the median pair (${(100 * median(tripDiffs) / median(sides2[0].trips)).toFixed(1)} %)`);
    if (o.cut) console.log(`  records ${same ? 'the same (the cut took out nothing this page has)' : 'differ, as a cut\'s must'}`);
    else console.log(`  records ${same ? 'the same' : 'DIFFER'} on every read`);
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
