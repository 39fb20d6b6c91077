import { mkdtemp, rm, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readStateFile, writeStateFile } from '../../../../src/adapters/state/state-file.js';
import { ON_WINDOWS } from '../../../support/platform.js';

const asObject = (v: unknown): { n: number } | null =>
  typeof v === 'object' && v !== null && typeof (v as { n?: unknown }).n === 'number'
    ? (v as { n: number })
    : null;

/** Temp dirs made by a test, removed after it: runs leave nothing behind in /tmp. */
const made: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('state file', () => {
  it.skipIf(ON_WINDOWS)(
    'writes atomically with mode 0600 in a 0700 dir, and reads back (skipped on Windows: no POSIX modes)',
    async () => {
      const dir = join(await tempDir('ccotel-state-'), 'nested');
      const path = join(dir, 's.json');
      await writeStateFile(path, { n: 1 });
      await writeStateFile(path, { n: 2 });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect(await readdir(dir)).toEqual(['s.json']);
      expect(await readStateFile(path, asObject)).toEqual({ kind: 'ok', value: { n: 2 } });
    },
  );

  it('reports a missing file, and moves a corrupt one aside instead of overwriting it', async () => {
    const dir = await tempDir('ccotel-state-');
    const path = join(dir, 's.json');
    expect(await readStateFile(path, asObject)).toEqual({ kind: 'missing' });
    await writeFile(path, '{"n":');
    const read = await readStateFile(path, asObject);
    expect(read.kind).toBe('corrupt');
    expect((await readdir(dir)).some((f) => f.startsWith('s.json.corrupt-'))).toBe(true);
    await writeFile(path, '{"m":1}');
    expect(await readStateFile(path, asObject)).toMatchObject({
      kind: 'corrupt',
      reason: 'unexpected shape',
    });
  });
});
