// The oracle for tests/it/viewport.rs: whether each anchored control of
// tests/fixtures/audit/viewport.html (and of its frame) is in the viewport as Playwright's
// toBeInViewport() says, which asks an IntersectionObserver for the element's ratio (in
// view when above 0), at each step the test takes: the page as loaded, then each script of
// STEPS run in turn. Run against Debian's Chromium (no browser is downloaded), 1280 × 800
// as waymark's tab. Prints {step: {anchor: bool}} as JSON.
//
//   node tests/playwright/viewport.mjs URL STEP_SCRIPT...
import { launch } from './launch.mjs';

const [url, ...steps] = process.argv.slice(2);

// Each anchored element's ratio > 0, as Playwright's injected viewportRatio computes it.
const ratios = () => Promise.all([...document.querySelectorAll('[data-anchor]')].map((el) =>
  new Promise((resolve) => {
    const o = new IntersectionObserver((entries) => {
      o.disconnect();
      resolve([el.getAttribute('data-anchor'), entries[0].intersectionRatio > 0]);
    });
    o.observe(el);
  })));

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  const out = {};
  for (const [i, step] of [null, ...steps].entries()) {
    if (step) await page.evaluate(step);
    // A frame for the scroll to be painted and its events sent, as waymark waits one.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const seen = {};
    for (const frame of page.frames()) {
      for (const [anchor, shown] of await frame.evaluate(ratios)) seen[anchor] = shown;
    }
    out[i] = seen;
  }
  console.log(JSON.stringify(out));
} finally {
  await browser.close();
}
