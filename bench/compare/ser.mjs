// scratch: how long the renderer's main thread spends after a big evaluate's JS ends
import { densePage, launch, median, openPage, serve } from './dense.mjs';
import { readdirSync, readFileSync } from 'node:fs';
const ROOT = new URL('../../', import.meta.url).pathname, PARTS = 'src/collector/js/';
const src = readdirSync(ROOT + PARTS).filter((f) => f.endsWith('.js')).sort().map((f) => readFileSync(ROOT + PARTS + f, 'utf8')).join('');
const n = 10000; const browser = await launch(); const server = await serve();
server.show(densePage(n).html);
const page = await openPage(browser, server, n);
const cdp = await page.context().newCDPSession(page);
await cdp.send('Runtime.evaluate', { expression: `window.__w = (${src}); window.__s = window.__w("read", {max: ${n}, whole: true}); window.__s.length` , returnByValue: true});
for (const [name, expr] of [['big', 'window.__s'], ['small', '"x"'], ['bigcopy', 'window.__s.slice(1)']]) {
  const gaps = [], trips = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const p1 = cdp.send('Runtime.evaluate', { expression: `window.__end = performance.now(); ${expr}`, returnByValue: true });
    const p2 = cdp.send('Runtime.evaluate', { expression: `performance.now() - window.__end`, returnByValue: true });
    await p1; const t1 = performance.now();
    const r2 = await p2;
    gaps.push(r2.result.value); trips.push(t1 - t0);
  }
  console.log(name, 'renderer gap', median(gaps).toFixed(2), 'ms; node trip', median(trips).toFixed(2));
}
await browser.close(); server.close();
