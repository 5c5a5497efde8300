// waymark's whole read and Playwright's JSON collector in one tab, in turns: issue 53's
// whole-read ratio, measured in pairs so that the machine's speed, which moves by a third
// from one minute to the next, moves both sides of each pair alike.
//
// Usage: node bench/compare/paired.mjs [--runs R] N...
//
// For each browser (Debian's headless shell and its full Chromium, those installed), one
// tab of the dense page for N, for both reads, set up as the runner sets up its tabs: the
// collector given to every document before its scripts, with the function its parts are
// pushed through (a CDP binding; see `prepare` in src/tools/first_read.rs and `sendPart`
// in src/collector/js/07-collect.js). Then R pairs, which side goes first alternating:
//   waymark     one evaluate of a whole read (`read` with `whole`, every control gathered
//               again, as `waymark bench` times it), until its answer and every part it
//               pushed ahead are in hand;
//   Playwright  `page.evaluate` of the JSON collector of playwright.mjs, until its string
//               is in hand.
// Both over Playwright's own connection to the browser, and neither answer parsed:
// waymark's client (chromiumoxide over a WebSocket) and its parse, and Playwright's
// JSON.parse, are left out. `reads.mjs` runs each tool whole, minutes apart; this script
// says what the two reads cost the browser in the same minute. Prints each side's median,
// the median of the pairs' ratios (waymark / Playwright), and waymark's time in the page.
// Never downloads a browser: the ones given are Debian's (see dense.mjs).
import { BROWSERS, collect, collectorSource, densePage, launch, median, options, serve } from './dense.mjs';

const o = options(process.argv.slice(2), 'node bench/compare/paired.mjs [--runs R] N...',
  { numbers: { runs: [40, 2] }, sizes: [10000] });
// As src/tools/parts.rs sends it: records per part, and how long all of a read's parts may
// take to come after its answer.
const PART_RECORDS = 1024;
const PARTS_BOUND_MS = 2000;
const PUSH = '__waymarkPushPaired';
const source = collectorSource(null);

// A tab of the page for N with the collector in it as the runner gives it, and a function
// that takes one whole read there: its round trip (parts in hand) and its time in the page.
async function waymarkTab(browser, server, n) {
  const page = await browser.newPage();
  page.setDefaultTimeout(0);
  const cdp = await page.context().newCDPSession(page);
  // The parts pushed since the read at hand began, and a wake-up for the read waiting on
  // them.
  let pushed = [], arrived = () => {};
  cdp.on('Runtime.bindingCalled', (e) => {
    if (e.name !== PUSH) return;
    pushed.push(e.payload);
    arrived();
  });
  await cdp.send('Runtime.enable');
  await cdp.send('Runtime.addBinding', { name: PUSH });
  const prime = { max: n + 1000, evidence: null, push: PUSH };
  await cdp.send('Page.enable');
  await cdp.send('Page.addScriptToEvaluateOnNewDocument',
    { source: `(window.__waymarkRun = (${source}))("early", ${JSON.stringify({ prime })})` });
  await page.goto(server.url(n), { waitUntil: 'load' });
  const expression = `window.__waymarkRun("read", ${JSON.stringify({ max: n + 1000, whole: true, chunk: PART_RECORDS })})`;
  const read = async () => {
    pushed = [];
    const start = performance.now();
    const r = await cdp.send('Runtime.evaluate', { expression, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`the collector threw: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    const head = JSON.parse(r.result.value.split('\n', 1)[0]);
    if (head.total !== n || head.gathered !== n) throw new Error(`a whole read gathered ${head.gathered} of ${head.total} controls, not ${n}`);
    // The parts went out before the answer, on the same connection: they are here, or
    // nearly.
    const prefix = `c:${head.token}:`, due = head.parts || 0;
    const have = () => pushed.filter((p) => p.startsWith(prefix)).length;
    if (have() < due) {
      await new Promise((ok, fail) => {
        const late = setTimeout(() => fail(new Error(`${due} parts named, ${have()} came within ${PARTS_BOUND_MS} ms`)), PARTS_BOUND_MS);
        arrived = () => { if (have() >= due) { clearTimeout(late); ok(); } };
      });
      arrived = () => {};
    }
    return { trip: performance.now() - start, page: head.collector_ms, parts: due };
  };
  return { page, read };
}

// A function that takes Playwright's JSON collector's read of `page`: its round trip.
function playwrightRead(page, n) {
  return async () => {
    const start = performance.now();
    const json = await page.evaluate(collect);
    if (typeof json !== 'string' || json.length < n) throw new Error('the JSON collector answered no controls');
    return { trip: performance.now() - start };
  };
}

const ms = (x) => `${x.toFixed(1)} ms`;
const server = await serve();
try {
  for (const n of o.ns) {
    server.show(densePage(n).html);
    console.log(`N=${n}: ${o.runs} pairs of whole reads, in turns (medians)`);
    console.log('browser         | waymark  | Playwright | waymark / Playwright (median pair) | waymark in the page, parts');
    for (const [name, exe] of BROWSERS) {
      const browser = await launch(exe);
      try {
        // One tab for both: two tabs of one page differ by more than the two reads do
        // (their layouts, caches and places in memory; see ab.mjs).
        const tab = await waymarkTab(browser, server, n);
        const sides = [tab.read, playwrightRead(tab.page, n)];
        // Warm both up (the collector's functions optimized, as after a journey's first reads).
        for (let i = 0; i < 5; i++) for (const side of sides) await side();
        const got = [[], []], ratios = [];
        for (let i = 0; i < o.runs; i++) {
          const pair = [];
          for (const k of i % 2 ? [0, 1] : [1, 0]) pair[k] = await sides[k]();
          got[0].push(pair[0]);
          got[1].push(pair[1]);
          ratios.push(pair[0].trip / pair[1].trip);
        }
        const trip = (k) => median(got[k].map((x) => x.trip));
        console.log(`${name.padEnd(15)} | ${ms(trip(0)).padStart(8)} | ${ms(trip(1)).padStart(10)} | `
          + `${median(ratios).toFixed(2)}×`.padEnd(35)
          + `| ${ms(median(got[0].map((x) => x.page)))}, ${got[0][0].parts}`);
      } finally {
        await browser.close();
      }
    }
  }
} finally {
  server.close();
}
