// The oracle for tests/it/press.rs: Playwright's own keyboard.press of each PRESS on the
// field it names in tests/fixtures/audit/keys.html, in turn, against Debian's Chromium (no
// browser is downloaded). Prints, as JSON, what each press left (`window.taken()`: the
// events it fired, the focused field, its value and selection), for the test to compare
// with what waymark's `press` left.
//
//   node tests/playwright/keys.mjs URL '[["selector", "key"], ...]'
import { launch } from './launch.mjs';

const [url, presses] = process.argv.slice(2);

const browser = await launch();
try {
  const page = await browser.newPage();
  await page.goto(url);
  const out = [];
  for (const [anchor, key] of JSON.parse(presses)) {
    await page.locator(`[data-anchor="${anchor}"]`).press(key);
    out.push(await page.evaluate(() => window.taken()));
  }
  console.log(JSON.stringify(out));
} finally {
  await browser.close();
}
