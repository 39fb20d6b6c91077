// How export's turns travel: their spans fill batches of --max-batch-spans (a
// turn cut across two if need be), each batch goes to the sink, and a turn is
// recorded once every span of it was accepted. One request travels while the
// next batch is converted: export is otherwise conversion, then a wait for
// the answer, then conversion again. Requests still go one at a time and in
// order, so the state file records turns in the order they were delivered.
import type { SpanData } from '../../core/spans/data.js';
import type { LogRecordData } from '../../core/events/log-record.js';
import type { ResourceVariant } from '../../core/spans/native/native-resource.js';
import type { EncodedSpans, SpanRange } from '../../adapters/otlp/encode.js';
import type { ExportRecorder } from './recorder.js';
import type { TurnFor } from '../read/session-spans.js';
import type { SinkOf, SinkResult } from '../deliver/span-sink.js';
import { withEvents, type BatchOf, type SinkForm } from '../deliver/span-batch.js';

interface PendingTurn {
  /** What the state file records once the turn is delivered; null when nothing is recorded. */
  record: { traceId: string; digest: string } | null;
  remaining: number;
  /** A span of it was rejected or not delivered: never recorded in this run. */
  failed: boolean;
}

/** What the batches add to export's summary. */
export interface DeliveryCounts {
  spansSent: number;
  /** Spans of the batch that could not be delivered (later ones were not attempted). */
  spansFailed: number;
  /** Spans the collector said it rejected (partial_success), and its messages. */
  spansRejected: number;
  rejectMessages: string[];
  /** Single spans refused as too large (413) even alone. */
  tooLarge: { spanId: string; bytes: number }[];
  /** Events (log records) accepted, and those the collector said it rejected. */
  eventsSent: number;
  eventsRejected: number;
  bytesSent: number;
  requests: number;
  /** Why delivery stopped, when it did. */
  failure: string | null;
}

/** The forms that travel in batches; a dry run (form 'count') only counts its turns. */
export type SentForm = Exclude<SinkForm, 'count'>;

export interface BatchOptions<F extends SentForm> {
  sink: SinkOf<F>;
  maxBatch: number;
  /** A read-only run records nothing (its digests may be absent). */
  recorder: ExportRecorder | null;
}

type Outcome = { ok: boolean } | { error: unknown };

/** Collects spans [from, to) of turns into a batch of one form. */
interface BatchFill<F extends SentForm> {
  add(turn: TurnFor<F>, from: number, to: number): void;
  /** The batch so far; the fill starts empty again. */
  take(): BatchOf<F>;
}

function rangeFill<F extends 'protobuf' | 'json'>(
  form: F,
  fieldsOf: (turn: TurnFor<F>) => EncodedSpans,
): BatchFill<F> {
  let ranges: SpanRange[] = [];
  return {
    add: (turn, from, to) => void ranges.push({ encoded: fieldsOf(turn), from, to }),
    take() {
      const batch = { form, ranges } as BatchOf<F>;
      ranges = [];
      return batch;
    },
  };
}

const FILLS: { [F in SentForm]: () => BatchFill<F> } = {
  spans() {
    let spans: SpanData[] = [];
    return {
      add(turn, from, to) {
        for (let i = from; i < to; i++) spans.push(turn.spans[i] as SpanData);
      },
      take() {
        const batch = { form: 'spans' as const, spans };
        spans = [];
        return batch;
      },
    };
  },
  protobuf: () => rangeFill('protobuf', (turn) => turn.encoded),
  json: () => rangeFill('json', (turn) => turn.json),
};

export class BatchSender<F extends SentForm> {
  private readonly fill: BatchFill<F>;
  private turns: PendingTurn[] = [];
  /** The turn of each span of the batch, also when the spans travel as ranges only. */
  private owners: PendingTurn[] = [];
  /** The batch's events, and the turns they are of. */
  private events: LogRecordData[] = [];
  private eventOwners: PendingTurn[] = [];
  /** The resource variant of the batch's turns: a turn of another starts a new batch. */
  private variant: ResourceVariant | undefined;
  private inFlight: Promise<Outcome> | null = null;

  constructor(
    private readonly options: BatchOptions<F>,
    private readonly counts: DeliveryCounts,
  ) {
    const form: F = options.sink.form;
    this.fill = FILLS[form]();
  }

  /** Queues a turn's spans; false once delivery has failed (nothing more can go). */
  async add(turn: TurnFor<F>): Promise<boolean> {
    if (this.owners.length > 0 && turn.variant?.key !== this.variant?.key && !(await this.flush()))
      return false;
    this.variant = turn.variant;
    const pending: PendingTurn = {
      record: turn.digest === null ? null : { traceId: turn.traceId, digest: turn.digest },
      remaining: turn.spanCount,
      failed: false,
    };
    const max = this.options.maxBatch;
    for (let from = 0; from < turn.spanCount;) {
      const to = Math.min(turn.spanCount, from + max - this.owners.length);
      for (let i = from; i < to; i++) this.owners.push(pending);
      this.fill.add(turn, from, to);
      pending.remaining -= to - from;
      this.turns.push(pending);
      if (pending.remaining === 0 && turn.events.length > 0) {
        this.events.push(...turn.events);
        this.eventOwners.push(pending);
      }
      from = to;
      if (this.owners.length >= max && !(await this.flush())) return false;
    }
    return true;
  }

  /** Sends the batch so far once the one travelling is answered; false once delivery failed. */
  async flush(): Promise<boolean> {
    if (this.owners.length === 0) return true;
    const { owners, eventOwners } = this;
    const eventCount = this.events.length;
    const batch = withEvents(this.fill.take(), this.events, this.variant);
    this.events = [];
    this.eventOwners = [];
    // Decided now: later batches are built (and `remaining` drops) while this one travels.
    const completed = this.turns.filter((t) => t.remaining === 0);
    this.turns = [];
    this.owners = [];
    if (!(await this.settle())) return false;
    // The outcome is captured at once: a failure is never an unhandled rejection while conversion runs.
    this.inFlight = this.deliver(batch, eventCount, owners, eventOwners, completed).then(
      (ok) => ({ ok }),
      (error: unknown) => ({ error }),
    );
    return true;
  }

  /** Waits for the request in flight; false if it failed, throws what it threw. */
  async settle(): Promise<boolean> {
    if (this.inFlight === null) return true;
    const outcome = await this.inFlight;
    this.inFlight = null;
    if ('error' in outcome) throw outcome.error;
    return outcome.ok;
  }

  /** Sends one batch; `completed` are the turns whose last span is in it. */
  private async deliver(
    batch: BatchOf<F>,
    eventCount: number,
    owners: PendingTurn[],
    eventOwners: PendingTurn[],
    completed: PendingTurn[],
  ): Promise<boolean> {
    const { sink, recorder } = this.options;
    const result = await sink.send(batch);
    this.counts.requests += result.attempts;
    this.counts.bytesSent += result.bytes;
    this.tally(result, owners);
    this.tallyEvents(result, eventCount, eventOwners);
    if (!result.ok) {
      const what = result.events?.ok === false ? 'events' : 'spans';
      this.counts.failure = `could not deliver ${what} to ${result.events?.ok === false ? result.events.description : sink.description}: ${result.failure?.message ?? 'no answer'}`;
      return false;
    }
    if (recorder === null) return true;
    for (const turn of completed)
      if (!turn.failed && turn.record !== null)
        recorder.record(turn.record.traceId, turn.record.digest);
    recorder.paced();
    return true;
  }

  /**
   * Events go after their batch's spans: any not accepted (rejected, or not
   * delivered) keeps every turn they are of unrecorded, as a span would.
   */
  private tallyEvents(result: SinkResult, count: number, eventOwners: PendingTurn[]): void {
    if (count === 0) return;
    const events = result.events;
    if (events !== undefined && events.ok && events.rejected === 0) {
      this.counts.eventsSent += count;
      return;
    }
    for (const turn of eventOwners) turn.failed = true;
    if (events === undefined || !events.ok) return;
    this.counts.eventsSent += count - events.rejected;
    this.counts.eventsRejected += events.rejected;
    if (events.errorMessage !== '' && !this.counts.rejectMessages.includes(events.errorMessage))
      this.counts.rejectMessages.push(events.errorMessage);
  }

  /** Counts the verdicts; marks the turns of spans not accepted as failed. */
  private tally(result: SinkResult, owners: PendingTurn[]): void {
    const counts = this.counts;
    let answered = 0;
    for (const part of result.parts) {
      answered = part.to;
      if (part.outcome === 'accepted') {
        counts.spansSent += part.to - part.from;
        continue;
      }
      for (let i = part.from; i < part.to; i++) (owners[i] as PendingTurn).failed = true;
      if (part.outcome === 'rejected') {
        counts.spansRejected += part.rejectedSpans;
        if (part.errorMessage !== '' && !counts.rejectMessages.includes(part.errorMessage))
          counts.rejectMessages.push(part.errorMessage);
      } else counts.tooLarge.push({ spanId: part.spanId, bytes: part.bytes });
    }
    for (let i = answered; i < owners.length; i++) (owners[i] as PendingTurn).failed = true;
    counts.spansFailed += owners.length - answered;
  }
}
