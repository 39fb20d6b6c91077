// The whole-file driver of the session reader (core/session-reader.ts), for
// export, show and status: one session's files (main, sub-agents, meta
// sidecars) read as segments of whole turns, which the caller pulls one at a
// time and may stop pulling whenever it likes (a plain `break`).
//
// Once a segment holds SEGMENT_RECORDS records, the reader tries to cut it
// before the next prompt (the core's one cut rule). Sub-agent files join the
// segment holding the call that spawned them (named by their meta or progress
// link, or by the call's result), or, unlinked, the segment in which they
// started, as turnAt() would place them; an agent file is read whole into one
// segment, so no agent straddles a cut. An agent that would still land in a
// turn already handed on (its lines dated before the segment) goes to the
// segment's first turn instead, counted as lateAgents, never lost. A segment
// still open after FORCE_FACTOR times the size is cut anyway: memory stays
// bounded, and only a call whose result comes after that point can differ.
import { finishSegment, wholeSession } from '../../core/model/assemble/finish.js';
import { parseAgentMeta } from '../../core/transcript/agent-meta.js';
import type { WindowOf } from '../../core/model/context-window.js';
import type { ParseOptions } from '../../core/transcript/parse-record.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  startNextSegment,
  type SessionState,
} from '../../core/session/state.js';
import type { SessionModel } from '../../core/model/session-model.js';
import {
  commitCut,
  createSessionReader,
  cutBefore,
  foldHeld,
  foldLines,
  heldPrompt,
  type SessionReader,
} from '../../core/session/reader.js';
import type { SessionFiles } from '../../adapters/files/session-files.js';
import { firstLineValue, readSmallFileSync } from '../../adapters/files/file-info.js';
import { openLines, yieldIfHeld, type LineFile } from '../../adapters/files/read-lines.js';

/**
 * Records a segment holds before the reader tries to cut it: fewer left less
 * garbage between collections, fewer still gained nothing (docs/benchmarks.md).
 */
export const SEGMENT_RECORDS = 5_000;
const FORCE_FACTOR = 4;
/** Bytes read at a time, and at most, from the head of an agent file to find when it started. */
const HEAD_CHUNK = 64 * 1024;
const HEAD_MAX = 16 * 1024 * 1024;
/** Errors that make one file unreadable without making the session so. */
const FILE_GONE = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR']);

export interface SegmentReadOptions {
  parse: ParseOptions;
  /** Records per segment before a cut is tried; Infinity reads the session whole. */
  segmentRecords?: number;
  /** Records at which a segment is cut even if still waiting (default 4 × segmentRecords). */
  forceRecords?: number;
  /** Context windows from the model table; absent: the observed rule only. */
  windowOf?: WindowOf;
}

/** A segment's model; its own turns start at firstTurn (the earlier ones are carried). */
export interface Segment {
  model: SessionModel;
  firstTurn: number;
}

/** A session's state with its meta sidecars read and its agent files registered. */
export function openSession(files: SessionFiles): SessionState {
  const state = createSessionState(files.sessionId, files.mainFile);
  for (const meta of files.metaFiles) {
    const text = readSmallFileSync(meta);
    const parsed = text === null ? null : parseAgentMeta(meta, text);
    if (parsed === null)
      state.warnings.push({ file: meta, line: 1, reason: 'unreadable agent meta file' });
    else addAgentMeta(state, parsed);
  }
  for (const agent of files.agentFiles) registerAgentFile(state, agent.agentId, agent.file);
  return state;
}

/** A file that could not be read: a warning, unless the error is no file's (then thrown). */
function unreadable(state: SessionState, file: string, err: unknown): 0 {
  const code = (err as NodeJS.ErrnoException).code;
  // Claude Code deletes old transcripts itself; one vanished file must not stop a run.
  if (code === undefined || !FILE_GONE.has(code)) throw err;
  state.warnings.push({
    file,
    line: 0,
    reason: code === 'ENOENT' ? 'file disappeared while being read' : `cannot read file (${code})`,
  });
  return 0;
}

/** The number of a file's unterminated last line (not consumed), else 0. */
const unterminatedOf = (lines: LineFile): number => {
  const result = lines.result();
  return result.pendingBytes > 0 ? result.nextLine : 0;
};

/**
 * Folds one whole file into the reader, without cuts; `holdAtMost` entries,
 * if given, are dropped between batches (a reader of live state alone).
 * Returns the number of its last line when that is unterminated, else 0.
 */
export async function foldFile(
  reader: SessionReader,
  file: string,
  agentId: string | null,
  parse: ParseOptions,
  holdAtMost = Infinity,
): Promise<number> {
  const source = { file, agentId };
  let lines: LineFile | null = null;
  try {
    lines = openLines(file);
    for (let batch = lines.next(); batch !== null; batch = lines.next()) {
      foldLines(reader, source, batch, 0, parse, Infinity);
      if (reader.state.entries.length >= holdAtMost) startNextSegment(reader.state);
      const pause = yieldIfHeld();
      if (pause !== undefined) await pause;
    }
    return unterminatedOf(lines);
  } catch (err) {
    return unreadable(reader.state, file, err);
  } finally {
    lines?.close();
  }
}

export function readSession(files: SessionFiles, options: SegmentReadOptions): SessionRead {
  return new SessionRead(files, options);
}

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
    // A malformed line: the reader reports it when the file is read.
    return null;
  }
}

/** The first timestamp in a file's first complete lines, or null within HEAD_MAX bytes. */
const headTimestamp = (file: string): number | null =>
  firstLineValue(file, timestampOf, HEAD_CHUNK, HEAD_MAX);

/**
 * One session read in segments: pull them with `for await (… of segments())`;
 * the counts and the state stand for what was read, also after a `break`.
 */
export class SessionRead {
  readonly state: SessionState;
  readonly unterminated: string[] = [];
  /** Each unterminated file's last line number (a one-shot read names it). */
  readonly unterminatedLine = new Map<string, number>();
  segmentCount = 0;
  /** Segments cut at the size limit while something in them still waited. */
  forcedCuts = 0;
  /** Agents whose turn had been handed on already: put in a later turn instead (see FinishedSegment). */
  lateAgents = 0;
  private readonly limit: number;
  private readonly forceAt: number;
  private readonly reader: SessionReader;
  /** Agent files not read yet, in the session's order. */
  private readonly pending: PendingAgent[];
  /** Records the segment holds when the next cut is tried. */
  private nextTry: number;

  constructor(
    private readonly files: SessionFiles,
    private readonly options: SegmentReadOptions,
  ) {
    this.limit = options.segmentRecords ?? SEGMENT_RECORDS;
    this.forceAt = options.forceRecords ?? this.limit * FORCE_FACTOR;
    this.state = openSession(files);
    this.reader = createSessionReader(this.state, wholeSession(options.windowOf));
    this.pending = files.agentFiles.map((a) => ({ ...a }));
    this.nextTry = this.limit;
  }

  /** The main file, cut before prompts on the way; then the agents left; then the last segment. */
  async *segments(): AsyncGenerator<Segment, void, undefined> {
    yield* this.readMain();
    for (const agent of [...this.pending]) await this.readAgent(agent);
    const { reader } = this;
    const firstTurn = reader.carry.priorTurns.length;
    const last = finishSegment(this.state, { ...reader.carry, nextTurnStart: null });
    this.segmentCount += 1;
    this.lateAgents += last.lateAgents;
    yield { model: last.model, firstTurn };
  }

  private async *readMain(): AsyncGenerator<Segment, void, undefined> {
    const { reader, files, options } = this;
    const source = { file: files.mainFile, agentId: null };
    let lines: LineFile | null = null;
    try {
      lines = openLines(files.mainFile);
      for (let batch = lines.next(); batch !== null; batch = lines.next()) {
        let at = 0;
        while (
          (at = foldLines(reader, source, batch, at, options.parse, this.nextTry)) < batch.length
        ) {
          const segment = await this.tryCut();
          if (segment !== null) yield segment;
          foldHeld(reader, source);
          at += 1;
        }
        const pause = yieldIfHeld();
        if (pause !== undefined) await pause;
      }
      this.noteUnterminated(files.mainFile, unterminatedOf(lines));
    } catch (err) {
      unreadable(this.state, files.mainFile, err);
    } finally {
      lines?.close();
    }
  }

  /** A cut before the prompt held: the segment before it, or null (tried again further on). */
  private async tryCut(): Promise<Segment | null> {
    const { reader, state } = this;
    const prompt = heldPrompt(reader);
    if (prompt === null) return null;
    const force = state.entries.length >= this.forceAt;
    // First the main thread alone: a call still waiting rules the cut out
    // before any agent file is read into this segment.
    let cut = cutBefore(state, reader.carry, state.entries.length, prompt, force);
    if (cut !== null) {
      await this.readAgentsOfSegment(prompt.timestamp ?? Number.NaN);
      cut = cutBefore(state, reader.carry, state.entries.length, prompt, force);
    }
    if (cut === null) {
      this.nextTry = state.entries.length + Math.ceil(this.limit / 4);
      return null;
    }
    if (!cut.segment.closed) this.forcedCuts += 1;
    this.segmentCount += 1;
    this.lateAgents += cut.segment.lateAgents;
    const firstTurn = reader.carry.priorTurns.length;
    commitCut(reader, cut);
    this.nextTry = this.limit;
    return { model: cut.segment.model, firstTurn };
  }

  /** Reads the agent files that belong to the segment ending at cutTime. */
  private async readAgentsOfSegment(cutTime: number): Promise<void> {
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
      // Nested agents: their spawning calls are in the files just read.
      for (const agent of belongs) await this.readAgent(agent);
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

  private async readAgent(agent: PendingAgent): Promise<void> {
    this.pending.splice(this.pending.indexOf(agent), 1);
    this.noteUnterminated(
      agent.file,
      await foldFile(this.reader, agent.file, agent.agentId, this.options.parse),
    );
  }

  private noteUnterminated(file: string, line: number): void {
    if (line === 0) return;
    this.unterminated.push(file);
    this.unterminatedLine.set(file, line);
  }
}
