// When a re-run may take a session from its mark (export-state-file.ts)
// instead of reading it: every file as stamped, no file added or gone, the
// same delivery settings, a window the delivered one covers, and every turn
// still recorded with the digest it was delivered with. Anything else reads
// the session whole, as a first run would.
import type { PriceTable } from '../../core/cost/pricing.js';
import type { Settings } from '../../core/settings.js';
import { sha256Hex } from '../../core/spans/ids.js';
import type { StampedFile } from '../../adapters/files/file-info.js';
import type { SessionMark } from '../../adapters/state/export-state-file.js';

/**
 * Digest of what a turn's spans and their request are made from besides the
 * files: ccotel's version (its conversion), content capture, the resource's
 * attributes (service.name and host.name among them), the price table and
 * the schema (left out for GenAI, so marks made before it existed hold).
 * The endpoint is not in it: the state dir stands for one destination, as it
 * does for the turn digests.
 */
export function deliveryKey(
  settings: Pick<Settings, 'content' | 'maxAttributeBytes'> & Partial<Pick<Settings, 'schema'>>,
  resource: Record<string, string>,
  prices: PriceTable,
  version: string,
): string {
  const attributes = Object.entries(resource).sort(([a], [b]) => (a < b ? -1 : 1));
  const parts: unknown[] = [
    version,
    settings.content,
    settings.maxAttributeBytes,
    attributes,
    prices,
  ];
  if (settings.schema !== undefined && settings.schema !== 'genai') parts.push(settings.schema);
  return sha256Hex(JSON.stringify(parts)).slice(0, 32);
}

/** Whether the files are the ones stamped: the same paths in the same order, each unchanged. */
export function sameFiles(stamped: readonly StampedFile[], now: readonly StampedFile[]): boolean {
  if (stamped.length !== now.length) return false;
  for (let i = 0; i < now.length; i += 1) {
    const was = stamped[i] as StampedFile;
    const is = now[i] as StampedFile;
    for (let k = 0; k < 6; k += 1) if (was[k] !== is[k]) return false;
  }
  return true;
}

/** Whether a turn of this start time is in the window of a run with this --since. */
export const inWindow = (start: number, since: number | null): boolean =>
  since === null || start >= since;

export interface MarkQuery {
  /** The session's files as stamped now; null when one could not be stamped. */
  files: StampedFile[] | null;
  under: string;
  since: number | null;
  /** The recorded digest of a turn, if any. */
  recorded: (traceId: string) => string | undefined;
}

/** Whether the mark stands for what reading the session now would deliver. */
export function markHolds(mark: SessionMark | undefined, q: MarkQuery): mark is SessionMark {
  if (mark === undefined || q.files === null || mark.under !== q.under) return false;
  // A narrower window than the one delivered is covered by it; a wider one is not.
  if (mark.since !== null && (q.since === null || q.since < mark.since)) return false;
  if (!sameFiles(mark.files, q.files)) return false;
  return mark.turns.every(
    ([traceId, start, digest]) => !inWindow(start, mark.since) || q.recorded(traceId) === digest,
  );
}
