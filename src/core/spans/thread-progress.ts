// Per-thread progress that the session model does not keep but finality needs
// (finality.ts): whether a thread has moved past an API response (so its lines
// are all written), which Agent/Task calls were async launches (their agents
// keep working after the call returned), each thread's last record, and
// whether the main thread's latest work is a definitive turn end. Fed with the
// state's entries as they are appended, in order; O(new entries) per call.
import { isRealPrompt } from '../session/prompts.js';
import type { TranscriptRecord } from '../transcript/records.js';
import type { AgentKey } from '../model/session-model.js';
import type { Entry } from '../session/state.js';
import {
  isDefinitiveTurnEnd,
  isPlainAnswer,
  isSyntheticReply,
  isTurnEndMarker,
  responseKeyOf,
} from '../session/turn-lifecycle.js';

export interface Threads {
  /** Responses whose thread has gone on to something else: their last line is written. */
  doneResponses: Set<string>;
  /** Tool calls whose result was an async launch (`status: async_launched`). */
  asyncCalls: Set<string>;
  /** Tool calls a `<task-notification>` reported on: the background work is over and joined. */
  notified: Set<string>;
  /** The last record of each thread (main thread: null). */
  last: Map<AgentKey, TranscriptRecord>;
  /** The response each thread is in, until something else shows up. */
  open: Map<AgentKey, string>;
  /** The main thread's latest work is a `turn_duration`: the last turn is over. */
  mainEnded: boolean;
  /** Entries observed so far. */
  seen: number;
}

export function createThreads(): Threads {
  return {
    doneResponses: new Set(),
    asyncCalls: new Set(),
    notified: new Set(),
    last: new Map(),
    open: new Map(),
    mainEnded: false,
    seen: 0,
  };
}

function closeOpen(threads: Threads, agentKey: AgentKey): void {
  const open = threads.open.get(agentKey);
  if (open === undefined) return;
  threads.doneResponses.add(open);
  threads.open.delete(agentKey);
}

/** Main-thread work after which the turn goes on (a `turn_duration` before it no longer holds). */
function continuesTurn(rec: TranscriptRecord): boolean {
  if (rec.type === 'assistant') return true;
  if (rec.type !== 'user') return false;
  return rec.toolResults.length > 0 || rec.notifiesToolUseId !== null || isRealPrompt(rec);
}

/**
 * Folds entries [threads.seen, entries.length) into the thread view.
 * A response is over when its thread shows anything that is not a line of it
 * or a tool result: streamed parallel calls interleave results between the
 * blocks of one response, so a tool result alone proves nothing.
 */
export function observe(threads: Threads, entries: readonly Entry[]): void {
  for (let i = threads.seen; i < entries.length; i += 1) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const { rec, agentKey } = entry;
    if (rec.type === 'assistant') {
      const key = isSyntheticReply(rec) ? null : responseKeyOf(rec);
      if (key !== null) {
        if (threads.open.get(agentKey) !== key) closeOpen(threads, agentKey);
        threads.open.set(agentKey, key);
      }
    } else if (rec.type === 'user') {
      if (rec.toolResults.length === 0) closeOpen(threads, agentKey);
      if (rec.resultAsyncLaunched)
        for (const r of rec.toolResults) threads.asyncCalls.add(r.toolUseId);
      if (rec.notifiesToolUseId !== null) threads.notified.add(rec.notifiesToolUseId);
    } else if (isTurnEndMarker(rec)) {
      closeOpen(threads, agentKey);
    }
    if (agentKey === null) {
      if (isDefinitiveTurnEnd(rec)) threads.mainEnded = true;
      else if (continuesTurn(rec)) threads.mainEnded = false;
    }
    threads.last.set(agentKey, rec);
  }
  threads.seen = entries.length;
}

/** A thread that ended on a plain answer (no tool call pending): how an agent stops. */
export function endedOnAnswer(threads: Threads, agentKey: AgentKey): boolean {
  const last = threads.last.get(agentKey);
  return last !== undefined && isPlainAnswer(last);
}
