// The trace ids export-state.json records as delivered (by `export` and by the
// daemon), read without side effects: `status` must not move a corrupt state
// file aside the way `export` does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Trace ids of the turns delivered in full; empty when there is no readable state. */
export function readDeliveredTraceIds(stateDir: string): Set<string> {
  try {
    const value = JSON.parse(readFileSync(join(stateDir, 'export-state.json'), 'utf8')) as {
      turns?: unknown;
    };
    const turns = value.turns;
    if (typeof turns !== 'object' || turns === null) return new Set();
    return new Set(Object.keys(turns));
  } catch {
    return new Set();
  }
}
