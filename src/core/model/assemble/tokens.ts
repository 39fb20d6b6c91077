// Token sums of the session model: what a turn or an agent used, in the
// counts the GenAI conventions use.
import type { ApiResponse, TokenTotals } from '../session-model.js';

export const emptyTotals = (): TokenTotals => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
});

/** Input as GenAI conventions count it: uncached + cache read + cache write. */
export function totalInput(u: { input: number; cacheRead: number; cacheWrite: number }): number {
  return u.input + u.cacheRead + u.cacheWrite;
}

export function addUsage(t: TokenTotals, r: ApiResponse): void {
  if (r.usage === null) return;
  t.input += totalInput(r.usage);
  t.output += r.usage.output;
  t.cacheRead += r.usage.cacheRead;
  t.cacheWrite += r.usage.cacheWrite;
  t.cacheWrite1h += r.usage.cacheWrite1h;
}
