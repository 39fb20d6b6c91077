// bench/show-views.mjs on a tiny session, as a correctness check: it runs, in
// Chromium too, and its result has every figure. No timing is asserted (the
// figures are in docs/benchmarks.md). Needs dist/ (`npm test` builds first).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  chromiumSuite,
  MISSING_CHROMIUM,
  SKIP_WITHOUT_CHROMIUM,
} from '../support/chromium.js';

const work = mkdtempSync(join(tmpdir(), 'ccotel-bench-views-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(SKIP_WITHOUT_CHROMIUM)(chromiumSuite('bench/show-views.mjs smoke'), () => {
  it('measures the terminal and HTML views of a generated session', async () => {
    if (!existsSync('dist/cli/main.js')) throw new Error('dist/ is missing: run npm run build');
    if (!existsSync(CHROMIUM)) throw new Error(MISSING_CHROMIUM);
    const run = await new Promise<{ code: number; stderr: string }>((done) => {
      execFile(
        process.execPath,
        ['bench/show-views.mjs', '--runs', '1', '--turns', '3', '--calls-per-turn', '5'],
        { timeout: 120_000, env: { ...process.env, CCOTEL_BENCH_RESULTS: work } },
        (err, _stdout, stderr) => done({ code: err === null ? 0 : 1, stderr }),
      );
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(readFileSync(join(work, 'show-views.json'), 'utf8')) as {
      calls: number;
      rows: { view: string; median_ms: number }[];
      bigPage: { rowsAll: number; rowsAfterClick: number; firstClickMs: number }[];
    };
    // 3 turns of 5 calls, one an agent with 3 calls inside.
    expect(result.calls).toBe(24);
    expect(result.bigPage[0]!.rowsAll).toBe(24);
    // Small turns start open: the click closed the first, the other two show their 5 rows each.
    expect(result.bigPage[0]!.rowsAfterClick).toBe(10);
    expect(result.rows).toHaveLength(8);
    for (const row of result.rows) expect(row.median_ms, row.view).toBeGreaterThan(0);
  });
});
