// A collector outage is logged once when it starts and once when it ends,
// never per span or per attempt: the daemon may retry for hours.
import type { Clock } from '../../core/clock.js';
import type { AttemptFailure } from '../../adapters/otlp-http-sender.js';
import type { Logger } from '../../adapters/logger.js';

export class OutageLog {
  private readonly log: Logger;
  /** Monotonic time, for the outage's length. */
  private readonly clock: Clock;
  /** When the outage began (monotonic ms); null while the collector answers. */
  private since: number | null = null;

  constructor(log: Logger, clock: Clock) {
    this.log = log;
    this.clock = clock;
  }

  /** A failed attempt: logged if it starts an outage. */
  start(failure: AttemptFailure, retryInMs: number | null): void {
    if (this.since !== null) return;
    this.since = this.clock.monotonic();
    this.log.warn('collector unreachable; spans are kept and will be retried', {
      error: failure.message,
      status: failure.status,
      ...(retryInMs === null ? {} : { retryInMs: Math.round(retryInMs) }),
    });
  }

  /** The collector answered: logged if that ends an outage. */
  end(): void {
    if (this.since === null) return;
    this.log.info('collector reachable again; delivering held spans', {
      outageSeconds: Math.round((this.clock.monotonic() - this.since) / 1000),
    });
    this.since = null;
  }
}
