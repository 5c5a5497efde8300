// The Playwright side of tests/it/har.rs, on Debian's Chromium (no browser is downloaded):
//
//   node tests/playwright/har.mjs record URL FILE   recordHar while items.html loads its list
//   node tests/playwright/har.mjs replay URL FILE   routeFromHAR (notFound: 'abort'), then
//                                                   prints what items.html shows, as JSON
import { launch } from './launch.mjs';

const [mode, url, file] = process.argv.slice(2);

const browser = await launch();
try {
  const status = (page) => page.locator('#status');
  if (mode === 'record') {
    const context = await browser.newContext({ recordHar: { path: file } });
    const page = await context.newPage();
    await page.goto(new URL('items.html', url).href);
    await page.locator('[data-anchor="items.load"]').click();
    await status(page).filter({ hasText: 'Loaded' }).waitFor();
    await context.close();
  } else {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.routeFromHAR(file, { notFound: 'abort' });
    await page.goto(new URL('items.html', url).href);
    await page.locator('[data-anchor="items.load"]').click();
    await status(page).filter({ hasText: /Loaded|Error|Network/ }).waitFor();
    console.log(JSON.stringify(await status(page).textContent()));
    await context.close();
  }
} finally {
  await browser.close();
}
