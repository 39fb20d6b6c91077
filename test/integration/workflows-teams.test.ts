// Claude Code 2.1.2xx workflows, agent teams and background sessions (issue 30), on the hand
// fixtures fixtures/hand/v22x-{workflow,team,background-sdk}. Every figure is computed by hand
// from the fixture lines (fixtures/hand/README.md, cases 20–22).
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCcotel } from '../support/run-cli.js';
import { showJson as showJsonOf, spansOf } from '../support/fixture-output.js';
import type { WaterfallRow } from '../../src/core/view/waterfall-row.js';

const WF_DIR = 'fixtures/hand/v22x-workflow';
const WF_SID = '6f2b9c1e-4d8a-4b3f-9e7c-1a5d2f8b3c4e';
const WF_CASE = `${WF_DIR}/${WF_SID}.jsonl`;
const WF_CALL = 'toolu_01IPsUHxBa6vgTLhpLepVgc3';
const [A, B1, B2] = ['a4e1b7c09d2f35e86', 'a9c3d5e7f1b20486a', 'a2d8f4b6c0e1937a5'];
const TEAM_CASE = 'fixtures/hand/v22x-team/b3e7d1a9-5c2f-4e8b-a6d4-9f0c2e7b1a53.jsonl';
const TEAM_CALL = 'toolu_01xPCIOV5s9tUCygg3ySFsXp';
const BG_CASE = 'fixtures/hand/v22x-background-sdk/d4a8e2c6-7b1f-4a3e-8c5d-0e9f1b2a3c6d.jsonl';

interface Json {
  rows: WaterfallRow[];
  warnings: { file: string; line: number; reason: string }[];
}

const showJson = (path: string): Promise<Json> => showJsonOf<Json>(path);

describe('workflows', () => {
  it('each workflow agent is an agent row under the Workflow call that started it, holding its calls', async () => {
    const { rows, warnings } = await showJson(WF_CASE);
    expect(warnings).toEqual([]);
    expect(rows.map((r) => r.id)).toEqual([WF_CALL]);
    const wf = rows[0]!;
    expect([wf.label, wf.status]).toEqual(['Workflow: audit-api', 'success']);
    // Launched at once; ended by the <task-notification> naming the call (main line 7).
    expect([wf.startTime, wf.endTime]).toEqual([
      Date.parse('2026-11-26T10:00:03.000Z'),
      Date.parse('2026-11-26T10:00:41.200Z'),
    ]);
    expect(
      wf.children.map((r) => [r.id, r.type, r.label, r.status, r.parentAgentId, r.workflow?.phase]),
    ).toEqual([
      [A, 'agent', 'Agent: scan-routes (Scan)', 'success', WF_CALL, 'Scan'],
      // B1's file ends interrupted: it was restarted as B2.
      [B1, 'agent', 'Agent: review-auth (Review)', 'error', WF_CALL, 'Review'],
      [B2, 'agent', 'Agent: review-auth (Review)', 'success', WF_CALL, 'Review'],
    ]);
    // 10070 (45) + 10388 (70); B1 10070 (45)
    expect(wf.children.map((r) => r.tokens)).toEqual([
      { input: 20458, output: 115 },
      { input: 10070, output: 45 },
      { input: 20458, output: 115 },
    ]);
    expect(wf.children.map((r) => r.children.map((c) => [c.toolName, c.parentAgentId]))).toEqual([
      [['Grep', A]],
      [['Read', B1]],
      [['Read', B2]],
    ]);
  });

  it('the agent spans hang under the Workflow call span and carry the run, its name and their phase', async () => {
    const spans = await spansOf(WF_CASE);
    const call = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === WF_CALL);
    const agents = spans
      .filter((s) => s.attributes['claude_code.workflow.run_id'] !== undefined)
      .sort((a, b) => a.startMs - b.startMs);
    expect(agents.map((s) => s.attributes['claude_code.agent.id'])).toEqual([A, B1, B2]);
    for (const s of agents) {
      expect(s.name).toBe('invoke_agent workflow-subagent');
      expect(s.parentSpanId).toBe(call?.spanId);
      expect(s.attributes['claude_code.workflow.run_id']).toBe('wf_3c9a1f2e-b7d');
      expect(s.attributes['claude_code.workflow.name']).toBe('audit-api');
    }
    expect(agents.map((s) => s.attributes['claude_code.workflow.phase'])).toEqual([
      'Scan',
      'Review',
      'Review',
    ]);
    // One turn: the notification opens none.
    expect(spans.filter((s) => s.parentSpanId === null)).toHaveLength(1);
  });

  describe('with the launch result gone', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'ccotel-wf-'));
      await cp(WF_DIR, dir, { recursive: true });
      const main = join(dir, `${WF_SID}.jsonl`);
      const lines = (await readFile(main, 'utf8')).split('\n');
      // Line 3 is the result naming the run; line 4's parent then points nowhere, as after a cut.
      await writeFile(main, lines.filter((_, i) => i !== 2).join('\n'));
    });
    afterAll(async () => rm(dir, { recursive: true, force: true }));

    it('each agent keeps a row of its own, with a warning, and no call is dropped', async () => {
      const { rows, warnings } = await showJson(join(dir, `${WF_SID}.jsonl`));
      expect(rows.map((r) => r.id).sort()).toEqual([WF_CALL, A, B1, B2].sort());
      expect(rows.flatMap((r) => r.children).map((c) => c.toolName)).toEqual([
        'Grep',
        'Read',
        'Read',
      ]);
      expect(warnings.map((w) => [w.line, w.reason]).sort()).toEqual(
        [B2, A, B1].map((id) => [
          1,
          `workflow agent ${id}: no Workflow call read names its run wf_3c9a1f2e-b7d: shown under the turn of its first line`,
        ]),
      );
    });
  });
});

describe('agent teams', () => {
  it("the teammate's calls are under the Agent call naming it, the row named, ending with its work", async () => {
    const { rows, warnings } = await showJson(TEAM_CASE);
    expect(warnings).toEqual([]);
    expect(rows.map((r) => r.id)).toEqual([TEAM_CALL]);
    const row = rows[0]!;
    expect(row.label).toBe('Agent worker-1: Find parseAmount callers');
    expect(row.teammate).toEqual({ name: 'worker-1', team: 'refactor-team' });
    expect(row.endTime).toBe(Date.parse('2026-11-27T11:00:30.500Z'));
    expect(row.tokens).toEqual({ input: 30096, output: 162 });
    expect(row.children.map((c) => c.toolName)).toEqual(['Grep', 'SendMessage']);
  });

  it('a <teammate-message> opens no turn: the turn it arrives in names its sender', async () => {
    const spans = await spansOf(TEAM_CASE);
    const roots = spans.filter((s) => s.parentSpanId === null);
    expect(roots).toHaveLength(1);
    expect(roots[0]?.attributes['claude_code.turn.teammate_message.senders']).toEqual(['worker-1']);
    const agent = spans.find((s) => s.attributes['claude_code.agent.name'] === 'worker-1');
    expect(agent?.attributes['claude_code.agent.team']).toBe('refactor-team');
    const run = await runCcotel(['show', TEAM_CASE]);
    expect(run.stdout).toContain('✉ from worker-1: 3 callers of parseAmount');
    expect(run.stdout).toContain('1 turn ·');
  });
});

describe('background and SDK sessions', () => {
  it('the turn root carries the session kind and the entry point', async () => {
    const spans = await spansOf(BG_CASE);
    const root = spans.find((s) => s.parentSpanId === null);
    expect(root?.attributes['claude_code.session.kind']).toBe('bg');
    expect(root?.attributes['claude_code.entrypoint']).toBe('sdk-cli');
  });
});

describe('cost-state', () => {
  it("the last cost-state is compared with ccotel's own cost: one warning at its line, in show and export", async () => {
    const reason =
      'cost-state: Claude Code counts the session at $0.0085, ccotel at $0.009368 (10.2 % more)';
    const { warnings } = await showJson(BG_CASE);
    expect(warnings).toEqual([{ file: BG_CASE, line: 10, reason }]);
    const text = await runCcotel(['show', BG_CASE]);
    expect(text.stdout).toContain('1 warning');
    const dir = await mkdtemp(join(tmpdir(), 'ccotel-cost-'));
    try {
      const run = await runCcotel(['export', BG_CASE, '--out', join(dir, 'spans.json')]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr.split('\n').filter((l) => l.includes('cost-state'))).toEqual([
        `warning: ${BG_CASE}:10: ${reason}`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
