// Delivery bookkeeping of one turn: which span ids (and, in Claude Code's
// schema, event ids) went out, with which content (a digest of the span's
// protobuf bytes: turnDigests in session-spans.ts; of the event's fields) and
// whether they were complete then. The rule it enforces: a span id is sent once per content. Spans leave only when final
// (core/finality.ts), so a second send happens only when the content changed
// after all: work sent incomplete at an idle timeout that completed later, or
// a late fact; the span is then sent again, same id, with its latest content.
// A turn inherited from an earlier run's record is not resent: its final form
// is `ccotel export`'s to send.
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
  /** Span (and event) ids of this turn waiting in the outbox. */
  queued: Set<string>;
  /** Ids of the latest build of the turn, spans then events (emptied once the turn is finished). */
  ids: string[];
  digests: string[];
  /** The turn's digest (its spans', and its events'), the value export-state holds for it. */
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
    ids: [],
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

/** Every span (and event) of the latest build went out with exactly this content. */
export function fullyDelivered(book: TurnBook): boolean {
  if (book.queued.size > 0 || book.inflight.size > 0 || book.ids.length === 0) return false;
  return book.ids.every((id, i) => book.delivered.get(id)?.digest === book.digests[i]);
}

export function marksOf(book: TurnBook): Record<string, SpanMark> {
  const out: Record<string, SpanMark> = {};
  for (const [spanId, mark] of book.delivered) out[spanId] = [mark.digest, mark.complete ? 1 : 0];
  return out;
}
