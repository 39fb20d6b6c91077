// core/session-reader.ts on its own: a cut before a prompt leaves the turns
// after it as the whole session gives them, and is refused where a later line
// could still change a turn cut away (a call without its result, an agent with
// records on both sides of the cut); the line loop stops before a prompt once
// the state holds enough, and a cut there is one at the end of what was read.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { finish, finishSegment, wholeSession } from '../../../../src/core/model/assemble/finish.js';
import { parseRecord } from '../../../../src/core/transcript/parse-record.js';
import { isRealPrompt } from '../../../../src/core/session/prompts.js';
import { createSessionState, step, type SessionState } from '../../../../src/core/session/state.js';
import {
  commitCut,
  createSessionReader,
  cutBefore,
  foldHeld,
  foldLines,
  heldPrompt,
  lastTurnStart,
  type Cut,
} from '../../../../src/core/session/reader.js';
import { writeLongSession } from '../../../../bench/lib/long-session.mjs';

const dir = mkdtempSync(join(tmpdir(), 'ccotel-session-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const linesOf = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

/** A state fed with lines, each [agentId or null, text], in that order. */
function stateOf(lines: [string | null, string][]): SessionState {
  const state = createSessionState('sess', 'main.jsonl');
  lines.forEach(([agentId, text], i) =>
    step(state, { file: agentId ?? 'main.jsonl', agentId }, i + 1, parseRecord(text)),
  );
  return state;
}

const promptIndices = (state: SessionState): number[] =>
  state.entries.flatMap((e, i) => (e.agentKey === null && isRealPrompt(e.rec) ? [i] : []));

/** The cut before the entry at `at`, the prompt being that entry's record. */
function cutAt(state: SessionState, at: number): Cut | null {
  const prompt = state.entries[at]?.rec;
  return prompt === undefined ? null : cutBefore(state, wholeSession(), at, prompt);
}

describe('cutBefore', () => {
  const long = writeLongSession({ dir: join(dir, 'plain'), turns: 12, agentEvery: 1000 });
  const main = linesOf(long.file).map((l): [null, string] => [null, l]);

  it('folds before any prompt of a finished prefix, the later turns unchanged', () => {
    const whole = finish(stateOf(main));
    const prompts = promptIndices(stateOf(main));
    expect(prompts.length).toBe(12);
    for (const at of prompts.slice(1)) {
      const state = stateOf(main);
      const cut = cutAt(state, at);
      expect(cut, `cut at ${at}`).not.toBeNull();
      if (cut === null) continue;
      const reader = createSessionReader(state, wholeSession());
      commitCut(reader, cut);
      expect(state.entries.length).toBe(main.length - at);
      const folded = finishSegment(state, reader.carry).model;
      const base = reader.carry.priorTurns.length;
      expect(folded.turns.slice(base)).toEqual(whole.turns.slice(base));
      for (const key of whole.turns.slice(base).flatMap((t) => t.toolIds))
        expect(folded.tools.get(key)).toEqual(whole.tools.get(key));
    }
  });

  it('refuses a cut while a call before it has no result', () => {
    const state = stateOf(main);
    const [, second] = promptIndices(state);
    // The first turn's last result, moved after the second prompt.
    const resultAt = state.entries.findLastIndex(
      (e, i) => i < (second ?? 0) && e.rec.type === 'user' && e.rec.toolResults.length > 0,
    );
    const moved = [...main];
    const [result] = moved.splice(resultAt, 1);
    moved.splice((second ?? 0) + 1, 0, result ?? [null, '']);
    const late = stateOf(moved);
    expect(cutAt(late, (second ?? 0) - 1)).toBeNull();
    expect(cutAt(stateOf(main), second ?? 0)).not.toBeNull();
  });

  it('refuses a cut with an agent on both sides, and a cut that is no prompt', () => {
    const withAgents = writeLongSession({ dir: join(dir, 'agents'), turns: 4, agentEvery: 2 });
    const subDir = join(dir, 'agents', withAgents.sessionId, 'subagents');
    const agentFile = readdirSync(subDir).find((n) => n.endsWith('.jsonl')) ?? '';
    const agentId = /^agent-(.+)\.jsonl$/.exec(agentFile)?.[1] ?? '';
    const agentLines = linesOf(join(subDir, agentFile)).map((l): [string, string] => [agentId, l]);
    const mainLines = linesOf(withAgents.file).map((l): [null, string] => [null, l]);
    const cutPrompt = promptIndices(stateOf(mainLines))[2] ?? 0;
    // Half the agent's lines before the third prompt, half after it.
    const half = Math.ceil(agentLines.length / 2);
    const split = stateOf([
      ...mainLines.slice(0, cutPrompt),
      ...agentLines.slice(0, half),
      ...mainLines.slice(cutPrompt),
      ...agentLines.slice(half),
    ]);
    const at = promptIndices(split)[2] ?? 0;
    expect(cutAt(split, at)).toBeNull();
    expect(cutAt(split, at - 1)).toBeNull();
    expect(cutAt(split, 0)).toBeNull();
  });

  it('lastTurnStart: the prompt of the last turn, or none while an agent lies across it', () => {
    const state = stateOf(main);
    expect(lastTurnStart(state, finish(state))).toBe(promptIndices(state).at(-1));
    const withAgents = writeLongSession({ dir: join(dir, 'agents2'), turns: 3, agentEvery: 2 });
    const subDir = join(dir, 'agents2', withAgents.sessionId, 'subagents');
    const files = readdirSync(subDir).filter((n) => n.endsWith('.jsonl'));
    const agentLines = files.flatMap((f) =>
      linesOf(join(subDir, f)).map((l): [string, string] => [
        /^agent-(.+)\.jsonl$/.exec(f)?.[1] ?? '',
        l,
      ]),
    );
    const mainLines = linesOf(withAgents.file).map((l): [null, string] => [null, l]);
    // Agent files read after the whole main file: the earlier turns' agents lie after the last prompt.
    const late = stateOf([...mainLines, ...agentLines]);
    expect(lastTurnStart(late, finish(late))).toBeNull();
  });

  it('foldLines stops before a prompt once enough is held; a cut there equals one behind it', () => {
    const texts = main.map(([, text], i) => ({ text, number: i + 1, offset: 0, end: 0 }));
    const source = { file: 'main.jsonl', agentId: null };
    const reader = createSessionReader(createSessionState('sess', 'main.jsonl'), wholeSession());
    const stopped = foldLines(reader, source, texts, 0, {}, 1);
    const second = promptIndices(stateOf(main))[1] ?? 0;
    // The first prompt is read with nothing held: the loop stops at the second.
    expect(stopped).toBe(second);
    expect(reader.state.entries.length).toBe(second);
    const prompt = heldPrompt(reader);
    expect(prompt).not.toBeNull();
    if (prompt === null) return;
    const atEnd = cutBefore(reader.state, reader.carry, reader.state.entries.length, prompt);
    const behind = cutAt(stateOf(main), second);
    expect(atEnd?.rest).toBeNull();
    expect(atEnd?.segment.model).toEqual(behind?.segment.model);
    expect(atEnd?.carry).toEqual(behind?.carry);
    if (atEnd === null) return;
    commitCut(reader, atEnd);
    foldHeld(reader, source);
    expect(foldLines(reader, source, texts, stopped + 1, {}, Infinity)).toBe(texts.length);
    const rest = finishSegment(reader.state, reader.carry).model;
    const whole = finish(stateOf(main));
    expect(rest.turns.slice(1)).toEqual(whole.turns.slice(1));
  });
});
