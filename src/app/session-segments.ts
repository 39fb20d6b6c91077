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
  return new SegmentReader(files, options, onSegment).read();
}

/** One session read in segments: the carry from segment to segment, the agents not fed yet, the counts. */
class SegmentReader {
  private readonly limit: number;
  private readonly forceAt: number;
  private readonly state: SessionState;
  private readonly unterminatedLine = new Map<string, number>();
  private readonly unterminated: string[] = [];
  /** Agent files not fed yet, in the session's order. */
  private readonly pending: PendingAgent[];
  private carry: SegmentCarry;
  /** Records the segment holds when the next close is tried. */
  private nextTry: number;
  private segments = 0;
  private forcedCuts = 0;
  private lateAgents = 0;

  constructor(
    private readonly files: SessionFiles,
    private readonly options: SegmentReadOptions,
    private readonly onSegment: OnSegment,
  ) {
    this.limit = options.segmentRecords ?? SEGMENT_RECORDS;
    this.forceAt = options.forceRecords ?? this.limit * FORCE_FACTOR;
    this.state = openSession(files);
    this.pending = files.agentFiles.map((a) => ({ ...a }));
    this.carry = wholeSession(options.windowOf);
    this.nextTry = this.limit;
  }

  async read(): Promise<SegmentedSession> {
    try {
      await this.readAll();
    } catch (err) {
      if (!(err instanceof StopReading)) throw err;
      return this.outcome(true);
    }
    return this.outcome(false);
  }

  /** The main file, cut before prompts on the way; then the agents left; then the last segment. */
  private async readAll(): Promise<void> {
    const { state, files } = this;
    this.noteUnterminated(
      files.mainFile,
      await feed(state, files.mainFile, null, this.options.parse, this.before),
    );
    for (const agent of [...this.pending]) await this.feedAgent(agent);
    const last = finishSegment(state, { ...this.carry, nextTurnStart: null });
    this.segments += 1;
    this.lateAgents += last.lateAgents;
    await this.emit(last.model, this.carry.priorTurns.length);
  }

  /**
   * Looks at each main-thread record before it is folded in: a real prompt
   * once the segment holds nextTry records tries to close the segment before it.
   * One function for the whole reading (created with the reader, not per record).
   */
  private readonly before = (outcome: ParseOutcome): Promise<void> | undefined => {
    const state = this.state;
    if (outcome.kind !== 'record' || state.entries.length < this.nextTry) return undefined;
    const rec = outcome.record;
    if (!isRealPrompt(rec)) return undefined;
    // A line step() will drop (history copied from a fork, a repeated uuid) opens no turn.
    if (rec.forkedFromSessionId !== null || (rec.uuid !== null && state.seenUuids.has(rec.uuid)))
      return undefined;
    // Without a time, no agent is placed by time in this segment (NaN compares false).
    return this.tryClose(outcome, rec.timestamp ?? Number.NaN);
  };

  private async tryClose(
    prompt: ParseOutcome & { kind: 'record' },
    cutTime: number,
  ): Promise<void> {
    const { state, carry } = this;
    const force = state.entries.length >= this.forceAt;
    // First the main thread alone: a call still waiting rules the cut out
    // before any agent file is read into this segment.
    let segment = finishSegment(state, { ...carry, nextTurnStart: cutTime });
    if ((segment.closed || force) && opensTurn(segment.next, prompt.record)) {
      await this.feedAgentsOfSegment(cutTime);
      segment = finishSegment(state, { ...carry, nextTurnStart: cutTime });
    }
    if (!(segment.closed || force) || !opensTurn(segment.next, prompt.record)) {
      this.nextTry = state.entries.length + Math.ceil(this.limit / 4);
      return;
    }
    if (!segment.closed) this.forcedCuts += 1;
    this.segments += 1;
    this.lateAgents += segment.lateAgents;
    await this.emit(segment.model, carry.priorTurns.length);
    this.carry = segment.next;
    startNextSegment(state);
    this.nextTry = this.limit;
  }

  /** Feeds the agent files that belong to the segment ending at cutTime. */
  private async feedAgentsOfSegment(cutTime: number): Promise<void> {
    const { state } = this;
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
      const belongs = this.pending.filter((a) =>
        this.belongsToSegment(a, toolIds, resultAgents, cutTime),
      );
      if (belongs.length === 0) return;
      // Nested agents: their spawning calls are in the files just fed.
      for (const agent of belongs) await this.feedAgent(agent);
    }
  }

  /**
   * Whether an agent file joins the segment ending at cutTime: by its link to
   * a call in it, else by the call's result naming it, else by its start.
   */
  private belongsToSegment(
    agent: PendingAgent,
    toolIds: Set<string>,
    resultAgents: Set<string>,
    cutTime: number,
  ): boolean {
    const { state } = this;
    const link =
      state.metas.get(agent.agentId)?.toolUseId ?? state.progressLinks.get(agent.agentId) ?? null;
    if (link !== null && toolIds.has(link)) return true;
    // Its own link names a call not read yet (a resumed agent's meta names the
    // later call): it belongs there, not here by result or by time.
    if (link !== null) return false;
    if (resultAgents.has(agent.agentId)) return true;
    if (agent.start === undefined) agent.start = headTimestamp(agent.file);
    return agent.start !== null && agent.start < cutTime;
  }

  private async feedAgent(agent: PendingAgent): Promise<void> {
    this.pending.splice(this.pending.indexOf(agent), 1);
    this.noteUnterminated(
      agent.file,
      await feed(this.state, agent.file, agent.agentId, this.options.parse),
    );
  }

  private noteUnterminated(file: string, line: number): void {
    if (line === 0) return;
    this.unterminated.push(file);
    this.unterminatedLine.set(file, line);
  }

  private async emit(model: SessionModel, firstTurn: number): Promise<void> {
    if ((await this.onSegment(model, firstTurn)) === false) throw new StopReading();
  }

  private outcome(stopped: boolean): SegmentedSession {
    return {
      state: this.state,
      unterminated: this.unterminated,
      unterminatedLine: this.unterminatedLine,
      segments: this.segments,
      forcedCuts: this.forcedCuts,
      lateAgents: this.lateAgents,
      stopped,
    };
  }
}
