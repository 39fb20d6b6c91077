// Debian's Chromium, driven by playwright-core: the one way the tests open a
// page. Never a downloaded browser; CI installs the `chromium` package.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../bench/lib/chromium-flags.mjs';

export { CHROMIUM };

export const MISSING_CHROMIUM = `${CHROMIUM} not found: the HTML viewer tests need it. Install it with "apt-get install chromium" (CI installs it).`;

/**
 * A headless browser with a fresh profile, or undefined when Chromium is not
 * installed: callers then fail each test with MISSING_CHROMIUM (a throw in a
 * beforeAll would only mark them skipped, and a skipped viewer test looks green).
 */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
}
