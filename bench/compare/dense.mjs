// What the reference scripts share: the dense pages of the shared generator, served on
// 127.0.0.1, and Debian's Chromium launched headless (never a downloaded browser).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

// The shared generator beside the repository (../shared/bench), unless GEN_DENSE names another.
const GEN = process.env.GEN_DENSE || fileURLToPath(new URL('../../../shared/bench/gen-dense.py', import.meta.url));
// The Chromium a headless `waymark` run picks: Debian's headless shell when it is installed
// (as Playwright's own headless default is a headless shell), else the full Chromium.
const SHELL = '/usr/lib/chromium/chromium-headless-shell';
const EXE = process.env.CHROMIUM || (existsSync(SHELL) ? SHELL : '/usr/bin/chromium');

function meta(html, name) {
  const m = html.match(new RegExp(`<meta name="${name}" content="([^"]+)">`));
  if (!m) throw new Error(`${GEN} printed no <meta name="${name}">`);
  return m[1];
}

// The page for N controls and the selectors of its two bench targets.
export function densePage(n) {
  const html = execFileSync('python3', [GEN, String(n)], { maxBuffer: 1 << 30 }).toString('utf8');
  return {
    html,
    click: `[data-anchor="${meta(html, 'bench-click-target')}"]`,
    fill: `[data-anchor="${meta(html, 'bench-fill-target')}"]`,
  };
}

// `html` with one name past ASCII, as nearly every real app's pages have one somewhere
// (Chromium sends a string holding one such character at about twice the cost: see
// `narrow` in src/collector/js/07-collect.js): with `o.apostrophe`, a curly apostrophe in
// its first `aria-label` (past Latin-1: V8 holds the string two bytes a character); with
// `o.accent`, an é there (Latin-1: the string stays one-byte in V8, and crosses as slowly).
// Else `html` as it is.
export function withMark(html, o) {
  const mark = o.apostrophe ? '’s' : o.accent ? ' café' : null;
  if (mark === null) return html;
  return html.replace(/aria-label="([^"]*)"/, (_, name) => `aria-label="${name}${mark}"`);
}

// Serves whatever page was last `show`n at every path; `url(n)` names the one for N.
export async function serve() {
  let html = '';
  const server = createServer((req, res) => {
    if (req.url === '/favicon.ico') { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    show: (page) => { html = page; },
    url: (n) => `${base}/dense-${n}.html`,
    close: () => server.close(),
  };
}

// The middle value (the mean of the two middle ones for an even count).
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// A fresh tab on the page for N, once it has loaded, that never times out mid-measure (big
// pages are slow).
export async function openPage(browser, server, n) {
  const page = await browser.newPage();
  page.setDefaultTimeout(0);
  await page.goto(server.url(n), { waitUntil: 'load' });
  return page;
}

// Debian's Chromium headless (`exe`, else the one a headless `waymark` run picks).
export function launch(exe = EXE) {
  const args = process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: exe, headless: true, args });
}

// Playwright's side of a whole read: every [data-anchor] control as one JSON string, taken
// in the page by `page.evaluate(collect)` (playwright.mjs, paired.mjs).
export function collect() {
  const out = [];
  for (const el of document.querySelectorAll('[data-anchor]')) {
    const r = el.getBoundingClientRect();
    out.push({
      anchor: el.getAttribute('data-anchor'),
      role: el.getAttribute('role') || el.tagName.toLowerCase(),
      name: el.getAttribute('aria-label') || el.textContent.trim(),
      disabled: el.disabled === true || el.getAttribute('aria-disabled') === 'true',
      bbox: { x: r.x, y: r.y, width: r.width, height: r.height },
    });
  }
  return JSON.stringify(out);
}

// waymark's collector as the runner sends it, part by part (`{name, text}`, in the order of
// their names, see src/collector/source.rs), from the working tree (`rev` null) or from
// commit `rev`; `collectorSource` joins them.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PARTS = 'src/collector/js/';
export function collectorParts(rev) {
  if (rev === null) {
    return readdirSync(ROOT + PARTS).filter((f) => f.endsWith('.js')).sort()
      .map((name) => ({ name, text: readFileSync(ROOT + PARTS + name, 'utf8') }));
  }
  const git = (...args) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return git('ls-tree', '--name-only', `${rev}:${PARTS}`).split('\n').filter((f) => f.endsWith('.js')).sort()
    .map((name) => ({ name, text: git('show', `${rev}:${PARTS}${name}`) }));
}
export function collectorSource(rev) {
  return collectorParts(rev).map((p) => p.text).join('');
}

// The browsers the comparisons run on, those installed: Debian's headless shell and its
// full Chromium, by name.
export const BROWSERS = [['headless shell', '/usr/lib/chromium/chromium-headless-shell'], ['full Chromium', '/usr/bin/chromium']]
  .filter(([, path]) => existsSync(path));

// A reference script's command line, read with Node's own parser: `numbers` names each
// numeric option with its default and least value (`{runs: [5, 1]}` is `--runs R`, R >= 1),
// `flags` the boolean ones; the rest are page sizes N (`sizes` when none is given). On a bad
// one, prints what is wrong and `usage`, and exits 2.
export function options(argv, usage, { numbers = {}, strings = {}, flags = [], sizes = [1000, 10000] }) {
  const fail = (msg) => {
    console.error(`${msg}\nusage: ${usage}`);
    process.exit(2);
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: Object.fromEntries([
        ...[...Object.keys(numbers), ...Object.keys(strings)].map((k) => [k, { type: 'string' }]),
        ...flags.map((k) => [k, { type: 'boolean', default: false }]),
      ]),
    });
  } catch (e) {
    fail(e.message);
  }
  const o = { ...parsed.values };
  for (const [k, [fallback, least]] of Object.entries(numbers)) {
    o[k] = o[k] === undefined ? fallback : Number(o[k]);
    if (!(o[k] >= least)) fail(`--${k} takes a number of at least ${least}`);
  }
  for (const [k, fallback] of Object.entries(strings)) if (o[k] === undefined) o[k] = fallback;
  for (const p of parsed.positionals) if (!/^\d+$/.test(p)) fail(`${p} is not a page size N`);
  o.ns = parsed.positionals.length ? parsed.positionals.map(Number) : sizes;
  return o;
}
