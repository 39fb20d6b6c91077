// What both schemas' builders (build.ts, native/native-spans.ts) and the
// events read of a turn's work the same way: where unfinished work is cut
// off, the responses of its side calls, and a call the user rejected.
import type { SessionModel, ToolCall, Turn } from '../model/session-model.js';

/**
 * Where a turn's unfinished work ends: a closed turn's with the turn, so its
 * spans stop changing once a later turn starts; only the last turn runs to
 * the end of the session.
 */
export function turnCutoff(model: SessionModel, turnIndex: number, turn: Turn): number {
  return turnIndex === model.turns.length - 1 && model.moreTurnsFollow !== true
    ? (model.lastTimestamp ?? turn.endTime)
    : turn.endTime;
}

/** End time and completeness of a piece of work that may still be running. */
export function closing(
  cutoff: number,
  start: number,
  end: number | null,
): { endMs: number; complete: boolean } {
  if (end !== null) return { endMs: Math.max(start, end), complete: true };
  return { endMs: Math.max(start, cutoff), complete: false };
}

/** Responses of the turn's internal side calls (compaction, suggestions): outside its totals, still sent. */
export function internalResponseKeys(model: SessionModel, turn: Turn): string[] {
  return turn.agentKeys.flatMap((k) => {
    const a = model.agents.get(k);
    return a?.internal === true ? a.responseKeys : [];
  });
}

/** A call the user rejected: its answer stood in for a result. */
export const isRejected = (t: ToolCall): boolean =>
  t.status === 'error' && t.errorType === 'rejected';
