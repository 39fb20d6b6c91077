import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../../../src/core/transcript/parse-record.js';
import type {
  AssistantRecord,
  ProgressRecord,
  UserRecord,
} from '../../../../src/core/transcript/records.js';

function record<T>(line: unknown, textLimit?: number): T {
  const out = parseRecord(JSON.stringify(line), textLimit === undefined ? {} : { textLimit });
  if (out.kind !== 'record') throw new Error(`expected a record, got ${out.kind}`);
  return out.record as T;
}

describe('parseRecord', () => {
  it('reports invalid JSON and non-objects as malformed, and ignores other record types', () => {
    expect(parseRecord('{"type":')).toMatchObject({ kind: 'malformed' });
    expect(parseRecord('[1,2]')).toEqual({ kind: 'malformed', reason: 'not a JSON object' });
    expect(parseRecord('{"type":"file-history-snapshot","snapshot":{}}')).toEqual({
      kind: 'ignored',
    });
    expect(parseRecord('{"type":"atis-latch"}')).toEqual({ kind: 'ignored' });
  });

  it('finds tool results by their tool_result block, not by isMeta', () => {
    const u = record<UserRecord>({
      type: 'user',
      uuid: 'u1',
      timestamp: '2026-01-01T00:00:01.500Z',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [{ type: 'text', text: 'ok' }, { type: 'image' }],
            is_error: true,
          },
        ],
      },
      toolUseResult: 'User rejected tool use',
    });
    expect(u.isMeta).toBe(false);
    expect(u.toolResults).toEqual([{ toolUseId: 'toolu_1', isError: true, text: 'ok\n[image]' }]);
    expect(u.rejected).toBe(true);
    expect(u.text).toBeNull();
    expect(u.timestamp).toBe(Date.parse('2026-01-01T00:00:01.500Z'));
  });

  it('keepTexts: false drops result and answer texts, but still reads a rejection from them', () => {
    const line = (text: string) =>
      JSON.stringify({
        type: 'user',
        uuid: 'u1',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: text, is_error: true }],
        },
      });
    const rejected = parseRecord(line("The user doesn't want to proceed with this tool use."), {
      keepTexts: false,
    });
    expect(rejected).toMatchObject({
      kind: 'record',
      record: { rejected: true, toolResults: [{ toolUseId: 'toolu_1', isError: true, text: '' }] },
    });
    expect(parseRecord(line('exit 1'), { keepTexts: false })).toMatchObject({
      record: { rejected: false, toolResults: [{ text: '' }] },
    });
    const answer = JSON.stringify({
      type: 'assistant',
      message: { id: 'msg_1', content: [{ type: 'text', text: 'Done.' }] },
    });
    expect(parseRecord(answer, { keepTexts: false })).toMatchObject({
      record: { hasText: true, text: null },
    });
    expect(parseRecord(answer)).toMatchObject({ record: { hasText: true, text: 'Done.' } });
  });

  it('reads usage, drops it for synthetic API errors, and keeps tool uses', () => {
    const a = record<AssistantRecord>({
      type: 'assistant',
      requestId: 'req_1',
      message: {
        id: 'msg_1',
        model: 'claude-opus-4-6',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }],
        usage: {
          input_tokens: 3,
          output_tokens: 7,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 20,
          cache_creation: { ephemeral_1h_input_tokens: 20 },
        },
      },
    });
    expect(a.usage).toEqual({
      input: 3,
      output: 7,
      cacheRead: 100,
      cacheWrite: 20,
      cacheWrite1h: 20,
    });
    expect(a.toolUses).toEqual([{ id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }]);
    const err = record<AssistantRecord>({
      type: 'assistant',
      isApiErrorMessage: true,
      error: 'rate_limit',
      message: {
        id: 'x',
        model: '<synthetic>',
        content: [{ type: 'text', text: 'API Error' }],
        usage: { input_tokens: 0 },
      },
    });
    expect(err.usage).toBeNull();
    expect(err.errorType).toBe('rate_limit');
  });

  it('reads wrong field types as missing instead of failing the line', () => {
    const a = record<AssistantRecord>({
      type: 'assistant',
      timestamp: 12,
      uuid: 5,
      message: { id: 7, content: 'text', usage: 'lots' },
    });
    expect(a).toMatchObject({
      timestamp: null,
      uuid: null,
      messageId: null,
      usage: null,
      toolUses: [],
    });
  });

  it('keeps tool inputs within the limits as they are, and cuts those past them', () => {
    const inputOf = (input: unknown): Record<string, unknown> => {
      const line = JSON.stringify({
        type: 'assistant',
        message: { id: 'm', content: [{ type: 'tool_use', id: 't', name: 'X', input }] },
      }).replace('"P":', '"__proto__":');
      const out = parseRecord(line, { textLimit: 10 });
      if (out.kind !== 'record' || out.record.type !== 'assistant') throw new Error('no record');
      return out.record.toolUses[0]?.input ?? {};
    };
    const nested = (levels: number): unknown =>
      levels === 0 ? { end: true } : { a: nested(levels - 1) };
    const within = {
      s: 'x'.repeat(10),
      list: Array.from({ length: 200 }, (_, i) => i),
      deep: nested(6),
    };
    expect(inputOf(within)).toEqual(within);
    const past = inputOf({ s: 'word '.repeat(4), list: Array.from({ length: 201 }, (_, i) => i) });
    expect((past.s as string).length).toBeLessThanOrEqual(11);
    expect(past.list).toHaveLength(200);
    // The object 8 levels below the input is cut off, whichever path reads it.
    let at: unknown = inputOf({ deep: nested(7) }).deep;
    for (let i = 1; i < 7; i++) at = (at as { a: unknown }).a;
    expect(at).toEqual({ a: '[object nested too deep]' });
    // A __proto__ key goes through the copy, which never keeps it as a key of its own.
    const proto = inputOf({ P: { polluted: true }, k: 1 });
    expect(Object.keys(proto)).toEqual(['k']);
    expect(JSON.stringify(proto)).toBe('{"k":1}');
  });

  it('clips long text and long strings inside tool inputs', () => {
    const a = record<AssistantRecord>(
      {
        type: 'assistant',
        message: {
          id: 'm',
          content: [
            {
              type: 'tool_use',
              id: 't',
              name: 'Write',
              input: { file_path: 'a', content: 'word '.repeat(1000) },
            },
          ],
        },
      },
      100,
    );
    const clipped = a.toolUses[0]?.input.content as string;
    expect(clipped.length).toBeLessThanOrEqual(101);
    expect(clipped.endsWith(' …')).toBe(true);
    // A secret straddling the cut is dropped whole: no stub of it survives.
    const token = `ghp_${'a1B2'.repeat(9)}`;
    const b = record<AssistantRecord>(
      {
        type: 'assistant',
        message: {
          id: 'm',
          content: [{ type: 'text', text: `${'x '.repeat(45)}token ${token} tail` }],
        },
      },
      100,
    );
    expect(b.text).toBe(`${'x '.repeat(45)}token …`);
  });

  it('turns an agent_progress record into a sub-agent copy', () => {
    const p = record<ProgressRecord>({
      type: 'progress',
      parentToolUseID: 'toolu_task',
      data: {
        type: 'agent_progress',
        agentId: 'a1',
        message: {
          type: 'assistant',
          uuid: 'c1',
          timestamp: '2026-01-01T00:00:00Z',
          message: { id: 'msg_c', content: [] },
        },
      },
    });
    expect(p.parentToolUseId).toBe('toolu_task');
    expect(p.embedded).toMatchObject({
      type: 'assistant',
      uuid: 'c1',
      agentId: 'a1',
      isSidechain: true,
      messageId: 'msg_c',
    });
  });

  it('reads the tool_use id a task-notification joins', () => {
    const u = record<UserRecord>({
      type: 'user',
      message: {
        content:
          '<task-notification>\n<task-id>a</task-id>\n<tool-use-id>toolu_9</tool-use-id>\n</task-notification>',
      },
    });
    expect(u.notifiesToolUseId).toBe('toolu_9');
  });
});
