// `ccotel export`: backfill transcripts as OTLP traces, one trace per turn.
// Batches (≤ --max-batch-spans, default 512) are sent one at a time, the next
// converted while the previous travels; a turn is recorded in the state file
// only once all its spans were accepted, so a failed run resends exactly the
// turns that did not make it, with the same ids (a killed run: also those of
// its last second). A turn with a span in a request the collector answered
// with partial_success rejections, or in a span too large to send, is never
// recorded: the response does not say which spans it dropped.
import type { Clock } from '../core/clock.js';
import type { PriceTable } from '../core/pricing.js';
import type { Settings } from '../core/settings.js';
import type { SpanData } from '../core/span-data.js';
import type { ReadWarning } from '../core/waterfall-row.js';
import { findSessions, type SessionFiles } from '../adapters/session-files.js';
import type { SpanRange } from '../adapters/otlp-encode.js';
import { systemClock } from '../adapters/system-clock.js';
import { UserError } from '../core/user-error.js';
import { limitHeapGrowth } from '../adapters/heap-growth.js';
import { loadExportState, saveExportState, type ExportState } from './export-state.js';
import { streamSessionSpans, type SpanWork, type TurnSpans } from './session-spans.js';
import type { SinkResult, SpanSink } from './span-sink.js';
import { DEFAULTS } from '../core/settings.js';

/** The default batch size (the setting is maxBatchSpans); the benches use it. */
export const MAX_BATCH_SPANS = DEFAULTS.maxBatchSpans;
/** Least time between two saves of the state file during a run. */
const SAVE_EVERY_MS = 1000;

export interface ExportOptions {
  paths: string[];
  settings: Settings;
  prices: PriceTable;
  sink: SpanSink;
  /** Only turns that started at or after this time (ms). */
  since: number | null;
  force: boolean;
  /** Keep the state file untouched (dry runs and --out). */
  readOnlyState: boolean;
  onProgress?: (sessionsDone: number, sessionsTotal: number) => void;
  onNote?: (note: string) => void;
  /** Paces the state saves (default: the system clock). */
  clock?: Clock;
}

export interface ExportSummary {
  sessions: number;
  /** The sessions found under the paths (the cleanup check after export reuses the listing). */
  listed: SessionFiles[];
  turns: number;
  turnsUnchanged: number;
  turnsDuplicate: number;
  spansSent: number;
  /** Spans of the batch that could not be delivered (later ones were not attempted). */
  spansFailed: number;
  /** Spans the collector said it rejected (partial_success), and its messages. */
  spansRejected: number;
  rejectMessages: string[];
  /** Single spans refused as too large (413) even alone. */
  tooLarge: { spanId: string; bytes: number }[];
  bytesSent: number;
  requests: number;
  warnings: ReadWarning[];
  /** Why delivery stopped, when it did. */
  failure: string | null;
}

interface PendingTurn {
  traceId: string;
  digest: string;
  remaining: number;
  /** A span of it was rejected or not delivered: never recorded in this run. */
  failed: boolean;
}

async function collectSessions(
  paths: string[],
  settings: Settings,
  warnings: ReadWarning[],
): Promise<SessionFiles[]> {
  const roots = paths.length > 0 ? paths : settings.projectsDirs;
  const all: SessionFiles[] = [];
  for (const root of roots) {
    try {
      all.push(
        ...(await findSessions(root, (path, reason) =>
          warnings.push({ file: path, line: 0, reason }),
        )),
      );
    } catch (err) {
      // The default roots may not exist on a machine that never ran Claude Code.
      if (paths.length === 0 && err instanceof UserError) continue;
      throw err;
    }
  }
  if (all.length === 0 && warnings.length === 0)
    throw new UserError(`no Claude Code transcripts found under ${roots.join(', ')}`, 'not-found');
  return all;
}

export async function runExport(options: ExportOptions): Promise<ExportSummary> {
  const { settings, sink } = options;
  const listWarnings: ReadWarning[] = [];
  const sessions = await collectSessions(options.paths, settings, listWarnings);
  const stateDir = settings.stateDir ?? '.';
  const loaded = await loadExportState(stateDir);
  if (loaded.problem !== null) options.onNote?.(loaded.problem);
  const state: ExportState = loaded.state;
  const summary: ExportSummary = {
    sessions: sessions.length,
    listed: sessions,
    turns: 0,
    turnsUnchanged: 0,
    turnsDuplicate: 0,
    spansSent: 0,
    spansFailed: 0,
    spansRejected: 0,
    rejectMessages: [],
    tooLarge: [],
    bytesSent: 0,
    requests: 0,
    warnings: listWarnings,
    failure: null,
  };
  let stateDirty = false;
  const clock = options.clock ?? systemClock;
  let lastSave = clock.monotonic();
  /** Writes the state file, marked clean first: turns recorded while it is written are saved next time. */
  const write = async (): Promise<void> => {
    stateDirty = false;
    try {
      await saveExportState(stateDir, state);
    } catch (err) {
      stateDirty = true;
      throw new UserError(
        `cannot write the state file in ${stateDir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (delivered turns will be resent next time, with the same ids)`,
        'failed',
      );
    }
  };
  // The periodic save runs beside delivery rather than before the next
  // request: its fsync took 50-150 ms a second on a busy disk, time in which
  // neither conversion nor sending went on. One save at a time (they share a
  // temp file); its error is thrown by the next delivery or at the end.
  let saving: Promise<void> | null = null;
  let saveError: unknown = null;
  const startSave = (): void => {
    saving = write().then(
      () => {
        saving = null;
      },
      (err: unknown) => {
        saving = null;
        saveError = err;
      },
    );
  };
  const throwSaveError = (): void => {
    if (saveError === null) return;
    const err = saveError;
    saveError = null;
    throw err;
  };
  const persist = async (): Promise<void> => {
    await saving;
    throwSaveError();
    if (!stateDirty || options.readOnlyState) return;
    await write();
  };
  // Each turn's protobuf fields and digest serve to compare with the state
  // file, to record the turn and to build the request: a read-only run with
  // nothing to compare (--force, or no turns recorded) needs none of them.
  const encode = !options.readOnlyState || (!options.force && Object.keys(state.turns).length > 0);
  // A dry run with nothing to compare only counts: no span is built either;
  // --out then takes each turn's OTLP/JSON, its spans dropped as it is built.
  const work: SpanWork = encode
    ? 'encode'
    : sink.countsOnly === true
      ? 'count'
      : sink.takesJson === true
        ? 'json'
        : 'spans';
  // The sink assembles requests from the turns' encoded fields: the batch holds no span.
  const fieldsOnly = encode && sink.takesEncoded === true;
  const seenTraces = new Set<string>();
  const unknownModels = new Set<string>();
  const maxBatch = settings.maxBatchSpans;
  let batch: SpanData[] = [];
  let batchRanges: SpanRange[] = [];
  let batchTurns: PendingTurn[] = [];
  /** The turn of each span of the batch. */
  let batchOwners: PendingTurn[] = [];

  /** Counts the verdicts; marks the turns of spans not accepted as failed. */
  const tally = (result: SinkResult, owners: PendingTurn[]): void => {
    let answered = 0;
    for (const part of result.parts) {
      answered = part.to;
      if (part.outcome === 'accepted') {
        summary.spansSent += part.to - part.from;
        continue;
      }
      for (let i = part.from; i < part.to; i++) (owners[i] as PendingTurn).failed = true;
      if (part.outcome === 'rejected') {
        summary.spansRejected += part.rejectedSpans;
        if (part.errorMessage !== '' && !summary.rejectMessages.includes(part.errorMessage))
          summary.rejectMessages.push(part.errorMessage);
      } else summary.tooLarge.push({ spanId: part.spanId, bytes: part.bytes });
    }
    for (let i = answered; i < owners.length; i++) (owners[i] as PendingTurn).failed = true;
    summary.spansFailed += owners.length - answered;
  };

  /** Sends one batch; `completed` are the turns whose last span is in it. */
  const deliver = async (
    spans: SpanData[],
    ranges: SpanRange[],
    owners: PendingTurn[],
    completed: PendingTurn[],
  ): Promise<boolean> => {
    const result = await sink.send(
      spans,
      encode ? ranges : undefined,
      work === 'json' ? ranges : undefined,
    );
    summary.requests += result.attempts;
    summary.bytesSent += result.bytes;
    tally(result, owners);
    if (!result.ok) {
      summary.failure = `could not deliver spans to ${sink.description}: ${result.failure?.message ?? 'no answer'}`;
      return false;
    }
    for (const turn of completed) {
      // A read-only run records nothing (its digests may be empty).
      if (turn.failed || options.readOnlyState) continue;
      state.turns[turn.traceId] = turn.digest;
      stateDirty = true;
    }
    // Saved at most once a second (and at the end): a run that dies resends
    // only the turns of its last second, with the same ids. Saving after every
    // batch rewrote and fsynced the whole file each time, quadratic in the
    // turns: 13 of 36 s exporting a 1 GB transcript (docs/benchmarks.md).
    throwSaveError();
    if (stateDirty && saving === null && clock.monotonic() - lastSave >= SAVE_EVERY_MS) {
      lastSave = clock.monotonic();
      startSave();
    }
    return true;
  };

  // One request travels while the next batch is converted: export is otherwise
  // conversion, then a wait for the answer, then conversion again. Requests
  // still go one at a time and in order, so the state file records turns in
  // the order they were delivered. The outcome is captured at once so that a
  // failure is never an unhandled rejection while conversion runs.
  let inFlight: Promise<{ ok: boolean } | { error: unknown }> | null = null;
  const settle = async (): Promise<boolean> => {
    if (inFlight === null) return true;
    const outcome = await inFlight;
    inFlight = null;
    if ('error' in outcome) throw outcome.error;
    return outcome.ok;
  };
  const flush = async (): Promise<boolean> => {
    // batchOwners: a span each, also when the spans travel as encoded or `json` ranges only.
    if (batchOwners.length === 0) return true;
    const spans = batch;
    const ranges = batchRanges;
    const owners = batchOwners;
    // Decided now: later batches are built (and `remaining` drops) while this one travels.
    const completed = batchTurns.filter((t) => t.remaining === 0);
    batch = [];
    batchRanges = [];
    batchTurns = [];
    batchOwners = [];
    if (!(await settle())) return false;
    inFlight = deliver(spans, ranges, owners, completed).then(
      (ok) => ({ ok }),
      (error: unknown) => ({ error }),
    );
    return true;
  };

  let done = 0;
  let stopped = false;
  /** Queues a segment's turns for delivery; false once delivery has failed (reading stops). */
  const sendTurns = async (turns: TurnSpans[]): Promise<boolean> => {
    for (const turn of turns) {
      if (options.since !== null && turn.startTime < options.since) continue;
      // The same history in a resumed or forked file: same prompt uuid, same trace.
      if (seenTraces.has(turn.traceId)) {
        summary.turnsDuplicate += 1;
        continue;
      }
      seenTraces.add(turn.traceId);
      summary.turns += 1;
      if (!options.force && state.turns[turn.traceId] === turn.digest) {
        summary.turnsUnchanged += 1;
        continue;
      }
      if (work === 'count') {
        summary.spansSent += turn.spanCount;
        continue;
      }
      const pending: PendingTurn = {
        traceId: turn.traceId,
        digest: turn.digest,
        remaining: turn.spanCount,
        failed: false,
      };
      const withSpans = work !== 'json' && !fieldsOnly;
      // The turn's spans fill batches of maxBatch, a turn cut across two if need be.
      for (let from = 0; from < turn.spanCount;) {
        const to = Math.min(turn.spanCount, from + maxBatch - batchOwners.length);
        for (let i = from; i < to; i++) {
          if (withSpans) batch.push(turn.spans[i] as SpanData);
          batchOwners.push(pending);
        }
        batchRanges.push({ encoded: turn.encoded, from, to });
        pending.remaining -= to - from;
        batchTurns.push(pending);
        from = to;
        if (batchOwners.length >= maxBatch && !(await flush())) {
          stopped = true;
          // Nothing more can be delivered: stop reading the session too.
          return false;
        }
      }
    }
    return true;
  };
  const spanOptions = { content: settings.content, maxAttributeBytes: settings.maxAttributeBytes };
  try {
    // A read-only run that builds spans (--out) let the old generation grow to
    // 60-90 MB between V8's default full collections, of a live heap of 14-16
    // MB: batches of built spans outlived young collections (--out peak RSS
    // 145-153 MB on the 201 MB corpus). With each turn encoded as it is built
    // (SpanWork 'json') most runs stayed at 113-121 MB, but one in four still
    // reached 151-170 MB uncapped. Capped from the start.
    let heapLimited = options.readOnlyState && work !== 'count';
    if (heapLimited) limitHeapGrowth();
    for (const files of sessions) {
      let segments = 0;
      const sendSegment = (turns: TurnSpans[]): Promise<boolean> => {
        // A session long enough to be read in segments: its garbage, not what
        // export holds, made the peak RSS (heap-growth.ts). Smaller sessions
        // keep V8's default, which costs fewer collections.
        if (++segments === 2 && !heapLimited) {
          limitHeapGrowth();
          heapLimited = true;
        }
        return sendTurns(turns);
      };
      // Turns are sent a segment at a time: a transcript of gigabytes is never held whole.
      const session = await streamSessionSpans(
        files,
        options.prices,
        spanOptions,
        sendSegment,
        {},
        work,
      );
      summary.warnings.push(...session.warnings);
      for (const m of session.unknownModels) {
        if (!unknownModels.has(m))
          options.onNote?.(`no price for model ${m}: its cost is left out`);
        unknownModels.add(m);
      }
      if (session.lateAgents > 0)
        options.onNote?.(
          `${files.mainFile}: ${session.lateAgents} sub-agent(s) whose lines came after their turn was sent are shown in a later turn`,
        );
      if (stopped) break;
      done += 1;
      options.onProgress?.(done, sessions.length);
    }
    // The last partial batch; a failure here is recorded in summary.failure.
    if (!stopped) await flush();
    await settle();
  } catch (err) {
    // Whatever failed, the turns already delivered are recorded before the error goes on.
    await settle().catch(() => false);
    await saving;
    saveError = null;
    await persist().catch(() => undefined);
    throw err;
  }
  await persist();
  return summary;
}
