// What every oracle script here shares: playwright-core from npm under target/playwright
// (.ci/run installs it; it downloads no browser) and Debian's Chromium, its headless shell
// first, as waymark picks it. The scripts run with the repository as their directory
// (`harness::playwright_output` in tests/it/harness.rs).
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(path.resolve('target/playwright/node_modules/'));
const { chromium } = require('playwright-core');
const executablePath = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium']
  .find((p) => existsSync(p));

// The browser, launched without the sandbox (as waymark launches it in a container) and with
// `args` besides. The caller closes it.
export function launch(args = []) {
  return chromium.launch({ executablePath, args: ['--no-sandbox', ...args] });
}
