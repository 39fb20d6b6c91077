import { sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentIdOfFile,
  agentIdOfMeta,
  classifyPath,
  isAgentDirName,
  roleOfPath,
  sessionIdOfName,
} from '../../../../src/core/transcript/paths.js';

// Written as POSIX paths and given in the host's form: the code takes them apart with its separator.
const host = (path: string): string => path.replaceAll('/', sep);
const ROOT = host('/home/u/.claude/projects');
const P = host(`${ROOT}/-home-u-app`);
const KEY = host(`${P}/s1.jsonl`);

describe('file names', () => {
  it('tells agent files from their sidecars and main transcripts', () => {
    expect(agentIdOfFile('agent-a1.jsonl')).toBe('a1');
    expect(agentIdOfFile('agent-a1.meta.json')).toBeNull();
    expect(agentIdOfFile('s1.jsonl')).toBeNull();
    expect(agentIdOfMeta('agent-a1.meta.json')).toBe('a1');
    expect(agentIdOfMeta('agent-a1.jsonl')).toBeNull();
    expect(sessionIdOfName('s1.jsonl')).toBe('s1');
  });

  it('walks only the dirs that hold sub-agents', () => {
    expect(['subagents', 'workflows', 'wf_9'].map(isAgentDirName)).toEqual([true, true, true]);
    expect(['tool-results', 'memory', 'wf'].map(isAgentDirName)).toEqual([false, false, false]);
  });
});

describe('roleOfPath', () => {
  it('names the part a file of a session plays in it', () => {
    expect(roleOfPath(KEY, KEY)).toEqual({ role: 'main', agentId: null });
    expect(roleOfPath(host(`${P}/s1/subagents/agent-a1.jsonl`), KEY)).toEqual({
      role: 'agent',
      agentId: 'a1',
    });
    expect(roleOfPath(host(`${P}/s1/subagents/agent-a1.meta.json`), KEY)).toEqual({
      role: 'meta',
      agentId: 'a1',
    });
    // A 2.0.x flat agent file beside the main one.
    expect(roleOfPath(host(`${P}/agent-3f9c.jsonl`), KEY)).toEqual({
      role: 'agent',
      agentId: '3f9c',
    });
    // Another session's main file read as an agent: keyed by its name.
    expect(roleOfPath(host(`${P}/s2.jsonl`), KEY)).toEqual({ role: 'agent', agentId: 's2.jsonl' });
  });

  it('agrees with classifyPath on the agent id of every sub-agent path', () => {
    for (const path of [
      host(`${P}/s1/subagents/agent-a1.jsonl`),
      host(`${P}/s1/subagents/agent-a1.meta.json`),
      host(`${P}/s1/subagents/workflows/wf_9/agent-a2.jsonl`),
    ]) {
      const kind = classifyPath(path, ROOT);
      expect(kind).not.toBeNull();
      if (kind === null || kind.kind === 'main') continue;
      expect(kind.kind === 'flat-agent' ? null : kind.sessionKey).toBe(KEY);
      expect(roleOfPath(path, KEY)).toEqual({ role: kind.kind, agentId: kind.agentId });
    }
  });
});
