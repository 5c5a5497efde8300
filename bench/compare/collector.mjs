// Where waymark's in-page collector spends a whole read of a dense page, beside the floors
// any collector pays there: what to work on, and what no collector can avoid.
// Usage: node bench/compare/collector.mjs [--runs R] [--top K] N...
// For each N: serve gen-dense.py's page on 127.0.0.1; run the collector's whole read
// (src/collector/js/, `read` with `whole`, every control) R times unprofiled for its in-page
// time, then R times under V8's sampling profiler; print each function's share of the
// profiled time and the K hottest lines. Then, in the same page, the floors: a
// getBoundingClientRect of every [data-anchor] control, querySelectorAll('[data-anchor]'),
// and a tree walk of every element (medians over R); and, unprofiled, the read's time by
// phase (see PHASES).
// The profiler slows the page down: read shares, not the profiled milliseconds.
// Launches Debian's Chromium as waymark picks it (see dense.mjs), or $CHROMIUM; never downloads a browser.
import { collectorParts, densePage, launch, median, openPage, options, serve } from './dense.mjs';

// The collector as the runner sends it: its parts joined in the order of their names (see
// src/collector/source.rs), with where each part starts, to name a profiled line by its part.
const PARTS = collectorParts(null);
const SOURCE = PARTS.map((p) => p.text).join('');
const PART_STARTS = [];
PARTS.reduce((line, p) => { PART_STARTS.push({ name: p.name, from: line }); return line + p.text.split('\n').length - 1; }, 1);

// A 1-based line of SOURCE as its part's file and line.
function partLine(line) {
  const p = PART_STARTS.findLast((s) => s.from <= line);
  return `${p.name}:${line - p.from + 1}`;
}

// A profile's self time by function and by line, in microseconds. Idle samples (the page
// waiting between reads for the next CDP call) are no part of a read and are left out.
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fns = new Map();
  let total = 0, ticks = 0;
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    if (f.functionName === '(idle)') return;
    ticks++;
    const name = `${f.functionName || '(anonymous)'}${f.lineNumber >= 0 ? ` ${partLine(f.lineNumber + 1)}` : ''}`;
    fns.set(name, (fns.get(name) || 0) + profile.timeDeltas[i]);
    total += profile.timeDeltas[i];
  });
  // Total time: each sample counted once for every function on its stack (a function that
  // recurses, once), which names the phases (the scan, the records, the matcher pass).
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const incl = new Map();
  profile.samples.forEach((id, i) => {
    if (byId.get(id).callFrame.functionName === '(idle)') return;
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at).callFrame;
      if (f.lineNumber < 0 || f.url !== '') continue;
      const name = `${f.functionName || '(anonymous)'} ${partLine(f.lineNumber + 1)}`;
      if (seen.has(name)) continue;
      seen.add(name);
      incl.set(name, (incl.get(name) || 0) + profile.timeDeltas[i]);
    }
  });
  const perTick = total / Math.max(1, ticks);
  const lines = new Map();
  for (const n of profile.nodes) {
    for (const t of n.positionTicks || []) {
      const name = `${n.callFrame.functionName || '(anonymous)'} ${partLine(t.line)}`;
      lines.set(name, (lines.get(name) || 0) + t.ticks * perTick);
    }
  }
  return { fns, lines, incl, total };
}

// The collector with a clock read between the phases of a read (`read` in 07-collect.js):
// the roots found, the registry's matcher pass, the style sheets' rules asked, the selector
// scans, the boxes trusted, the records, the cache and the answer's head; each phase's time
// goes to `window.__waymarkPhases`. Unprofiled, so a phase's milliseconds are what a read
// spends there (the profiler's shares are of a read slowed down by it). A marker the code no
// longer holds stops the script: the split must never be silently wrong.
const PHASES = [
  ['    var roots = collectRoots();\n', 'roots found'],
  ['    matched();\n', 'matcher pass'],
  ["    W.generated = ruleStops(roots, 'generated', generates);\n", 'style rules'],
  ['        : scanAll(roots, max);\n', 'selector scans'],
  ['      trustBoxes(roots, scans);\n', 'boxes trusted'],
  ['      dialog = modalOf(scans.map(function (sc) { return sc.dialogs; }));\n', 'records'],
  ['    var head = headOf(token, total, droppedByRegion, droppedByRole, dialog, sent);\n', 'cache kept'],
];
function phased(source) {
  const at = source.indexOf('  function read(max, since');
  if (at < 0) throw new Error('collector.mjs: no `function read` in src/collector/js/ to time the phases of');
  let body = source.slice(at);
  const start = '    visChecks = 0;\n';
  if (!body.includes(start)) throw new Error('collector.mjs: `read` no longer holds the line its phases are timed from: update phased()');
  body = body.replace(start, `${start}    window.__waymarkPhases = []; var phaseAt = performance.now();\n`);
  for (const [line, name] of PHASES) {
    if (!body.includes(line)) throw new Error(`collector.mjs: \`read\` no longer holds the line before "${name}": update PHASES`);
    body = body.replace(line, `${line}    window.__waymarkPhases.push(['${name}', performance.now() - phaseAt]); phaseAt = performance.now();\n`);
  }
  return source.slice(0, at) + body;
}

// A whole read of all `n` controls by collector `source`, compiled once into the page as
// `window[name]`: each call one evaluate that brings back the answer's head and the phases
// (when the collector times them), not the records, whose way out is no part of the
// page's time (nor, compiled with every read, the source's compile, which the profile would
// count).
async function reader(cdp, name, source, n) {
  const installed = await cdp.send('Runtime.evaluate', { expression: `window.${name} = (${source}); 1` });
  if (installed.exceptionDetails) throw new Error(`the collector did not compile: ${installed.exceptionDetails.text}`);
  const expression = `(function (a) { return JSON.stringify([a.slice(0, a.indexOf('\\n')), window.__waymarkPhases || null]); })`
    + `(window.${name}("read", {max: ${n}, whole: true}))`;
  return async () => {
    const r = await cdp.send('Runtime.evaluate', { expression, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`the collector threw: ${r.exceptionDetails.text}`);
    const [text, phases] = JSON.parse(r.result.value);
    const head = JSON.parse(text);
    if (head.total !== n || head.ids === undefined) throw new Error(`a read of ${head.total} controls, not ${n}`);
    return { ms: head.collector_ms, phases };
  };
}

function table(rows, total, top, runs) {
  return [...rows].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) =>
    `  ${(100 * us / total).toFixed(1).padStart(5)} %  ${(us / 1000 / runs).toFixed(2).padStart(7)} ms/read  ${name}`);
}

async function one(browser, server, n, o) {
  server.show(densePage(n).html);
  const page = await openPage(browser, server, n);
  const cdp = await page.context().newCDPSession(page);
  const read = await reader(cdp, '__waymarkRun', SOURCE, n);
  await read(); // The first read lays the page out and sets the collector up.
  const plain = [];
  for (let i = 0; i < o.runs; i++) plain.push((await read()).ms);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  for (let i = 0; i < o.runs; i++) await read();
  const { profile } = await cdp.send('Profiler.stop');
  await cdp.send('Profiler.disable');
  const floors = await page.evaluate((runs) => {
    const out = { rects: [], select: [], walk: [] };
    for (let r = 0; r < runs; r++) {
      let t = performance.now();
      const els = document.querySelectorAll('[data-anchor]');
      out.select.push(performance.now() - t);
      t = performance.now();
      let sum = 0;
      for (let i = 0; i < els.length; i++) sum += els[i].getBoundingClientRect().left;
      out.rects.push(performance.now() - t);
      t = performance.now();
      const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
      let count = 0;
      for (let el = walker.nextNode(); el; el = walker.nextNode()) count += el.shadowRoot ? 2 : 1;
      out.walk.push(performance.now() - t);
      if (Number.isNaN(sum + count)) throw new Error('unreachable');
    }
    return out;
  }, o.runs);
  // The phases, unprofiled, in the same tab: the phased collector under a name of its own.
  const readPhased = await reader(cdp, '__waymarkPhased', phased(SOURCE), n);
  await readPhased(); // Its code warmed, as the plain one's was.
  const phases = new Map(), totals = [];
  for (let i = 0; i < o.runs; i++) {
    const r = await readPhased();
    totals.push(r.ms);
    for (const [name, ms] of r.phases) phases.set(name, [...(phases.get(name) || []), ms]);
  }
  await page.close();
  const { fns, lines, incl, total } = selfTimes(profile);
  const ms = (v) => `${median(v).toFixed(1)} ms`;
  return [
    `N=${n}: whole read, in-page collector time ${ms(plain)} (median of ${o.runs}, unprofiled)`,
    `where it goes (self time, profiled; ${(total / 1000 / o.runs).toFixed(1)} ms per profiled read):`,
    ...table(fns, total, o.top, o.runs),
    'total time by function (itself and what it calls):',
    ...table(incl, total, o.top, o.runs),
    'hottest lines (src/collector/js/, part:line, 1-based):',
    ...table(lines, total, o.top, o.runs),
    `phases of a whole read, unprofiled (medians of ${o.runs}; the read ${ms(totals)}):`,
    ...[...phases].map(([name, v]) => `  ${median(v).toFixed(1).padStart(6)} ms  ${name}`),
    'floors in the same page (medians, unprofiled):',
    `  getBoundingClientRect of every control  ${ms(floors.rects)}`,
    `  querySelectorAll('[data-anchor]')       ${ms(floors.select)}`,
    `  tree walk of every element              ${ms(floors.walk)}`,
  ].join('\n');
}

const o = options(process.argv.slice(2), 'node bench/compare/collector.mjs [--runs R] [--top K] N...',
  { numbers: { runs: [10, 1], top: [15, 1] }, sizes: [10000] });
const browser = await launch();
const server = await serve();
try {
  const version = browser.version();
  console.log(`Chromium ${version}, ${o.runs} runs per N`);
  for (const n of o.ns) console.log(`\n${await one(browser, server, n, o)}`);
} finally {
  await browser.close();
  server.close();
}
