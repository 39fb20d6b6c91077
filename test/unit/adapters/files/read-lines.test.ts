// adapters/read-lines.ts: a file pulled as batches of complete lines, an
// unterminated last line held back and reported, reading from an offset, and
// a reader that stops early releasing its file.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLines, yieldIfHeld } from '../../../../src/adapters/files/read-lines.js';
import type { Line } from '../../../../src/core/transcript/line-splitter.js';
import { ON_LINUX } from '../../../support/platform.js';

const dir = mkdtempSync(join(tmpdir(), 'ccotel-read-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function readAll(file: string, start = 0, startLine = 1): { lines: Line[]; rest: unknown } {
  const lines: Line[] = [];
  const reader = openLines(file, start, startLine);
  try {
    for (let batch = reader.next(); batch !== null; batch = reader.next()) lines.push(...batch);
    return { lines, rest: reader.result() };
  } finally {
    reader.close();
  }
}

const openFds = (): number => readdirSync('/proc/self/fd').length;

describe('openLines', () => {
  it('hands over complete lines only, and says where the unfinished one starts', () => {
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, 'one\ntwo\nthr');
    const { lines, rest } = readAll(file);
    expect(lines.map((l) => [l.number, l.text])).toEqual([
      [1, 'one'],
      [2, 'two'],
    ]);
    expect(rest).toEqual({ consumed: 8, nextLine: 3, pendingBytes: 3 });
  });

  it('reads from an offset, numbering lines from the line given', () => {
    const file = join(dir, 'b.jsonl');
    writeFileSync(file, 'one\ntwo\nthree\n');
    const { lines, rest } = readAll(file, 4, 2);
    expect(lines.map((l) => [l.number, l.text])).toEqual([
      [2, 'two'],
      [3, 'three'],
    ]);
    expect(rest).toEqual({ consumed: 14, nextLine: 4, pendingBytes: 0 });
  });

  it('splits lines across chunks of a file larger than one read', () => {
    const file = join(dir, 'c.jsonl');
    const text = `${'x'.repeat(1500)}\n`;
    writeFileSync(file, text.repeat(2000));
    const { lines } = readAll(file);
    expect(lines.length).toBe(2000);
    expect(lines.every((l) => l.text.length === 1500)).toBe(true);
  });

  it.skipIf(!ON_LINUX)(
    'closes the file when the reader stops before the end, and reads nothing after close (Linux only: counts /proc/self/fd)',
    () => {
      const file = join(dir, 'd.jsonl');
      writeFileSync(file, 'one\ntwo\n');
      const before = openFds();
      const reader = openLines(file);
      expect(openFds()).toBe(before + 1);
      expect(reader.next()?.length).toBe(2);
      reader.close();
      expect(openFds()).toBe(before);
      expect(reader.next()).toBeNull();
    },
  );

  it('yieldIfHeld gives the event loop a turn only after reading has held it', async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    const pause = yieldIfHeld();
    expect(pause).toBeInstanceOf(Promise);
    await pause;
    // Just after a yield, no other is due.
    expect(yieldIfHeld()).toBeUndefined();
  });
});
