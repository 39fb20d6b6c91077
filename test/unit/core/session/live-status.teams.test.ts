// A team lead that handed work to teammates and ended its own response is
// still at work (issue 30): `status` reads the hand fixture v22x-team line by line.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../../../src/core/transcript/parse-record.js';
import { createSessionState, step } from '../../../../src/core/session/state.js';
import { statusOf } from '../../../../src/core/session/live-status.js';

const DIR = 'fixtures/hand/v22x-team';
const SID = 'b3e7d1a9-5c2f-4e8b-a6d4-9f0c2e7b1a53';
const lines = (file: string): string[] => readFileSync(file, 'utf8').trimEnd().split('\n');
const MAIN = lines(`${DIR}/${SID}.jsonl`);

/** The state after the main file's first `n` lines. */
function after(n: number): ReturnType<typeof statusOf> {
  const state = createSessionState(SID, `${SID}.jsonl`);
  MAIN.slice(0, n).forEach((l, i) =>
    step(state, { file: `${SID}.jsonl`, agentId: null }, i + 1, parseRecord(l)),
  );
  return statusOf(state.live);
}

describe('team lead status', () => {
  it('is working after its end_turn while the teammate it spawned has not written back', () => {
    expect(after(4).state).toBe('working');
  });

  it('is working when the teammate message arrives, and your turn once the lead answered it', () => {
    expect(after(5).state).toBe('working');
    expect(after(6)).toMatchObject({ state: 'your_turn', confirmed: true });
  });

  it('a plain Agent call (no team_name) is not waited on', () => {
    const plain = MAIN.slice(0, 4).map((l) => l.replace(',"team_name":"refactor-team"', ''));
    const state = createSessionState(SID, `${SID}.jsonl`);
    plain.forEach((l, i) => step(state, { file: 'm', agentId: null }, i + 1, parseRecord(l)));
    expect(statusOf(state.live).state).toBe('your_turn');
  });
});
