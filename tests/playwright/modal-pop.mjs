// The oracle for tests/it/actionability.rs: Playwright's own click() on the animated modal
// of tests/fixtures/audit/modal-pop.html, run against Debian's Chromium (no browser is
// downloaded). Prints what changed on the page, as JSON, for the test to compare with
// what waymark's invoke changed.
//
//   node tests/playwright/modal-pop.mjs URL [ROUNDS]
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(path.resolve('target/playwright/node_modules/'));
const { chromium } = require('playwright-core');
const executablePath = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium']
  .find((p) => existsSync(p));
const [url, rounds = '5'] = process.argv.slice(2);

const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  await page.goto(url);
  const seen = [];
  for (let i = 0; i < Number(rounds); i++) {
    await page.getByRole('button', { name: 'Edit profile' }).click();
    await page.getByRole('button', { name: 'Close' }).waitFor();
    await page.getByRole('button', { name: 'Close' }).click();
    seen.push({
      status: await page.getByRole('status').textContent(),
      dialogs: await page.getByRole('dialog').count(),
    });
  }
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
