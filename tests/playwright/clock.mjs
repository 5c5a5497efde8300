// The oracle for tests/it/clock.rs: Playwright's own page.clock on
// tests/fixtures/audit/clock.html, run against Debian's Chromium (no browser is
// downloaded), playing the journey waymark plays with clock_install, clock_pause +
// clock_set (pauseAt), clock_set (setSystemTime) and clock_advance (runFor). Prints what
// the page showed at each point, as JSON.
//
//   node tests/playwright/clock.mjs URL
import { launch } from './launch.mjs';

const [url] = process.argv.slice(2);

const browser = await launch();
try {
  const page = await browser.newPage();
  const text = async (anchor) => (await page.locator(`[data-anchor="${anchor}"]`).textContent()).trim();
  const shown = async () => `${await text('clock.now')} | ${await text('clock.left')} | ${await text('clock.stamp')}`;
  const seen = [];
  await page.clock.install({ time: new Date('2026-01-31T23:59:00') });
  await page.goto(url);
  await page.getByText('23:59 31 Jan').waitFor();
  await page.clock.pauseAt(new Date('2026-01-31T23:59:30'));
  seen.push(await shown());
  await page.locator('[data-anchor="clock.start"]').click();
  seen.push(await shown());
  await page.clock.runFor(3000);
  seen.push(await shown());
  await page.clock.runFor(60000);
  seen.push(await shown());
  await page.clock.setSystemTime(new Date('2026-02-28T12:00:00'));
  await page.clock.runFor(1000);
  seen.push(await shown());
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
