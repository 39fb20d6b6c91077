// Where a sub-agent's work sits in Claude Code's schema: its requests and
// calls hang under the call that spawned it (there is no agent span), and
// carry the agent's id and its parent's, as Claude Code's own spans do.
import type { AgentKey, SessionModel, Turn } from '../../model/session-model.js';
import { toolCallSpanIdFor } from './native-ids.js';

/** What a turn's spans need to place work: the model, the turn, its root span. */
export interface TurnPlace {
  model: SessionModel;
  turn: Turn;
  rootId: string;
}

/** The span a request or call hangs under, and what Claude Code calls that (llm_request.context). */
export interface WorkParent {
  spanId: string;
  context: 'interaction' | 'tool' | 'standalone';
}

export function parentOfWork(place: TurnPlace, agentKey: AgentKey): WorkParent {
  const root: WorkParent = { spanId: place.rootId, context: 'interaction' };
  if (agentKey === null) return root;
  const agent = place.model.agents.get(agentKey);
  if (agent === undefined) return root;
  // A side call (compaction, a suggestion) has no prompt of its own: Claude Code
  // sends it as a trace of its own; kept here in the turn it belongs to.
  if (agent.internal) return { spanId: place.rootId, context: 'standalone' };
  const call = agent.toolUseId === null ? undefined : place.model.tools.get(agent.toolUseId);
  // Only a call of this turn has a span in its trace; forks and unlinked agents hang under the root.
  if (call === undefined || call.turnIndex !== place.turn.index) return root;
  return { spanId: toolCallSpanIdFor(call.id), context: 'tool' };
}

/** agent_id and parent_agent_id: absent on the main thread, the parent absent under it. */
export function agentIdsOf(
  model: SessionModel,
  agentKey: AgentKey,
): { agentId: string | null; parentAgentId: string | null } {
  if (agentKey === null) return { agentId: null, parentAgentId: null };
  const agent = model.agents.get(agentKey);
  if (agent === undefined) return { agentId: agentKey, parentAgentId: null };
  const call = agent.toolUseId === null ? undefined : model.tools.get(agent.toolUseId);
  const parentKey = call?.agentKey ?? null;
  const parent = parentKey === null ? undefined : model.agents.get(parentKey);
  return {
    agentId: agent.agentId ?? agent.key,
    parentAgentId: parentKey === null ? null : (parent?.agentId ?? parentKey),
  };
}

/** query_source: the main thread's name as Claude Code writes it, else the agent's type. */
export function querySourceOf(model: SessionModel, agentKey: AgentKey): string {
  if (agentKey === null) return 'repl_main_thread';
  return model.agents.get(agentKey)?.agentType ?? 'subagent';
}

/** Claude Code's speed values: `fast` in fast mode, else `normal` (transcripts write `standard`). */
export function speedOf(speed: string | null | undefined): string | null {
  if (speed === null || speed === undefined || speed === '') return null;
  return speed === 'fast' ? 'fast' : 'normal';
}

/**
 * The Workflow run an agent's work belongs to (workflow.run_id, workflow.name):
 * its own, or that of the agent that spawned it, up the chain, as Claude Code
 * marks every agent a workflow's script spawns and those they spawn in turn.
 */
export function workflowOf(
  model: SessionModel,
  agentKey: AgentKey,
): { runId: string; name: string | null } | null {
  let key = agentKey;
  for (let depth = 0; key !== null && depth < 32; depth += 1) {
    const agent = model.agents.get(key);
    if (agent === undefined) return null;
    if (agent.workflow !== undefined)
      return { runId: agent.workflow.runId, name: agent.workflow.name };
    const call = agent.toolUseId === null ? undefined : model.tools.get(agent.toolUseId);
    key = call?.agentKey ?? null;
  }
  return null;
}
