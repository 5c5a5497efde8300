// The page's own answer to Playwright's click() and fill() on the dense pages, timed in the
// page as `waymark bench` times its own invoke and fill ("the page's frame after the
// input"): from the first trusted input event to reach the document (the pointer's move or
// press; `beforeinput` for the typing) to the end of the first animation frame rendered
// after the last (the click; the `input`). With the same figure under waymark, it tells
// the page's rendering from what each tool adds.
// Usage: node bench/compare/answer.mjs [--runs R] N...
// For each N: serve gen-dense.py's page on 127.0.0.1, then R times each: page.click on the
// click target and page.fill on the fill target, each followed by a 250 ms pause for the
// frame; prints the medians of the call's time and of the page's frame.
// Launches Debian's Chromium as waymark picks it (see dense.mjs), or $CHROMIUM; never downloads a browser.
import { densePage, launch, median, openPage, options, serve } from './dense.mjs';

// Installed in the page: the same timing as `timeFrame` in src/collector/js/11-settle.js.
function listen() {
  window.__answers = [];
  let from = null;
  const start = (e) => { if (e.isTrusted && from === null) from = performance.now(); };
  const end = (e) => {
    if (!e.isTrusted) return;
    const at = from === null ? performance.now() : from;
    from = null;
    requestAnimationFrame(() => scheduler.postTask(
      () => window.__answers.push(performance.now() - at), { priority: 'user-blocking' }));
  };
  for (const t of ['pointermove', 'mousemove', 'pointerdown', 'mousedown', 'beforeinput']) {
    document.addEventListener(t, start, true);
  }
  for (const t of ['click', 'input']) document.addEventListener(t, end, true);
}

async function one(browser, server, n, runs) {
  const { html, click, fill } = densePage(n);
  server.show(html);
  const page = await openPage(browser, server, n);
  await page.evaluate(listen);
  const rows = [];
  for (const [what, act] of [['click()', () => page.click(click)], ['fill()', (i) => page.fill(fill, `value ${i}`)]]) {
    const times = [], frames = [];
    for (let i = 0; i < runs; i++) {
      await page.evaluate(() => { window.__answers = []; });
      const t = performance.now();
      await act(i);
      times.push(performance.now() - t);
      await page.waitForTimeout(250);
      const seen = await page.evaluate(() => window.__answers.slice());
      if (seen.length) frames.push(seen[seen.length - 1]);
    }
    rows.push(`N=${n} ${what.padEnd(8)} ${median(times).toFixed(1)} ms; the page's frame after the input `
      + `${frames.length ? median(frames).toFixed(1) : '-'} ms (${frames.length} of ${runs} runs)`);
  }
  await page.close();
  return rows.join('\n');
}

const o = options(process.argv.slice(2), 'node bench/compare/answer.mjs [--runs R] N...',
  { numbers: { runs: [10, 1] } });
const browser = await launch();
const server = await serve();
try {
  console.log(`Chromium ${browser.version()}, ${o.runs} runs per N; medians`);
  for (const n of o.ns) console.log(await one(browser, server, n, o.runs));
} finally {
  await browser.close();
  server.close();
}
