// The GitHub workflow (.github/workflows/ci.yml) runs what the README says on
// the three systems and two Node lines, and scripts/lint-workflows.sh, which
// .ci/run calls, says why it skips without Go and fails on a broken workflow.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ON_WINDOWS } from '../support/platform.js';

const ROOT = join(import.meta.dirname, '..', '..');
const WORKFLOW = join(ROOT, '.github/workflows/ci.yml');
const SCRIPT = join(ROOT, 'scripts/lint-workflows.sh');
const run = promisify(execFile);

interface Step {
  name?: string;
  run?: string;
  if?: string;
  uses?: string;
}
interface Workflow {
  jobs: Record<
    string,
    {
      'runs-on': string;
      strategy: { 'fail-fast': boolean; matrix: { os: string[]; node: number[] } };
      steps: Step[];
    }
  >;
}

const text = readFileSync(WORKFLOW, 'utf8');
const workflow = parse(text) as Workflow;

describe('.github/workflows/ci.yml', () => {
  const job = workflow.jobs.test;

  it('runs on Ubuntu, macOS and Windows with Node 20 and 22, every cell to the end', () => {
    expect(job?.['runs-on']).toBe('${{ matrix.os }}');
    expect(job?.strategy.matrix.os).toEqual(['ubuntu-latest', 'macos-latest', 'windows-latest']);
    expect(job?.strategy.matrix.node).toEqual([20, 22]);
    expect(job?.strategy['fail-fast']).toBe(false);
  });

  it('runs npm ci, then npm test, then npm run check', () => {
    const runs = (job?.steps ?? []).map((s) => s.run).filter((r) => r !== undefined);
    const at = (cmd: string): number => runs.indexOf(cmd);
    expect(at('npm ci')).toBeGreaterThanOrEqual(0);
    expect(at('npm test')).toBeGreaterThan(at('npm ci'));
    expect(at('npm run check')).toBeGreaterThan(at('npm test'));
  });

  it('requires the viewer suites where the runner has Chrome (Ubuntu), and only there', () => {
    const chrome = (job?.steps ?? []).filter((s) => s.run?.includes('CCOTEL_REQUIRE_CHROMIUM=1'));
    expect(chrome).toHaveLength(1);
    expect(chrome[0]?.if).toBe("runner.os == 'Linux'");
    expect(chrome[0]?.run).toContain('CCOTEL_CHROMIUM=');
  });

  it('names in its header what each system runs and skips', () => {
    const header = text.slice(0, text.indexOf('\nname:'));
    for (const os of ['Ubuntu', 'macOS', 'Windows'])
      expect(header).toMatch(new RegExp(`^#\\s+${os}\\s`, 'm'));
  });
});

/** Go on PATH or in its usual home, as the script looks for it. */
const goThere = ['/usr/local/go/bin', ...(process.env.PATH ?? '').split(':')].some(
  (d) => d !== '' && existsSync(join(d, 'go')),
);

describe.skipIf(ON_WINDOWS)('scripts/lint-workflows.sh (skipped on Windows: a bash script)', () => {
  let home = '';
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'ccotel-actionlint-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('without Go says actionlint is skipped and why, exits 0 and builds nothing', async () => {
    const { stdout } = await run('bash', [SCRIPT], {
      env: {
        PATH: '/usr/bin:/bin',
        HOME: home,
        XDG_CACHE_HOME: join(home, 'cache'),
        CCOTEL_GO_BIN_DIR: join(home, 'no-go-here'),
      },
    });
    expect(stdout).toMatch(/^actionlint: skipped: no `go` on PATH .* to build it$/m);
    expect(existsSync(join(home, 'cache'))).toBe(false);
  });

  it.skipIf(!goThere)(
    `passes the workflow and fails a broken copy of it${goThere ? '' : ' (skipped: no Go to build actionlint)'}`,
    async () => {
      const clean = await run('bash', [SCRIPT], { env: process.env, timeout: 280_000 });
      expect(clean.stdout).toMatch(/^actionlint: v\d+\.\d+\.\d+ finds nothing in /m);
      const broken = join(home, 'broken.yml');
      await writeFile(
        broken,
        text.replace('runs-on: ${{ matrix.os }}', 'runs-on: ${{ matrix.oss }}'),
      );
      const failed = await run('bash', [SCRIPT, broken], { env: process.env }).then(
        () => null,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toMatch(/property "oss" is not defined/);
    },
    300_000,
  );
});
