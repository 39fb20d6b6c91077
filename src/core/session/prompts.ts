// Which user records are prompts. Shared by the converter (turns), the turn-end
// classifier and the live-state reducer, so all three agree.
import type { TranscriptRecord, UserRecord } from '../transcript/records.js';

export const INTERRUPT = /^\[Request interrupted by user/;
const NOT_PROMPTS =
  /^\s*<(task-notification|teammate-message|local-command-stdout|local-command-stderr|local-command-caveat)\b/;

/** A turn starts at a real user prompt: not tool results, injected text, summaries or markers. */
export function isRealPrompt(rec: TranscriptRecord): rec is UserRecord {
  if (rec.type !== 'user' || rec.isSidechain || rec.isMeta || rec.isCompactSummary) return false;
  if (rec.toolResults.length > 0 || rec.text === null) return false;
  return !INTERRUPT.test(rec.text) && !NOT_PROMPTS.test(rec.text);
}

/** "[Request interrupted by user]" (and "… for tool use") on the main thread. */
export function isInterruptMarker(rec: TranscriptRecord): boolean {
  return rec.type === 'user' && !rec.isSidechain && rec.text !== null && INTERRUPT.test(rec.text);
}
