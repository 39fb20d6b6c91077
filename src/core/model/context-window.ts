// Which context window each turn's fill is measured against. A model in the
// model table has its window from there (config/pricing.json); for any other
// (unknown, or a window that depended on a long-context beta) the observed
// rule decides for the whole session: a main-thread response whose input
// (uncached + cache reads + cache writes) exceeds 200k proves a 1M window.
// `message.model` never carries the `[1m]` suffix, so the rule is needed.
import type { ApiResponse, Turn } from './session-model.js';

export const DEFAULT_CONTEXT_WINDOW = 200_000;
export const LARGE_CONTEXT_WINDOW = 1_000_000;

/** The table's window for a model id, or null when it does not know one. */
export type WindowOf = (model: string | null) => number | null;

/**
 * No table: the observed rule alone. The default of finish() for callers that
 * hold no model table; every command passes the table's windows explicitly
 * (windowsOf), so nothing in core depends on what the process loaded.
 */
export const NO_TABLE: WindowOf = () => null;

const inputOf = (r: ApiResponse): number =>
  r.usage === null ? 0 : r.usage.input + r.usage.cacheRead + r.usage.cacheWrite;

export interface WindowResult {
  /** Whether a main-thread response proved 1M (carried to a session's later segments). */
  largeWindow: boolean;
  /** The session-level window: the largest of the turns'. */
  sessionWindow: number;
}

/**
 * Sets contextWindow on turns[from..]. The observed proof applies to every
 * turn of the session read so far, before the response that proves it too: a
 * window is a property of the model the session ran, not of the moment it was
 * seen. (A live reader that sent spans before the proof is told so:
 * turnsWithChangedWindow.)
 */
export function assignContextWindows(
  turns: Turn[],
  responses: Iterable<ApiResponse>,
  from: number,
  provenBefore: boolean,
  windowOf: WindowOf,
): WindowResult {
  let proven = provenBefore;
  const modelOfTurn = new Map<number, string>();
  const peakOfTurn = new Map<number, number>();
  for (const r of responses) {
    if (r.agentKey !== null || r.usage === null) continue;
    const input = inputOf(r);
    if (input > DEFAULT_CONTEXT_WINDOW) proven = true;
    if (r.model !== null) modelOfTurn.set(r.turnIndex, r.model);
    peakOfTurn.set(r.turnIndex, Math.max(peakOfTurn.get(r.turnIndex) ?? 0, input));
  }
  const observed = proven ? LARGE_CONTEXT_WINDOW : DEFAULT_CONTEXT_WINDOW;
  let sessionWindow = 0;
  for (let index = from; index < turns.length; index++) {
    const turn = turns[index];
    if (turn === undefined) continue;
    const known = windowOf(modelOfTurn.get(index) ?? null);
    // A response larger than the table's window proves the table wrong for this session.
    const beyond = known !== null && (peakOfTurn.get(index) ?? 0) > known;
    turn.contextWindow = known === null || beyond ? Math.max(observed, known ?? 0) : known;
    sessionWindow = Math.max(sessionWindow, turn.contextWindow);
  }
  return { largeWindow: proven, sessionWindow: sessionWindow || observed };
}

/**
 * Turns whose window differs between two readings of a session: a live
 * daemon that already sent a turn's spans warns that their fill was measured
 * against the old window.
 */
export function turnsWithChangedWindow(
  before: readonly Pick<Turn, 'index' | 'contextWindow'>[],
  after: readonly Pick<Turn, 'index' | 'contextWindow'>[],
): { index: number; from: number; to: number }[] {
  const old = new Map(before.map((t) => [t.index, t.contextWindow]));
  const changed: { index: number; from: number; to: number }[] = [];
  for (const t of after) {
    const was = old.get(t.index);
    if (was !== undefined && was !== t.contextWindow)
      changed.push({ index: t.index, from: was, to: t.contextWindow });
  }
  return changed;
}
