// The oracle for tests/it/frames.rs: Playwright's frameLocator on the shop page whose
// payment form is a frame of another origin, run against Debian's Chromium (no browser is
// downloaded), with the same process model waymark launches (every origin isolated).
// Fills the card number and presses "Pay now" inside the frame, and prints what the page
// shows after, as JSON, for the test to compare with what waymark's fill and invoke did.
//
//   node tests/playwright/frame-pay.mjs URL
import { launch } from './launch.mjs';

const [url] = process.argv.slice(2);

const browser = await launch(['--site-per-process', '--enable-features=StrictOriginIsolation']);
try {
  const page = await browser.newPage();
  await page.goto(url);
  const pay = page.frameLocator('iframe[title="Payment"]');
  await pay.getByRole('textbox', { name: 'Card number' }).fill('4242');
  await pay.getByRole('button', { name: 'Pay now' }).click();
  console.log(JSON.stringify({
    status: await pay.getByRole('status').textContent(),
    card: await pay.getByRole('textbox', { name: 'Card number' }).inputValue(),
    // The shop's own "Pay now" button (outside the frame) was not pressed.
    shop: await page.locator('#shop-pay').textContent(),
  }));
} finally {
  await browser.close();
}
