// An event as ccotel builds it, before any OTLP encoding: an OTLP log record
// whose body is the event's name (Claude Code's own events are written so).
// Plain data, as SpanData is, so goldens compare it directly.
import type { AttributeValue } from '../spans/data.js';

export interface LogRecordData {
  /** Unix milliseconds: when the event happened. */
  timeMs: number;
  /** The event's full name, e.g. `claude_code.api_request`. */
  body: string;
  attributes: Record<string, AttributeValue>;
  /** The interaction the event belongs to. */
  traceId: string;
  spanId: string;
  /** uuid of the prompt that opened the event's turn (as SpanData.turnKey). */
  turnKey: string;
  /**
   * The span of the work it tells of (the interaction, a request, a call):
   * the daemon sends the event once that span is final. Not encoded.
   */
  of: string;
}
