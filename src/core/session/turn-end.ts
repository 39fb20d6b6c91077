// How a turn ended, read by the live-state rules (session-status.ts): a sidechain finish
// is no hand-off, API errors are their own state, and a completion holds only
// if nothing later supersedes it.
import type { TranscriptRecord } from '../transcript/records.js';
import type { TurnEndState } from '../model/session-model.js';
import { INTERRUPT } from './prompts.js';
import { isSyntheticReply, isTurnEndMarker } from './turn-lifecycle.js';

export interface TurnVerdict {
  state: TurnEndState;
  errorType: string | null;
}

/**
 * @param records the turn's main-thread records in file order
 * @param openTools main-thread calls of the turn without a result
 * @param isLast whether a later prompt has superseded the turn
 */
export function classifyTurnEnd(
  records: TranscriptRecord[],
  openTools: number,
  isLast: boolean,
): TurnVerdict {
  let last: 'assistant' | 'result' | 'none' = 'none';
  let lastHadToolUse = false;
  let lastApiError: string | null = null;
  let interrupted = false;
  let endMarker = false;
  let endTurnStop = false;
  for (const rec of records) {
    if (rec.isSidechain) continue;
    if (rec.type === 'assistant') {
      if (rec.isApiError) {
        lastApiError = rec.errorType ?? 'api_error';
      } else if (isSyntheticReply(rec)) {
        continue;
      } else {
        lastApiError = null;
      }
      last = 'assistant';
      // A text line whose response stopped for tool_use has its tool_use lines still to come.
      lastHadToolUse = rec.toolUses.length > 0 || rec.stopReason === 'tool_use';
      endTurnStop = rec.stopReason === 'end_turn';
      interrupted = false;
      endMarker = false;
    } else if (rec.type === 'user') {
      if (rec.toolResults.length > 0) {
        // Later activity supersedes an earlier interruption or completion.
        last = 'result';
        endMarker = false;
        endTurnStop = false;
        interrupted = false;
      } else if (rec.text !== null && INTERRUPT.test(rec.text)) {
        // The user interrupting after an API error is the later, deciding event.
        interrupted = true;
        lastApiError = null;
      }
    } else if (isTurnEndMarker(rec)) {
      endMarker = true;
    }
  }
  if (lastApiError !== null && last === 'assistant')
    return { state: 'api_error', errorType: lastApiError };
  if (interrupted) return { state: 'interrupted', errorType: null };
  const unfinished = isLast ? 'open' : 'interrupted';
  if (openTools > 0) return { state: unfinished, errorType: null };
  if (endMarker || endTurnStop) return { state: 'completed', errorType: null };
  if (last === 'assistant' && !lastHadToolUse) return { state: 'completed', errorType: null };
  if (last === 'none') return { state: isLast ? 'open' : 'completed', errorType: null };
  return { state: unfinished, errorType: null };
}
