#!/usr/bin/env node
// Refreshes the screenshots in docs/img/ from real sessions in fixtures/real/,
// taken with Debian's Chromium (/usr/bin/chromium, the flags the tests use).
//
//   npm run build && node scripts/screenshots.mjs
//
// show-html.png: the demo session's page, agents expanded, a failed call's details.
// show-html-search.png: a 167-call session, searched and filtered to one tool.
// show-terminal.png: the terminal view of the demo session, drawn in a <pre>.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
/* global window */
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../bench/lib/chromium-flags.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const img = join(root, 'docs', 'img');
const DEMO = 'fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl';
const BIG =
  'fixtures/real/d-kimuson_claude-code-viewer__mock-global-claude-dir__sample-project__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl';

function ccotel(args, env = {}) {
  const run = spawnSync(process.execPath, [join(root, 'dist/cli/main.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (run.status !== 0) throw new Error(`ccotel ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

const escape = (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const dir = mkdtempSync(join(tmpdir(), 'ccotel-shots-'));
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: [...CHROMIUM_ARGS],
});
try {
  const demo = join(dir, 'demo.html');
  ccotel(['show', DEMO, '--html', demo]);
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(pathToFileURL(demo).href);
  await page.getByRole('button', { name: 'Expand all' }).click();
  await page.locator('[data-status="error"]').first().click();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(img, 'show-html.png') });

  const big = join(dir, 'big.html');
  ccotel(['show', BIG, '--html', big]);
  await page.goto(pathToFileURL(big).href);
  await page.getByLabel('Only calls of a tool').selectOption('Write');
  await page.getByLabel('Search call labels').fill('components');
  await page.screenshot({ path: join(img, 'show-html-search.png') });

  const text = ccotel(['show', DEMO, '--no-color'], { COLUMNS: '100' });
  const term = join(dir, 'terminal.html');
  writeFileSync(
    term,
    `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#1e1e1e">` +
      `<pre style="margin:0;padding:14px 16px;color:#e6e6e6;font:13px/1.35 'DejaVu Sans Mono',monospace">${escape(text)}</pre>`,
  );
  await page.setViewportSize({ width: 1000, height: 400 });
  await page.goto(pathToFileURL(term).href);
  await page.screenshot({ path: join(img, 'show-terminal.png'), fullPage: true });
  await page.close();
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`wrote show-html.png, show-html-search.png, show-terminal.png in ${img}\n`);
