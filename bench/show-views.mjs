// npm run bench:views -- [--runs 5] [--turns 50] [--calls-per-turn 64]
// The `show` views on a big generated session (bench/lib/long-session.mjs; by
// default 50 turns of 100 calls = 5,000 calls, sub-agents included):
//   - terminal: wall time of `ccotel show` printing the waterfall (target
//     < 0.5 s), against `show --json` of the same session in the same run;
//   - HTML: in headless Chromium (Debian's /usr/bin/chromium, flags as the
//     tests use them) at 1280x900, from navigation start to the first handled
//     click (a turn opened; target < 1 s), against the same for a one-turn page;
//     also the "Expand all" click that puts every row in the grid.
// Medians of --runs runs, each command in a fresh process. Needs `npm run build`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
/* global document, requestAnimationFrame */
import { chromium } from 'playwright-core';
import { benchArgs } from './lib/args.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './lib/chromium-flags.mjs';
import { ROOT } from './lib/corpus.mjs';
import { writeLongSession } from './lib/long-session.mjs';
import { printTable, writeResult } from './lib/report.mjs';

const args = benchArgs({
  runs: { type: 'string', default: '5' },
  turns: { type: 'string', default: '50' },
  'calls-per-turn': { type: 'string', default: '64' },
});
if (args.help === true) {
  process.stdout.write(
    'Usage: node bench/show-views.mjs [--runs 5] [--turns 50] [--calls-per-turn 64]\n',
  );
  process.exit(0);
}
const runs = Number(args.runs);
const RUN_CLI = join(ROOT, 'bench', 'lib', 'run-cli.mjs');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/**
 * One CLI run in a fresh process (bench/lib/run-cli.mjs, stdout discarded):
 * the process' wall time, the command's own time (runCli, no Node start-up) and the process' CPU time.
 */
function timeCli(argv) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [RUN_CLI, ...argv], {
    env: { ...process.env, COLUMNS: '100', NO_COLOR: '1' },
    maxBuffer: 1 << 30,
  });
  const wall = (performance.now() - started) / 1000;
  const report = /@@bench (\{.*\})/.exec(String(run.stderr));
  if (run.status !== 0 || report === null)
    throw new Error(`ccotel ${argv.join(' ')}: ${run.stderr}`);
  const { seconds, cpuSeconds } = JSON.parse(report[1]);
  return { wall, seconds, cpuSeconds, bytes: run.stdout.length };
}

/** From navigation start to the first click handled, and the Expand all click. */
async function timePage(browser, file) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`file://${file}`);
  const figures = await page.evaluate(async () => {
    const nav = performance.getEntriesByType('navigation')[0];
    const turn = document.querySelector('[data-turn-index]');
    const before = performance.now();
    turn.click();
    const clickHandled = performance.now();
    const rows = document.querySelectorAll('[data-row-id]').length;
    const expand = [...document.querySelectorAll('button')].find(
      (b) => b.textContent === 'Expand all',
    );
    const e0 = performance.now();
    expand.click();
    // Through the next frame: the rows' layout and paint, not only the DOM work.
    await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
    const expandMs = performance.now() - e0;
    return {
      loadMs: nav.loadEventEnd,
      clickMs: clickHandled - before,
      firstClickMs: clickHandled,
      rowsAfterClick: rows,
      expandAllMs: expandMs,
      rowsAll: document.querySelectorAll('[data-row-id]').length,
    };
  });
  await page.close();
  return figures;
}

const dir = mkdtempSync(join(tmpdir(), 'ccotel-bench-views-'));
try {
  const big = writeLongSession({
    dir: join(dir, 'big'),
    turns: Number(args.turns),
    callsPerTurn: Number(args['calls-per-turn']),
    seed: 11,
  });
  const small = writeLongSession({ dir: join(dir, 'small'), turns: 1, callsPerTurn: 8, seed: 12 });
  const bigHtml = join(dir, 'big.html');
  const smallHtml = join(dir, 'small.html');
  const htmlWrite = timeCli(['show', big.file, '--html', bigHtml]);
  timeCli(['show', small.file, '--html', smallHtml]);

  const terminal = [];
  const json = [];
  for (let i = 0; i < runs; i++) {
    terminal.push(timeCli(['show', big.file]));
    json.push(timeCli(['show', big.file, '--json']));
  }
  const terminalBytes = terminal[0].bytes;
  // The view's own cost in a warm process: building the view and drawing it.
  const inProcess = spawnSync(
    process.execPath,
    [join(ROOT, 'bench', 'lib', 'render-terminal.mjs'), big.file, String(Math.max(runs, 5))],
    { encoding: 'utf8' },
  );
  if (inProcess.status !== 0) throw new Error(`render-terminal: ${inProcess.stderr}`);
  const renderOnly = JSON.parse(inProcess.stdout);
  const med = (list, key) => median(list.map((r) => r[key]));

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
  const bigPage = [];
  const smallPage = [];
  try {
    for (let i = 0; i < runs; i++) {
      bigPage.push(await timePage(browser, bigHtml));
      smallPage.push(await timePage(browser, smallHtml));
    }
  } finally {
    await browser.close();
  }

  const pick = (list, key) => median(list.map((f) => f[key]));
  const rows = [
    {
      view: 'terminal: show, process wall time',
      median_ms: med(terminal, 'wall') * 1000,
      baseline: 'show --json',
      baseline_ms: med(json, 'wall') * 1000,
      ratio: med(terminal, 'wall') / med(json, 'wall'),
      target: '< 500 ms',
    },
    {
      view: 'terminal: show, process CPU time',
      median_ms: med(terminal, 'cpuSeconds') * 1000,
      baseline: 'show --json',
      baseline_ms: med(json, 'cpuSeconds') * 1000,
      ratio: med(terminal, 'cpuSeconds') / med(json, 'cpuSeconds'),
      target: '',
    },
    {
      view: 'terminal: build view + draw, warm, in process',
      median_ms: median(renderOnly.buildMs) + median(renderOnly.renderMs),
      baseline: '',
      baseline_ms: null,
      ratio: null,
      target: '',
    },
    {
      view: 'terminal: draw only, CPU time, warm',
      median_ms: median(renderOnly.renderCpuMs),
      baseline: '',
      baseline_ms: null,
      ratio: null,
      target: '',
    },
    {
      view: 'html: navigation → first click handled',
      median_ms: pick(bigPage, 'firstClickMs'),
      baseline: '1-turn page',
      baseline_ms: pick(smallPage, 'firstClickMs'),
      ratio: pick(bigPage, 'firstClickMs') / pick(smallPage, 'firstClickMs'),
      target: '< 1000 ms',
    },
    {
      view: 'html: load event',
      median_ms: pick(bigPage, 'loadMs'),
      baseline: '1-turn page',
      baseline_ms: pick(smallPage, 'loadMs'),
      ratio: pick(bigPage, 'loadMs') / pick(smallPage, 'loadMs'),
      target: '',
    },
    {
      view: 'html: the click (open a 100-call turn)',
      median_ms: pick(bigPage, 'clickMs'),
      baseline: '',
      baseline_ms: null,
      ratio: null,
      target: '',
    },
    {
      view: `html: Expand all (${bigPage[0].rowsAll} rows)`,
      median_ms: pick(bigPage, 'expandAllMs'),
      baseline: '',
      baseline_ms: null,
      ratio: null,
      target: '',
    },
  ];
  printTable(`show views, ${big.calls} calls in ${big.turns} turns, median of ${runs}`, rows);
  writeResult('show-views', {
    calls: big.calls,
    turns: big.turns,
    runs,
    transcriptBytes: statSync(big.file).size,
    htmlBytes: statSync(bigHtml).size,
    htmlWriteSeconds: htmlWrite.seconds,
    terminalBytes,
    renderOnly,
    terminal,
    json,
    bigPage,
    smallPage,
    rows,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
