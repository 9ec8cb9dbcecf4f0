// The browser the web UI tests drive: Playwright (playwright-core) on Debian's Chromium
// (`command -v chromium`; .ci/run installs it), headless. Shared by every browser test file.
import { execSync } from 'node:child_process';

function findChromium() {
  try {
    return execSync('command -v chromium', { shell: '/bin/bash', encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

export const chromiumPath = findChromium();

// CI installs Chromium (.ci/run) and sets FORGE_BROWSER_TESTS=required: there a missing browser fails.
export const browserSkip = !chromiumPath && process.env.FORGE_BROWSER_TESTS !== 'required'
  ? 'no chromium on PATH (apt-get install -y chromium); the browser tests are skipped' : false;

/** A headless Chromium; fails with what to do when there is none. */
export async function launchChromium() {
  if (!chromiumPath) {
    throw new Error('chromium is not on PATH: .ci/run installs it with apt-get install -y chromium');
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Polls `check` until it holds; fails naming `what` after `timeout` ms. */
export async function waitFor(check, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}
