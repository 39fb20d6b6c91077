// The 2.1.2xx fields read off a line: a Workflow launch, a teammate message,
// a prompt's sessionKind and a cost-state record (issue 30).
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../../../src/core/transcript/parse-record.js';
import type { UserRecord } from '../../../../src/core/transcript/records.js';

const user = (fields: Record<string, unknown>): UserRecord => {
  const out = parseRecord(
    JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, ...fields }),
  );
  if (out.kind !== 'record' || out.record.type !== 'user') throw new Error('not a user record');
  return out.record;
};
const result = (tur: unknown): UserRecord =>
  user({
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
    toolUseResult: tur,
  });

describe('workflow launch', () => {
  it('reads runId and workflowName of a local_workflow launch', () => {
    const r = result({
      status: 'async_launched',
      taskType: 'local_workflow',
      runId: 'wf_ab12cd-3ef',
      workflowName: 'audit',
    });
    expect(r.workflowLaunch).toEqual({ runId: 'wf_ab12cd-3ef', name: 'audit' });
    expect(r.resultAsyncLaunched).toBe(true);
  });

  it('falls back on the transcript dir when runId is missing', () => {
    const r = result({
      taskType: 'local_workflow',
      transcriptDir: '/p/s/subagents/workflows/wf_9z8y7x-1/',
    });
    expect(r.workflowLaunch).toEqual({ runId: 'wf_9z8y7x-1', name: null });
  });

  it('is null for other results', () => {
    expect(result({ status: 'async_launched', agentId: 'a1' }).workflowLaunch).toBeNull();
    expect(result('User rejected tool use').workflowLaunch).toBeNull();
  });
});

describe('teammate message', () => {
  it('names the sender and the summary, in any attribute order', () => {
    const r = user({
      message: {
        role: 'user',
        content:
          '<teammate-message summary="done" color="blue" teammate_id="w-1">\nhi\n</teammate-message>',
      },
    });
    expect(r.teammate).toEqual({ from: 'w-1', summary: 'done' });
  });

  it('is null for other text, and a message is no prompt', () => {
    expect(
      user({ message: { role: 'user', content: 'fix <teammate-message> parsing' } }).teammate,
    ).toBeNull();
  });
});

describe('sessionKind and cost-state', () => {
  it('keeps a prompt sessionKind', () => {
    expect(user({ message: { role: 'user', content: 'go' }, sessionKind: 'bg' }).sessionKind).toBe(
      'bg',
    );
  });

  it('reads a cost-state record as an ignored line carrying the totals', () => {
    const out = parseRecord(
      JSON.stringify({
        type: 'cost-state',
        totalCostUSD: 0.0319,
        modelUsage: { 'claude-haiku-4-5-20251001': { costUSD: 0.0319 } },
        hasUnknownModelCost: false,
      }),
    );
    expect(out).toEqual({
      kind: 'ignored',
      costState: {
        totalCostUSD: 0.0319,
        hasUnknownModelCost: false,
        models: ['claude-haiku-4-5-20251001'],
      },
    });
  });
});
