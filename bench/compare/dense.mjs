// What the reference scripts share: the dense pages of the shared generator, served on
// 127.0.0.1, and Debian's Chromium launched headless (never a downloaded browser).
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

// The shared generator beside the repository (../shared/bench), unless GEN_DENSE names another.
const GEN = process.env.GEN_DENSE || fileURLToPath(new URL('../../../shared/bench/gen-dense.py', import.meta.url));
const EXE = process.env.CHROMIUM || '/usr/bin/chromium';

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

export function launch() {
  const args = process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: EXE, headless: true, args });
}
