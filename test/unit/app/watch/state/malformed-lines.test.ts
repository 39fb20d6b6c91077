import { describe, expect, it } from 'vitest';
import { createJsonLogger } from '../../../../../src/adapters/logger.js';
import { createMalformedLines } from '../../../../../src/app/watch/state/malformed-lines.js';
import type { ReadWarning } from '../../../../../src/core/view/waterfall-row.js';

function setup() {
  const logs: Record<string, unknown>[] = [];
  let clock = 0;
  const log = createJsonLogger((l) => logs.push(JSON.parse(l) as Record<string, unknown>), 'debug');
  const reporter = createMalformedLines(log, () => clock);
  return { logs, reporter, advance: (ms: number) => (clock += ms) };
}
const bad = (file: string, line: number): ReadWarning => ({ file, line, reason: 'invalid JSON' });

describe('malformed line reports', () => {
  it('a line seen again (a growing list, or a re-read into a new list) is reported once', () => {
    const { logs, reporter } = setup();
    const list: ReadWarning[] = [bad('a.jsonl', 3)];
    reporter.see(list);
    list.push(bad('a.jsonl', 9));
    reporter.see(list);
    reporter.see([bad('a.jsonl', 3), bad('a.jsonl', 9)]);
    expect(logs.map((l) => l.line)).toEqual([3, 9]);
    expect(logs[0]).toMatchObject({ level: 'warn', file: 'a.jsonl', reason: 'invalid JSON' });
    expect(reporter.count).toBe(2);
  });

  it('at most 10 per file per 10 minutes, the rest counted and summed up in the next window', () => {
    const { logs, reporter, advance } = setup();
    reporter.see(Array.from({ length: 25 }, (_, i) => bad('junk.jsonl', i + 1)));
    reporter.see([bad('other.jsonl', 1)]);
    const lines = logs.filter((l) => l.msg === 'malformed transcript line; skipped');
    expect(lines.filter((l) => l.file === 'junk.jsonl')).toHaveLength(10);
    expect(lines.filter((l) => l.file === 'other.jsonl')).toHaveLength(1);
    expect(logs.filter((l) => String(l.msg).startsWith('more malformed lines'))).toHaveLength(1);
    expect(reporter.count).toBe(26);
    advance(10 * 60_000);
    reporter.see([bad('junk.jsonl', 99)]);
    expect(
      logs.find((l) => l.msg === 'malformed transcript lines not logged one by one'),
    ).toMatchObject({
      file: 'junk.jsonl',
      lines: 15,
    });
    expect(logs[logs.length - 1]).toMatchObject({ line: 99 });
  });
});
