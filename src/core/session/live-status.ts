// The live foreground state of a session: whose move is it? The live
// counterpart of turn-end.ts (which classifies finished turns for the
// converter), read by these rules: parse without aborting, keep event
// time, a sidechain finish is no hand-off, API errors are their own state,
// and a completion holds only while nothing later supersedes it.
//
// The engine's fold (step() in session-state.ts) applies stepStatus to every
// record it accepts and keeps the result as SessionState.live, so export, show,
// watch and status all see the same live state. Copied fork history and
// repeated uuids are not accepted: history copied into a fork is the parent
// session's events, and a line written twice is one event. stepStatus mutates
// the status in place (a long transcript folds into one small object) and
// returns it for chaining.
//
// | main-thread event                                   | state                          |
// |-----------------------------------------------------|--------------------------------|
// | none yet                                            | unknown                        |
// | real prompt (isRealPrompt)                          | working; open calls cleared    |
// | <task-notification> user line                       | working (the model is handed   |
// |                                                     | the background result)         |
// | <teammate-message> user line                        | working; its sender reported   |
// | your_turn while a teammate the lead spawned (Agent  | working: the lead waits on its |
// | call with name + team_name) has not written back    | team                           |
// | assistant with tool_use                             | working; calls opened          |
// | assistant thinking-only / stop_reason tool_use      | working (more of the response) |
// | assistant text, no open calls                       | your_turn (candidate;          |
// |                                                     | confirmed if stop_reason       |
// |                                                     | end_turn)                      |
// | tool result                                         | working (the model's move)     |
// | system turn_duration / stop_hook_summary            | your_turn, confirmed — unless  |
// |                                                     | calls are open, or the state   |
// |                                                     | is api_error / interrupted     |
// | assistant isApiErrorMessage                         | api_error until later activity |
// | system api_error (one retry attempt)                | unchanged: still working,      |
// |                                                     | flagged `retrying`             |
// | "[Request interrupted by user…"                     | interrupted; open calls closed |
// | local command block (/exit, /clear, /model…)        | unchanged; from unknown, its   |
// |                                                     | output means the prompt is     |
// |                                                     | idle → your_turn               |
// | synthetic non-error assistant, isMeta text, compact | unchanged                      |
// | summary, progress, other system subtypes            |                                |
// | any sidechain / agent-file record                   | unchanged (lastActivity only)  |
//
// statusOf() adds staleness: `working` with no event for longer than
// staleAfterMs (default 30 min) is reported as `unknown` (stale). A working
// session writes something every few seconds to minutes (blocks, results,
// progress, hook lines); silence that long means the writer died, the
// transcript is incomplete, or a sub-agent is busy in a file not read —
// missing data, so uncertain rather than a convenient "still working".
import { isInterruptMarker, isRealPrompt } from './prompts.js';
import {
  createLocalCommandTracker,
  localCommandRole,
  type LocalCommandRole,
  type LocalCommandTracker,
} from './local-command.js';
import type {
  AssistantRecord,
  SystemRecord,
  TranscriptRecord,
  UserRecord,
} from '../transcript/records.js';
import { API_ERROR_SUBTYPE, isSyntheticReply, isTurnEndMarker } from './turn-lifecycle.js';

export type LiveState = 'working' | 'your_turn' | 'api_error' | 'interrupted' | 'unknown';

export const DEFAULT_STALE_AFTER_MS = 30 * 60_000;

const TASK_NOTIFICATION = /^\s*<task-notification>/;

export interface LiveStatus {
  state: LiveState;
  /** your_turn backed by an end marker or stop_reason end_turn, not just a text block. */
  confirmed: boolean;
  /** The latest main-thread event was a system api_error retry line. */
  retrying: boolean;
  /** `error` of the API-error line behind an api_error state. */
  errorType: string | null;
  /** Main-thread tool_use id → tool name, without a result yet (insertion order). */
  openCalls: Map<string, string>;
  /** Results seen this turn before their call (file order ≠ time order). */
  resolved: Set<string>;
  /** Latest event time of any record, sidechains included (epoch ms). */
  lastActivity: number | null;
  /** Time of the latest real prompt. */
  lastPromptAt: number | null;
  cwd: string | null;
  gitBranch: string | null;
  version: string | null;
  localCommand: LocalCommandTracker;
  /** Teammates spawned (Agent name + team_name) that have not written to the lead since. */
  teammatesAtWork: Set<string>;
}

export interface StatusSnapshot {
  state: LiveState;
  /** The state is `unknown` because `working` went quiet for too long. */
  stale: boolean;
  confirmed: boolean;
  retrying: boolean;
  errorType: string | null;
  lastActivity: number | null;
  lastPromptAt: number | null;
  openToolCalls: { id: string; name: string }[];
  cwd: string | null;
  gitBranch: string | null;
  version: string | null;
}

export interface StatusOptions {
  /** `working` older than this (ms) is reported as unknown. */
  staleAfterMs?: number;
}

export function initialStatus(): LiveStatus {
  return {
    state: 'unknown',
    confirmed: false,
    retrying: false,
    errorType: null,
    openCalls: new Map(),
    resolved: new Set(),
    lastActivity: null,
    lastPromptAt: null,
    cwd: null,
    gitBranch: null,
    version: null,
    localCommand: createLocalCommandTracker(),
    teammatesAtWork: new Set(),
  };
}

function set(s: LiveStatus, state: LiveState, confirmed = false): void {
  s.state = state;
  s.confirmed = confirmed;
  s.retrying = false;
  if (state !== 'api_error') s.errorType = null;
}

/** A new turn (or an abandoned one): calls still open will never get a result. */
function closeTurn(s: LiveStatus): void {
  s.openCalls.clear();
  s.resolved.clear();
}

function onAssistant(s: LiveStatus, rec: AssistantRecord): void {
  if (rec.isApiError) {
    set(s, 'api_error');
    s.errorType = rec.errorType ?? 'api_error';
    return;
  }
  // "No response requested." and similar client placeholders are no model output.
  if (isSyntheticReply(rec)) return;
  for (const use of rec.toolUses) {
    if (!s.resolved.delete(use.id)) s.openCalls.set(use.id, use.name);
    const { name, team_name: team } = use.input;
    if (typeof name === 'string' && typeof team === 'string') s.teammatesAtWork.add(name);
  }
  const answer = rec.hasText && rec.toolUses.length === 0 && rec.stopReason !== 'tool_use';
  if (answer && s.openCalls.size === 0) set(s, 'your_turn', rec.stopReason === 'end_turn');
  else set(s, 'working');
}

function onUser(s: LiveStatus, rec: UserRecord): void {
  if (rec.toolResults.length > 0) {
    for (const result of rec.toolResults) {
      if (!s.openCalls.delete(result.toolUseId)) s.resolved.add(result.toolUseId);
    }
    set(s, 'working');
    return;
  }
  if (isInterruptMarker(rec)) {
    closeTurn(s);
    set(s, 'interrupted');
    return;
  }
  // A background task's result is delivered to the model as a message: it answers.
  // Not a new turn (isRealPrompt excludes it too).
  if (rec.teammate !== null) {
    s.teammatesAtWork.delete(rec.teammate.from);
    set(s, 'working');
    return;
  }
  if (!rec.isMeta && rec.text !== null && TASK_NOTIFICATION.test(rec.text)) {
    set(s, 'working');
    return;
  }
  if (isRealPrompt(rec)) {
    closeTurn(s);
    set(s, 'working');
    if (rec.timestamp !== null) s.lastPromptAt = rec.timestamp;
  }
}

function onSystem(s: LiveStatus, rec: SystemRecord): void {
  if (rec.subtype === API_ERROR_SUBTYPE) {
    // One retry attempt of a request in flight, not a failure: the state stays
    // (working while the request retries; a side request does not flip an idle session).
    if (s.state === 'working') s.retrying = true;
    return;
  }
  if (!isTurnEndMarker(rec)) return;
  // An end marker with calls still open contradicts itself; keep waiting (as turn-end.ts).
  if (s.openCalls.size > 0) return;
  if (s.state === 'working' || s.state === 'your_turn' || s.state === 'unknown')
    set(s, 'your_turn', true);
}

/**
 * A record of a local command's block. Its own function, called for every such
 * record, so that the rare case in it (an output before any conversation) is
 * not compiled into accept() (session-state.ts), where stepStatus is inlined:
 * the first such output threw away accept's optimised code.
 */
function onLocalCommand(s: LiveStatus, role: LocalCommandRole): LiveStatus {
  // The client printed a command's output and returned to the prompt: with no
  // conversation to judge, that is the one sign of whose move it is.
  if (role === 'output' && s.state === 'unknown') set(s, 'your_turn');
  return s;
}

/**
 * Folds one record into the status (in place). `fromAgentFile` marks records
 * read from a sub-agent file, which only count as activity.
 */
export function stepStatus(
  s: LiveStatus,
  rec: TranscriptRecord,
  fromAgentFile = false,
): LiveStatus {
  if (rec.timestamp !== null && (s.lastActivity === null || rec.timestamp > s.lastActivity))
    s.lastActivity = rec.timestamp;
  if (fromAgentFile || rec.isSidechain) return s;
  s.cwd = rec.cwd ?? s.cwd;
  s.gitBranch = rec.gitBranch ?? s.gitBranch;
  s.version = rec.version ?? s.version;

  const role = localCommandRole(s.localCommand, rec);
  if (role !== null) return onLocalCommand(s, role);
  if (rec.type === 'assistant') onAssistant(s, rec);
  else if (rec.type === 'user') onUser(s, rec);
  else if (rec.type === 'system') onSystem(s, rec);
  return s;
}

/** The status as reported at `now` (epoch ms); without `now` no staleness applies. */
export function statusOf(s: LiveStatus, now?: number, options: StatusOptions = {}): StatusSnapshot {
  const staleAfter = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  // A lead done with its own work still waits for the teammates it spawned.
  const state = s.state === 'your_turn' && s.teammatesAtWork.size > 0 ? 'working' : s.state;
  const stale =
    state === 'working' &&
    now !== undefined &&
    (s.lastActivity === null || now - s.lastActivity > staleAfter);
  return {
    state: stale ? 'unknown' : state,
    stale,
    confirmed: state === 'your_turn' && s.confirmed,
    retrying: state === 'working' && s.retrying,
    errorType: s.state === 'api_error' ? s.errorType : null,
    lastActivity: s.lastActivity,
    lastPromptAt: s.lastPromptAt,
    openToolCalls: [...s.openCalls].map(([id, name]) => ({ id, name })),
    cwd: s.cwd,
    gitBranch: s.gitBranch,
    version: s.version,
  };
}
