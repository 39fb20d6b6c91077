import { sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyPath } from '../../../../../src/core/transcript/paths.js';
import { isWatchedPath } from '../../../../../src/app/watch/intake/file-kind.js';
import { createJsonLogger } from '../../../../../src/adapters/logger.js';

// Written as POSIX paths and given in the host's form: the code takes them apart with its separator.
const host = (path: string): string => path.replaceAll('/', sep);
const ROOT = host('/home/u/.claude/projects');
const P = host(`${ROOT}/-home-u-app`);

describe('classifyPath', () => {
  it('knows every layout', () => {
    expect(classifyPath(host(`${P}/s1.jsonl`), ROOT)).toEqual({
      kind: 'main',
      sessionKey: host(`${P}/s1.jsonl`),
      sessionId: 's1',
    });
    expect(classifyPath(host(`${P}/agent-3f9c.jsonl`), ROOT)).toEqual({
      kind: 'flat-agent',
      projectDir: P,
      agentId: '3f9c',
    });
    expect(classifyPath(host(`${P}/s1/subagents/agent-a1.jsonl`), ROOT)).toEqual({
      kind: 'agent',
      sessionKey: host(`${P}/s1.jsonl`),
      sessionId: 's1',
      agentId: 'a1',
    });
    expect(classifyPath(host(`${P}/s1/subagents/agent-a1.meta.json`), ROOT)).toEqual({
      kind: 'meta',
      sessionKey: host(`${P}/s1.jsonl`),
      sessionId: 's1',
      agentId: 'a1',
    });
    expect(
      classifyPath(host(`${P}/s1/subagents/workflows/wf_9/agent-a2.jsonl`), ROOT),
    ).toMatchObject({
      kind: 'agent',
      sessionId: 's1',
      agentId: 'a2',
    });
  });

  it('ignores what is not a transcript', () => {
    expect(classifyPath(host(`${P}/sessions-index.json`), ROOT)).toBeNull();
    expect(classifyPath(host(`${P}/s1/subagents/workflows/wf_9/journal.jsonl`), ROOT)).toBeNull();
    expect(classifyPath(host(`${P}/s1/tool-results/x.jsonl`), ROOT)).toBeNull();
    expect(isWatchedPath(host(`${P}/s1/tool-results`), true, ROOT)).toBe(false);
    expect(isWatchedPath(host(`${P}/s1/subagents`), true, ROOT)).toBe(true);
  });
});

describe('json logger', () => {
  it('writes one JSON object per line and filters by level', () => {
    const lines: string[] = [];
    const log = createJsonLogger(
      (l) => lines.push(l),
      'info',
      () => new Date('2026-01-02T03:04:05.000Z'),
    );
    log.debug('hidden');
    log.warn('collector unreachable', {
      error: new Error('ECONNREFUSED'),
      msg: 'cannot override',
      status: 0,
    });
    expect(lines).toEqual([
      '{"time":"2026-01-02T03:04:05.000Z","level":"warn","msg":"collector unreachable","error":"ECONNREFUSED","status":0}\n',
    ]);
  });
});
