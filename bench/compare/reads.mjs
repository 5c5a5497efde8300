// waymark's reads beside Playwright's on the same page and the same browser binaries: the
// first read after the load and the whole read of every control, for issue 53's goals.
// Usage: node bench/compare/reads.mjs [--rounds R] [--runs N] [--waymark PATH] [--apostrophe | --accent] N...
// For each page size N and each browser (Debian's headless shell and its full Chromium,
// those installed), R rounds, each running `waymark bench '/dense?n=N' --max-controls N
// --json` and `playwright.mjs --json N` in turns (which goes first alternates), then prints
// the medians of the rounds' medians side by side and their ratios: waymark's first read
// over Playwright's first evaluate in a fresh tab after the load, waymark's whole read over
// Playwright's one evaluate of its JSON collector. On a shared machine the same figure moves
// by a third from one minute to the next: compare the rounds, not one run.
// With `--apostrophe`, both read the page with one name holding a curly apostrophe, as real
// apps' pages do; with `--accent`, an é (see withMark in dense.mjs). This script serves that
// page to both: waymark's `bench` gets it through `--base-url`.
// Never downloads a browser: the ones given are Debian's (see dense.mjs).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BROWSERS, densePage, median, options, serve, withMark } from './dense.mjs';

const o = options(process.argv.slice(2), 'node bench/compare/reads.mjs [--rounds R] [--runs N] [--waymark PATH] [--apostrophe | --accent] N...', {
  numbers: { rounds: [3, 1], runs: [10, 1] },
  flags: ['apostrophe', 'accent'],
  strings: { waymark: fileURLToPath(new URL('../../target/release/waymark', import.meta.url)) },
  sizes: [10000],
});
const WAYMARK = o.waymark;
if (!existsSync(WAYMARK)) {
  console.error(`no waymark at ${WAYMARK}: build it (cargo build --release) or give --waymark PATH`);
  process.exit(2);
}
const PLAYWRIGHT = fileURLToPath(new URL('./playwright.mjs', import.meta.url));

// The page with the mark, served here for waymark (Playwright's script serves its own).
const server = o.apostrophe || o.accent ? await serve() : null;

async function waymark(n, browser) {
  let route = [`/dense?n=${n}`];
  if (server) {
    // At the same address as the demo app's page (this server answers every path with
    // it): the registry's screens then apply to it as they do there.
    server.show(withMark(densePage(n).html, o));
    route.push('--base-url', new URL(server.url(n)).origin);
  }
  // Asynchronous, so that this process's server answers the page meanwhile.
  const out = await new Promise((ok, fail) => execFile(WAYMARK, ['bench', ...route, '--runs', String(o.runs),
    '--max-controls', String(n), '--browser', browser, '--json'], { maxBuffer: 1 << 26 },
  (err, stdout) => (err ? fail(err) : ok(stdout))));
  const read = JSON.parse(out).routes[0].read;
  return { first: read.first_ms, whole: read.whole.median_ms, wholeInPage: read.whole.in_page_median_ms };
}

function playwright(n, browser) {
  const out = execFileSync(process.execPath, [PLAYWRIGHT, '--json', '--runs', String(o.runs),
    ...(o.apostrophe ? ['--apostrophe'] : []), ...(o.accent ? ['--accent'] : []), String(n)],
    { maxBuffer: 1 << 26, env: { ...process.env, CHROMIUM: browser }, stdio: ['ignore', 'pipe', 'inherit'] });
  const r = JSON.parse(out).results[n];
  return { first: r.first.median, whole: r.evaluate.median, wholeInPage: r.inPageCollector.median };
}

const ms = (x) => `${x.toFixed(1)} ms`;
for (const n of o.ns) {
  console.log(`N=${n}: medians of ${o.rounds} round(s), each the median of ${o.runs} reads (first: one per round)`);
  console.log('browser         | read        | waymark   | Playwright | waymark / Playwright');
  for (const [name, path] of BROWSERS) {
    const w = [], p = [];
    for (let r = 0; r < o.rounds; r++) {
      if (r % 2 === 0) { w.push(await waymark(n, path)); p.push(playwright(n, path)); }
      else { p.push(playwright(n, path)); w.push(await waymark(n, path)); }
    }
    for (const [k, label] of [['first', 'first'], ['whole', 'whole'], ['wholeInPage', 'whole, in page']]) {
      const a = median(w.map((x) => x[k])), b = median(p.map((x) => x[k]));
      console.log(`${name.padEnd(15)} | ${label.padEnd(11)} | ${ms(a).padStart(9)} | ${ms(b).padStart(10)} | ${(a / b).toFixed(2)}×`);
    }
  }
}
if (server) server.close();
