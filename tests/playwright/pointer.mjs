// The oracle for tests/it/pointer.rs: Playwright's own right click, double click, middle
// click and Shift+Control click on the pad of tests/fixtures/audit/clicks.html, and its
// `locator.nth(1)` among three unkeyed Delete buttons, run against Debian's Chromium (no
// browser is downloaded). Prints, as JSON, each click's event log (`window.log`) and the
// status after the nth press, for the test to compare with what waymark's invoke fired.
//
//   node tests/playwright/pointer.mjs URL
import { launch } from './launch.mjs';

const [url] = process.argv.slice(2);

const browser = await launch();
try {
  const page = await browser.newPage();
  const pad = page.locator('[data-anchor="clicks.pad"]');
  const clicks = {
    right: () => pad.click({ button: 'right' }),
    double: () => pad.dblclick(),
    middle: () => pad.click({ button: 'middle' }),
    modified: () => pad.click({ modifiers: ['Shift', 'Control'] }),
  };
  const logs = {};
  for (const [name, click] of Object.entries(clicks)) {
    await page.goto(url);
    await click();
    logs[name] = await page.evaluate(() => window.log);
  }
  await page.goto(url);
  await page.locator('[data-anchor="row.delete"]').nth(1).click();
  const nth = await page.locator('[data-anchor="clicks.status"]').textContent();
  console.log(JSON.stringify({ logs, nth }));
} finally {
  await browser.close();
}
