// The one session reader: lines of a session's files folded into the core
// reducer, and the one cut between whole turns. Both drivers use it: the
// whole-file one (app/read-session.ts: export, show, status) cuts a session
// into segments as it reads, so a transcript of gigabytes converts in bounded
// memory; the tailer (app/watch/session-tail.ts) cuts finished turns away
// behind the live one, so the work per appended line stays the same however
// long the session has grown.
//
// A cut is made only before a main-thread prompt that opens a turn, once
// nothing before it waits for a later line (finishSegment's `closed`: every
// call has its result, every background agent its <task-notification>), and
// never through an agent whose records lie on both sides of it: the turns
// before it come out exactly as from the whole session, and what later turns
// read of them stays in the carry. A cut may be forced (memory stays bounded
// in a session that never settles); only a call answered after it can differ.
import {
  finishSegment,
  opensTurn,
  type FinishedSegment,
  type SegmentCarry,
} from '../model/assemble/finish.js';
import type { Line } from '../transcript/line-splitter.js';
import { parseRecord, type ParseOptions, type ParseOutcome } from '../transcript/parse-record.js';
import { isRealPrompt } from './prompts.js';
import type { TranscriptRecord } from '../transcript/records.js';
import type { SessionModel } from '../model/session-model.js';
import { startNextSegment, step, type Entry, type LineSource, type SessionState } from './state.js';

export interface SessionReader {
  state: SessionState;
  /** What the turns cut away leave to the entries held. */
  carry: SegmentCarry;
  /** The record foldLines() stopped before (a prompt a cut may come before), not folded in yet. */
  held: HeldRecord | null;
  /** Its line number. */
  heldLine: number;
}

type HeldRecord = ParseOutcome & { kind: 'record' };

export function createSessionReader(state: SessionState, carry: SegmentCarry): SessionReader {
  return { state, carry, held: null, heldLine: 0 };
}

/**
 * Whether a record read from the main file may have a cut before it: a real
 * prompt that step() will keep (not history copied from a fork, not a
 * repeated uuid), so that it opens a turn.
 */
function mayCutBefore(state: SessionState, outcome: ParseOutcome): outcome is HeldRecord {
  if (outcome.kind !== 'record') return false;
  const rec = outcome.record;
  if (!isRealPrompt(rec)) return false;
  return rec.forkedFromSessionId === null && (rec.uuid === null || !state.seenUuids.has(rec.uuid));
}

/**
 * The line loop: folds lines from index `from` into the state. Once the state
 * holds `cutFrom` entries, it stops before a record that may have a cut before
 * it (see mayCutBefore), holds it (reader.held) and returns its index; else it
 * returns lines.length. Infinity never stops.
 */
export function foldLines(
  reader: SessionReader,
  source: LineSource,
  lines: readonly Line[],
  from: number,
  parse: ParseOptions,
  cutFrom: number,
): number {
  const { state } = reader;
  for (let i = from; i < lines.length; i += 1) {
    const line = lines[i] as Line;
    if (line.text.trim() === '') continue;
    const outcome = parseRecord(line.text, parse);
    if (state.entries.length >= cutFrom && mayCutBefore(state, outcome)) {
      reader.held = outcome;
      reader.heldLine = line.number;
      return i;
    }
    step(state, source, line.number, outcome);
  }
  return lines.length;
}

/** Folds in the record foldLines() stopped before. */
export function foldHeld(reader: SessionReader, source: LineSource): void {
  if (reader.held === null) return;
  step(reader.state, source, reader.heldLine, reader.held);
  reader.held = null;
}

/** The prompt foldLines() stopped before: a cut before it is one at the end of the entries. */
export function heldPrompt(reader: SessionReader): TranscriptRecord | null {
  return reader.held === null ? null : reader.held.record;
}

export interface Cut {
  /** The turns before the cut, finished (closed unless forced). */
  segment: FinishedSegment;
  /** The carry for the entries left. */
  carry: SegmentCarry;
  /** How many entries the cut removes from the front. */
  dropped: number;
  /** What the state holds after a cut behind the last entry read; null for a cut at the end. */
  rest: Pick<SessionState, 'entries' | 'infoBase' | 'infoMarks' | 'uuidTime'> | null;
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

function straddles(entries: readonly Entry[], at: number): boolean {
  const after = agentsIn(entries, at, entries.length);
  if (after.size === 0) return false;
  const before = agentsIn(entries, 0, at);
  for (const key of after) if (before.has(key)) return true;
  return false;
}

/**
 * The one cut rule: the cut of the entries before `at`, where `prompt` is
 * the record at `at` (entries[at], or the one held when `at` is the end), or
 * null when it would change a turn: nothing to cut, the prompt opens no turn,
 * an agent has records on both sides, or (unless `force`) the turns before it
 * still wait for a line. Pure: the state is left as it is; commitCut() makes it.
 */
export function cutBefore(
  state: SessionState,
  carry: SegmentCarry,
  at: number,
  prompt: TranscriptRecord,
  force = false,
): Cut | null {
  const { entries } = state;
  if (at === 0 || at > entries.length || entries[at]?.agentKey != null) return null;
  if (straddles(entries, at)) return null;
  const end = at === entries.length;
  const prefix: SessionState = end
    ? state
    : {
        ...state,
        entries: entries.slice(0, at),
        infoMarks: state.infoMarks.filter((m) => m.at <= at),
      };
  const segment = finishSegment(prefix, {
    ...carry,
    nextTurnStart: prompt.timestamp ?? Number.NaN,
  });
  if (!(segment.closed || force) || !opensTurn(segment.next, prompt)) return null;
  const carryOn = { ...segment.next, nextTurnStart: null };
  if (end) return { segment, carry: carryOn, dropped: at, rest: null };
  const lastMark = prefix.infoMarks[prefix.infoMarks.length - 1];
  const rest = {
    entries: entries.slice(at),
    infoBase: lastMark === undefined ? state.infoBase : lastMark.info,
    infoMarks: state.infoMarks
      .filter((m) => m.at > at)
      .map((m) => ({ at: m.at - at, info: m.info })),
    uuidTime: timesFrom(state.uuidTime, prompt.uuid),
  };
  return { segment, carry: carryOn, dropped: at, rest };
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

/**
 * Makes a cut from cutBefore() on this same state. A cut at the end drops all
 * that was read (links and uuid times included: nothing held refers to them);
 * one behind it keeps what the entries left refer to (the inline-sidechain
 * links whole: 1.0.x sessions, small).
 */
export function commitCut(reader: SessionReader, cut: Cut): void {
  const { state } = reader;
  reader.carry = cut.carry;
  if (cut.rest === null) {
    startNextSegment(state);
    return;
  }
  state.entries = cut.rest.entries;
  state.infoBase = cut.rest.infoBase;
  state.infoMarks = cut.rest.infoMarks;
  state.uuidTime = cut.rest.uuidTime;
}

/**
 * Where to cut so that the model's last turn is all that is held: the index of
 * the main-thread record that opened it, or null when an agent's records do
 * not all fall on its own turn's side (one of an earlier turn with a line
 * after the prompt, one of the last turn before it, or one placed in no turn).
 */
export function lastTurnStart(state: SessionState, model: SessionModel): number | null {
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

/** Index of the second-to-last main-thread real prompt among the entries, or null. */
export function secondToLastPrompt(entries: readonly Entry[]): number | null {
  let seen = 0;
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const e = entries[i];
    if (e === undefined || e.agentKey !== null || !isRealPrompt(e.rec)) continue;
    seen += 1;
    if (seen === 2) return i;
  }
  return null;
}
