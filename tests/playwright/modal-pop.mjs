// The oracle for tests/it/actionability.rs: Playwright's own click() on the animated modal
// of tests/fixtures/audit/modal-pop.html, run against Debian's Chromium (no browser is
// downloaded). Prints what changed on the page, as JSON, for the test to compare with
// what waymark's invoke changed.
//
//   node tests/playwright/modal-pop.mjs URL [ROUNDS]
import { launch } from './launch.mjs';

const [url, rounds = '5'] = process.argv.slice(2);

const browser = await launch();
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
