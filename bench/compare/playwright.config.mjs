// Playwright Test's side of the suite benchmark (suite.mjs): the helpdesk fixture app's
// suite (tests/app.spec.mjs, at $APP_URL) and the shipped journeys' port (tests/shipped.spec.mjs,
// at $DEMO_URL, the embedded demo app), on the Chromium a headless `waymark` run picks (see
// dense.mjs). Never downloads a browser.
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

const SHELL = '/usr/lib/chromium/chromium-headless-shell';
const EXE = process.env.CHROMIUM || (existsSync(SHELL) ? SHELL : '/usr/bin/chromium');
const args = process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [];

export default defineConfig({
  testDir: './tests',
  outputDir: '../../target/playwright-results',
  // As `waymark run`: no retries, every test in a fresh context; Playwright's defaults
  // otherwise (5 s for expect, no timeout for actions).
  retries: 0,
  fullyParallel: true,
  reporter: 'line',
  use: {
    headless: true,
    launchOptions: { executablePath: EXE, args },
    // As waymark's default viewport.
    viewport: { width: 1280, height: 800 },
    trace: 'off',
    screenshot: 'off',
    video: 'off',
  },
  projects: [
    { name: 'app', testMatch: /app\.spec\.mjs/, use: { baseURL: process.env.APP_URL } },
    { name: 'shipped', testMatch: /shipped\.spec\.mjs/, use: { baseURL: process.env.DEMO_URL } },
  ],
});
