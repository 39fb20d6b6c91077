// One followed session: its files tailed into the core reducer, and after each
// batch of new lines the turns it touched rebuilt with the same span builder
// `ccotel export` uses. Spans whose content is final (core/finality.ts) and not
// yet sent (turn-book.ts) go to the outbox, which the delivery queue drains.
// Holding no spans beyond the outbox, a tracker re-derives anything not yet
// acknowledged from the transcript itself: a collector outage costs no memory.
import { basename } from 'node:path';
import { finishSegment, wholeSession, type SegmentCarry } from '../../core/assemble.js';
import { parseAgentMeta } from '../../core/agent-meta.js';
import type { Line } from '../../core/line-splitter.js';
import { parseRecord, type ParseOptions } from '../../core/parse-record.js';
import { windowsOf, type PriceTable } from '../../core/pricing.js';
import { costSession, type SessionCosts } from '../../core/session-cost.js';
import type { SessionModel } from '../../core/session-model.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  step,
  type Entry,
  type SessionState,
} from '../../core/session-state.js';
import { isRealPrompt } from '../../core/prompts.js';
import type { SpanData, SpanOptions } from '../../core/span-data.js';
import { traceIdFor } from '../../core/span-ids.js';
import { buildTurnSpans } from '../../core/spans.js';
import { turnFinality, type FlushMode } from '../../core/finality.js';
import { createThreads, observe, type Threads } from '../../core/thread-progress.js';
import { turnsWithChangedWindow } from '../../core/context-window.js';
import { applyFold, foldPoint, planFold } from '../../core/session-fold.js';
import { AGENT_FILE, agentIdOfMeta } from '../../core/turn-lifecycle.js';
import { createFileTailer, type FileTailer } from '../../adapters/file-tailer.js';
import { readWhole } from '../../adapters/file-info.js';
import type { Logger } from '../../adapters/logger.js';
import { digestOf, turnDigests } from '../session-spans.js';
import type { ExportRecords } from './export-records.js';
import type { MalformedLines } from './malformed-lines.js';
import { createBook, fullyDelivered, marksOf, verdict, type TurnBook } from './turn-book.js';
import type { FileRecord, SessionRecord, SpanMark } from './watch-state.js';

export interface TrackerContext {
  /** Records held while reading history at start-up before a fold is tried (tests; default 5,000). */
  historyFoldRecords?: number;
  prices: PriceTable;
  spanOptions: SpanOptions;
  parse: ParseOptions;
  records: ExportRecords;
  log: Logger;
  /** Told of the malformed lines read (logged once each, counted). */
  malformed?: MalformedLines;
}

export interface Outgoing {
  span: SpanData;
  digest: string;
  book: TurnBook;
}

export type { FlushMode };

type Role = 'main' | 'agent' | 'meta';

interface TrackedFile {
  path: string;
  role: Role;
  agentId: string | null;
  tailer: FileTailer | null;
  /** Meta sidecars are read whole; what we saw of them. */
  seen: FileRecord | null;
}

function roleOf(path: string, sessionKey: string): { role: Role; agentId: string | null } {
  if (path === sessionKey) return { role: 'main', agentId: null };
  const name = basename(path);
  const meta = agentIdOfMeta(name);
  if (meta !== null) return { role: 'meta', agentId: meta };
  return { role: 'agent', agentId: AGENT_FILE.exec(name)?.[1] ?? name };
}

/** Records held while reading history at start-up before a fold is tried: export's segment size. */
const HISTORY_FOLD_RECORDS = 5_000;

/** Index of the second-to-last main-thread real prompt among the entries, or null. */
function secondToLastPrompt(entries: readonly Entry[]): number | null {
  let seen = 0;
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const e = entries[i];
    if (e === undefined || e.agentKey !== null || !isRealPrompt(e.rec)) continue;
    seen += 1;
    if (seen === 2) return i;
  }
  return null;
}

export class SessionTracker {
  readonly key: string;
  readonly sessionId: string;
  private readonly ctx: TrackerContext;
  private readonly files = new Map<string, TrackedFile>();
  private state: SessionState;
  /** What the turns folded away (session-fold.ts) leave to the entries held. */
  private carry: SegmentCarry;
  private threads: Threads = createThreads();
  /** The last turn at which a fold was refused: tried again once a newer turn opens. */
  private foldRefusedAt = -1;
  private readonly books = new Map<string, TurnBook>();
  /** Marks from the state file, claimed by each turn's first build. */
  private readonly savedMarks: Map<string, Record<string, SpanMark>>;
  private readonly outbox = new Map<string, Outgoing>();
  private skip: number;
  private baseline: number | null;
  private flush: FlushMode = 'normal';
  private rebuildAll = true;
  private lastContextWindow: number | null = null;
  /** Each turn's context window at the last rebuild: a later proof changes spans already sent. */
  private lastWindows: { index: number; contextWindow: number }[] = [];
  /** Entries already checked by catchUp(). */
  private caughtUp = 0;
  /** Per agent: turn, spawning call, type and description when last built. */
  private readonly agentSeen = new Map<string, string>();

  constructor(key: string, sessionId: string, ctx: TrackerContext, record: SessionRecord) {
    this.key = key;
    this.sessionId = sessionId;
    this.ctx = ctx;
    this.state = createSessionState(sessionId, key);
    this.carry = wholeSession(windowsOf(ctx.prices));
    this.skip = record.skip;
    this.baseline = record.baseline;
    this.savedMarks = new Map(Object.entries(record.turns));
    this.addFile(key);
    for (const path of Object.keys(record.files)) this.addFile(path);
  }

  /** Entries held now: only the turns not folded away (session-fold.ts). */
  get heldEntries(): number {
    return this.state.entries.length;
  }

  /** Turns folded away so far. */
  get foldedTurns(): number {
    return this.carry.priorTurns.length;
  }

  get flushMode(): FlushMode {
    return this.flush;
  }

  hasFile(path: string): boolean {
    return this.files.has(path);
  }

  addFile(path: string): void {
    if (this.files.has(path)) return;
    const { role, agentId } = roleOf(path, this.key);
    this.files.set(path, { path, role, agentId, tailer: null, seen: null });
    if (role === 'agent' && agentId !== null) registerAgentFile(this.state, agentId, path);
  }

  forget(path: string): void {
    this.files.delete(path);
  }

  /** Reads every file of the session from byte 0 (first load, or after a reset). */
  async load(): Promise<void> {
    this.state = createSessionState(this.sessionId, this.key);
    this.carry = wholeSession(windowsOf(this.ctx.prices));
    this.foldRefusedAt = -1;
    this.threads = createThreads();
    this.agentSeen.clear();
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
    const main = this.files.get(this.key);
    if (main !== undefined) {
      main.tailer = createFileTailer(main.path);
      if (this.baseline !== null) {
        // First start: turns that had ended by then are history, not ours to send.
        await main.tailer.read(this.historyFeed(main, Infinity), this.baseline);
        this.skip = finishSegment(this.state, this.carry).model.turns.filter(
          (t) => t.endState !== 'open',
        ).length;
        this.baseline = null;
      }
      await main.tailer.read(this.historyFeed(main, this.skip));
    }
    for (const f of files) {
      if (f.role !== 'agent') continue;
      f.tailer = createFileTailer(f.path);
      await f.tailer.read(this.feed(f));
    }
    this.rebuildAll = true;
  }

  /** Reads what was appended to one file. True when something new came in. */
  async ingest(path: string): Promise<boolean> {
    this.addFile(path);
    const f = this.files.get(path);
    if (f === undefined) return false;
    if (f.role === 'meta') return this.readMeta(f);
    f.tailer ??= createFileTailer(path);
    const read = await f.tailer.read(this.feed(f));
    if (read.kind === 'reset') {
      this.ctx.log.info('transcript shrank or was replaced; re-reading the session', {
        file: path,
        reason: read.reason,
        session: this.sessionId,
      });
      await this.load();
      this.touched();
      return true;
    }
    if (read.kind === 'lines' && read.count > 0) {
      this.touched();
      return true;
    }
    return false;
  }

  /** Reads what was appended to any of the session's files (before a final flush). */
  async ingestAll(): Promise<boolean> {
    let fresh = false;
    for (const path of [...this.files.keys()]) if (await this.ingest(path)) fresh = true;
    return fresh;
  }

  /**
   * Files are read in the order their change events arrive, not the order they
   * were written: the result of an Agent/Task call can be read before the last
   * lines of the agent's own file. When a call's result names its agent, read
   * the agent files first so "the call returned" also means "the agent's lines
   * are all in".
   */
  async catchUp(): Promise<void> {
    for (let round = 0; round < 4; round += 1) {
      const entries = this.state.entries;
      let spawnReturned = false;
      for (let i = this.caughtUp; i < entries.length; i += 1) {
        const rec = entries[i]?.rec;
        if (rec?.type === 'user' && rec.resultAgentId !== null) spawnReturned = true;
      }
      this.caughtUp = entries.length;
      if (!spawnReturned) return;
      for (const f of [...this.files.values()]) if (f.role === 'agent') await this.ingest(f.path);
    }
  }

  private touched(): void {
    // New activity ends an idle flush: unfinished work waits for completion again.
    if (this.flush === 'idle') this.flush = 'normal';
  }

  setFlush(mode: FlushMode): void {
    // 'final' is for good (shutdown, --once).
    if (this.flush !== 'final') this.flush = mode;
  }

  /**
   * The main file read at start-up, folding history as it goes, so that a
   * long session is never held whole: before the second-to-last prompt read
   * (the turn it opens is then over), when the turns folded are all history
   * (index below `historyTurns`: not ours to send) and closed. Agent files are
   * read after the main file: one of a folded turn is placed in the first
   * turn held, itself history, as export places an agent that comes late.
   */
  private historyFeed(f: TrackedFile, historyTurns: number): (lines: Line[]) => void {
    const feed = this.feed(f);
    const every = this.ctx.historyFoldRecords ?? HISTORY_FOLD_RECORDS;
    let nextTry = every;
    return (lines) => {
      feed(lines);
      const entries = this.state.entries;
      if (entries.length < nextTry) return;
      nextTry = entries.length + Math.ceil(every / 4);
      const at = secondToLastPrompt(entries);
      const plan = at === null ? null : planFold(this.state, this.carry, at);
      if (plan === null || plan.carry.priorTurns.length >= historyTurns) return;
      applyFold(this.state, plan);
      this.carry = plan.carry;
      nextTry = this.state.entries.length + every;
    };
  }

  private feed(f: TrackedFile): (lines: Line[]) => void {
    const source = { file: f.path, agentId: f.role === 'agent' ? f.agentId : null };
    return (lines) => {
      for (const line of lines) {
        if (line.text.trim() === '') continue;
        step(this.state, source, line.number, parseRecord(line.text, this.ctx.parse));
      }
      this.ctx.malformed?.see(this.state.warnings);
    };
  }

  private async readMeta(f: TrackedFile): Promise<boolean> {
    const file = await readWhole(f.path);
    if (file === null) return false;
    if (f.seen !== null && f.seen.ino === file.ino && f.seen.size === file.size) return false;
    // A sidecar caught mid-write is read again on its next change event.
    const meta = parseAgentMeta(f.path, file.text);
    if (meta === null) return false;
    f.seen = { ino: file.ino, size: file.size };
    addAgentMeta(this.state, meta);
    return true;
  }

  /** Rebuilds the turns that may have changed and refills the outbox. True if spans were queued. */
  recompute(): boolean {
    const model = finishSegment(this.state, this.carry).model;
    const firstNew = this.threads.seen;
    observe(this.threads, this.state.entries);
    const costs = costSession(model, this.ctx.prices);
    // Folded turns are finished: they are neither rebuilt nor sent again.
    const from = Math.max(this.skip, this.carry.priorTurns.length);
    let queued = false;
    for (const index of this.turnsToRebuild(model, firstNew)) {
      if (index >= from && this.rebuildTurn(model, index, costs)) queued = true;
    }
    this.warnWindowChange(model);
    this.lastContextWindow = model.contextWindow;
    this.tryFold(model);
    return queued;
  }

  /**
   * Folds away every turn before the last once each is finished (final and
   * delivered, or history before this daemon's first start) and closed, so
   * the next recompute reads only the last turn's entries. The fold must
   * leave the last turn's spans as they are; if not, it waits for a newer turn.
   */
  private tryFold(model: SessionModel): void {
    const base = this.carry.priorTurns.length;
    const last = model.turns.length - 1;
    if (last <= base || last === this.foldRefusedAt) return;
    // Every turn before the last finished: final and delivered (turns before skip are history).
    for (let index = Math.max(base, this.skip); index < last; index += 1) {
      const turn = model.turns[index];
      if (turn === undefined || this.books.get(traceIdFor(turn.promptUuid))?.finished !== true)
        return;
    }
    const at = foldPoint(this.state, model);
    const plan = at === null ? null : planFold(this.state, this.carry, at);
    if (plan === null || !this.foldKeepsTurn(model, last, plan)) {
      this.foldRefusedAt = last;
      return;
    }
    applyFold(this.state, plan);
    this.carry = plan.carry;
    // What the thread view knew of the folded turns is needed no more: read the held entries afresh.
    this.threads = createThreads();
    observe(this.threads, this.state.entries);
    this.caughtUp = Math.max(0, this.caughtUp - plan.dropped);
    for (const [traceId, book] of this.books)
      if (book.turnIndex < last && !this.remembers(book)) this.books.delete(traceId);
    for (const key of [...this.agentSeen.keys()])
      if ((model.agents.get(key)?.turnIndex ?? last) < last) this.agentSeen.delete(key);
  }

  /** Whether the last turn's spans come out the same from the folded state. */
  private foldKeepsTurn(
    model: SessionModel,
    last: number,
    plan: NonNullable<ReturnType<typeof planFold>>,
  ): boolean {
    const folded = finishSegment(
      {
        ...this.state,
        entries: plan.entries,
        infoBase: plan.infoBase,
        infoMarks: plan.infoMarks,
        uuidTime: plan.uuidTime,
      },
      plan.carry,
    ).model;
    if (folded.contextWindow !== model.contextWindow) return false;
    const spansOf = (m: SessionModel): string =>
      digestOf(buildTurnSpans(m, last, costSession(m, this.ctx.prices), this.ctx.spanOptions));
    return spansOf(folded) === spansOf(model);
  }

  /** A finished turn whose marks the state file must still keep (see toRecord). */
  private remembers(book: TurnBook): boolean {
    if (!book.finished) return true;
    if (book.recordedDigest === book.digest || book.inherited) return false;
    return book.delivered.size > 0;
  }

  /**
   * A response beyond 200k from a model the table has no window for proves a 1M
   * window for the whole session: the fill of spans already sent was measured
   * against 200k. They are rebuilt and sent again (same ids); this says so once
   * per change, as issue 12 asks of a live reader.
   */
  private warnWindowChange(model: SessionModel): void {
    // Folded turns keep the window they were sent with: only the turns held can change.
    const held = model.turns.slice(this.carry.priorTurns.length);
    const changed = turnsWithChangedWindow(this.lastWindows, held);
    this.lastWindows = held.map((t) => ({ index: t.index, contextWindow: t.contextWindow }));
    const sentTurns = new Set(
      [...this.books.values()].filter((b) => b.delivered.size > 0).map((b) => b.turnIndex),
    );
    const sent = changed.filter((c) => sentTurns.has(c.index));
    const first = sent[0];
    if (first === undefined) return;
    this.ctx.log.warn('context window changed after spans were sent; they are sent again', {
      session: this.sessionId,
      turns: sent.length,
      from: first.from,
      to: first.to,
    });
  }

  private turnsToRebuild(model: SessionModel, firstNew: number): number[] {
    const turns = model.turns;
    // The context window feeds an attribute of every tool span.
    const all = this.rebuildAll || model.contextWindow !== this.lastContextWindow;
    this.rebuildAll = false;
    const set = new Set<number>();
    // An agent linked to its call (meta sidecar, progress record, result) changes
    // type, parent and maybe turn: rebuild where it was and where it is now.
    for (const [key, agent] of model.agents) {
      const seen = `${agent.turnIndex}|${agent.toolUseId}|${agent.agentType}|${agent.description}`;
      const before = this.agentSeen.get(key);
      if (before !== seen) {
        const was = before === undefined ? null : Number(before.split('|')[0]);
        if (was !== null && !Number.isNaN(was)) set.add(was);
        if (agent.turnIndex !== null) set.add(agent.turnIndex);
        this.agentSeen.set(key, seen);
      }
    }
    if (all) return turns.map((t) => t.index);
    if (turns.length > 0) set.add(turns.length - 1);
    const entries = this.state.entries;
    for (let i = firstNew; i < entries.length; i += 1) {
      const entry = entries[i];
      if (entry === undefined) continue;
      if (entry.agentKey !== null) {
        const t = model.agents.get(entry.agentKey)?.turnIndex;
        if (t !== undefined && t !== null) set.add(t);
      }
      if (entry.rec.type === 'user') {
        for (const r of entry.rec.toolResults) {
          const t = model.tools.get(r.toolUseId)?.turnIndex;
          if (t !== undefined && t >= 0) set.add(t);
        }
      }
    }
    // Unfinished turns are rebuilt every time: their cut-off time moves with the session.
    for (const book of this.books.values()) if (!book.finished) set.add(book.turnIndex);
    return [...set].filter((i) => i >= 0 && i < turns.length).sort((a, b) => a - b);
  }

  private openBook(
    traceId: string,
    index: number,
    spans: SpanData[],
    digests: string[],
    digest: string,
  ): TurnBook {
    const marks = this.savedMarks.get(traceId);
    this.savedMarks.delete(traceId);
    const book = createBook(traceId, index, marks);
    const recorded = this.ctx.records.get(traceId) ?? null;
    book.recordedDigest = recorded;
    const closed = spans[0]?.complete === true;
    if (marks === undefined && recorded !== null && (recorded === digest || closed)) {
      // Delivered in full by an earlier run (or by `ccotel export`). If it changed
      // since, its final form is export's to resend, not ours.
      spans.forEach((s, i) =>
        book.delivered.set(s.spanId, { digest: digests[i] ?? '', complete: s.complete }),
      );
      book.inherited = recorded !== digest;
    }
    this.books.set(traceId, book);
    return book;
  }

  private rebuildTurn(model: SessionModel, index: number, costs: SessionCosts): boolean {
    const turn = model.turns[index];
    if (turn === undefined) return false;
    const traceId = traceIdFor(turn.promptUuid);
    const spans = buildTurnSpans(model, index, costs, this.ctx.spanOptions);
    const { spanDigests: digests, digest } = turnDigests(spans);
    const book = this.books.get(traceId) ?? this.openBook(traceId, index, spans, digests, digest);
    book.turnIndex = index;
    book.spans = spans;
    book.digests = digests;
    book.digest = digest;

    const finality = turnFinality(model, this.threads, turn, this.flush);
    // An idle flush sends open work as it stands; only a closed turn is done with.
    book.final = finality.all && (this.flush !== 'idle' || spans[0]?.complete === true);
    const ready = finality.all ? null : finality.ready;

    let queued = false;
    const ids = new Set<string>();
    spans.forEach((span, i) => {
      const digestOfSpan = digests[i] ?? '';
      ids.add(span.spanId);
      const isReady = ready === null || ready.has(span.spanId);
      if (isReady && verdict(book, span.spanId, digestOfSpan) === 'send') {
        this.outbox.set(span.spanId, { span, digest: digestOfSpan, book });
        book.queued.add(span.spanId);
        queued = true;
      } else if (book.queued.has(span.spanId)) {
        this.unqueue(book, span.spanId);
      }
    });
    // Spans that left this turn (an agent linked to a call of another turn).
    for (const id of [...book.queued]) if (!ids.has(id)) this.unqueue(book, id);
    this.settleBook(book);
    return queued;
  }

  private unqueue(book: TurnBook, spanId: string): void {
    if (this.outbox.get(spanId)?.book === book) this.outbox.delete(spanId);
    book.queued.delete(spanId);
  }

  /** Records a turn delivered in full; marks a final turn finished once nothing is left to send. */
  private settleBook(book: TurnBook): void {
    if (book.queued.size > 0 || book.inflight.size > 0) return;
    if (!book.inherited && book.recordedDigest !== book.digest && fullyDelivered(book)) {
      this.ctx.records.record(book.traceId, book.digest);
      book.recordedDigest = book.digest;
    }
    if (book.final && !book.finished) {
      book.finished = true;
      // Finished turns keep their marks (late lines may add spans) but not their spans.
      book.spans = [];
      book.digests = [];
    }
  }

  /** Spans to send now; they stay in flight until ack() or requeue(). */
  take(max: number): Outgoing[] {
    const out: Outgoing[] = [];
    for (const [spanId, item] of this.outbox) {
      if (out.length >= max) break;
      // A newer version of a span still in flight waits for the older one's verdict.
      if (item.book.inflight.has(spanId)) continue;
      this.outbox.delete(spanId);
      item.book.queued.delete(spanId);
      item.book.inflight.set(spanId, { digest: item.digest, complete: item.span.complete });
      out.push(item);
    }
    return out;
  }

  /** The collector accepted these spans. */
  ack(items: Outgoing[]): void {
    const books = new Set<TurnBook>();
    for (const { span, book } of items) {
      const mark = book.inflight.get(span.spanId);
      book.inflight.delete(span.spanId);
      if (mark !== undefined) book.delivered.set(span.spanId, mark);
      books.add(book);
    }
    for (const book of books) this.settleBook(book);
  }

  /** The collector refused these spans for good (HTTP 400/413): never retried, never recorded. */
  reject(items: Outgoing[]): void {
    for (const item of items) item.book.inherited = true;
    this.ack(items);
  }

  /** Not delivered (shutting down, or --once gave up): back in the outbox. */
  requeue(items: Outgoing[]): void {
    for (const item of items) {
      const id = item.span.spanId;
      item.book.inflight.delete(id);
      if (!this.outbox.has(id)) {
        this.outbox.set(id, item);
        item.book.queued.add(id);
      }
    }
  }

  /** Spans queued or in flight. */
  get pending(): number {
    let n = this.outbox.size;
    for (const book of this.books.values()) n += book.inflight.size;
    return n;
  }

  get hasOutbox(): boolean {
    return this.outbox.size > 0;
  }

  /** Whether some turn is still unfinished (open, settling or waiting for an agent). */
  get unfinished(): boolean {
    for (const book of this.books.values()) if (!book.finished) return true;
    return false;
  }

  toRecord(live: boolean): SessionRecord {
    const files: Record<string, FileRecord> = {};
    for (const f of this.files.values()) {
      if (f.role === 'meta') {
        if (f.seen !== null) files[f.path] = f.seen;
      } else if (f.tailer !== null && f.tailer.ino !== null) {
        files[f.path] = { ino: f.tailer.ino, size: f.tailer.readOffset };
      }
    }
    const turns: Record<string, Record<string, SpanMark>> = {};
    for (const book of this.books.values()) {
      // Recorded in export-state with this content: nothing more to remember.
      if (book.finished && book.recordedDigest === book.digest) continue;
      if (book.finished && book.inherited) continue;
      if (book.delivered.size > 0) turns[book.traceId] = marksOf(book);
    }
    return { files, skip: this.skip, baseline: this.baseline, live, turns };
  }
}
