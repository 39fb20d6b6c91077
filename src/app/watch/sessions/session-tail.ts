// The tailer driver of the session reader (core/session-reader.ts), for the
// daemon: one followed session's files tailed into the reader as they grow,
// history folded away while it is read at start-up, and the turns the
// tracker is done with cut away behind the live one, by the same cut rule
// export's segments use. It keeps no spans: the tracker (session-tracker.ts)
// rebuilds them from the model and keeps the books and the outbox.
import {
  finishSegment,
  wholeSession,
  type SegmentCarry,
} from '../../../core/model/assemble/finish.js';
import { parseAgentMeta } from '../../../core/transcript/agent-meta.js';
import type { Line } from '../../../core/transcript/line-splitter.js';
import type { ParseOptions } from '../../../core/transcript/parse-record.js';
import { windowsOf, type PriceTable } from '../../../core/cost/pricing.js';
import type { SessionModel } from '../../../core/model/session-model.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  type SessionState,
} from '../../../core/session/state.js';
import {
  commitCut,
  createSessionReader,
  cutBefore,
  foldLines,
  lastTurnStart,
  secondToLastPrompt,
  type Cut,
  type SessionReader,
} from '../../../core/session/reader.js';
import { roleOfPath, type FileRole } from '../../../core/transcript/paths.js';
import {
  createFileTailer,
  type FileTailer,
  type TailRead,
} from '../../../adapters/files/file-tailer.js';
import { readWholeSync } from '../../../adapters/files/file-info.js';
import type { MalformedLines } from '../state/malformed-lines.js';
import type { FileRecord } from '../state/watch-state.js';

export interface TailContext {
  /** Records held while reading history at start-up before a fold is tried (tests; default 5,000). */
  historyFoldRecords?: number;
  prices: PriceTable;
  parse: ParseOptions;
  /** Told of the malformed lines read (logged once each, counted). */
  malformed?: MalformedLines;
  /**
   * At load, pass over (read, not folded in) the agent files spawned by calls
   * of turns folded away: a view of the recent turns (`show --follow`) has no
   * use for them, and they would all land in the first turn held. The daemon
   * keeps them (it places such an agent as export places a late one).
   */
  passFoldedAgents?: boolean;
}

type Role = FileRole;

interface TrackedFile {
  path: string;
  role: Role;
  agentId: string | null;
  tailer: FileTailer | null;
  /** Meta sidecars are read whole; what we saw of them. */
  seen: FileRecord | null;
}

/** Records held while reading history at start-up before a fold is tried: export's segment size. */
const HISTORY_FOLD_RECORDS = 5_000;

/** What reading one file's appended lines found: new lines, a changed meta sidecar, nothing, or a reset. */
export type TailOutcome = 'lines' | 'meta' | 'none' | Extract<TailRead, { kind: 'reset' }>;

/** Where a start-up stands: turns before `skip` are history; `baseline` a first start's offset. */
export interface TailHistory {
  skip: number;
  baseline: number | null;
}

export class SessionTail {
  private readonly files = new Map<string, TrackedFile>();
  /** The session read so far, the turns folded away left in its carry. */
  private reader: SessionReader;
  /** Entries already checked by spawnReturned(). */
  private caughtUp = 0;

  constructor(
    readonly key: string,
    readonly sessionId: string,
    private readonly ctx: TailContext,
  ) {
    this.reader = this.freshReader();
    this.addFile(key);
  }

  private freshReader(): SessionReader {
    const state = createSessionState(this.sessionId, this.key);
    return createSessionReader(state, wholeSession(windowsOf(this.ctx.prices)));
  }

  get state(): SessionState {
    return this.reader.state;
  }

  get carry(): SegmentCarry {
    return this.reader.carry;
  }

  /** The model of the entries held, after the turns folded away. */
  model(): SessionModel {
    return finishSegment(this.reader.state, this.reader.carry).model;
  }

  hasFile(path: string): boolean {
    return this.files.has(path);
  }

  addFile(path: string): void {
    if (this.files.has(path)) return;
    const { role, agentId } = roleOfPath(path, this.key);
    this.files.set(path, { path, role, agentId, tailer: null, seen: null });
    if (role === 'agent' && agentId !== null) registerAgentFile(this.state, agentId, path);
  }

  forget(path: string): void {
    this.files.delete(path);
  }

  /** Every file followed (all but meta sidecars are tailed). */
  paths(): string[] {
    return [...this.files.keys()];
  }

  agentPaths(): string[] {
    return [...this.files.values()].filter((f) => f.role === 'agent').map((f) => f.path);
  }

  /**
   * Reads every file of the session from byte 0 (first load, or after a
   * reset), folding history on the way. On a first start (a baseline), the
   * turns that had ended by then are history, not ours to send: the skip
   * returned counts them.
   */
  async load(history: TailHistory): Promise<TailHistory> {
    this.reader = this.freshReader();
    this.caughtUp = 0;
    const files = [...this.files.values()];
    for (const f of files) {
      if (f.role !== 'meta') continue;
      f.seen = null;
      await this.readMeta(f);
    }
    for (const f of files)
      if (f.role === 'agent' && f.agentId !== null)
        registerAgentFile(this.state, f.agentId, f.path);
    let { skip, baseline } = history;
    const main = this.files.get(this.key);
    if (main !== undefined) {
      main.tailer = createFileTailer(main.path);
      if (baseline !== null) {
        await main.tailer.read(this.readHistory(main, Infinity), baseline);
        skip = this.model().turns.filter((t) => t.endState !== 'open').length;
        baseline = null;
      }
      await main.tailer.read(this.readHistory(main, skip));
    }
    const folded = this.ctx.passFoldedAgents === true ? this.foldedAgentIds() : new Set();
    for (const f of files) {
      if (f.role !== 'agent') continue;
      // Not opened at all: a tailer is made (from byte 0) only if the file changes.
      if (f.agentId !== null && folded.has(f.agentId)) continue;
      f.tailer = createFileTailer(f.path);
      await f.tailer.read(this.foldIn(f));
    }
    return { skip, baseline };
  }

  /** Agents whose spawning call (by meta or progress link) is in no entry held: a folded turn's. */
  private foldedAgentIds(): Set<string> {
    const state = this.state;
    const folded = new Set<string>();
    if (this.carry.priorTurns.length === 0) return folded;
    const held = new Set<string>();
    for (const e of state.entries)
      if (e.rec.type === 'assistant') for (const use of e.rec.toolUses) held.add(use.id);
    for (const f of this.files.values()) {
      if (f.role !== 'agent' || f.agentId === null) continue;
      const link =
        state.metas.get(f.agentId)?.toolUseId ?? state.progressLinks.get(f.agentId) ?? null;
      if (link !== null && !held.has(link)) folded.add(f.agentId);
    }
    return folded;
  }

  /** Reads what was appended to one file. */
  async ingest(path: string): Promise<TailOutcome> {
    this.addFile(path);
    const f = this.files.get(path);
    if (f === undefined) return 'none';
    if (f.role === 'meta') return (await this.readMeta(f)) ? 'meta' : 'none';
    f.tailer ??= createFileTailer(path);
    const read = await f.tailer.read(this.foldIn(f));
    if (read.kind === 'reset') return read;
    return read.kind === 'lines' && read.count > 0 ? 'lines' : 'none';
  }

  /** Whether a call's result naming its agent was read since the last look. */
  spawnReturned(): boolean {
    const entries = this.state.entries;
    let returned = false;
    for (let i = this.caughtUp; i < entries.length; i += 1) {
      const rec = entries[i]?.rec;
      if (rec?.type === 'user' && rec.resultAgentId !== null) returned = true;
    }
    this.caughtUp = entries.length;
    return returned;
  }

  /**
   * The main file read at start-up, folding history as it goes, so that a
   * long session is never held whole: before the second-to-last prompt read
   * (the turn it opens is then over), when the turns folded are all history
   * (index below `historyTurns`: not ours to send) and closed. Agent files are
   * read after the main file: one of a folded turn is placed in the first
   * turn held, itself history, as export places an agent that comes late.
   */
  private readHistory(f: TrackedFile, historyTurns: number): (lines: Line[]) => void {
    const foldIn = this.foldIn(f);
    const every = this.ctx.historyFoldRecords ?? HISTORY_FOLD_RECORDS;
    let nextTry = every;
    return (lines) => {
      foldIn(lines);
      const entries = this.state.entries;
      if (entries.length < nextTry) return;
      nextTry = entries.length + Math.ceil(every / 4);
      const at = secondToLastPrompt(entries);
      const cut = at === null ? null : this.cutAt(at);
      if (cut === null || cut.carry.priorTurns.length >= historyTurns) return;
      this.commit(cut);
      nextTry = this.state.entries.length + every;
    };
  }

  private foldIn(f: TrackedFile): (lines: Line[]) => void {
    const source = { file: f.path, agentId: f.role === 'agent' ? f.agentId : null };
    return (lines) => {
      foldLines(this.reader, source, lines, 0, this.ctx.parse, Infinity);
      this.ctx.malformed?.see(this.state.warnings);
    };
  }

  private async readMeta(f: TrackedFile): Promise<boolean> {
    // A few hundred bytes: read at once, not through the thread pool (thousands at a start-up).
    const file = readWholeSync(f.path);
    if (file === null) return false;
    if (f.seen !== null && f.seen.ino === file.ino && f.seen.size === file.size) return false;
    // A sidecar caught mid-write is read again on its next change event.
    const meta = parseAgentMeta(f.path, file.text);
    if (meta === null) return false;
    f.seen = { ino: file.ino, size: file.size };
    addAgentMeta(this.state, meta);
    return true;
  }

  /** The one cut rule (core/session-reader.ts) before the held entry `at`, a main-thread prompt. */
  private cutAt(at: number): Cut | null {
    const prompt = this.state.entries[at]?.rec;
    return prompt === undefined ? null : cutBefore(this.state, this.carry, at, prompt);
  }

  /** The cut that leaves the model's last turn all that is held, or null (see lastTurnStart). */
  cutBeforeLastTurn(model: SessionModel): Cut | null {
    const at = lastTurnStart(this.state, model);
    return at === null ? null : this.cutAt(at);
  }

  /** The model the entries left by a cut give, the state itself untouched. */
  modelAfter(cut: Cut): SessionModel {
    return finishSegment({ ...this.state, ...cut.rest }, cut.carry).model;
  }

  commit(cut: Cut): void {
    commitCut(this.reader, cut);
    this.caughtUp = Math.max(0, this.caughtUp - cut.dropped);
  }

  /** Each tailed file's inode and offset, each meta sidecar's as last read. */
  fileRecords(): Record<string, FileRecord> {
    const files: Record<string, FileRecord> = {};
    for (const f of this.files.values()) {
      if (f.role === 'meta') {
        if (f.seen !== null) files[f.path] = f.seen;
      } else if (f.tailer !== null && f.tailer.ino !== null) {
        files[f.path] = { ino: f.tailer.ino, size: f.tailer.readOffset };
      }
    }
    return files;
  }
}
