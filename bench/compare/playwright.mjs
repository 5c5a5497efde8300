// Same-machine reference timings for Playwright on pages made by gen-dense.py.
// Usage: node bench/compare/playwright.mjs [--runs R] [--aria-max N] [--apostrophe | --accent] [--json] N...
// With `--apostrophe`, one name on the page holds a curly apostrophe; with `--accent`, an é
// (see withMark in dense.mjs).
// Launches Debian's Chromium as waymark picks it (see dense.mjs), or $CHROMIUM; never downloads a browser.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { collect, densePage, launch, median, openPage, options, serve, withMark } from './dense.mjs';

// The same function, timed inside the page; returns milliseconds.
const COLLECT_IN_PAGE = `(() => {
  const collect = ${collect.toString()};
  const t0 = performance.now();
  collect();
  return performance.now() - t0;
})()`;

function stats(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), runs: xs };
}

// Runs fn R times (fn gets the run index) and returns stats of node-side wall time.
async function measure(runs, fn) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  return stats(times);
}

// The first evaluate in a fresh tab once the page has loaded: what waymark's first read
// (inside `navigate`) compares with. It waits behind the page's first frame (style, layout
// and paint of every element), which no later call pays again.
async function firstEvaluate(browser, server, n, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const page = await openPage(browser, server, n);
    const t0 = performance.now();
    await page.evaluate(collect);
    times.push(performance.now() - t0);
    await page.close();
  }
  return stats(times);
}

async function benchOne(browser, server, n, o) {
  const { html, click, fill } = densePage(n);
  server.show(withMark(html, o));

  const r = { first: await firstEvaluate(browser, server, n, o.runs) };
  const page = await openPage(browser, server, n);
  const count = await page.evaluate(() => document.querySelectorAll('[data-anchor]').length);
  if (count !== n) throw new Error(`page for N=${n} has ${count} [data-anchor] controls`);

  r.evaluate = await measure(o.runs, () => page.evaluate(collect));
  const inPage = [];
  for (let i = 0; i < o.runs; i++) inPage.push(await page.evaluate(COLLECT_IN_PAGE));
  r.inPageCollector = stats(inPage);

  r.click = await measure(o.runs, () => page.click(click));
  const clicks = await page.evaluate(() => window.__clicks);
  if (clicks !== o.runs) throw new Error(`expected ${o.runs} clicks on ${click}, page counted ${clicks}`);

  r.fill = await measure(o.runs, (i) => page.fill(fill, `value ${i}`));
  const value = await page.inputValue(fill);
  if (value !== `value ${o.runs - 1}`) throw new Error(`${fill} holds ${JSON.stringify(value)} after fill`);

  if (n <= o['aria-max']) {
    r.ariaSnapshot = await measure(o.runs, () => page.locator('body').ariaSnapshot({ timeout: 0 }));
    const cdp = await page.context().newCDPSession(page);
    let last;
    r.getFullAXTree = await measure(o.runs, async () => { last = await cdp.send('Accessibility.getFullAXTree'); });
    r.getFullAXTree.mb = Buffer.byteLength(JSON.stringify(last)) / 1e6;
    await cdp.detach();
  }
  await page.close();
  return r;
}

const ROWS = [
  ['ariaSnapshot', "locator('body').ariaSnapshot()"],
  ['evaluate', 'one evaluate -> JSON string of all controls'],
  ['first', 'the same, first in a fresh tab after load'],
  ['inPageCollector', 'in-page collector time alone'],
  ['click', 'click() on the click target'],
  ['fill', 'fill() on the fill target'],
  ['getFullAXTree', 'CDP Accessibility.getFullAXTree'],
];

function fmt(ms) {
  if (ms >= 10000) return `${(ms / 1000).toFixed(1)} s`;
  return ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`;
}

function cell(s) {
  if (!s) return 'skipped';
  const mb = s.mb === undefined ? '' : `, ${s.mb.toFixed(1)} MB`;
  return `${fmt(s.median)} (${fmt(s.min)}..${fmt(s.max)})${mb}`;
}

function table(o, results) {
  const head = ['median (min..max) of ' + o.runs, ...o.ns.map((n) => `N=${n}`)];
  const body = ROWS.map(([k, label]) => [label, ...o.ns.map((n) => cell(results[n][k]))]);
  const w = head.map((_, i) => Math.max(...[head, ...body].map((row) => row[i].length)));
  const line = (row) => row.map((c, i) => c.padEnd(w[i])).join(' | ').trimEnd();
  return [line(head), w.map((x) => '-'.repeat(x)).join('-|-'), ...body.map(line)].join('\n');
}

async function main() {
  const o = options(process.argv.slice(2), 'node bench/compare/playwright.mjs [--runs R] [--aria-max N] [--apostrophe | --accent] [--json] N...',
    { numbers: { runs: [5, 1], 'aria-max': [1000, 0] }, flags: ['json', 'apostrophe', 'accent'] });
  const server = await serve();
  const browser = await launch();
  const pwVersion = createRequire(import.meta.url)('playwright-core/package.json').version;
  try {
    const results = {};
    for (const n of o.ns) results[n] = await benchOne(browser, server, n, o);
    if (o.json) {
      console.log(JSON.stringify({ chromium: browser.version(), playwrightCore: pwVersion, runs: o.runs,
        ariaMax: o['aria-max'], results }, null, 2));
    } else {
      console.log(`Chromium ${browser.version()}, playwright-core ${pwVersion}, ${o.runs} runs per cell`);
      console.log(table(o, results));
    }
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
