// Golden files: `ccotel show --json` of every hand case and every real sample, compared whole
// with fixtures/golden/<name>.json. They are the converter's contract: a change to one is a
// change of output and must be reviewed (see fixtures/golden/README.md). Regenerate with
//   npx vitest run test/integration/golden-files.test.ts -u
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCcotel } from '../support/run-cli.js';

interface Golden {
  /** Name of the golden file, without `.json`. */
  name: string;
  /** Transcript passed to `ccotel show` (relative to the repo root, as warnings print it). */
  path: string;
}

const isDir = (p: string): boolean => statSync(p).isDirectory();
/** Main transcripts of a project dir: `<sessionId>.jsonl`, not the 2.0.x `agent-*.jsonl` beside them. */
const mainFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl') && !n.startsWith('agent-'))
    .sort();

/** One golden per session; a dir holding several sessions gets one per session id. */
function projectGoldens(group: string, root: string): Golden[] {
  return readdirSync(root)
    .filter((n) => isDir(join(root, n)))
    .sort()
    .flatMap((dir) => {
      const files = mainFiles(join(root, dir));
      return files.map((f) => ({
        name:
          files.length === 1
            ? `${group}__${dir}`
            : `${group}__${dir}__${f.replace(/\.jsonl$/, '')}`,
        path: join(root, dir, f),
      }));
    });
}

const HAND = projectGoldens('hand', 'fixtures/hand');
const REAL_LAYOUT = projectGoldens('real-layout', 'fixtures/real-layout');
// Flat copies: the flat names of sub-agent files contain `__subagents__`.
const REAL: Golden[] = readdirSync('fixtures/real')
  .filter((n) => n.endsWith('.jsonl') && !n.includes('__subagents__'))
  .sort()
  .map((n) => ({ name: `real__${n.replace(/\.jsonl$/, '')}`, path: join('fixtures/real', n) }));

async function showJson(path: string): Promise<string> {
  const run = await runCcotel(['show', path, '--json']);
  expect(run.code, run.stderr).toBe(0);
  // Pretty-printed so that a review sees which field of which row changed.
  return `${JSON.stringify(JSON.parse(run.stdout), null, 2)}\n`;
}

describe('golden files of ccotel show --json', () => {
  it('finds every sample', () => {
    expect(HAND.length).toBe(23); // 22 cases, forked-session has two sessions
    expect(REAL_LAYOUT.length).toBe(5); // clear-command has two sessions
    expect(REAL.length).toBe(19);
  });

  describe.each([
    ['hand', HAND],
    ['real', REAL],
    ['real-layout', REAL_LAYOUT],
  ] as const)('%s', (_group, goldens) => {
    it.each(goldens.map((g) => [g.name, g] as const))('%s', async (_name, g) => {
      await expect(await showJson(g.path)).toMatchFileSnapshot(
        `../../fixtures/golden/${g.name}.json`,
      );
    });
  });
});
