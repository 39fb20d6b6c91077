// Delivery bookkeeping of one turn: which span ids went out, with which
// content (a digest of the span's protobuf bytes: turnDigests in
// session-spans.ts) and whether they were complete then. The rule it enforces: a span id is sent once per content. Spans leave only when final
// (core/finality.ts), so a second send happens only when the content changed
// after all: work sent incomplete at an idle timeout that completed later, or
// a late fact; the span is then sent again, same id, with its latest content.
// A turn inherited from an earlier run's record is not resent: its final form
// is `ccotel export`'s to send.
import type { SpanData } from '../../../core/spans/data.js';
import type { SpanMark } from '../state/watch-state.js';

export interface Mark {
  digest: string;
  complete: boolean;
}

export interface TurnBook {
  traceId: string;
  turnIndex: number;
  delivered: Map<string, Mark>;
  inflight: Map<string, Mark>;
  /** Span ids of this turn waiting in the outbox. */
  queued: Set<string>;
  /** Latest build of the turn (emptied once the turn is finished, to save memory). */
  spans: SpanData[];
  digests: string[];
  /** digestOf(spans), the value export-state holds for a turn. */
  digest: string;
  /** Over and no agent still at work (core/finality.ts): every span may leave. */
  final: boolean;
  /** Final and nothing left to send: rebuilt only when new lines touch it. */
  finished: boolean;
  /** Digest recorded in export-state (by us or an earlier run), if any. */
  recordedDigest: string | null;
  /** Marks were assumed from an older record, not known: never record over it. */
  inherited: boolean;
}

export type Verdict = 'send' | 'skip';

export function createBook(
  traceId: string,
  turnIndex: number,
  marks?: Record<string, SpanMark>,
): TurnBook {
  const delivered = new Map<string, Mark>();
  for (const [spanId, [digest, complete]] of Object.entries(marks ?? {}))
    delivered.set(spanId, { digest, complete: complete === 1 });
  return {
    traceId,
    turnIndex,
    delivered,
    inflight: new Map(),
    queued: new Set(),
    spans: [],
    digests: [],
    digest: '',
    final: false,
    finished: false,
    recordedDigest: null,
    inherited: false,
  };
}

export function verdict(book: TurnBook, spanId: string, digest: string): Verdict {
  const prev = book.inflight.get(spanId) ?? book.delivered.get(spanId);
  if (prev === undefined) return 'send';
  return prev.digest === digest || book.inherited ? 'skip' : 'send';
}

/** Every span of the latest build went out with exactly this content. */
export function fullyDelivered(book: TurnBook): boolean {
  if (book.queued.size > 0 || book.inflight.size > 0 || book.spans.length === 0) return false;
  return book.spans.every((s, i) => book.delivered.get(s.spanId)?.digest === book.digests[i]);
}

export function marksOf(book: TurnBook): Record<string, SpanMark> {
  const out: Record<string, SpanMark> = {};
  for (const [spanId, mark] of book.delivered) out[spanId] = [mark.digest, mark.complete ? 1 : 0];
  return out;
}
