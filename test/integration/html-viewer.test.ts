// The HTML waterfall in a real headless Chromium: layout state, expand and
// collapse by mouse and keyboard, details, escaping of hostile labels, and no
// network access. Chromium is a system package (CI installs it); where CI
// requires it (CCOTEL_REQUIRE_CHROMIUM=1) a missing browser fails the suite
// rather than skipping it, so the viewer is never silently untested there.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlWaterfall } from '../../src/app/show/render/html-waterfall.js';
import { HTML_WATERFALL_SCRIPT } from '../../src/app/show/render/html-waterfall-assets.js';
import type { WaterfallView } from '../../src/app/show/render/waterfall-view.js';
import { HOSTILE_LABEL, sampleView } from '../support/waterfall-views.js';
import {
  chromiumSuite,
  launchChromium,
  MISSING_CHROMIUM,
  SKIP_WITHOUT_CHROMIUM,
} from '../support/chromium.js';

const SCREENSHOT = resolve('reports/html-waterfall.png');
const ROWS = '[data-row-id]';
const VISIBLE_ROWS = '[data-row-id]:visible';

let browser: Browser | undefined;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ccotel-html-'));
  // Without Chromium each browser test fails on its own (see open()).
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  url: string;
  requests: string[];
  problems: string[];
  dialogs: string[];
}

let pageCount = 0;

/** Writes the page to a temp file and opens it in a fresh context. */
async function open(view: WaterfallView = sampleView()): Promise<Opened> {
  if (!browser) throw new Error(MISSING_CHROMIUM);
  const file = join(dir, `waterfall-${++pageCount}.html`);
  writeFileSync(file, renderHtmlWaterfall(view));
  const url = pathToFileURL(file).href;
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const opened: Opened = { page, url, requests: [], problems: [], dialogs: [] };
  context.on('request', (req) => opened.requests.push(req.url()));
  page.on('pageerror', (err) => opened.problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') opened.problems.push(msg.text());
  });
  page.on('dialog', (dialog) => {
    opened.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(url);
  await page.waitForSelector('[role="treegrid"]', { state: 'attached' });
  return opened;
}

async function visibleIds(page: Page): Promise<string[]> {
  return page
    .locator(VISIBLE_ROWS)
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-row-id') ?? ''));
}

async function focusedId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute('data-row-id') ?? null);
}

const row = (page: Page, id: string) => page.locator(`[data-row-id="${id}"]`);
const twisty = (page: Page, id: string) => row(page, id).locator('.twisty');

describe('generated page', () => {
  it('keeps data out of markup: only our two script elements, no comments, no URLs', () => {
    const html = renderHtmlWaterfall(sampleView());
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toContain('<!--');
    // The hostile strings are in the data, but only in escaped form.
    expect(html).toContain('\\u003cscript\\u003ewindow.__xss=1');
    expect(html).not.toMatch(/<script>window|<img|<b>again/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<link|@import|url\(/i);
  });

  it('inlines the viewer sources as they are (the generated module is up to date)', () => {
    const check = spawnSync(process.execPath, ['scripts/build-viewer.mjs', '--check'], {
      encoding: 'utf8',
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    expect(HTML_WATERFALL_SCRIPT).toBe(
      readFileSync('src/app/show/render/viewer/viewer.js', 'utf8'),
    );
    expect(HTML_WATERFALL_SCRIPT).not.toMatch(/<\/script|<!--/i);
  });
});

describe.skipIf(SKIP_WITHOUT_CHROMIUM)(chromiumSuite('HTML waterfall in Chromium'), () => {
  it('shows the top-level rows of each turn, agents collapsed', async () => {
    const { page, problems } = await open();
    expect(await visibleIds(page)).toEqual(['read-1', 'agent-1', 'edit-1', 'bash-run']);
    // Only the visible rows are in the grid: collapsed agents' calls are built when opened.
    expect(await page.locator(ROWS).count()).toBe(4);
    expect(await page.locator('[data-turn-index]').allTextContents()).toEqual([
      expect.stringContaining('Turn 1fix the failing tests'),
      expect.stringContaining('Turn 2now run it <b>again</b>'),
    ]);
    expect(await row(page, 'agent-1').getAttribute('aria-expanded')).toBe('false');
    expect(await row(page, 'agent-1').getAttribute('data-type')).toBe('agent');
    expect(await row(page, 'a1-grep').isHidden()).toBe(true);
    expect(await page.locator('[role="treegrid"]').count()).toBe(1);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('expands and collapses agents by click', async () => {
    const { page } = await open();
    await twisty(page, 'agent-1').click();
    expect(await visibleIds(page)).toEqual([
      'read-1',
      'agent-1',
      'a1-grep',
      'a1-bash',
      'agent-2',
      'edit-1',
      'bash-run',
    ]);
    expect(await row(page, 'agent-1').getAttribute('aria-expanded')).toBe('true');
    expect(await row(page, 'a1-grep').getAttribute('data-depth')).toBe('1');
    expect(await row(page, 'a1-grep').getAttribute('aria-level')).toBe('3');
    expect(await row(page, 'a2-read').isHidden()).toBe(true);

    await twisty(page, 'agent-2').click();
    expect(await row(page, 'a2-read').isVisible()).toBe(true);
    expect(await row(page, 'a2-read').getAttribute('data-depth')).toBe('2');

    // Collapsing the outer agent hides the whole subtree, nested agent included.
    await twisty(page, 'agent-1').click();
    expect(await visibleIds(page)).toEqual(['read-1', 'agent-1', 'edit-1', 'bash-run']);
    await twisty(page, 'agent-1').click();
    expect(await row(page, 'a2-read').isVisible()).toBe(true);
    await page.context().close();
  });

  it('expands, collapses, moves and opens details with the keyboard', async () => {
    const { page } = await open();
    await row(page, 'read-1').focus();
    await page.keyboard.press('ArrowDown');
    expect(await focusedId(page)).toBe('agent-1');

    await page.keyboard.press('ArrowRight');
    expect(await row(page, 'agent-1').getAttribute('aria-expanded')).toBe('true');
    expect(await row(page, 'a1-grep').isVisible()).toBe(true);
    await page.keyboard.press('ArrowRight');
    expect(await focusedId(page)).toBe('a1-grep');

    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await focusedId(page)).toBe('agent-2');
    await page.keyboard.press('Enter');
    expect(await row(page, 'a2-read').isVisible()).toBe(true);
    expect(await page.locator('#details').isVisible()).toBe(true);
    expect(await page.locator('#details h2').textContent()).toBe('Task: check package scripts');

    await page.keyboard.press('ArrowLeft');
    expect(await row(page, 'a2-read').isHidden()).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await focusedId(page)).toBe('agent-1');
    await page.keyboard.press('ArrowLeft');
    expect(await visibleIds(page)).toEqual(['read-1', 'agent-1', 'edit-1', 'bash-run']);

    await page.keyboard.press('ArrowUp');
    expect(await focusedId(page)).toBe('read-1');
    await page.keyboard.press(' ');
    expect(await page.locator('#details h2').textContent()).toBe('Read: src/app.ts');
    await page.keyboard.press('Escape');
    expect(await page.locator('#details').isHidden()).toBe(true);
    expect(await focusedId(page)).toBe('read-1');

    // Roving tabindex: Tab enters the tree once, at the row last used.
    expect(await page.locator('[role="row"][tabindex="0"]').count()).toBe(1);
    expect(await row(page, 'read-1').getAttribute('tabindex')).toBe('0');
    await page.context().close();
  });

  it('marks error and running rows with colour and text', async () => {
    const { page } = await open();
    await page.getByRole('button', { name: 'Expand all' }).click();
    const failed = row(page, 'a1-bash');
    expect(await failed.getAttribute('data-status')).toBe('error');
    expect(await failed.locator('.badge').textContent()).toBe('✗error');
    const running = row(page, 'bash-run');
    expect(await running.getAttribute('data-status')).toBe('running');
    expect(await running.locator('.badge').textContent()).toBe('◔running');
    expect(await row(page, 'read-1').locator('.badge').textContent()).toBe('✓ok');

    const barColour = (id: string) =>
      row(page, id)
        .locator('.bar')
        .evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(await barColour('a1-bash')).toBe('rgb(207, 34, 46)');
    expect(await barColour('a1-grep')).not.toBe(await barColour('a1-bash'));
    const runningBar = await row(page, 'bash-run')
      .locator('.bar')
      .evaluate((e) => getComputedStyle(e).backgroundImage);
    expect(runningBar).toContain('repeating-linear-gradient');

    // A collapsed agent still says it hides a failure.
    await page.getByRole('button', { name: 'Collapse all' }).click();
    expect(await visibleIds(page)).toEqual([]);
    await page.locator('[data-turn-index="1"]').click();
    expect(await row(page, 'agent-1').locator('.pill.error').textContent()).toBe('✗ 1 inside');
    await page.context().close();
  });

  it('places bars on the time axis of their own turn', async () => {
    const { page } = await open();
    const box = async (id: string) => (await row(page, id).locator('.bar').boundingBox())!;
    const track = (await row(page, 'read-1').locator('.track').boundingBox())!;
    const agent = await box('agent-1');
    const running = await box('bash-run');
    // Turn 1: 0s..60s. Agent: 2s..40s. Turn 2: 68s..80s, its running call 70s..80s.
    expect(agent.x - track.x).toBeCloseTo((track.width * 2) / 60, 0);
    expect(agent.width).toBeCloseTo((track.width * 38) / 60, 0);
    expect(running.x - track.x).toBeCloseTo((track.width * 2) / 12, 0);
    expect(running.x + running.width).toBeCloseTo(track.x + track.width, 0);
    await page.context().close();
  });

  it('shows the details of a clicked row', async () => {
    const { page } = await open();
    await twisty(page, 'agent-1').click();
    await row(page, 'a1-bash').click();
    const details = page.locator('#details');
    expect(await details.isVisible()).toBe(true);
    expect(await row(page, 'a1-bash').getAttribute('aria-selected')).toBe('true');
    const text = (await details.textContent()) ?? '';
    for (const expected of [
      'Bash: npm test',
      'error',
      '2025-01-01T10:00:05.000Z (+5.0s)',
      '2025-01-01T10:00:20.000Z',
      '15s',
      '1k / 100 (in / out)',
      '10%',
      'agent-1',
      '"command": "Bash: npm test"',
      'FAIL test/app.test.ts\n1 failing',
    ]) {
      expect(text).toContain(expected);
    }
    await page.getByRole('button', { name: 'Close details' }).click();
    expect(await details.isHidden()).toBe(true);
    await page.context().close();
  });

  it('renders hostile labels, titles and inputs as text and runs none of it', async () => {
    const view = sampleView();
    view.title = '<script>window.__xss=4</script><img src=x onerror="window.__xss=5">Title';
    const { page, url, dialogs, problems } = await open(view);
    await row(page, 'bash-run').click();

    expect(
      await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
    ).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(2);
    expect(await page.locator('#app b').allTextContents()).not.toContain('again');
    expect(await row(page, 'bash-run').locator('.label').textContent()).toBe(HOSTILE_LABEL);
    expect(await page.locator('h1').textContent()).toBe(view.title);
    expect(await page.title()).toBe(`${view.title} · ccotel`);
    expect(await page.locator('#details pre').first().textContent()).toContain(
      '</script><!-- <script>window.__xss=3</script>',
    );
    expect(problems).toEqual([]);
    expect(url).toMatch(/^file:\/\//);
    await page.context().close();
  });

  it('renders an empty session without script errors', async () => {
    const { page, problems } = await open({
      sessionId: 'empty',
      title: '',
      rows: [],
      turns: [],
      totals: { inputTokens: 0, outputTokens: 0, costUsd: null },
      warnings: [],
    });
    expect(await page.locator(ROWS).count()).toBe(0);
    expect(await page.locator('h1').textContent()).toBe('Claude Code session');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('makes no request but the page itself', async () => {
    const { page, url, requests } = await open();
    await page.getByRole('button', { name: 'Expand all' }).click();
    await row(page, 'a1-bash').click();
    await row(page, 'bash-run').click();
    await page.locator('.warnings summary').click();
    expect(requests).toEqual([url]);
    await page.context().close();
  });

  it('saves a screenshot of the expanded waterfall with a details panel', async () => {
    const { page } = await open();
    await page.getByRole('button', { name: 'Expand all' }).click();
    await row(page, 'a1-bash').click();
    mkdirSync(resolve('reports'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
    await page.context().close();
  });
});
