// Per-thread progress that the session model does not keep but live export
// needs: whether a thread has moved past an API response (so its chat span
// will not grow any more), which Agent/Task calls were async launches (their
// spans keep growing until the agent stops), and each thread's last record.
// Fed with the state's entries as they are appended, in order.
import type { AssistantRecord, TranscriptRecord } from '../../core/records.js';
import type { AgentKey } from '../../core/session-model.js';
import type { Entry } from '../../core/session-state.js';

const TURN_END_SUBTYPES = new Set(['turn_duration', 'stop_hook_summary']);

export interface Threads {
  /** Responses whose thread has gone on to something else. */
  doneResponses: Set<string>;
  /** Tool calls whose result was an async launch (`status: async_launched`). */
  asyncCalls: Set<string>;
  /** The last record of each thread (main thread: null). */
  last: Map<AgentKey, TranscriptRecord>;
  /** The response each thread is in, until something else shows up. */
  open: Map<AgentKey, string>;
  /** Entries observed so far. */
  seen: number;
}

/** Same key as assemble.ts: message.id, plus requestId when present. */
export function responseKeyOf(rec: AssistantRecord): string | null {
  if (rec.messageId === null) return null;
  return rec.requestId === null ? rec.messageId : `${rec.messageId}:${rec.requestId}`;
}

export function createThreads(): Threads {
  return {
    doneResponses: new Set(),
    asyncCalls: new Set(),
    last: new Map(),
    open: new Map(),
    seen: 0,
  };
}

/**
 * Folds entries [threads.seen, entries.length) into the thread view.
 * A response is over when its thread shows anything that is not a line of it
 * or a tool result: streamed parallel calls interleave results between the
 * blocks of one response, so a tool result alone proves nothing.
 */
export function observe(threads: Threads, entries: readonly Entry[]): void {
  const current = threads.open;
  for (let i = threads.seen; i < entries.length; i += 1) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const { rec, agentKey } = entry;
    const open = current.get(agentKey);
    if (rec.type === 'assistant') {
      const synthetic = !rec.isApiError && rec.model === '<synthetic>';
      const key = synthetic ? null : responseKeyOf(rec);
      if (key !== null) {
        if (open !== undefined && open !== key) threads.doneResponses.add(open);
        current.set(agentKey, key);
      }
    } else if (rec.type === 'user') {
      if (rec.toolResults.length === 0 && open !== undefined) {
        threads.doneResponses.add(open);
        current.delete(agentKey);
      }
      if (rec.resultAsyncLaunched)
        for (const r of rec.toolResults) threads.asyncCalls.add(r.toolUseId);
    } else if (
      rec.type === 'system' &&
      rec.subtype !== null &&
      TURN_END_SUBTYPES.has(rec.subtype) &&
      open !== undefined
    ) {
      threads.doneResponses.add(open);
      current.delete(agentKey);
    }
    threads.last.set(agentKey, rec);
  }
  threads.seen = entries.length;
}

/** A thread that ended on a plain answer (no tool call pending): how an agent stops. */
export function endedOnAnswer(threads: Threads, agentKey: AgentKey): boolean {
  const last = threads.last.get(agentKey);
  return (
    last !== undefined &&
    last.type === 'assistant' &&
    !last.isApiError &&
    last.toolUses.length === 0 &&
    last.model !== '<synthetic>'
  );
}
