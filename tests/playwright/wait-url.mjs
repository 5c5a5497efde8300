// The oracle for tests/it/waits.rs: what Playwright's page.waitForURL does with a route a
// redirect reaches in a document that is still loading. tests/fixtures/audit/waits.html is
// loaded and its "Go elsewhere" button pressed (the page goes to /waits-loaded.html 100 ms
// later, whose load an image holds back 1.5 s, and which draws `loaded.ready` at its load);
// then waitForURL with a 600 ms timeout, and again with the default. Against Debian's
// Chromium (no browser is downloaded). Prints {short, ready} as JSON: `short` "timeout" or
// "held", the first wait's end; `ready` the text of `loaded.ready` as the second wait ends
// (read at once, with no wait of its own), or null.
//
//   node tests/playwright/wait-url.mjs URL-OF-waits.html
import { launch } from './launch.mjs';

const [url] = process.argv.slice(2);

const browser = await launch();
try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.getByRole('button', { name: 'Go elsewhere' }).click();
  let short = 'held';
  try {
    await page.waitForURL('**/waits-loaded.html', { timeout: 600 });
  } catch (e) {
    if (e.name !== 'TimeoutError') throw e;
    short = 'timeout';
  }
  await page.waitForURL('**/waits-loaded.html');
  const ready = await page.evaluate(() => {
    const el = document.querySelector('[data-anchor="loaded.ready"]');
    return el ? el.textContent : null;
  });
  console.log(JSON.stringify({ short, ready }));
} finally {
  await browser.close();
}
