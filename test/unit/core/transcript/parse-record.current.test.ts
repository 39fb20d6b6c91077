// parseRecord on Claude Code 2.1.2xx shapes (issue 12): what each new field reads as, and that
// wrong types read as missing rather than failing the line.
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../../../src/core/transcript/parse-record.js';
import type {
  AssistantRecord,
  SystemRecord,
  UserRecord,
} from '../../../../src/core/transcript/records.js';

function record<T>(line: unknown): T {
  const out = parseRecord(JSON.stringify(line));
  if (out.kind !== 'record') throw new Error(`expected a record, got ${out.kind}`);
  return out.record as T;
}

describe('parseRecord, 2.1.2xx', () => {
  it('reads the fork marker of a local_command, and nothing from other output', () => {
    const marker = record<SystemRecord>({
      type: 'system',
      subtype: 'local_command',
      content: '<local-command-stdout>⑂ forked changelog (3f2a)</local-command-stdout>',
    });
    expect(marker.fork).toEqual({ name: 'changelog', idSuffix: '3f2a' });
    const other = record<SystemRecord>({
      type: 'system',
      subtype: 'local_command',
      content: '<local-command-stdout>Bye!</local-command-stdout>',
    });
    expect(other.fork).toBeNull();
    expect(
      record<SystemRecord>({ type: 'system', subtype: 'local_command', content: 7 }).fork,
    ).toBeNull();
  });

  it('reads promptId, permissionMode, origin and a peer sender', () => {
    const peer = record<UserRecord>({
      type: 'user',
      promptId: 'p-1',
      permissionMode: 'plan',
      origin: { kind: 'peer' },
      message: {
        role: 'user',
        content:
          'Another Claude session sent a message:\n<cross-session-message from="s-2" from-name="release-bot">hi</cross-session-message>',
      },
    });
    expect([peer.promptId, peer.permissionMode, peer.originKind, peer.peerName]).toEqual([
      'p-1',
      'plan',
      'peer',
      'release-bot',
    ]);
    const odd = record<UserRecord>({
      type: 'user',
      promptId: 5,
      origin: 'peer',
      message: { role: 'user', content: 'x' },
    });
    expect([odd.promptId, odd.originKind, odd.peerName]).toEqual([null, null, null]);
  });

  it('reads a <task-notification> task id with or without a tool-use id', () => {
    const fork = record<UserRecord>({
      type: 'user',
      message: {
        role: 'user',
        content:
          '<task-notification>\n<task-id>achangelog-9c4d1e7b2a683f2a</task-id>\n</task-notification>',
      },
    });
    expect([fork.notifiesTaskId, fork.notifiesToolUseId]).toEqual([
      'achangelog-9c4d1e7b2a683f2a',
      null,
    ]);
  });

  it("keeps a Task result's reported run", () => {
    const u = record<UserRecord>({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }],
      },
      toolUseResult: {
        agentId: 'a1',
        totalTokens: 17294,
        totalToolUseCount: 18,
        totalDurationMs: 41250,
        usage: {
          input_tokens: 3,
          cache_creation_input_tokens: 1200,
          cache_read_input_tokens: 15800,
          output_tokens: 291,
        },
      },
    });
    expect(u.agentReport).toEqual({
      agentId: 'a1',
      totalTokens: 17294,
      toolUseCount: 18,
      durationMs: 41250,
      usage: { input: 3, output: 291, cacheRead: 15800, cacheWrite: 1200, cacheWrite1h: 0 },
    });
    const plain = record<UserRecord>({
      type: 'user',
      message: { role: 'user', content: 'x' },
      toolUseResult: { stdout: '' },
    });
    expect(plain.agentReport).toBeNull();
  });

  it('reads speed, thinking tokens and server tool counts; wrong types read as missing', () => {
    const a = record<AssistantRecord>({
      type: 'assistant',
      message: {
        id: 'msg_1',
        model: 'claude-opus-5-5',
        content: [],
        usage: {
          input_tokens: 1,
          output_tokens: 2,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 3 },
          cache_creation_input_tokens: 3,
          output_tokens_details: { thinking_tokens: 9 },
          server_tool_use: { web_search_requests: 2, web_fetch_requests: 'x' },
          speed: 'fast',
        },
      },
    });
    expect(a.usage).toEqual({
      input: 1,
      output: 2,
      cacheRead: 0,
      cacheWrite: 3,
      cacheWrite1h: 3,
      speed: 'fast',
      thinkingTokens: 9,
      webSearchRequests: 2,
    });
  });

  it('reports a record type it does not know by name, and reads the name and setting records', () => {
    expect(parseRecord('{"type":"stardust-sync"}')).toEqual({
      kind: 'ignored',
      unknownType: 'stardust-sync',
    });
    expect(parseRecord('{"no":"type"}')).toEqual({ kind: 'ignored', unknownType: '(no type)' });
    expect(parseRecord('{"type":"fork-context-ref","agentId":"a"}')).toEqual({ kind: 'ignored' });
    expect(parseRecord('{"type":"custom-title","customTitle":"Docs"}')).toEqual({
      kind: 'ignored',
      info: { customTitle: 'Docs' },
    });
    expect(
      parseRecord(
        '{"type":"pr-link","prNumber":4,"prUrl":"https://x/pull/4","prRepository":"o/r"}',
      ),
    ).toEqual({
      kind: 'ignored',
      info: { prLinks: [{ number: 4, url: 'https://x/pull/4', repository: 'o/r' }] },
    });
    expect(parseRecord('{"type":"ai-title","aiTitle":42}')).toEqual({ kind: 'ignored', info: {} });
  });
});
