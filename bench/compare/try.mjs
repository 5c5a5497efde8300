// scratch: time expressions in the dense page (not committed)
import { densePage, launch, median, openPage, serve } from './dense.mjs';
import { readFileSync } from 'node:fs';
const n = 10000;
const exprs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const browser = await launch();
const server = await serve();
server.show(densePage(n).html);
const page = await openPage(browser, server, n);
const cdp = await page.context().newCDPSession(page);
for (const [name, e] of Object.entries(exprs)) {
  const ex = `(() => { const t0 = performance.now(); let r = (${e}); return [performance.now() - t0, String(r)]; })()`;
  const ts = []; let last;
  for (let i = 0; i < 25; i++) { const r = await cdp.send('Runtime.evaluate', { expression: ex, returnByValue: true }); if (r.exceptionDetails) throw new Error(name + JSON.stringify(r.exceptionDetails)); ts.push(r.result.value[0]); last = r.result.value[1]; }
  console.log(median(ts).toFixed(2).padStart(8), 'ms', name, '=>', last.slice(0, 60));
}
await browser.close(); server.close();
