// When the spans of a Workflow call and of a teammate are final for `watch` (issue 30): the
// Workflow call waits for its <task-notification>, a teammate for its own answer. The hand
// fixtures v22x-workflow and v22x-team, folded line by line up to a point.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../../../src/core/transcript/parse-record.js';
import { parseAgentMeta } from '../../../../src/core/transcript/agent-meta.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  step,
} from '../../../../src/core/session/state.js';
import { finish } from '../../../../src/core/model/assemble/finish.js';
import { createThreads, observe } from '../../../../src/core/spans/thread-progress.js';
import { readySpanIds } from '../../../../src/core/spans/finality.js';
import { agentSpanIdFor, toolSpanIdFor } from '../../../../src/core/spans/ids.js';

const lines = (file: string): string[] => readFileSync(file, 'utf8').trimEnd().split('\n');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
  );
}

/** The session with its main file's first `mainLines` lines and each agent file's first `agentLines`. */
function readyAfter(caseDir: string, sid: string, mainLines: number, agentLines: number) {
  const state = createSessionState(sid, `${caseDir}/${sid}.jsonl`);
  const files = walk(`${caseDir}/${sid}`);
  for (const f of files.filter((p) => p.endsWith('.meta.json'))) {
    const meta = parseAgentMeta(f, readFileSync(f, 'utf8'));
    if (meta !== null) addAgentMeta(state, meta);
  }
  lines(`${caseDir}/${sid}.jsonl`)
    .slice(0, mainLines)
    .forEach((l, i) => step(state, { file: state.file, agentId: null }, i + 1, parseRecord(l)));
  for (const f of files.filter((p) => /agent-.+\.jsonl$/.test(p))) {
    const agentId = /agent-(.+)\.jsonl$/.exec(f)?.[1] ?? '';
    registerAgentFile(state, agentId, f);
    lines(f)
      .slice(0, agentLines)
      .forEach((l, i) => step(state, { file: f, agentId }, i + 1, parseRecord(l)));
  }
  const model = finish(state);
  const threads = createThreads();
  observe(threads, state.entries);
  const turn = model.turns[0];
  if (turn === undefined) throw new Error('no turn');
  return readySpanIds(model, threads, turn);
}

describe('finality of 2.1.2xx background work', () => {
  const WF = 'fixtures/hand/v22x-workflow';
  const WF_SID = '6f2b9c1e-4d8a-4b3f-9e7c-1a5d2f8b3c4e';
  const WF_CALL = 'toolu_01IPsUHxBa6vgTLhpLepVgc3';

  it('a Workflow call is not final before its <task-notification>, its finished agents are', () => {
    const ready = readyAfter(WF, WF_SID, 4, 99);
    expect(ready.has(toolSpanIdFor(WF_CALL))).toBe(false);
    expect(ready.has(agentSpanIdFor('a4e1b7c09d2f35e86'))).toBe(false);
    const joined = readyAfter(WF, WF_SID, 7, 99);
    expect(joined.has(toolSpanIdFor(WF_CALL))).toBe(true);
    expect(joined.has(agentSpanIdFor('a4e1b7c09d2f35e86'))).toBe(true);
  });

  const TEAM = 'fixtures/hand/v22x-team';
  const TEAM_SID = 'b3e7d1a9-5c2f-4e8b-a6d4-9f0c2e7b1a53';
  const TEAMMATE = 'aworker-1-5d2e8c41b7a09f36';

  it('a teammate is not final while it works, although its spawn returned', () => {
    // The teammate's last line so far is its Grep result: it is still at work.
    expect(readyAfter(TEAM, TEAM_SID, 4, 3).has(agentSpanIdFor(TEAMMATE))).toBe(false);
    expect(readyAfter(TEAM, TEAM_SID, 4, 6).has(agentSpanIdFor(TEAMMATE))).toBe(true);
  });
});
