// Debian's Chromium, driven by playwright-core: the one way the tests open a
// page. Never a downloaded browser; CI installs the `chromium` package, and
// CCOTEL_CHROMIUM may name another installed Chromium or Chrome.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../bench/lib/chromium-flags.mjs';

export { CHROMIUM };

export const MISSING_CHROMIUM = `${CHROMIUM} not found: the HTML viewer tests need it. Install it with "apt-get install chromium" (CI installs it), or name one with CCOTEL_CHROMIUM.`;

/**
 * Where Chromium must be there (.ci/run sets CCOTEL_REQUIRE_CHROMIUM=1), a
 * missing one fails each viewer test, so the viewer is never silently
 * untested; elsewhere (a runner or a machine without it) the suites skip.
 */
export const SKIP_WITHOUT_CHROMIUM =
  !existsSync(CHROMIUM) && process.env.CCOTEL_REQUIRE_CHROMIUM !== '1';

/** A viewer suite's title: its name, and where it skips, why. */
export function chromiumSuite(name: string): string {
  return SKIP_WITHOUT_CHROMIUM
    ? `${name} (skipped: no Chromium at ${CHROMIUM}; CCOTEL_CHROMIUM names one, CCOTEL_REQUIRE_CHROMIUM=1 fails instead)`
    : name;
}

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
