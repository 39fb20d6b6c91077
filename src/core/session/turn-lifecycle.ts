// The one reading of how a turn and its API responses begin and end, shared
// by the converter (assemble.ts, turn-end.ts), the live daemon (finality.ts,
// thread-progress.ts), `ccotel status` (session-status.ts) and the file
// classifiers: each marker, check and pattern is spelled here once.
import type { AssistantRecord, TranscriptRecord } from '../transcript/records.js';

/** The `model` Claude Code writes on lines it made up itself (errors, "No response requested."). */
export const SYNTHETIC_MODEL = '<synthetic>';

/** Written once a turn is over (2.1.x): nothing of the turn follows it. */
export const TURN_DURATION = 'turn_duration';
/** Written when the Stop hooks ran; a `turn_duration` (2.1.x) may still follow. */
export const STOP_HOOK_SUMMARY = 'stop_hook_summary';
/** One line per retry of a failed API call (not a failure of the turn by itself). */
export const API_ERROR_SUBTYPE = 'api_error';

const TURN_END_SUBTYPES: ReadonlySet<string> = new Set([TURN_DURATION, STOP_HOOK_SUMMARY]);

/** A system record marking the end of a turn: the response before it has written its last line. */
export function isTurnEndMarker(rec: TranscriptRecord): boolean {
  return rec.type === 'system' && rec.subtype !== null && TURN_END_SUBTYPES.has(rec.subtype);
}

/** The record after which the turn has provably nothing more to write. */
export function isDefinitiveTurnEnd(rec: TranscriptRecord): boolean {
  return rec.type === 'system' && rec.subtype === TURN_DURATION;
}

/** System records that count as the turn's own work for its end time: end markers and API retries. */
export function isTurnWorkSystem(rec: TranscriptRecord): boolean {
  return isTurnEndMarker(rec) || (rec.type === 'system' && rec.subtype === API_ERROR_SUBTYPE);
}

/** A synthetic assistant line that is not an API error ("No response requested."): no API call. */
export function isSyntheticReply(rec: AssistantRecord): boolean {
  return !rec.isApiError && rec.model === SYNTHETIC_MODEL;
}

/** An assistant line that belongs to an API call (a real response, or an API error). */
export const isApiCall = (rec: AssistantRecord): boolean => !isSyntheticReply(rec);

/**
 * Key of the API response a line belongs to: message.id, plus ":" + requestId
 * when present (one response is several lines sharing them; usage counts once).
 */
export function responseKeyOf(rec: AssistantRecord): string | null {
  if (rec.messageId === null) return null;
  return rec.requestId === null ? rec.messageId : `${rec.messageId}:${rec.requestId}`;
}

/** A line ending a thread's work: a text answer with no call pending (how an agent stops). */
export function isPlainAnswer(rec: TranscriptRecord): boolean {
  return (
    rec.type === 'assistant' &&
    !rec.isApiError &&
    !isSyntheticReply(rec) &&
    rec.hasText &&
    rec.toolUses.length === 0
  );
}
