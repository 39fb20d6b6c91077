// One followed session: its files tailed into the session reader
// (session-tail.ts), and after each batch of new lines the turns it touched
// rebuilt with the same span builder `ccotel export` uses. Spans whose content is final (core/finality.ts) and not
// yet sent (turn-book.ts) go to the outbox, which the delivery queue drains.
// Holding no spans beyond the outbox, a tracker re-derives anything not yet
// acknowledged from the transcript itself: a collector outage costs no memory.
import type { ParseOptions } from '../../../core/transcript/parse-record.js';
import type { PriceTable } from '../../../core/cost/pricing.js';
import { costSession, type SessionCosts } from '../../../core/cost/session-cost.js';
import type { SessionModel } from '../../../core/model/session-model.js';
import type { SpanData, SpanOptions } from '../../../core/spans/data.js';
import type { LogRecordData } from '../../../core/events/log-record.js';
import {
  resourceVariantOf,
  type ResourceVariant,
} from '../../../core/spans/native/native-resource.js';
import { buildTurnSpans } from '../../../core/spans/build.js';
import { turnFinality, type FlushMode } from '../../../core/spans/finality.js';
import { createThreads, observe, type Threads } from '../../../core/spans/thread-progress.js';
import { turnsWithChangedWindow } from '../../../core/model/context-window.js';
import type { Cut } from '../../../core/session/reader.js';
import type { Logger } from '../../../adapters/logger.js';
import {
  digestOf,
  eventDigest,
  eventsOfTurn,
  traceIdOfTurn,
  turnDigests,
  withEvents,
} from '../../read/session-spans.js';
import type { ExportRecords } from '../state/export-records.js';
import type { MalformedLines } from '../state/malformed-lines.js';
import { SessionTail } from './session-tail.js';
import { createBook, fullyDelivered, marksOf, verdict, type TurnBook } from './turn-book.js';
import type { SessionRecord, SpanMark } from '../state/watch-state.js';

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

/** A span, or (Claude Code's schema) an event, waiting to leave or in flight. */
export type Outgoing = {
  /** The span's id, or `event:` and the event's uid. */
  id: string;
  digest: string;
  complete: boolean;
  book: TurnBook;
  /** Its session's resource (Claude Code's schema): a batch holds one. */
  variant?: ResourceVariant;
} & ({ span: SpanData; event?: undefined } | { event: LogRecordData; span?: undefined });

/** The outbox key of an event (apart from any span id). */
const eventKey = (event: LogRecordData): string =>
  `event:${String(event.attributes['log.record.uid'])}`;

export type { FlushMode };

export class SessionTracker {
  readonly key: string;
  readonly sessionId: string;
  private readonly ctx: TrackerContext;
  /** The session's files and what was read of them (the reader, the turns folded away). */
  private readonly tail: SessionTail;
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
  /** Per agent: turn, spawning call, type and description when last built. */
  private readonly agentSeen = new Map<string, string>();

  constructor(key: string, sessionId: string, ctx: TrackerContext, record: SessionRecord) {
    this.key = key;
    this.sessionId = sessionId;
    this.ctx = ctx;
    this.tail = new SessionTail(key, sessionId, ctx);
    this.skip = record.skip;
    this.baseline = record.baseline;
    this.savedMarks = new Map(Object.entries(record.turns));
    for (const path of Object.keys(record.files)) this.tail.addFile(path);
  }

  /** Entries held now: only the turns not folded away. */
  get heldEntries(): number {
    return this.tail.state.entries.length;
  }

  /** Turns folded away so far. */
  get foldedTurns(): number {
    return this.tail.carry.priorTurns.length;
  }

  get flushMode(): FlushMode {
    return this.flush;
  }

  hasFile(path: string): boolean {
    return this.tail.hasFile(path);
  }

  addFile(path: string): void {
    this.tail.addFile(path);
  }

  forget(path: string): void {
    this.tail.forget(path);
  }

  /** Reads every file of the session from byte 0 (first load, or after a reset). */
  async load(): Promise<void> {
    this.foldRefusedAt = -1;
    this.threads = createThreads();
    this.agentSeen.clear();
    const history = await this.tail.load({ skip: this.skip, baseline: this.baseline });
    this.skip = history.skip;
    this.baseline = history.baseline;
    this.rebuildAll = true;
  }

  /** Reads what was appended to one file. True when something new came in. */
  async ingest(path: string): Promise<boolean> {
    const read = await this.tail.ingest(path);
    if (read === 'meta') return true;
    if (read === 'none') return false;
    if (read !== 'lines') {
      this.ctx.log.info('transcript shrank or was replaced; re-reading the session', {
        file: path,
        reason: read.reason,
        session: this.sessionId,
      });
      await this.load();
    }
    this.touched();
    return true;
  }

  /** Reads what was appended to any of the session's files (before a final flush). */
  async ingestAll(): Promise<boolean> {
    let fresh = false;
    for (const path of this.tail.paths()) if (await this.ingest(path)) fresh = true;
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
      if (!this.tail.spawnReturned()) return;
      for (const path of this.tail.agentPaths()) await this.ingest(path);
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

  /** Rebuilds the turns that may have changed and refills the outbox. True if spans were queued. */
  recompute(): boolean {
    const model = this.tail.model();
    const firstNew = this.threads.seen;
    observe(this.threads, this.tail.state.entries);
    const costs = costSession(model, this.ctx.prices);
    // Folded turns are finished: they are neither rebuilt nor sent again.
    const from = Math.max(this.skip, this.tail.carry.priorTurns.length);
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
    const base = this.tail.carry.priorTurns.length;
    const last = model.turns.length - 1;
    if (last <= base || last === this.foldRefusedAt) return;
    // Every turn before the last finished: final and delivered (turns before skip are history).
    for (let index = Math.max(base, this.skip); index < last; index += 1) {
      const turn = model.turns[index];
      const traceId =
        turn === undefined ? '' : traceIdOfTurn(this.ctx.spanOptions, turn.promptUuid);
      if (turn === undefined || this.books.get(traceId)?.finished !== true) return;
    }
    const cut = this.tail.cutBeforeLastTurn(model);
    if (cut === null || !this.foldKeepsTurn(model, last, cut)) {
      this.foldRefusedAt = last;
      return;
    }
    this.tail.commit(cut);
    // What the thread view knew of the folded turns is needed no more: read the held entries afresh.
    this.threads = createThreads();
    observe(this.threads, this.tail.state.entries);
    for (const [traceId, book] of this.books)
      if (book.turnIndex < last && !this.remembers(book)) this.books.delete(traceId);
    for (const key of [...this.agentSeen.keys()])
      if ((model.agents.get(key)?.turnIndex ?? last) < last) this.agentSeen.delete(key);
  }

  /** Whether the last turn's spans come out the same from the folded state. */
  private foldKeepsTurn(model: SessionModel, last: number, cut: Cut): boolean {
    const folded = this.tail.modelAfter(cut);
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
   * per change, so a reader of the backend knows why spans changed.
   */
  private warnWindowChange(model: SessionModel): void {
    // Folded turns keep the window they were sent with: only the turns held can change.
    const held = model.turns.slice(this.tail.carry.priorTurns.length);
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
    const entries = this.tail.state.entries;
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

  private openBook(traceId: string, index: number, parts: Outgoing[], digest: string): TurnBook {
    const marks = this.savedMarks.get(traceId);
    this.savedMarks.delete(traceId);
    const book = createBook(traceId, index, marks);
    const recorded = this.ctx.records.get(traceId) ?? null;
    book.recordedDigest = recorded;
    const closed = parts[0]?.complete === true;
    if (marks === undefined && recorded !== null && (recorded === digest || closed)) {
      // Delivered in full by an earlier run (or by `ccotel export`). If it changed
      // since, its final form is export's to resend, not ours.
      for (const part of parts)
        book.delivered.set(part.id, { digest: part.digest, complete: part.complete });
      book.inherited = recorded !== digest;
    }
    this.books.set(traceId, book);
    return book;
  }

  /** The turn's spans and events as outbox items, before they are known to be ready. */
  private partsOf(model: SessionModel, index: number, costs: SessionCosts) {
    const options = this.ctx.spanOptions;
    const spans = buildTurnSpans(model, index, costs, options);
    const events = eventsOfTurn(model, index, costs, options);
    const { spanDigests, digest } = turnDigests(spans);
    // Filled in with the turn's book below.
    const book = null as unknown as TurnBook;
    const turn = model.turns[index];
    const variant =
      options.schema === 'claude-code' && turn !== undefined
        ? { variant: resourceVariantOf(turn) }
        : {};
    const parts: Outgoing[] = spans.map((span, i) => ({
      id: span.spanId,
      digest: spanDigests[i] ?? '',
      complete: span.complete,
      book,
      ...variant,
      span,
    }));
    for (const event of events)
      parts.push({
        id: eventKey(event),
        digest: eventDigest(event),
        complete: true,
        book,
        ...variant,
        event,
      });
    const eventDigests = parts.flatMap((p) => (p.event === undefined ? [] : [p.digest]));
    return { spans, parts, digest: withEvents(digest, eventDigests) };
  }

  private rebuildTurn(model: SessionModel, index: number, costs: SessionCosts): boolean {
    const turn = model.turns[index];
    if (turn === undefined) return false;
    const traceId = traceIdOfTurn(this.ctx.spanOptions, turn.promptUuid);
    const { spans, parts, digest } = this.partsOf(model, index, costs);
    const book = this.books.get(traceId) ?? this.openBook(traceId, index, parts, digest);
    book.turnIndex = index;
    book.ids = parts.map((p) => p.id);
    book.digests = parts.map((p) => p.digest);
    book.digest = digest;

    const finality = turnFinality(
      model,
      this.threads,
      turn,
      this.flush,
      this.ctx.spanOptions.schema,
    );
    // An idle flush sends open work as it stands; only a closed turn is done with.
    book.final = finality.all && (this.flush !== 'idle' || spans[0]?.complete === true);
    const ready = finality.all ? null : finality.ready;
    const rootId = spans[0]?.spanId;

    let queued = false;
    const ids = new Set<string>();
    for (const part of parts) {
      part.book = book;
      ids.add(part.id);
      // An event leaves once the span of the work it tells of is final (a prompt at once).
      const of = part.event === undefined ? part.id : part.event.of;
      const isReady =
        ready === null || ready.has(of) || (part.event !== undefined && of === rootId);
      if (isReady && verdict(book, part.id, part.digest) === 'send') {
        this.outbox.set(part.id, part);
        book.queued.add(part.id);
        queued = true;
      } else if (book.queued.has(part.id)) {
        this.unqueue(book, part.id);
      }
    }
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
      book.ids = [];
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
      item.book.inflight.set(spanId, { digest: item.digest, complete: item.complete });
      out.push(item);
    }
    return out;
  }

  /** The collector accepted these spans. */
  ack(items: Outgoing[]): void {
    const books = new Set<TurnBook>();
    for (const { id, book } of items) {
      const mark = book.inflight.get(id);
      book.inflight.delete(id);
      if (mark !== undefined) book.delivered.set(id, mark);
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
      const { id } = item;
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
    const files = this.tail.fileRecords();
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
