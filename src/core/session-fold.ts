// Folding the finished start of a live session away: the daemon's state then
// holds only the turn still being written, so the work per appended line
// stays the same however long the session has grown (finish() runs over the
// entries held, and they no longer include every turn since the start).
//
// It is the cut `ccotel export` makes between segments (session-segments.ts),
// taken live: before the prompt that opened the last turn, once every earlier
// turn is closed (finishSegment's `closed`: every call has its result, every
// background agent its <task-notification>). The prefix is finished with the
// carry, and its records go; what later turns read of it stays in the carry.
// The uuid times are kept from the prompt on (a response answers a line of
// its own turn; a segment cut keeps none from before it either), the
// inline-sidechain links whole (1.0.x sessions, small).
import { finishSegment, opensTurn, type SegmentCarry } from './assemble.js';
import type { SessionModel } from './session-model.js';
import type { Entry, SessionState } from './session-state.js';

export interface FoldPlan {
  /** The carry for the entries left. */
  carry: SegmentCarry;
  /** The entries left: those from the cut on. */
  entries: Entry[];
  infoBase: SessionState['infoBase'];
  infoMarks: SessionState['infoMarks'];
  uuidTime: SessionState['uuidTime'];
  /** How many entries the fold removes from the front. */
  dropped: number;
}

/** Agents with records in entries [from, to). */
function agentsIn(entries: readonly Entry[], from: number, to: number): Set<string> {
  const keys = new Set<string>();
  for (let i = from; i < to; i += 1) {
    const key = entries[i]?.agentKey;
    if (key !== null && key !== undefined) keys.add(key);
  }
  return keys;
}

/**
 * The fold of the entries before `at` (a main-thread real prompt), or null
 * when the cut would change a turn: the prefix still waits for a line, the
 * record at `at` opens no turn, or an agent has records on both sides of it.
 * Pure: the state is left as it is; applyFold() commits the plan.
 */
export function planFold(state: SessionState, carry: SegmentCarry, at: number): FoldPlan | null {
  const { entries } = state;
  const prompt = entries[at];
  if (prompt === undefined || at === 0 || prompt.agentKey !== null) return null;
  const before = agentsIn(entries, 0, at);
  for (const key of agentsIn(entries, at, entries.length)) if (before.has(key)) return null;
  const prefix: SessionState = {
    ...state,
    entries: entries.slice(0, at),
    infoMarks: state.infoMarks.filter((m) => m.at <= at),
  };
  const finished = finishSegment(prefix, {
    ...carry,
    nextTurnStart: prompt.rec.timestamp ?? Number.NaN,
  });
  if (!finished.closed || !opensTurn(finished.next, prompt.rec)) return null;
  const lastMark = prefix.infoMarks[prefix.infoMarks.length - 1];
  return {
    carry: { ...finished.next, nextTurnStart: null },
    entries: entries.slice(at),
    infoBase: lastMark === undefined ? state.infoBase : lastMark.info,
    infoMarks: state.infoMarks
      .filter((m) => m.at > at)
      .map((m) => ({ at: m.at - at, info: m.info })),
    uuidTime: timesFrom(state.uuidTime, prompt.rec.uuid),
    dropped: at,
  };
}

/**
 * The uuid times recorded from `uuid` on. The map holds them in the order the
 * lines were read, so those before the prompt are the prefix's (and copies or
 * progress lines read with it).
 */
function timesFrom(times: Map<string, number>, uuid: string | null): Map<string, number> {
  if (uuid === null || !times.has(uuid)) return times;
  const kept = new Map<string, number>();
  let from = false;
  for (const [key, time] of times) {
    from ||= key === uuid;
    if (from) kept.set(key, time);
  }
  return kept;
}

/** Commits a plan made by planFold() on this same state. */
export function applyFold(state: SessionState, plan: FoldPlan): void {
  state.entries = plan.entries;
  state.infoBase = plan.infoBase;
  state.infoMarks = plan.infoMarks;
  state.uuidTime = plan.uuidTime;
}

/**
 * Where to cut so that the model's last turn is all that is held: the index of
 * the main-thread record that opened it, or null when an agent's records do
 * not all fall on its own turn's side (one of an earlier turn with a line
 * after the prompt, one of the last turn before it, or one placed in no turn).
 */
export function foldPoint(state: SessionState, model: SessionModel): number | null {
  const last = model.turns.length - 1;
  const turn = model.turns[last];
  if (turn === undefined) return null;
  const { entries } = state;
  let at = -1;
  for (let i = entries.length - 1; i >= 0 && at < 0; i -= 1) {
    const e = entries[i];
    if (
      e !== undefined &&
      e.agentKey === null &&
      (e.rec.uuid ?? `${e.file}:${e.line}`) === turn.promptUuid
    )
      at = i;
  }
  if (at < 0) return null;
  for (let i = 0; i < entries.length; i += 1) {
    const key = entries[i]?.agentKey;
    if (key === null || key === undefined) continue;
    const turnIndex = model.agents.get(key)?.turnIndex ?? null;
    if (turnIndex === null || i < at !== turnIndex < last) return null;
  }
  return at;
}
