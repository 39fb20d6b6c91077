// Reads one session as segments of whole turns, so that a transcript of
// gigabytes converts in bounded memory. Holding a session whole keeps every
// record until finish(): 1.2 GB of heap for a 1 GB transcript (docs/benchmarks.md).
//
// Once a segment holds SEGMENT_RECORDS records, the reader tries to close it
// before the next prompt: it finishes the segment on its own (the core's
// SegmentCarry continues turn indices, links, the 1M window), hands its model
// on, and drops its records. A segment is closed only when nothing in it waits
// for a later line (every call has its result, every background agent its
// <task-notification>), so its turns come out exactly as from the whole
// session; otherwise the reader tries again further on. Sub-agent files join
// the segment holding the call that spawned them (named by their meta or
// progress link, or by the call's result), or, unlinked, the segment in which
// they started, as turnAt() would place them. An agent that would still land
// in a turn already sent (its lines dated before the segment) goes to the
// segment's first turn instead, counted as lateAgents, never lost. A segment
// still open after FORCE_FACTOR times the size is closed anyway: memory stays
// bounded, and only a call whose result comes after that point can differ.
// Cuts happen only before a prompt: a single turn is never split.
import { finishSegment, opensTurn, wholeSession, type SegmentCarry } from '../core/assemble.js';
import type { WindowOf } from '../core/context-window.js';
import { isRealPrompt } from '../core/prompts.js';
import type { ParseOptions, ParseOutcome } from '../core/parse-record.js';
import { startNextSegment, type SessionState } from '../core/session-state.js';
import type { SessionModel } from '../core/session-model.js';
import type { SessionFiles } from '../adapters/session-files.js';
import { firstLineValue } from '../adapters/file-info.js';
import { feed, openSession } from './load-session.js';

/**
 * Records a segment holds before the reader tries to close it (~10 MB of
 * transcript). Measured on a 1 GB transcript: 20,000 peaked at 370 MB RSS,
 * 5,000 at ~210 MB (less garbage between collections); smaller gained nothing.
 */
export const SEGMENT_RECORDS = 5_000;
const FORCE_FACTOR = 4;
/** Bytes read at a time, and at most, from the head of an agent file to find when it started. */
const HEAD_CHUNK = 64 * 1024;
const HEAD_MAX = 16 * 1024 * 1024;

export interface SegmentReadOptions {
  parse: ParseOptions;
  /** Records per segment before a close is tried; Infinity reads the session whole. */
  segmentRecords?: number;
  /** Records at which a segment is closed even if still waiting (default 4 × segmentRecords). */
  forceRecords?: number;
  /** Context windows from the model table; absent: the observed rule only. */
  windowOf?: WindowOf;
}

export interface SegmentedSession {
  state: SessionState;
  unterminated: string[];
  /** Each unterminated file's last line number (a one-shot read names it). */
  unterminatedLine: Map<string, number>;
  segments: number;
  /** Segments closed at the size limit while something in them still waited. */
  forcedCuts: number;
  /** Agents whose turn had been exported already: put in a later turn instead (see FinishedSegment). */
  lateAgents: number;
  /** Reading stopped because onSegment asked it to (returned false). */
  stopped: boolean;
}

/**
 * Receives each segment's model and the index of its first turn; false (or a
 * promise of it) stops the reading: what was read so far is still reported.
 */
export type OnSegment = (
  model: SessionModel,
  firstTurn: number,
) => void | boolean | Promise<void | boolean>;

/** Thrown through the reader when onSegment asks to stop; caught in readSegments. */
class StopReading extends Error {}

interface PendingAgent {
  agentId: string;
  file: string;
  /** First timestamp in the file's head; undefined until looked at. */
  start?: number | null;
}

function timestampOf(line: string): number | null {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return null;
    const stamp = (value as { timestamp?: unknown }).timestamp;
    const time = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
    return Number.isFinite(time) ? time : null;
  } catch {
    // A malformed line: the reader reports it when the file is fed.
    return null;
  }
}

/** The first timestamp in a file's first complete lines, or null within HEAD_MAX bytes. */
function headTimestamp(file: string): number | null {
  return firstLineValue(file, timestampOf, HEAD_CHUNK, HEAD_MAX);
}

export async function readSegments(
  files: SessionFiles,
  options: SegmentReadOptions,
  onSegment: OnSegment,
): Promise<SegmentedSession> {
  const limit = options.segmentRecords ?? SEGMENT_RECORDS;
  const forceAt = options.forceRecords ?? limit * FORCE_FACTOR;
  const state = openSession(files);
  const unterminatedLine = new Map<string, number>();
  const unterminated: string[] = [];
  const noteUnterminated = (file: string, line: number): void => {
    if (line === 0) return;
    unterminated.push(file);
    unterminatedLine.set(file, line);
  };
  const pending: PendingAgent[] = files.agentFiles.map((a) => ({ ...a }));
  let carry: SegmentCarry = wholeSession(options.windowOf);
  let nextTry = limit;
  let segments = 0;
  let forcedCuts = 0;
  let lateAgents = 0;
  const emit = async (model: SessionModel, firstTurn: number): Promise<void> => {
    if ((await onSegment(model, firstTurn)) === false) throw new StopReading();
  };

  const feedAgent = async (agent: PendingAgent): Promise<void> => {
    pending.splice(pending.indexOf(agent), 1);
    noteUnterminated(agent.file, await feed(state, agent.file, agent.agentId, options.parse));
  };

  /** Feeds the agent files that belong to the segment ending at cutTime. */
  const feedAgentsOfSegment = async (cutTime: number): Promise<void> => {
    const toolIds = new Set<string>();
    const resultAgents = new Set<string>();
    let scanned = 0;
    for (;;) {
      for (; scanned < state.entries.length; scanned++) {
        const rec = state.entries[scanned]?.rec;
        if (rec?.type === 'assistant') for (const use of rec.toolUses) toolIds.add(use.id);
        else if (rec?.type === 'user' && rec.resultAgentId !== null)
          resultAgents.add(rec.resultAgentId);
      }
      const belongs = pending.filter((a) => {
        const link =
          state.metas.get(a.agentId)?.toolUseId ?? state.progressLinks.get(a.agentId) ?? null;
        if (link !== null && toolIds.has(link)) return true;
        // Its own link names a call not read yet (a resumed agent's meta names the
        // later call): it belongs there, not here by result or by time.
        if (link !== null) return false;
        if (resultAgents.has(a.agentId)) return true;
        if (a.start === undefined) a.start = headTimestamp(a.file);
        return a.start !== null && a.start < cutTime;
      });
      if (belongs.length === 0) return;
      // Nested agents: their spawning calls are in the files just fed.
      for (const agent of belongs) await feedAgent(agent);
    }
  };

  const tryClose = async (
    prompt: ParseOutcome & { kind: 'record' },
    cutTime: number,
  ): Promise<void> => {
    const force = state.entries.length >= forceAt;
    // First the main thread alone: a call still waiting rules the cut out
    // before any agent file is read into this segment.
    let segment = finishSegment(state, { ...carry, nextTurnStart: cutTime });
    if ((segment.closed || force) && opensTurn(segment.next, prompt.record)) {
      await feedAgentsOfSegment(cutTime);
      segment = finishSegment(state, { ...carry, nextTurnStart: cutTime });
    }
    if (!(segment.closed || force) || !opensTurn(segment.next, prompt.record)) {
      nextTry = state.entries.length + Math.ceil(limit / 4);
      return;
    }
    if (!segment.closed) forcedCuts += 1;
    segments += 1;
    lateAgents += segment.lateAgents;
    await emit(segment.model, carry.priorTurns.length);
    carry = segment.next;
    startNextSegment(state);
    nextTry = limit;
  };

  const before = (outcome: ParseOutcome): Promise<void> | undefined => {
    if (outcome.kind !== 'record' || state.entries.length < nextTry) return undefined;
    const rec = outcome.record;
    if (!isRealPrompt(rec)) return undefined;
    // A line step() will drop (history copied from a fork, a repeated uuid) opens no turn.
    if (rec.forkedFromSessionId !== null || (rec.uuid !== null && state.seenUuids.has(rec.uuid)))
      return undefined;
    // Without a time, no agent is placed by time in this segment (NaN compares false).
    return tryClose(outcome, rec.timestamp ?? Number.NaN);
  };

  const outcome = (stopped: boolean): SegmentedSession => ({
    state,
    unterminated,
    unterminatedLine,
    segments,
    forcedCuts,
    lateAgents,
    stopped,
  });
  try {
    noteUnterminated(
      files.mainFile,
      await feed(state, files.mainFile, null, options.parse, before),
    );
    for (const agent of [...pending]) await feedAgent(agent);
    const last = finishSegment(state, { ...carry, nextTurnStart: null });
    segments += 1;
    lateAgents += last.lateAgents;
    await emit(last.model, carry.priorTurns.length);
  } catch (err) {
    if (!(err instanceof StopReading)) throw err;
    return outcome(true);
  }
  return outcome(false);
}
