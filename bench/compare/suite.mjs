// waymark beside Playwright Test on whole suites, side by side: the helpdesk fixture app's
// suite (app/journeys and tests/app.spec.mjs) and the shipped journeys' port
// (../../journeys and tests/shipped.spec.mjs), each run whole by both tools with 1 worker
// and with 2, R rounds (default 3) alternating which tool goes first; it prints each run's
// wall time, the medians and the ratio (Playwright's median over waymark's).
//
// Usage: scripts/with-chromium node bench/compare/suite.mjs [--rounds R] [--workers 1,2]
//          [--suites app,shipped] [--waymark PATH] [--json]
// It builds nothing: `cargo build --release` first (PATH defaults to target/release/waymark),
// and `npm install --prefix bench/compare` (with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1; no
// browser is downloaded: both tools launch Debian's Chromium, see playwright.config.mjs).
//
// A run's wall time is from spawning the tool's process to its exit: process start, the
// browsers' launch, every test, the reports. Each tool runs as its user runs it:
//   waymark run PATH... --jobs N [--base-url APP --anchors app/anchors.yaml]
//   node .../@playwright/test/cli.js test --project P --workers N   (what `npx playwright test` runs)
// The helpdesk app is served from app/site by this script (its state lives in each browser
// context's sessionStorage). The shipped journeys run against the embedded demo app, whose
// state is the server's: waymark's run starts its own (inside its timed run); Playwright's
// gets a fresh `waymark demo` before each run, started outside its timed run.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './dense.mjs';
import { SHIPPED } from './traces.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(HERE, '..', '..');
const SITE = join(HERE, 'app', 'site');
const PW_CLI = join(HERE, 'node_modules', '@playwright', 'test', 'cli.js');

function options() {
  const usage = 'node bench/compare/suite.mjs [--rounds R] [--workers 1,2] [--suites app,shipped] [--waymark PATH] [--json]';
  let v;
  try {
    ({ values: v } = parseArgs({
      options: {
        rounds: { type: 'string', default: '3' },
        workers: { type: 'string', default: '1,2' },
        suites: { type: 'string', default: 'app,shipped' },
        waymark: { type: 'string', default: join(ROOT, 'target', 'release', 'waymark') },
        json: { type: 'boolean', default: false },
      },
    }));
  } catch (e) {
    console.error(`${e.message}\nusage: ${usage}`);
    process.exit(2);
  }
  const o = {
    rounds: Number(v.rounds),
    workers: v.workers.split(',').map(Number),
    suites: v.suites.split(','),
    waymark: v.waymark,
    json: v.json,
  };
  const bad = !(o.rounds >= 1) || o.workers.some((w) => !(w >= 1))
    || o.suites.some((s) => s !== 'app' && s !== 'shipped');
  if (bad) {
    console.error(`bad option\nusage: ${usage}`);
    process.exit(2);
  }
  for (const [what, path, how] of [['waymark', o.waymark, 'cargo build --release'],
    ['@playwright/test', PW_CLI, 'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix bench/compare']]) {
    if (!existsSync(path)) {
      console.error(`no ${what} at ${path}: run \`${how}\` first`);
      process.exit(2);
    }
  }
  return o;
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript' };

// app/site on a free 127.0.0.1 port.
async function serveSite() {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^\/+/, '');
    const file = join(SITE, path === '' ? 'index.html' : path);
    if (!file.startsWith(SITE) || !existsSync(file)) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

// A fresh embedded demo app (`waymark demo`), once it printed its URL.
function startDemo(waymark) {
  return new Promise((ok, fail) => {
    const child = spawn(waymark, ['demo'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+/);
      if (m) ok({ url: m[0], close: () => new Promise((done) => { child.once('exit', done); child.kill('SIGINT'); }) });
    });
    child.once('exit', (code) => fail(new Error(`waymark demo exited (${code}) before printing its URL`)));
  });
}

// Runs a command to its end and returns its wall time in ms; fails when it fails.
function timed(cmd, args, env) {
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.once('exit', (code) => {
      const ms = performance.now() - t0;
      if (code === 0) ok(ms);
      else fail(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}`));
    });
  });
}

// How each tool runs each suite with `workers` workers: a function that runs it and
// returns its wall time.
function runners(o, site) {
  const app = join('bench', 'compare', 'app');
  return {
    app: {
      waymark: (w) => timed(o.waymark, ['run', join(app, 'journeys'), '--base-url', site.url,
        '--anchors', join(app, 'anchors.yaml'), '--jobs', String(w)]),
      playwright: (w) => timed(process.execPath, [PW_CLI, 'test', '--config', join(HERE, 'playwright.config.mjs'),
        '--project', 'app', '--workers', String(w)], { APP_URL: site.url }),
    },
    shipped: {
      waymark: (w) => timed(o.waymark, ['run', ...SHIPPED, '--jobs', String(w)]),
      playwright: async (w) => {
        const demo = await startDemo(o.waymark);
        try {
          return await timed(process.execPath, [PW_CLI, 'test', '--config', join(HERE, 'playwright.config.mjs'),
            '--project', 'shipped', '--workers', String(w)], { DEMO_URL: demo.url });
        } finally {
          await demo.close();
        }
      },
    },
  };
}

function load() {
  try { return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '); } catch { return 'unknown'; }
}

async function main() {
  const o = options();
  const site = await serveSite();
  const run = runners(o, site);
  const results = [];
  const loads = [load()];
  try {
    for (const suite of o.suites) {
      for (const w of o.workers) {
        const times = { waymark: [], playwright: [] };
        for (let r = 0; r < o.rounds; r++) {
          // Alternating which goes first, so neither always meets the machine as the other left it.
          const order = r % 2 === 0 ? ['waymark', 'playwright'] : ['playwright', 'waymark'];
          for (const tool of order) {
            const ms = await run[suite][tool](w);
            times[tool].push(ms);
            if (!o.json) console.error(`${suite} workers=${w} round ${r + 1}: ${tool} ${(ms / 1000).toFixed(2)} s`);
          }
        }
        const wm = median(times.waymark), pw = median(times.playwright);
        results.push({ suite, workers: w, waymark_ms: times.waymark, playwright_ms: times.playwright,
          waymark_median_ms: wm, playwright_median_ms: pw, ratio: pw / wm });
        loads.push(load());
      }
    }
  } finally {
    site.close();
  }
  if (o.json) {
    console.log(JSON.stringify({ rounds: o.rounds, load_average: loads, results }, null, 2));
    return;
  }
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  console.log(`medians of ${o.rounds} round(s); load average (1, 5, 15 min) from ${loads[0]} to ${loads[loads.length - 1]}`);
  console.log('suite    workers  waymark   Playwright Test  Playwright / waymark');
  for (const r of results) {
    console.log(`${r.suite.padEnd(8)} ${String(r.workers).padEnd(8)} ${s(r.waymark_median_ms).padEnd(9)} ${s(r.playwright_median_ms).padEnd(16)} ${r.ratio.toFixed(2)}x`);
  }
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
