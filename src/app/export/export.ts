// `ccotel export`: backfill transcripts as OTLP traces, one trace per turn.
// Batches (≤ --max-batch-spans, default 512) are sent one at a time, the next
// converted while the previous travels; a turn is recorded in the state file
// only once all its spans were accepted, so a failed run resends exactly the
// turns that did not make it, with the same ids (a killed run: also those of
// its last second). A turn with a span in a request the collector answered
// with partial_success rejections, or in a span too large to send, is never
// recorded: the response does not say which spans it dropped.
//
// A session whose every turn was delivered is marked with its files' stamps
// (session-marks.ts): a re-run takes such a session from its mark without
// opening its files, as long as they and the delivery settings are the same.
import type { Clock } from '../../core/clock.js';
import type { PriceTable } from '../../core/cost/pricing.js';
import type { Settings } from '../../core/settings.js';
import type { ReadWarning } from '../../core/view/waterfall-row.js';
import {
  findSessions,
  stampSession,
  type SessionFiles,
} from '../../adapters/files/session-files.js';
import { fileStampSync, type FileStamp, type StampedFile } from '../../adapters/files/file-info.js';
import type { SessionMark } from '../../adapters/state/export-state-file.js';
import { markHolds } from './session-marks.js';
import { systemClock } from '../../adapters/system-clock.js';
import { UserError } from '../../core/user-error.js';
import { limitHeapGrowth } from '../../adapters/heap-growth.js';
import { loadExportState } from '../../adapters/state/export-state-file.js';
import { ExportRecorder } from './recorder.js';
import { BatchSender, type DeliveryCounts } from './batches.js';
import { keyOfTurn, SessionSpansRead, type TurnFor, type TurnNeed } from '../read/session-spans.js';
import type { SinkOf, SpanSink } from '../deliver/span-sink.js';
import type { SinkForm } from '../deliver/span-batch.js';
import { DEFAULTS } from '../../core/settings.js';

/** The default batch size (the setting is maxBatchSpans); the benches use it. */
export const MAX_BATCH_SPANS = DEFAULTS.maxBatchSpans;

export interface ExportOptions {
  paths: string[];
  settings: Settings;
  prices: PriceTable;
  sink: SpanSink;
  /** Only turns that started at or after this time (ms). */
  since: number | null;
  /**
   * Only turns that started before this time (ms): history up to the day
   * Claude Code's own telemetry was switched on. A run with it neither takes
   * nor makes session marks (their window has no end); turns are still
   * compared with their recorded digests.
   */
  until?: number | null;
  force: boolean;
  /** What the spans are built and sent with (deliveryKey): a session marked under another is read. */
  deliveryKey: string;
  /** Keep the state file untouched (dry runs and --out). */
  readOnlyState: boolean;
  onProgress?: (sessionsDone: number, sessionsTotal: number) => void;
  onNote?: (note: string) => void;
  /** Paces the state saves (default: the system clock). */
  clock?: Clock;
}

/** What a run did: its sessions and turns, and what its batches delivered (DeliveryCounts). */
export interface ExportSummary extends DeliveryCounts {
  sessions: number;
  /** The sessions found under the paths (the cleanup check after export reuses the listing). */
  listed: SessionFiles[];
  turns: number;
  turnsUnchanged: number;
  turnsDuplicate: number;
  /** Sessions taken from their marks, and their files, none of them opened. */
  sessionsUnread: number;
  filesUnread: number;
  /** Main files as stamped before they were read (none when the run compared nothing). */
  mainStamps: Map<string, FileStamp>;
  /** Main files of the sessions known delivered in full: taken from their marks, or marked now. */
  deliveredWhole: Set<string>;
  warnings: ReadWarning[];
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
  const { settings } = options;
  const listWarnings: ReadWarning[] = [];
  const sessions = await collectSessions(options.paths, settings, listWarnings);
  const stateDir = settings.stateDir ?? '.';
  const loaded = await loadExportState(stateDir);
  if (loaded.problem !== null) options.onNote?.(loaded.problem);
  const recorder = new ExportRecorder(loaded.state, stateDir, options.clock ?? systemClock);
  const summary = emptySummary(sessions, listWarnings);
  const run: ExportRun = { options, sessions, recorder, summary, proposed: [] };
  const { sink } = options;
  // One branch per form, each typed by it (a union does not pick a generic's form).
  if (sink.form === 'protobuf') await exportTo(sink, run);
  else if (sink.form === 'json') await exportTo(sink, run);
  else if (sink.form === 'spans') await exportTo(sink, run);
  else await exportTo(sink, run);
  await recorder.finish();
  // Sessions read in this run whose marks were kept: all their turns were delivered.
  for (const mainFile of run.proposed)
    if (recorder.markOf(mainFile) !== undefined) summary.deliveredWhole.add(mainFile);
  return summary;
}

interface ExportRun {
  options: ExportOptions;
  sessions: SessionFiles[];
  recorder: ExportRecorder;
  summary: ExportSummary;
  /** Main files of the sessions read whole whose marks were proposed. */
  proposed: string[];
}

/** Every session's turns, built in the sink's form, to the sink. */
async function exportTo<F extends SinkForm>(sink: SinkOf<F>, run: ExportRun): Promise<void> {
  const { options, sessions, recorder, summary } = run;
  const need: TurnNeed<F> = { form: sink.form, digest: needsDigest(options, recorder.holdsTurns) };
  const delivery = DELIVERIES[sink.form](sink, run);
  const gate = turnGate(options, recorder, delivery, summary);
  try {
    const stopped = await readAll(sessions, run, need, gate);
    // The last partial batch; a failure here is recorded in summary.failure.
    if (!stopped) await delivery.flush();
    await delivery.settle();
  } catch (err) {
    // Whatever failed, the turns already delivered are recorded before the error goes on.
    await delivery.settle().catch(() => false);
    await recorder.abandon();
    throw err;
  }
}

/** Where export's turns go: batches for the sink, or (a dry run) a count. */
interface TurnDelivery<F extends SinkForm> {
  /** Queues a turn; false (or a promise of it) once delivery has failed. */
  add(turn: TurnFor<F>): boolean | Promise<boolean>;
  flush(): Promise<boolean>;
  settle(): Promise<boolean>;
}

const batchesFor = <F extends 'spans' | 'protobuf' | 'json'>(
  sink: SinkOf<F>,
  run: ExportRun,
): TurnDelivery<F> =>
  new BatchSender(
    {
      sink,
      maxBatch: run.options.settings.maxBatchSpans,
      recorder: run.options.readOnlyState ? null : run.recorder,
    },
    run.summary,
  );

const DELIVERIES: { [F in SinkForm]: (sink: SinkOf<F>, run: ExportRun) => TurnDelivery<F> } = {
  spans: batchesFor,
  protobuf: batchesFor,
  json: batchesFor,
  // A dry run sends nothing: its spans are counted as they come.
  count: (_sink, { summary }) => ({
    add(turn) {
      summary.spansSent += turn.spanCount;
      summary.eventsSent += turn.events.length;
      return true;
    },
    flush: () => Promise.resolve(true),
    settle: () => Promise.resolve(true),
  }),
};

const emptySummary = (listed: SessionFiles[], warnings: ReadWarning[]): ExportSummary => ({
  sessions: listed.length,
  listed,
  turns: 0,
  turnsUnchanged: 0,
  turnsDuplicate: 0,
  sessionsUnread: 0,
  filesUnread: 0,
  mainStamps: new Map(),
  deliveredWhole: new Set(),
  spansSent: 0,
  spansFailed: 0,
  spansRejected: 0,
  rejectMessages: [],
  tooLarge: [],
  eventsSent: 0,
  eventsRejected: 0,
  bytesSent: 0,
  requests: 0,
  warnings,
  failure: null,
});

/**
 * What becomes of each converted turn: outside --since, already seen in this
 * run, or already delivered unchanged, it is only counted; else it is queued
 * for delivery. send() resolves false once delivery has failed (reading
 * stops); replay() counts a marked session's turns as reading it would.
 */
interface TurnGate<F extends SinkForm> {
  send(turns: TurnFor<F>[]): Promise<boolean>;
  replay(mark: SessionMark): void;
}

function turnGate<F extends SinkForm>(
  options: ExportOptions,
  recorder: ExportRecorder,
  delivery: TurnDelivery<F>,
  summary: ExportSummary,
): TurnGate<F> {
  const seenTraces = new Set<string>();
  /** Counts the turn unless outside --since; false if it was seen in this run already. */
  const firstSeen = (key: string, startTime: number): boolean => {
    if (options.since !== null && startTime < options.since) return false;
    if (options.until != null && startTime >= options.until) return false;
    // The same history in a resumed or forked file: same prompt uuid, same trace.
    if (seenTraces.has(key)) {
      summary.turnsDuplicate += 1;
      return false;
    }
    seenTraces.add(key);
    summary.turns += 1;
    return true;
  };
  return {
    async send(turns) {
      for (const turn of turns) {
        const key = keyOfTurn(turn);
        if (!firstSeen(key, turn.startTime)) continue;
        if (!options.force && turn.digest !== null && recorder.delivered(key, turn.digest)) {
          summary.turnsUnchanged += 1;
          continue;
        }
        const added = delivery.add(turn);
        if (added !== true && !(await added)) return false;
      }
      return true;
    },
    replay(mark) {
      for (const [traceId, startTime] of mark.turns)
        if (firstSeen(traceId, startTime)) summary.turnsUnchanged += 1;
    },
  };
}

/**
 * Whether each turn needs its digest: to compare with the state file and to
 * record the turn. A read-only run with nothing to compare (--force, or no
 * turns recorded) needs none, and builds each turn in the sink's form alone:
 * a dry run then only counts (no span is built), --out takes each turn's
 * OTLP/JSON, its spans dropped as it is built.
 */
function needsDigest(options: ExportOptions, stateHoldsTurns: boolean): boolean {
  return !options.readOnlyState || (!options.force && stateHoldsTurns);
}

/** Reads every session, a segment at a time, into the gate; true if delivery stopped it. */
async function readAll<F extends SinkForm>(
  sessions: SessionFiles[],
  run: ExportRun,
  need: TurnNeed<F>,
  gate: TurnGate<F>,
): Promise<boolean> {
  const { options, recorder, summary } = run;
  const notes = sessionNotes(options, summary);
  // Stamps are taken before a file is opened: one written while read differs next time.
  const stamping = !options.readOnlyState || (!options.force && recorder.holdsMarks);
  // A read-only run that builds spans (--out) lets the old generation grow
  // several times past its live heap between V8's default full collections,
  // even with each turn encoded as it is built: capped from the start
  // (heap-growth.ts; the figures are in docs/benchmarks.md, Memory).
  const heap = { limited: options.readOnlyState && (need.form !== 'count' || need.digest) };
  if (heap.limited) limitHeapGrowth();
  let done = 0;
  for (const files of sessions) {
    const stamps = stamping ? stampSession(files) : null;
    const main = stamps?.[0];
    if (main !== undefined) summary.mainStamps.set(files.mainFile, stampOf(main));
    const bounded = options.until != null;
    const mark = options.force || bounded ? undefined : recorder.markOf(files.mainFile);
    const query = {
      files: stamps,
      under: options.deliveryKey,
      since: options.since,
      recorded: (traceId: string) => recorder.recorded(traceId),
    };
    if (markHolds(mark, query)) {
      gate.replay(mark);
      summary.sessionsUnread += 1;
      summary.filesUnread += mark.files.length;
      summary.deliveredWhole.add(files.mainFile);
      notes(files, mark);
    } else {
      const read = await readOne(files, run, need, gate, heap);
      notes(files, read.told);
      if (!options.readOnlyState && read.turns !== null && stamps !== null)
        run.proposed.push(files.mainFile);
      if (!options.readOnlyState)
        recorder.propose(
          files.mainFile,
          read.turns === null || stamps === null || bounded
            ? null
            : {
                under: query.under,
                since: query.since,
                files: stamps,
                turns: read.turns,
                ...read.told,
              },
        );
      if (read.stopped) return true;
    }
    options.onProgress?.(++done, sessions.length);
  }
  if (!options.readOnlyState) forgetGone(sessions, recorder);
  return false;
}

type Told = Pick<SessionMark, 'warnings' | 'unknownModels' | 'lateAgents'>;

/**
 * One session read into the gate: what it tells, whether delivery stopped
 * it, and its turns for a mark (null when read only in part or undigested).
 */
async function readOne<F extends SinkForm>(
  files: SessionFiles,
  { options }: ExportRun,
  need: TurnNeed<F>,
  gate: TurnGate<F>,
  heap: { limited: boolean },
): Promise<{ told: Told; stopped: boolean; turns: SessionMark['turns'] | null }> {
  const { content, maxAttributeBytes, schema } = options.settings;
  const read = new SessionSpansRead(
    files,
    options.prices,
    { content, maxAttributeBytes, schema },
    {},
    need,
  );
  const turns: SessionMark['turns'] = [];
  let digests = true;
  let segments = 0;
  let stopped = false;
  // Turns are sent a segment at a time: a transcript of gigabytes is never held whole.
  for await (const segment of read.turns()) {
    // A session long enough to be read in segments: its garbage, not what
    // export holds, made the peak RSS (heap-growth.ts). Smaller sessions
    // keep V8's default, which costs fewer collections.
    if (++segments === 2 && !heap.limited) {
      limitHeapGrowth();
      heap.limited = true;
    }
    for (const turn of segment)
      if (turn.digest === null) digests = false;
      else turns.push([keyOfTurn(turn), turn.startTime, turn.digest]);
    // Nothing more can be delivered: stop reading the session too.
    stopped = !(await gate.send(segment));
    if (stopped) break;
  }
  const session = read.summary();
  const told = {
    warnings: session.warnings,
    unknownModels: session.unknownModels,
    lateAgents: session.lateAgents,
  };
  return { told, stopped, turns: stopped || !digests ? null : turns };
}

/** What a session read (or taken from its mark) tells: its warnings, unpriced models, late agents. */
function sessionNotes(
  options: ExportOptions,
  summary: ExportSummary,
): (files: SessionFiles, told: Told) => void {
  const unknownModels = new Set<string>();
  return (files, told) => {
    summary.warnings.push(...told.warnings);
    for (const m of told.unknownModels) {
      if (!unknownModels.has(m)) options.onNote?.(`no price for model ${m}: its cost is left out`);
      unknownModels.add(m);
    }
    if (told.lateAgents > 0)
      options.onNote?.(
        `${files.mainFile}: ${told.lateAgents} sub-agent(s) whose lines came after their turn was sent are shown in a later turn`,
      );
  };
}

const stampOf = ([, dev, ino, size, mtimeMs, ctimeMs]: StampedFile): FileStamp => ({
  dev,
  ino,
  size,
  mtimeMs,
  ctimeMs,
});

/** Marks of sessions not listed in this run whose main file is gone (Claude Code deletes old ones). */
function forgetGone(listed: SessionFiles[], recorder: ExportRecorder): void {
  const here = new Set(listed.map((f) => f.mainFile));
  for (const mainFile of recorder.markedSessions())
    if (!here.has(mainFile) && fileStampSync(mainFile) === null) recorder.forget(mainFile);
}
