// Playwright's answers for the differential test (tests/it/differential.rs): given pages and
// locators as JSON on stdin, prints one JSON line per page with what Playwright's locators
// find (each element named by its marker attribute), which marked elements
// `isVisible()`, and each marked element's name and role in Chromium's accessibility tree.
//
// stdin: {"browser": PATH, "mark": "data-dt-id",
//         "pages": [{"url": URL, "locators": [{"kind": "role", "role": R, "name": T?,
//                    "hidden": B}, {"kind": "text" | "label" | "placeholder", "t": T},
//                    {"kind": "test_id", "v": V}]}]}
// where a text T is {"s": STRING} (exact) or {"re": SOURCE, "f": FLAGS}.
// stdout, per page: {"url": URL, "found": [[MARK…] per locator, or {"error": E}],
//                    "visible": [MARK…], "ax": {MARK: {"name": N, "role": R, "ignored": B}},
//                    "glyphs": [MARK…] (those whose text holds an icon-font glyph),
//                    "contents": [MARK…] (`display: contents` under a hidden ancestor),
//                    "in_viewport": [MARK…] (IntersectionObserver ratio above 0),
//                    "edge": [MARK…] (a box edge within half a pixel of the window's),
//                    "states": {MARK: {"disabled": B, "checked": B|null, "editable": B|null,
//                               "readonly_select": B}}
//                    (the elements with data-dt-state)}
//
// It launches the browser named (Debian's Chromium or its headless shell: no download),
// once, and one page in it for every page given.

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const where = process.env.WAYMARK_PLAYWRIGHT_CORE || 'playwright-core';
const { chromium } = require(where);

const input = JSON.parse(readFileSync(0, 'utf8'));
const mark = input.mark;

function text(t) {
  return t.re !== undefined ? new RegExp(t.re, t.f) : t.s;
}

function locate(page, l) {
  switch (l.kind) {
    case 'role': {
      const opts = { includeHidden: !!l.hidden, exact: true };
      if (l.name) opts.name = text(l.name);
      return page.getByRole(l.role, opts);
    }
    case 'text': return page.getByText(text(l.t), { exact: true });
    case 'label': return page.getByLabel(text(l.t), { exact: true });
    case 'placeholder': return page.getByPlaceholder(text(l.t), { exact: true });
    case 'test_id': return page.getByTestId(l.v);
    default: throw new Error('unknown locator kind ' + l.kind);
  }
}

// What a found element stands for in waymark's answer: text inside a control finds the
// control (a documented difference; see the README).
const LIFT = 'a[href],button,input:not([type=hidden]),select,textarea,summary,' +
  '[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],' +
  '[role=menuitem],[role=option],[role=combobox],[role=textbox],[role=searchbox],' +
  '[role=slider],[role=spinbutton],[contenteditable=""],[contenteditable=true],' +
  '[tabindex]:not([tabindex="-1"])';

async function marks(locator, lift) {
  return locator.evaluateAll((els, [mark, lift]) => {
    const out = [];
    for (const e of els) {
      const t = lift ? (e.closest(lift) || e) : e;
      const m = t.getAttribute(mark);
      if (!out.includes(m)) out.push(m);
    }
    return out;
  }, [mark, lift]);
}

// Chromium's accessibility tree for the marked elements: the DOM (shadow roots pierced)
// gives each backend node's marker, the full tree each node's name and role.
async function axOf(cdp) {
  const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
  const byNode = new Map();
  (function walk(n) {
    if (n.attributes) {
      for (let i = 0; i < n.attributes.length; i += 2) {
        if (n.attributes[i] === mark) byNode.set(n.backendNodeId, n.attributes[i + 1]);
      }
    }
    for (const c of n.children || []) walk(c);
    for (const c of n.shadowRoots || []) walk(c);
    if (n.contentDocument) walk(n.contentDocument);
  })(root);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const out = {};
  for (const n of nodes) {
    const m = byNode.get(n.backendDOMNodeId);
    if (m === undefined) continue;
    out[m] = {
      name: n.name ? String(n.name.value ?? '') : '',
      role: n.role ? String(n.role.value ?? '') : '',
      ignored: !!n.ignored,
    };
  }
  return out;
}

// Several pages at a time: each answer waits on the browser's round trips, not on a core.
const WORKERS = Math.max(1, Number(process.env.WAYMARK_PLAYWRIGHT_PAGES || 4));

async function answer(page, cdp, p) {
  await page.goto(p.url, { waitUntil: 'load' });
  const found = [];
  for (const l of p.locators) {
    try {
      found.push(await marks(locate(page, l), l.kind === 'text' ? LIFT : null));
    } catch (e) {
      found.push({ error: String(e.message || e).split('\n')[0] });
    }
  }
  const visible = await marks(page.locator(`[${mark}]`).filter({ visible: true }), null);
  const ax = await axOf(cdp);
  // The elements whose text or label holds an icon-font glyph (see the README's
  // documented differences).
  const glyphs = await page.locator(`[${mark}]`).evaluateAll((els, mark) => els
    .filter((e) => /[\uE000-\uF8FF]/.test((e.textContent || '') + (e.getAttribute('aria-label') || '')))
    .map((e) => e.getAttribute(mark)), mark);
  // The `display: contents` elements under an aria-hidden or `visibility: hidden` ancestor
  // (see the README's documented differences).
  const contents = await page.locator(`[${mark}]`).evaluateAll((els, mark) => els
    .filter((e) => getComputedStyle(e).display === 'contents' && !!e.parentElement
      && (!!e.parentElement.closest('[aria-hidden=true]') || getComputedStyle(e.parentElement).visibility !== 'visible'))
    .map((e) => e.getAttribute(mark)), mark);
  // Those in the viewport as Playwright's toBeInViewport() says it: an IntersectionObserver's
  // ratio above 0.
  const inViewport = await page.locator(`[${mark}]`).evaluateAll((els, mark) => Promise.all(els.map((el) =>
    new Promise((resolve) => {
      const o = new IntersectionObserver((entries) => {
        o.disconnect();
        resolve(entries[0].intersectionRatio > 0 ? el.getAttribute(mark) : null);
      });
      o.observe(el);
    }))).then((marks) => marks.filter((m) => m !== null)), mark);
  // The states of the controls that carry data-dt-state, as Playwright's isDisabled(),
  // isChecked() and isEditable() say them (null where Playwright throws: not a checkbox,
  // not an editable element).
  const states = {};
  const stated = page.locator('[data-dt-state]');
  // Each one's mark, and whether it is a select with a readonly attribute (see the README's
  // documented differences).
  const about = await stated.evaluateAll((els, mark) => els.map((e) =>
    [e.getAttribute(mark), e.tagName === 'SELECT' && e.hasAttribute('readonly')]), mark);
  const asked = async (f) => { try { return await f(); } catch { return null; } };
  for (const [i, [m, readonlySelect]] of about.entries()) {
    const el = stated.nth(i);
    states[m] = {
      disabled: await el.isDisabled(),
      checked: await asked(() => el.isChecked()),
      editable: await asked(() => el.isEditable()),
      readonly_select: readonlySelect,
    };
  }
  // Those whose box has an edge within half a pixel of the window's (see the README's
  // documented differences).
  const edge = await page.locator(`[${mark}]`).evaluateAll((els, mark) => els.filter((e) => {
    const r = e.getBoundingClientRect(), near = (a, b) => Math.abs(a - b) < 0.5;
    return near(r.top, innerHeight) || near(r.bottom, 0) || near(r.left, innerWidth) || near(r.right, 0);
  }).map((e) => e.getAttribute(mark)), mark);
  return JSON.stringify({ url: p.url, found, visible, ax, glyphs, contents, in_viewport: inViewport, edge, states });
}

const browser = await chromium.launch({ executablePath: input.browser, headless: true, args: ['--no-sandbox'] });
try {
  // waymark's tab's viewport (LaunchOptions' 1280 × 800), for `in_viewport`.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  let next = 0;
  await Promise.all(Array.from({ length: WORKERS }, async () => {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('DOM.enable');
    await cdp.send('Accessibility.enable');
    while (next < input.pages.length) {
      const p = input.pages[next++];
      process.stdout.write(await answer(page, cdp, p) + '\n');
    }
  }));
} finally {
  await browser.close();
}
