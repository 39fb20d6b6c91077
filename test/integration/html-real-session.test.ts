// `ccotel show --html` on a real session, opened in real headless Chromium:
// the page must draw exactly the rows `show --json` reports, with the
// sub-agent's calls nested under its agent row and its failed calls marked.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WaterfallRow } from '../../src/core/view/waterfall-row.js';
import { runCcotel } from '../support/run-cli.js';
import {
  chromiumSuite,
  launchChromium,
  MISSING_CHROMIUM,
  SKIP_WITHOUT_CHROMIUM,
} from '../support/chromium.js';

const FIXTURE = 'fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl';

let browser: Browser | undefined;
let dir: string;

describe.skipIf(SKIP_WITHOUT_CHROMIUM)(chromiumSuite('real session page in Chromium'), () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ccotel-html-real-'));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function flatten(
    rows: WaterfallRow[],
    depth = 0,
  ): { id: string; depth: number; status: string }[] {
    return rows.flatMap((r) => [
      { id: r.id, depth, status: r.status },
      ...flatten(r.children, depth + 1),
    ]);
  }

  it('draws every row of the real session, nested and with errors marked', async () => {
    if (!browser) throw new Error(MISSING_CHROMIUM);
    const json = await runCcotel(['show', FIXTURE, '--json']);
    const expected = flatten((JSON.parse(json.stdout) as { rows: WaterfallRow[] }).rows);
    const html = join(dir, 'real.html');
    const written = await runCcotel(['show', FIXTURE, '--html', html]);
    expect(written.code).toBe(0);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(html).href);
    await page.getByRole('button', { name: /expand all/i }).click();
    const drawn = await page.$$eval('[data-row-id]', (els) =>
      els.map((e) => ({
        id: e.getAttribute('data-row-id') ?? '',
        depth: Number(e.getAttribute('data-depth')),
        status: e.getAttribute('data-status') ?? '',
      })),
    );
    const calls = drawn.filter((r) => r.id.startsWith('toolu_'));
    expect(calls.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
    const byId = new Map(calls.map((r) => [r.id, r]));
    const baseDepth = Math.min(...calls.map((r) => r.depth));
    for (const row of expected) {
      expect(byId.get(row.id)?.depth, row.id).toBe(baseDepth + row.depth);
      expect(byId.get(row.id)?.status, row.id).toBe(row.status);
    }
    expect(expected.filter((r) => r.status === 'error')).toHaveLength(3);
    expect(requests.every((u) => u.startsWith('file://'))).toBe(true);
    await page.screenshot({ path: resolve('reports/html-waterfall-real.png'), fullPage: true });
    await page.close();
  });
});
