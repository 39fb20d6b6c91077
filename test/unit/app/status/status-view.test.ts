// The --json face of `ccotel status`: a session's count of malformed lines is
// added only when it has some, so a clean session's object is what it was.
import { describe, expect, it } from 'vitest';
import type { SessionStatusRow } from '../../../../src/app/status/status.js';
import {
  renderStatusJson,
  renderStatusTable,
  toStatusJson,
} from '../../../../src/app/status/status-view.js';

const NOW = Date.parse('2026-09-01T00:00:00.000Z');

const row = (over: Partial<SessionStatusRow> = {}): SessionStatusRow => ({
  sessionId: 's1',
  project: '/home/dev/app',
  cwd: '/home/dev/app',
  state: 'your_turn',
  stale: false,
  retrying: false,
  errorType: null,
  lastActivity: NOW - 90_000,
  lastPromptAt: NOW - 120_000,
  openToolCalls: [],
  gitBranch: 'main',
  version: '2.1.80',
  file: '/p/s1.jsonl',
  warnings: [],
  ...over,
});

const bad = [
  { file: '/p/s1.jsonl', line: 4, reason: 'invalid JSON: Unexpected token' },
  { file: '/p/s1.jsonl', line: 20, reason: 'invalid JSON: Unterminated string' },
];

describe('status --json and malformed lines', () => {
  it('gives a clean session exactly the keys it always had', () => {
    expect(Object.keys(toStatusJson(row()))).toEqual([
      'sessionId',
      'project',
      'cwd',
      'state',
      'stale',
      'retrying',
      'errorType',
      'lastActivity',
      'lastPromptAt',
      'openToolCalls',
      'gitBranch',
      'version',
      'file',
    ]);
  });

  it('adds malformedLines last, counting each warning, on that session only', () => {
    const json = JSON.parse(
      renderStatusJson([row({ warnings: bad }), row({ sessionId: 's2' })]),
    ) as Record<string, unknown>[];
    expect(Object.keys(json[0] ?? {}).at(-1)).toBe('malformedLines');
    expect(json[0]?.malformedLines).toBe(2);
    expect(json[1]).not.toHaveProperty('malformedLines');
  });

  it('leaves the table as it is: the warnings go to stderr', () => {
    expect(renderStatusTable([row({ warnings: bad })], NOW, 24)).toBe(
      renderStatusTable([row()], NOW, 24),
    );
  });
});
