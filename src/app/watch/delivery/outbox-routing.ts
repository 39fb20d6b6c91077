// Between the sessions' outboxes and the delivery queue: which spans a batch
// takes (round robin over the sessions with something to send, so one busy
// session cannot starve the others), and, once the collector answered, which
// session each span goes back to.
import type { Outgoing, SessionTracker } from '../sessions/session-tracker.js';

export interface Sent<E> {
  entry: E;
  tracker: SessionTracker;
  out: Outgoing;
}

/** Up to `max` spans, one session after another starting at `rotation`. */
export function takeRoundRobin<E extends { tracker: SessionTracker | null }>(
  entries: Iterable<E>,
  rotation: number,
  max: number,
): Sent<E>[] {
  const active = [...entries].filter((e) => e.tracker?.hasOutbox === true);
  const items: Sent<E>[] = [];
  for (let i = 0; i < active.length && items.length < max; i += 1) {
    const entry = active[(i + rotation) % active.length];
    const tracker = entry?.tracker;
    if (entry === undefined || tracker === null || tracker === undefined) continue;
    for (const out of tracker.take(max - items.length)) items.push({ entry, tracker, out });
  }
  return items;
}

/** The items of a batch grouped by the tracker that queued them. */
export function byTracker<E>(
  items: Sent<E>[],
): Map<SessionTracker, { entry: E; outs: Outgoing[] }> {
  const groups = new Map<SessionTracker, { entry: E; outs: Outgoing[] }>();
  for (const item of items) {
    let g = groups.get(item.tracker);
    if (g === undefined) {
      g = { entry: item.entry, outs: [] };
      groups.set(item.tracker, g);
    }
    g.outs.push(item.out);
  }
  return groups;
}
