// When a session may be taken from its mark: each condition that must hold,
// and each change that makes the session read again.
import { describe, expect, it } from 'vitest';
import {
  deliveryKey,
  markHolds,
  sameFiles,
  type MarkQuery,
} from '../../../../src/app/export/session-marks.js';
import type { SessionMark } from '../../../../src/adapters/state/export-state-file.js';
import type { StampedFile } from '../../../../src/adapters/files/file-info.js';
import { DEFAULTS } from '../../../../src/core/settings.js';

type Stamp = { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number };

const stamp = (path: string, over: Partial<Stamp> = {}): StampedFile => {
  const s = { dev: 1, ino: 10, size: 100, mtimeMs: 1000.5, ctimeMs: 1000.5, ...over };
  return [path, s.dev, s.ino, s.size, s.mtimeMs, s.ctimeMs];
};

const MAIN = 's.jsonl';
const AGENT = 's/subagents/agent-a.jsonl';

const mark = (over: Partial<SessionMark> = {}): SessionMark => ({
  under: 'key',
  since: null,
  files: [stamp(MAIN), stamp(AGENT, { ino: 11 })],
  turns: [
    ['t1', 1_000, 'd1'],
    ['t2', 5_000, 'd2'],
  ],
  warnings: [],
  unknownModels: [],
  lateAgents: 0,
  ...over,
});

const recordedAll: Record<string, string> = { t1: 'd1', t2: 'd2' };

const query = (over: Partial<MarkQuery> = {}): MarkQuery => ({
  files: mark().files,
  under: 'key',
  since: null,
  recorded: (id) => recordedAll[id],
  ...over,
});

describe('markHolds', () => {
  it('holds for the same files, settings and recorded digests', () => {
    expect(markHolds(mark(), query())).toBe(true);
  });

  it('fails without a mark, or without stamps', () => {
    expect(markHolds(undefined, query())).toBe(false);
    expect(markHolds(mark(), query({ files: null }))).toBe(false);
  });

  it.each<[string, Partial<Stamp>]>([
    ['grown', { size: 101 }],
    ['rewritten with the same size', { mtimeMs: 1000.6 }],
    ['its times set back after a write', { ctimeMs: 2000 }],
    ['replaced by rename', { ino: 12 }],
    ['copied to another device', { dev: 2 }],
  ])('fails for a file %s', (_what, change) => {
    const files = [stamp(MAIN, change), stamp(AGENT, { ino: 11 })];
    expect(markHolds(mark(), query({ files }))).toBe(false);
  });

  it('fails for a file added, gone, or in another place', () => {
    const files = mark().files;
    expect(
      markHolds(mark(), query({ files: [...files, stamp('s/subagents/agent-b.jsonl')] })),
    ).toBe(false);
    expect(markHolds(mark(), query({ files: files.slice(0, 1) }))).toBe(false);
    expect(
      markHolds(mark(), query({ files: [stamp(MAIN), stamp('other.jsonl', { ino: 11 })] })),
    ).toBe(false);
  });

  it('fails under other delivery settings', () => {
    expect(markHolds(mark(), query({ under: 'other' }))).toBe(false);
  });

  it('fails when a turn is recorded with another digest, or not at all', () => {
    expect(markHolds(mark(), query({ recorded: (id) => (id === 't2' ? 'd2b' : 'd1') }))).toBe(
      false,
    );
    expect(markHolds(mark(), query({ recorded: (id) => (id === 't1' ? 'd1' : undefined) }))).toBe(
      false,
    );
  });

  it('a window delivered from --since covers a later one, not an earlier one or all turns', () => {
    const since = mark({ since: 3_000 });
    // t1 (before the window) was never delivered: not asked for.
    const onlyT2 = query({ recorded: (id) => (id === 't2' ? 'd2' : undefined) });
    expect(markHolds(since, { ...onlyT2, since: 3_000 })).toBe(true);
    expect(markHolds(since, { ...onlyT2, since: 4_000 })).toBe(true);
    expect(markHolds(since, { ...onlyT2, since: 2_000 })).toBe(false);
    expect(markHolds(since, { ...onlyT2, since: null })).toBe(false);
    // A mark of all turns covers any window.
    expect(markHolds(mark(), query({ since: 4_000 }))).toBe(true);
  });
});

describe('sameFiles', () => {
  it('compares the paths in order and every stamp field', () => {
    expect(sameFiles([], [])).toBe(true);
    expect(sameFiles([stamp('a')], [stamp('b')])).toBe(false);
    expect(sameFiles([stamp('a'), stamp('b')], [stamp('b'), stamp('a')])).toBe(false);
  });
});

describe('deliveryKey', () => {
  const prices = { models: [] };
  const resource: Record<string, string> = { 'service.name': 'claude-code', 'host.name': 'h' };
  const key = (
    over: Partial<typeof DEFAULTS> = {},
    attrs = resource,
    version = '0.1.0',
    p = prices,
  ) => deliveryKey({ ...DEFAULTS, ...over }, attrs, p, version);

  it('changes with what the spans and their resource are made of', () => {
    const base = key();
    expect(key({ content: 'full' })).not.toBe(base);
    expect(key({ maxAttributeBytes: 4096 })).not.toBe(base);
    expect(key({}, { ...resource, 'service.name': 'other' })).not.toBe(base);
    expect(key({}, { ...resource, 'host.name': 'other' })).not.toBe(base);
    expect(key({}, { ...resource, team: 'a' })).not.toBe(base);
    expect(key({}, resource, '0.2.0')).not.toBe(base);
    expect(
      key({}, resource, '0.1.0', { models: [{ id: 'm', input: 1, output: 2 }] as never }),
    ).not.toBe(base);
  });

  it('does not change with how or where they are sent, nor with the order of resource keys', () => {
    const base = key();
    expect(key({}, { 'host.name': 'h', 'service.name': 'claude-code' })).toBe(base);
    expect(
      key({
        endpoint: 'http://elsewhere:4318/v1/traces',
        maxBatchSpans: 10,
        protocol: 'http/json',
      }),
    ).toBe(base);
  });
});
