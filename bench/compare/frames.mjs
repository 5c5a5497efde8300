// What Chromium's renderer does itself after a click and after typing on the dense pages:
// the floor under any tool's invoke and fill, whoever sends the input.
// Usage: node bench/compare/frames.mjs [--runs R] N...
// For each N: serve gen-dense.py's page on 127.0.0.1, then R times each: a raw mouse click
// (move, press, release) at the centre of the click target, and CDP's Input.insertText into
// the focused fill target, traced; prints the renderer main thread's time in the 400 ms
// after the input, by phase (medians over R; phases nest: Layout is part of a HitTest that
// needed it, CompositingInputs part of PrePaint).
// Launches Debian's Chromium as waymark picks it (see dense.mjs), or $CHROMIUM; never downloads a browser.
import { densePage, launch, median, openPage, options, serve } from './dense.mjs';

const PHASES = ['HitTest', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'LocalFrameView::RunCompositingInputsLifecyclePhase',
  'Paint', 'Commit', 'EventDispatch', 'FunctionCall'];
const SHORT = { 'LocalFrameView::RunCompositingInputsLifecyclePhase': 'CompositingInputs' };
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink'];

// The renderer main thread's complete events in [from, from + 400 ms), summed by name; an
// event inside another of its name (Paint holds Paint) counts once.
function phases(events, from) {
  const main = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args.name === 'CrRendererMain')
    .map((e) => `${e.pid}:${e.tid}`));
  const sums = Object.fromEntries(['busy', ...PHASES].map((p) => [p, 0]));
  const end = {};
  const inWindow = events.filter((e) => e.ph === 'X' && main.has(`${e.pid}:${e.tid}`) && e.ts >= from && e.ts < from + 400e3)
    .sort((a, b) => a.ts - b.ts);
  for (const e of inWindow) {
    const name = e.name === 'ThreadControllerImpl::RunTask' ? 'busy' : e.name;
    if (!(name in sums) || e.ts < (end[name] ?? -1)) continue;
    sums[name] += e.dur / 1000;
    end[name] = e.ts + e.dur;
  }
  return sums;
}

// Traces `act` and sums what the renderer did from its first input event on.
async function traced(browser, page, act) {
  await browser.startTracing(page, { categories: CATEGORIES });
  await page.waitForTimeout(50);
  await act();
  await page.waitForTimeout(400);
  const events = JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents;
  const input = events.filter((e) => e.ph === 'X' && (e.name === 'EventDispatch' || e.name === 'TypingCommand::InsertText'))
    .map((e) => e.ts).sort((a, b) => a - b)[0];
  if (input === undefined) throw new Error('the trace holds no input event');
  return phases(events, input);
}

async function one(browser, server, n, runs) {
  const { html, click, fill } = densePage(n);
  server.show(html);
  const page = await openPage(browser, server, n);
  const out = { click: [], fill: [] };
  await page.locator(click).scrollIntoViewIfNeeded();
  const box = await page.locator(click).boundingBox();
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  for (let i = 0; i < runs; i++) {
    out.click.push(await traced(browser, page, async () => {
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.up();
    }));
  }
  await page.focus(fill);
  for (let i = 0; i < runs; i++) {
    await page.evaluate((sel) => document.querySelector(sel).select(), fill);
    out.fill.push(await traced(browser, page, () => page.keyboard.insertText(`value ${i}`)));
  }
  await page.close();
  return out;
}

async function main() {
  const o = options(process.argv.slice(2), 'node bench/compare/frames.mjs [--runs R] N...', { numbers: { runs: [3, 1] } });
  const server = await serve();
  const browser = await launch();
  try {
    console.log(`Chromium ${browser.version()}; renderer main thread, ms in the 400 ms after the input, median of ${o.runs}`);
    const cols = ['busy', ...PHASES];
    console.log(['N', 'action', ...cols.map((c) => SHORT[c] || c)].join('\t'));
    for (const n of o.ns) {
      const r = await one(browser, server, n, o.runs);
      for (const action of ['click', 'fill']) {
        const row = cols.map((c) => median(r[action].map((p) => p[c])).toFixed(1));
        console.log([n, action, ...row].join('\t'));
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
