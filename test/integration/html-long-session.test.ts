// `ccotel show --html` on a long generated session (40 turns over a day, CJK
// and emoji prompts, sub-agents, failures) in real Chromium at 1280 px: each
// turn on its own axis so long calls draw real bars, the overview, and the
// filters, search, sort and keys that find things in it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLongSession, type LongSession } from '../../bench/lib/long-session.mjs';
import {
  chromiumSuite,
  launchChromium,
  MISSING_CHROMIUM,
  SKIP_WITHOUT_CHROMIUM,
} from '../support/chromium.js';
import { runCcotel } from '../support/run-cli.js';

let browser: Browser | undefined;
let dir: string;
let session: LongSession;
let html: string;
let bigTurnsHtml: string;

describe.skipIf(SKIP_WITHOUT_CHROMIUM)(chromiumSuite('long session page in Chromium'), () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ccotel-html-long-'));
    session = writeLongSession({ dir: join(dir, 'long'), turns: 40, callsPerTurn: 8, seed: 3 });
    const big = writeLongSession({ dir: join(dir, 'big'), turns: 3, callsPerTurn: 40, seed: 4 });
    html = join(dir, 'long.html');
    bigTurnsHtml = join(dir, 'big.html');
    for (const [file, out] of [
      [session.file, html],
      [big.file, bigTurnsHtml],
    ] as const) {
      const run = await runCcotel(['show', file, '--html', out]);
      expect(run.code, run.stderr).toBe(0);
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(file: string): Promise<{ page: Page; problems: string[] }> {
    if (!browser) throw new Error(MISSING_CHROMIUM);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('[role="treegrid"]', { state: 'attached' });
    return { page, problems };
  }

  interface Shown {
    id: string;
    status: string;
    tool: string;
    type: string;
    label: string;
    depth: number;
    ms: number;
    agentType: string;
  }

  async function shown(page: Page): Promise<Shown[]> {
    return page.locator('[data-row-id]:visible').evaluateAll((els) =>
      els.map((e) => ({
        id: e.getAttribute('data-row-id') ?? '',
        status: e.getAttribute('data-status') ?? '',
        tool: e.getAttribute('data-tool') ?? '',
        type: e.getAttribute('data-type') ?? '',
        label: e.querySelector('.label')?.textContent ?? '',
        depth: Number(e.getAttribute('data-depth')),
        ms: Number(e.getAttribute('data-ms')),
        agentType: e.getAttribute('data-agent-type') ?? '',
      })),
    );
  }

  describe('a long session in Chromium at 1280 px', () => {
    it('draws an overview row per turn, and each turn on its own axis', async () => {
      const { page, problems } = await open(html);
      expect(await page.locator('.ov-row').count()).toBe(session.turns);
      expect(await page.locator('.ov-title').textContent()).toContain(
        'idle gaps over 1m00s folded',
      );
      expect(await page.locator('[data-turn-index]').count()).toBe(session.turns);
      expect((await shown(page)).length).toBe(session.turns * 8); // agents start collapsed
      expect(problems).toEqual([]);
      await page.close();
    });

    it('gives a call spanning more than 5 % of its turn a bar of at least 4 px', async () => {
      const { page } = await open(html);
      const bars = await page.locator('[data-row-id]:visible .bar').evaluateAll((els) =>
        els.map((e) => ({
          percent: parseFloat((e as HTMLElement).style.width),
          px: e.getBoundingClientRect().width,
        })),
      );
      const long = bars.filter((b) => b.percent > 5);
      expect(long.length).toBeGreaterThan(session.turns);
      for (const b of long) expect(b.px).toBeGreaterThanOrEqual(4);
      // Every turn has one call of a minute or more: on its turn's axis, a wide bar.
      expect(bars.filter((b) => b.px >= 100).length).toBeGreaterThanOrEqual(session.turns);
      await page.close();
    });

    it('filters to errors only, and back', async () => {
      const { page } = await open(html);
      const before = (await shown(page)).length;
      await page.getByLabel('Errors only').check();
      const rows = await shown(page);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.length).toBeLessThan(before);
      for (const r of rows) expect(r.status === 'error' || r.type === 'agent').toBe(true);
      expect(rows.some((r) => r.status === 'error' && r.depth === 1)).toBe(true);
      expect(await page.locator('.count').textContent()).toMatch(/^\d+ of \d+ calls match$/);
      await page.getByLabel('Errors only').uncheck();
      expect((await shown(page)).length).toBe(before);
      await page.close();
    });

    it('filters by tool and by sub-agent type', async () => {
      const { page } = await open(html);
      await page.getByLabel('Only calls of a tool').selectOption('Edit');
      const edits = await shown(page);
      expect(edits.length).toBeGreaterThan(0);
      for (const r of edits) expect(r.tool === 'Edit' || r.type === 'agent').toBe(true);
      await page.getByLabel('Only calls of a tool').selectOption('');
      await page.getByLabel('Only calls of a sub-agent type').selectOption('Explore');
      const explore = await shown(page);
      expect(explore.length).toBeGreaterThan(0);
      for (const r of explore) {
        if (r.depth === 0) expect(r.agentType).toBe('Explore');
        else expect(r.depth).toBe(1);
      }
      await page.close();
    });

    it('searches labels, and Esc clears the search', async () => {
      const { page } = await open(html);
      await page.keyboard.press('/');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe(
        'search',
      );
      await page.keyboard.type('vitest run');
      const hits = await shown(page);
      expect(hits.length).toBeGreaterThan(0);
      for (const r of hits) expect(r.label.includes('vitest run') || r.type === 'agent').toBe(true);
      // The label rule at work: the `cd <dir> &&` prefix is gone from every row.
      expect(hits.some((r) => r.label.startsWith('Bash: npx vitest run'))).toBe(true);
      await page.keyboard.press('Escape');
      expect(await page.getByLabel('Search call labels').inputValue()).toBe('');
      expect((await shown(page)).length).toBe(session.turns * 8);
      await page.close();
    });

    it('sorts slowest first within each turn, by key', async () => {
      const { page } = await open(html);
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('s');
      expect(await page.getByLabel('Slowest first').isChecked()).toBe(true);
      const rows = await shown(page);
      // Turn 0's eight top-level calls come first, longest first.
      const top = rows.filter((r) => r.depth === 0).slice(0, 8);
      expect(top[0]!.ms).toBeGreaterThanOrEqual(60_000);
      expect(top.map((r) => r.ms)).toEqual([...top.map((r) => r.ms)].sort((a, b) => b - a));
      await page.close();
    });

    it('opens a turn from the overview, by keyboard', async () => {
      const { page } = await open(bigTurnsHtml);
      // Turns of more than 30 calls start collapsed.
      expect((await shown(page)).length).toBe(0);
      // The overview is one tab stop; arrow keys move in it, Tab goes on to the search.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-turn'))).toBe(
        '0',
      );
      await page.keyboard.press('ArrowDown');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-turn'))).toBe(
        '1',
      );
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe(
        'search',
      );
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Enter');
      expect(
        await page.evaluate(() => document.activeElement?.getAttribute('data-turn-index')),
      ).toBe('1');
      expect((await shown(page)).length).toBe(40);
      await page.keyboard.press('ArrowDown');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-depth'))).toBe(
        '0',
      );
      await page.close();
    });
  });
});
