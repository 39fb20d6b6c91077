// The collector's refusals of single spans, logged per episode: the first
// partial_success rejection warns (with the total once every span is accepted
// again), so a quota does not log a line per request. A span too large even
// alone is named, each time: it is lost for good.
import type { Logger } from '../../../adapters/logger.js';
import type { EventsResult, SinkPart } from '../../deliver/span-sink.js';

export class RejectionLog {
  private readonly log: Logger;
  /** Spans rejected since the episode's first partial_success; null when none is going on. */
  private rejecting: { spans: number } | null = null;

  constructor(log: Logger) {
    this.log = log;
  }

  /** The parts of one answer. */
  note(parts: SinkPart[]): void {
    for (const part of parts) {
      if (part.outcome === 'rejected') this.rejected(part.rejectedSpans, part.errorMessage);
      else if (part.outcome === 'too-large')
        this.log.error('span too large for the collector even alone (HTTP 413); not sent', {
          spanId: part.spanId,
          bytes: part.bytes,
        });
    }
    if (
      this.rejecting !== null &&
      parts.length > 0 &&
      parts.every((p) => p.outcome === 'accepted')
    ) {
      this.log.info('collector accepting every span again', {
        rejectedSpans: this.rejecting.spans,
      });
      this.rejecting = null;
    }
  }

  /** The events' verdict of one answer (Claude Code's schema): a rejection is logged, every time. */
  noteEvents(events: EventsResult | undefined): void {
    if (events === undefined || !events.ok || events.rejected === 0) return;
    this.log.warn(
      'collector rejected events (partial success); not retried, their turns stay unrecorded for a later export',
      { rejectedEvents: events.rejected, error: events.errorMessage },
    );
  }

  private rejected(spans: number, error: string): void {
    if (this.rejecting === null) {
      this.rejecting = { spans: 0 };
      this.log.warn(
        'collector rejected spans (partial success); not retried, their turns stay unrecorded for a later export',
        { rejectedSpans: spans, error },
      );
    }
    this.rejecting.spans += spans;
  }
}
