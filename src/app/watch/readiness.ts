// When a span of a turn still in progress may leave. The span builder marks
// unfinished work (`complete: false`), but a span can be "complete" and still
// change: a chat span grows while its response streams more blocks, a
// sub-agent's spans change type and parent once the agent is linked to the
// call that spawned it, an async agent's call and agent span stretch until the
// agent stops. A span leaves only once its content is final:
//   execute_tool   its result line has landed (async Agent launches: and the
//                  agent has stopped);
//   chat           its thread has moved past the response (the next response,
//                  a prompt or a turn-end record); a sub-agent's last response
//                  when the agent is done;
//   invoke_agent   (sub-agent) its Agent/Task call has returned (async: and the
//                  agent has stopped);
//   sub-agent work only once the agent is linked to its spawning call;
//   anything      once the turn is final (see turnHolds) or flushed.
import type { SessionModel, Turn } from '../../core/session-model.js';

import { agentSpanIdFor, chatSpanIdFor, toolSpanIdFor } from '../../core/span-ids.js';
import { endedOnAnswer, type Threads } from './threads.js';

interface AgentView {
  /** Attributes final: the agent is internal or linked to its call. */
  linked: boolean;
  /** Its work is over (its call returned; an async one also stopped). */
  done: boolean;
}

function agentView(model: SessionModel, threads: Threads, key: string | null): AgentView {
  if (key === null) return { linked: true, done: false };
  const agent = model.agents.get(key);
  if (agent === undefined) return { linked: false, done: false };
  if (agent.internal) return { linked: true, done: false };
  const call = agent.toolUseId === null ? undefined : model.tools.get(agent.toolUseId);
  if (call === undefined) return { linked: false, done: false };
  if (call.endTime === null) return { linked: true, done: false };
  return { linked: true, done: !threads.asyncCalls.has(call.id) || endedOnAnswer(threads, key) };
}

/**
 * Whether a closed turn must still wait: a sub-agent it spawned is still at
 * work (an async launch returns at once; the agent's lines keep coming).
 */
export function turnHolds(model: SessionModel, threads: Threads, turn: Turn): boolean {
  return turn.agentKeys.some((key) => {
    const agent = model.agents.get(key);
    if (agent === undefined || agent.internal || agent.toolUseId === null) return false;
    const view = agentView(model, threads, key);
    return view.linked && !view.done;
  });
}

/** Span ids of the turn that may leave now, for a turn that is not final. */
export function readySpanIds(model: SessionModel, threads: Threads, turn: Turn): Set<string> {
  const ready = new Set<string>();
  const views = new Map<string | null, AgentView>();
  const view = (key: string | null): AgentView => {
    let v = views.get(key);
    if (v === undefined) {
      v = agentView(model, threads, key);
      views.set(key, v);
    }
    return v;
  };
  for (const key of turn.responseKeys) {
    const r = model.responses.get(key);
    if (r === undefined) continue;
    const v = view(r.agentKey);
    if (v.linked && (threads.doneResponses.has(key) || (r.agentKey !== null && v.done)))
      ready.add(chatSpanIdFor(key));
  }
  for (const id of turn.toolIds) {
    const t = model.tools.get(id);
    if (t === undefined || t.endTime === null || !view(t.agentKey).linked) continue;
    if (threads.asyncCalls.has(t.id) && t.spawnedAgentKey !== null && !view(t.spawnedAgentKey).done)
      continue;
    ready.add(toolSpanIdFor(id));
  }
  for (const key of turn.agentKeys) {
    const v = view(key);
    if (v.linked && v.done) ready.add(agentSpanIdFor(key));
  }
  return ready;
}
