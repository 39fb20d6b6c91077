import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Line } from '../../../../src/core/transcript/line-splitter.js';
import { createFileTailer } from '../../../../src/adapters/files/file-tailer.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-tailer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(
  tailer: ReturnType<typeof createFileTailer>,
  limit?: number,
): Promise<{ kind: string; lines: Line[] }> {
  const lines: Line[] = [];
  const r = await tailer.read((ls) => lines.push(...ls), limit);
  return { kind: r.kind, lines };
}

describe('file tailer', () => {
  it('hands over complete lines only and keeps a partial last line until its newline', async () => {
    const file = join(dir, 's.jsonl');
    await writeFile(file, '{"a":1}\n{"b":');
    const t = createFileTailer(file);
    const first = await readAll(t);
    expect(first.lines.map((l) => l.text)).toEqual(['{"a":1}']);
    expect(t.consumed).toBe(8);
    await appendFile(file, '2}\n');
    const second = await readAll(t);
    expect(second.lines).toEqual([{ number: 2, offset: 8, end: 16, text: '{"b":2}' }]);
    expect((await readAll(t)).lines).toEqual([]);
  });

  it('stops at a limit and goes on from there', async () => {
    const file = join(dir, 's.jsonl');
    await writeFile(file, 'one\ntwo\nthree\n');
    const t = createFileTailer(file);
    expect((await readAll(t, 6)).lines.map((l) => l.text)).toEqual(['one']);
    expect((await readAll(t)).lines.map((l) => l.text)).toEqual(['two', 'three']);
  });

  it('reports a file that shrank, was replaced, or was rewritten in place', async () => {
    const file = join(dir, 's.jsonl');
    await writeFile(file, 'one\ntwo\n');
    const t = createFileTailer(file);
    await readAll(t);
    await truncate(file, 4);
    expect(await t.read(() => undefined)).toEqual({ kind: 'reset', reason: 'shrunk' });
    expect((await readAll(t)).lines.map((l) => l.text)).toEqual(['one']);

    await writeFile(join(dir, 'tmp'), 'one\ntwo\nthree\n');
    await rename(join(dir, 'tmp'), file);
    expect(await t.read(() => undefined)).toEqual({ kind: 'reset', reason: 'replaced' });
    expect((await readAll(t)).lines.map((l) => l.text)).toEqual(['one', 'two', 'three']);

    // Same inode, longer, but the byte before our offset is no longer a newline.
    await writeFile(file, 'xxxxxxxxxxxxxxxxxxxxxxxxxx\n');
    expect(await t.read(() => undefined)).toEqual({ kind: 'reset', reason: 'rewritten' });
  });

  it('reports a missing file', async () => {
    expect(await createFileTailer(join(dir, 'nope.jsonl')).read(() => undefined)).toEqual({
      kind: 'missing',
    });
  });
});
