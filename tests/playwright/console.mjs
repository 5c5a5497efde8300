// The oracle for tests/it/console.rs: what Playwright's page.on('console') and
// page.on('pageerror') report for tests/fixtures/audit/console.html, loaded and then each of
// its buttons clicked in order, against Debian's Chromium (no browser is downloaded). Prints
// {console: [{level, text}], page_errors: [{message, source}]} as JSON: the console messages
// of the types waymark reports (error, warning, assert), each error as String(error) and the
// place the top line of its stack names ('' without a stack).
//
//   node tests/playwright/console.mjs URL
import { launch } from './launch.mjs';

const [url] = process.argv.slice(2);

const browser = await launch();
try {
  const page = await browser.newPage();
  const seen = { console: [], page_errors: [] };
  page.on('console', (m) => {
    if (['error', 'warning', 'assert'].includes(m.type()))
      seen.console.push({ level: m.type(), text: m.text() });
  });
  page.on('pageerror', (e) => {
    const at = (e.stack || '').split('\n').find((l) => l.startsWith('    at '));
    const place = at ? at.replace(/^ {4}at /, '').replace(/^.*\((.*)\)$/, '$1') : '';
    seen.page_errors.push({ message: String(e), source: place });
  });
  await page.goto(url);
  for (const name of ['Log', 'Throw', 'Reject', 'Quiet']) {
    await page.getByRole('button', { name }).click();
    await page.waitForTimeout(100);
  }
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
