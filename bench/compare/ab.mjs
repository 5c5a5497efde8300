// A change to the collector, measured against a commit's: a whole read (`read` with `whole`,
// every control) of the dense page by each collector in turn, in two tabs of one browser,
// alternating which goes first, and each one's median in-page time.
//
// Usage: node bench/compare/ab.mjs [--base REV] [--runs R] N...
//
// REV (default HEAD) names the commit whose src/collector/js/ is read with `git show`; the
// other side is the working tree's. On a shared machine one run of a whole read moves by a
// third from one minute to the next, so two separate runs of collector.mjs cannot tell a
// 5 % change; reads interleaved in one browser can. It also checks that both collectors
// sent the same records, so a faster one that reads differently shows.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { densePage, launch, median, openPage, options, serve } from './dense.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const PARTS = 'src/collector/js/';

// The collector as the runner sends it: its parts joined in the order of their names (see
// src/collector/source.rs), from the working tree or from commit `rev`.
function source(rev) {
  if (rev === null) {
    return readdirSync(ROOT + PARTS).filter((f) => f.endsWith('.js')).sort()
      .map((f) => readFileSync(ROOT + PARTS + f, 'utf8')).join('');
  }
  const git = (...args) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return git('ls-tree', '--name-only', `${rev}:${PARTS}`).split('\n').filter((f) => f.endsWith('.js')).sort()
    .map((f) => git('show', `${rev}:${PARTS}${f}`)).join('');
}

const o = options(process.argv.slice(2), 'node bench/compare/ab.mjs [--base REV] [--runs R] N...',
  { numbers: { runs: [30, 2] }, strings: { base: 'HEAD' }, sizes: [10000] });
const base = o.base;
const sides = [{ name: `${base} (base)`, text: source(base) }, { name: 'working tree', text: source(null) }];

const browser = await launch();
const server = await serve();
try {
  console.log(`Chromium ${browser.version()}, ${o.runs} whole reads per side, interleaved`);
  for (const n of o.ns) {
    server.show(densePage(n).html);
    const tabs = [];
    for (const side of sides) {
      const page = await openPage(browser, server, n);
      const cdp = await page.context().newCDPSession(page);
      const expression = `(window.__waymarkRun = (${side.text}))("read", {max: ${n}, whole: true})`;
      const read = async () => {
        const r = await cdp.send('Runtime.evaluate', { expression, returnByValue: true });
        if (r.exceptionDetails) throw new Error(`${side.name}'s collector threw: ${r.exceptionDetails.text}`);
        const text = r.result.value, nl = text.indexOf('\n');
        return { ms: JSON.parse(text.slice(0, nl)).collector_ms, records: text.slice(nl) };
      };
      await read(); // The first read lays the page out and sets the collector up.
      tabs.push({ side, page, read, times: [] });
    }
    let same = true;
    for (let i = 0; i < o.runs; i++) {
      const order = i % 2 ? tabs : [...tabs].reverse();
      const records = [];
      for (const tab of order) {
        await tab.page.bringToFront();
        const r = await tab.read();
        tab.times.push(r.ms);
        records.push(r.records);
      }
      if (records[0] !== records[1]) same = false;
    }
    const [a, b] = tabs.map((t) => median(t.times));
    console.log(`\nN=${n}: whole read, in-page collector time (median of ${o.runs})`);
    for (const t of tabs) console.log(`  ${median(t.times).toFixed(1).padStart(7)} ms  ${t.side.name}`);
    console.log(`  ${(100 * (b - a) / a).toFixed(1).padStart(6)} %    working tree against base`);
    console.log(`  records ${same ? 'the same' : 'DIFFER'} on every read`);
    for (const t of tabs) await t.page.close();
  }
} finally {
  await browser.close();
  server.close();
}
