// A collector outage is told once when it starts and once when it ends, never
// per span or per attempt: export retries for seconds, the daemon may retry
// for hours. What is told, and where (export's stderr lines, the daemon's
// log), is the caller's; when an outage starts and ends is decided here.
import type { Clock } from '../../core/clock.js';
import type { AttemptFailure } from '../../adapters/otlp/transport.js';
import type { Logger } from '../../adapters/logger.js';
import type { SinkForm } from './span-batch.js';
import type { SinkOf } from './span-sink.js';

export interface OutageReport {
  /** The first failed attempt of an outage; `retryInMs` null when no retry follows. */
  started(failure: AttemptFailure, retryInMs: number | null): void;
  /** The collector answered again, `outageMs` after the outage started. */
  ended(outageMs: number): void;
}

export class OutageLog {
  /** When the outage began (monotonic ms); null while the collector answers. */
  private since: number | null = null;

  constructor(
    private readonly report: OutageReport,
    /** Monotonic time, for the outage's length. */
    private readonly clock: Pick<Clock, 'monotonic'>,
  ) {}

  /** A failed attempt: told if it starts an outage. */
  start(failure: AttemptFailure, retryInMs: number | null): void {
    if (this.since !== null) return;
    this.since = this.clock.monotonic();
    this.report.started(failure, retryInMs);
  }

  /** The collector answered: told if that ends an outage. */
  end(): void {
    if (this.since === null) return;
    const outageMs = this.clock.monotonic() - this.since;
    this.since = null;
    this.report.ended(outageMs);
  }

  /** The sink, its first answer after an outage ending it. */
  watch<F extends SinkForm>(sink: SinkOf<F>): SinkOf<F> {
    return {
      description: sink.description,
      form: sink.form,
      send: async (batch) => {
        const result = await sink.send(batch);
        if (result.parts.length > 0) this.end();
        return result;
      },
    };
  }
}

/** The daemon's outage lines, in its structured log. */
export const outageLogOf = (log: Logger, clock: Clock): OutageLog =>
  new OutageLog(
    {
      started: (failure, retryInMs) =>
        log.warn('collector unreachable; spans are kept and will be retried', {
          error: failure.message,
          status: failure.status,
          ...(retryInMs === null ? {} : { retryInMs: Math.round(retryInMs) }),
        }),
      ended: (outageMs) =>
        log.info('collector reachable again; delivering held spans', {
          outageSeconds: Math.round(outageMs / 1000),
        }),
    },
    clock,
  );
