// The HTML page of a session whose every text field carries a payload (HTML
// and script, a javascript: URL, terminal controls), written by the built
// binary and opened in a real Chromium: nothing runs, no dialog opens, every
// payload reads as text, and no link or source has a scheme but http(s).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/fault-harness.js';
import {
  chromiumSuite,
  launchChromium,
  MISSING_CHROMIUM,
  SKIP_WITHOUT_CHROMIUM,
} from '../support/chromium.js';
import { PAYLOADS, writeHostileSession } from '../support/hostile-session.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const run = promisify(execFile);

let browser: Browser | undefined;
let dir: string;

describe.skipIf(SKIP_WITHOUT_CHROMIUM)(chromiumSuite('hostile session page in Chromium'), () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'ccotel-html-hostile-'));
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('the HTML page of a hostile session', () => {
    for (const [name, payload] of Object.entries(PAYLOADS))
      it(`runs no ${name} payload and links nowhere else`, async () => {
        if (!browser) throw new Error(MISSING_CHROMIUM);
        const file = writeHostileSession(join(dir, name), payload);
        const html = join(dir, `${name}.html`);
        await run(process.execPath, [CLI, 'show', file, '--html', html], {
          env: { PATH: process.env.PATH ?? '', HOME: dir },
          timeout: 30_000,
        });
        const context = await browser.newContext();
        const page = await context.newPage();
        const dialogs: string[] = [];
        const errors: string[] = [];
        page.on('dialog', (d) => {
          dialogs.push(d.message());
          void d.dismiss();
        });
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(pathToFileURL(html).href);
        await page.waitForSelector('[role="treegrid"]', { state: 'attached' });
        // Every row open, and every row's details: the tool inputs and results are drawn there.
        await page.getByRole('button', { name: 'Expand all' }).click();
        const rows = page.locator('[data-row-id]');
        const shown: string[] = [];
        for (let i = 0; i < (await rows.count()); i += 1) {
          await rows.nth(i).click();
          shown.push((await page.locator('#details').textContent()) ?? '');
        }

        expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
        expect(dialogs).toEqual([]);
        expect(errors).toEqual([]);
        // The payload was planted and reads as text: in the title and in a call's details.
        expect(await page.locator('h1').textContent()).toContain(`Title ${payload}`);
        expect(shown.join('\n')).toContain(`echo ${payload}`);
        expect(await page.locator('img, iframe, object, embed, form').count()).toBe(0);
        const targets = await page
          .locator('[href], [src], [action], [formaction], [srcdoc]')
          .evaluateAll((els) =>
            els.flatMap((e) =>
              ['href', 'src', 'action', 'formaction', 'srcdoc']
                .map((a) => e.getAttribute(a))
                .filter((v): v is string => v !== null),
            ),
          );
        for (const target of targets)
          expect(new URL(target, 'https://base.invalid/').protocol).toMatch(/^https?:$/);
        // Inline handlers an injected element could carry.
        const handlers = await page.locator('*').evaluateAll((els) =>
          els.flatMap((e) =>
            Array.from(e.attributes)
              .map((a) => a.name)
              .filter((n) => n.startsWith('on')),
          ),
        );
        expect(handlers).toEqual([]);
        await context.close();
      });
  });
});
