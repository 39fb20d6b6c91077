import { describe, expect, it } from 'vitest';
import { createLineSplitter } from '../../../../src/core/transcript/line-splitter.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('line splitter', () => {
  it('yields complete lines with numbers and byte offsets, and holds back the tail', () => {
    const s = createLineSplitter();
    const lines = s.push(b('{"a":1}\n{"b":2}\n{"c"'));
    expect(lines.map((l) => [l.number, l.offset, l.end, l.text])).toEqual([
      [1, 0, 8, '{"a":1}'],
      [2, 8, 16, '{"b":2}'],
    ]);
    expect(s.consumed).toBe(16);
    expect(s.pendingBytes).toBe(4);
    const rest = s.push(b(':3}\n'));
    expect(rest).toEqual([{ number: 3, offset: 16, end: 24, text: '{"c":3}' }]);
    expect(s.pendingBytes).toBe(0);
  });

  it('joins a multi-byte character split across chunks', () => {
    const s = createLineSplitter();
    const bytes = b('"é€😀"\n');
    const lines = [
      ...s.push(bytes.subarray(0, 2)),
      ...s.push(bytes.subarray(2, 5)),
      ...s.push(bytes.subarray(5)),
    ];
    expect(lines.map((l) => l.text)).toEqual(['"é€😀"']);
  });

  it('strips a CR before the newline and counts blank lines', () => {
    const s = createLineSplitter();
    expect(s.push(b('x\r\n\n')).map((l) => [l.number, l.text])).toEqual([
      [1, 'x'],
      [2, ''],
    ]);
  });

  it('resumes from a given offset and line', () => {
    const s = createLineSplitter(100, 7);
    expect(s.push(b('y\n'))[0]).toEqual({ number: 7, offset: 100, end: 102, text: 'y' });
  });

  it('handles a line of many megabytes fed in small chunks', () => {
    const s = createLineSplitter();
    const big = 'x'.repeat(5 * 1024 * 1024);
    const data = b(`{"t":"${big}"}\n`);
    const out = [];
    for (let i = 0; i < data.length; i += 64 * 1024)
      out.push(...s.push(data.subarray(i, i + 64 * 1024)));
    expect(out).toHaveLength(1);
    expect(out[0]?.text.length).toBe(big.length + 8);
  });
});
