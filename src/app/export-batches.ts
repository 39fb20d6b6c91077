// How export's turns travel: their spans fill batches of --max-batch-spans (a
// turn cut across two if need be), each batch goes to the sink, and a turn is
// recorded once every span of it was accepted. One request travels while the
// next batch is converted: export is otherwise conversion, then a wait for
// the answer, then conversion again. Requests still go one at a time and in
// order, so the state file records turns in the order they were delivered.
import type { SpanData } from '../core/span-data.js';
import type { SpanRange } from '../adapters/otlp-encode.js';
import type { ExportRecorder } from './export-recorder.js';
import type { TurnSpans } from './session-spans.js';
import type { SinkResult, SpanSink } from './span-sink.js';
import type { SpanBatch } from './span-batch.js';

interface PendingTurn {
  traceId: string;
  digest: string;
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
  bytesSent: number;
  requests: number;
  /** Why delivery stopped, when it did. */
  failure: string | null;
}

export interface BatchOptions {
  sink: SpanSink;
  maxBatch: number;
  /** Turns come with protobuf fields (TurnSpans.encoded), sent so to a sink that takes them. */
  encoded: boolean;
  /** Turns come with OTLP/JSON ranges instead of spans (SpanWork 'json'). */
  json: boolean;
  /** A read-only run records nothing (its digests may be empty). */
  recorder: ExportRecorder | null;
}

type Outcome = { ok: boolean } | { error: unknown };

export class BatchSender {
  private spans: SpanData[] = [];
  private ranges: SpanRange[] = [];
  private turns: PendingTurn[] = [];
  /** The turn of each span of the batch, also when the spans travel as ranges only. */
  private owners: PendingTurn[] = [];
  private inFlight: Promise<Outcome> | null = null;
  /** How batches travel (SpanBatch); 'spans': the batch holds its spans. */
  private readonly form: 'spans' | 'encoded' | 'json';

  constructor(
    private readonly options: BatchOptions,
    private readonly counts: DeliveryCounts,
  ) {
    const { sink, encoded, json } = options;
    this.form = json ? 'json' : encoded && sink.takesEncoded === true ? 'encoded' : 'spans';
  }

  /** Queues a turn's spans; false once delivery has failed (nothing more can go). */
  async add(turn: TurnSpans): Promise<boolean> {
    const pending: PendingTurn = {
      traceId: turn.traceId,
      digest: turn.digest,
      remaining: turn.spanCount,
      failed: false,
    };
    const max = this.options.maxBatch;
    for (let from = 0; from < turn.spanCount;) {
      const to = Math.min(turn.spanCount, from + max - this.owners.length);
      for (let i = from; i < to; i++) {
        if (this.form === 'spans') this.spans.push(turn.spans[i] as SpanData);
        this.owners.push(pending);
      }
      this.ranges.push({ encoded: turn.encoded, from, to });
      pending.remaining -= to - from;
      this.turns.push(pending);
      from = to;
      if (this.owners.length >= max && !(await this.flush())) return false;
    }
    return true;
  }

  /** Sends the batch so far once the one travelling is answered; false once delivery failed. */
  async flush(): Promise<boolean> {
    if (this.owners.length === 0) return true;
    const { spans, ranges, owners } = this;
    // Decided now: later batches are built (and `remaining` drops) while this one travels.
    const completed = this.turns.filter((t) => t.remaining === 0);
    this.spans = [];
    this.ranges = [];
    this.turns = [];
    this.owners = [];
    if (!(await this.settle())) return false;
    // The outcome is captured at once: a failure is never an unhandled rejection while conversion runs.
    const batch: SpanBatch =
      this.form === 'spans'
        ? { spans }
        : this.form === 'encoded'
          ? { encoded: ranges }
          : { json: ranges };
    this.inFlight = this.deliver(batch, owners, completed).then(
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
    batch: SpanBatch,
    owners: PendingTurn[],
    completed: PendingTurn[],
  ): Promise<boolean> {
    const { sink, recorder } = this.options;
    const result = await sink.send(batch);
    this.counts.requests += result.attempts;
    this.counts.bytesSent += result.bytes;
    this.tally(result, owners);
    if (!result.ok) {
      this.counts.failure = `could not deliver spans to ${sink.description}: ${result.failure?.message ?? 'no answer'}`;
      return false;
    }
    if (recorder === null) return true;
    for (const turn of completed) if (!turn.failed) recorder.record(turn.traceId, turn.digest);
    recorder.paced();
    return true;
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
