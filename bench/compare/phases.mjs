// scratch: a whole read's phases, timed in the page
import { densePage, launch, median, openPage, serve } from './dense.mjs';
import { readdirSync, readFileSync } from 'node:fs';
const ROOT = new URL('../../', import.meta.url).pathname, PARTS = 'src/collector/js/';
let src = readdirSync(ROOT + PARTS).filter((f) => f.endsWith('.js')).sort().map((f) => readFileSync(ROOT + PARTS + f, 'utf8')).join('');
const marks = [
  ['    var roots = collectRoots();\n', 'start'],
  ['    W.matchWhole = whole;\n', 'roots'],
  ['    W.generated = ruleStops(roots, \'generated\', generates);\n', 'matched'],
  ['    var prev = W.cache;\n', 'generated'],
  ['      trustBoxes(roots, scans);\n', 'scan'],
  ['      var wasRegion = hit', 'trustBoxes'],
  ['      dialog = modalOf(', 'records'],
  ['    var ev = null, capsKey', 'modal'],
  ['    head.kind = \'full\';\n', 'head'],
];
for (const [at, name] of marks) {
  if (!src.includes(at)) throw new Error('no ' + at);
  src = src.replace(at, `window.__ph.push(['${name}', performance.now()]);\n` + at);
}
const n = 10000; const browser = await launch(); const server = await serve();
server.show(densePage(n).html);
const page = await openPage(browser, server, n);
const cdp = await page.context().newCDPSession(page);
await cdp.send('Runtime.evaluate', { expression: `window.__w = (${src}); 1` });
const acc = {};
for (let i = 0; i < 30; i++) {
  const r = await cdp.send('Runtime.evaluate', { expression: `window.__ph = []; var s = window.__w("read", {max: ${n}, whole: true}); window.__ph.push(['end', performance.now()]); JSON.stringify(window.__ph)`, returnByValue: true });
  if (r.exceptionDetails) throw new Error(JSON.stringify(r.exceptionDetails));
  const ph = JSON.parse(r.result.value);
  if (i < 3) continue;
  for (let k = 1; k < ph.length; k++) (acc[ph[k - 1][0] + '→' + ph[k][0]] ||= []).push(ph[k][1] - ph[k - 1][1]);
}
let tot = 0;
for (const [k, v] of Object.entries(acc)) { const m = median(v); tot += m; console.log(m.toFixed(2).padStart(7), k); }
console.log(tot.toFixed(2).padStart(7), 'sum of medians');
await browser.close(); server.close();
