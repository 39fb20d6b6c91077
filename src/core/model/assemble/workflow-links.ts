// Agents no meta toolUseId, result or progress line links (agents.ts): a
// workflow's agents hang under the Workflow call whose launch result names
// their `workflows/wf_<run>/` dir; an agent-team member under the Agent call
// whose input.name is its name. Runs after linkAgents, so that those links
// (one agent per call) are made first and a Workflow call can hold many.
import type { SessionState, AgentMeta } from '../../session/state.js';
import type { SubAgent, ToolCall } from '../session-model.js';
import { INTERRUPT } from '../../session/prompts.js';

/** `…/subagents/workflows/wf_<run>/agent-<id>.jsonl`: the run a workflow agent's file belongs to. */
const RUN_OF_FILE = /[\\/]workflows[\\/](wf_[^\\/]+)[\\/][^\\/]+$/;

const SPAWN_TOOLS = new Set(['Task', 'Agent']);

export function linkWorkflowAndTeamAgents(
  state: SessionState,
  agents: Map<string, SubAgent>,
  tools: Map<string, ToolCall>,
): void {
  const workflowKeys = new Set<string>();
  for (const agent of agents.values()) {
    if (agent.toolUseId !== null || agent.internal || agent.agentId === null) continue;
    const meta = state.metas.get(agent.agentId);
    const run = RUN_OF_FILE.exec(state.agentFiles.get(agent.key) ?? '')?.[1];
    if (run !== undefined) {
      linkWorkflowAgent(state, agent, run, meta);
      workflowKeys.add(agent.key);
    } else if (meta !== undefined && isTeammate(meta)) linkTeammate(agent, meta, tools);
  }
  if (workflowKeys.size > 0) markInterrupted(state, agents, workflowKeys);
}

/** The run's launching call, when its result was read (else the agent keeps a row of its own). */
function linkWorkflowAgent(
  state: SessionState,
  agent: SubAgent,
  runId: string,
  meta: AgentMeta | undefined,
): void {
  const launch = state.workflowRuns.get(runId);
  agent.workflow = { runId, name: launch?.name ?? null, phase: meta?.workflowPhase ?? null };
  if (launch !== undefined) agent.toolUseId = launch.toolUseId;
}

const isTeammate = (meta: AgentMeta): boolean =>
  typeof meta.name === 'string' &&
  (meta.taskKind === 'in_process_teammate' || typeof meta.teamName === 'string');

/** The first Agent call naming the teammate that spawned no agent yet (never one of its own calls). */
function linkTeammate(agent: SubAgent, meta: AgentMeta, tools: Map<string, ToolCall>): void {
  if (typeof meta.teamName === 'string') agent.team = meta.teamName;
  let call: ToolCall | undefined;
  for (const t of tools.values()) {
    if (!SPAWN_TOOLS.has(t.name) || t.input.name !== meta.name) continue;
    if (t.spawnedAgentKey !== null || t.agentKey === agent.key) continue;
    if (call === undefined || t.startTime < call.startTime) call = t;
  }
  if (call === undefined) return;
  call.spawnedAgentKey = agent.key;
  agent.toolUseId = call.id;
  if (typeof call.input.subagent_type === 'string') agent.agentType = call.input.subagent_type;
  if (typeof call.input.description === 'string') agent.description = call.input.description;
}

/** A workflow agent whose last user or assistant line is an interrupt marker was stopped. */
function markInterrupted(
  state: SessionState,
  agents: Map<string, SubAgent>,
  keys: Set<string>,
): void {
  const last = new Map<string, boolean>();
  for (const { rec, agentKey } of state.entries) {
    if (agentKey === null || !keys.has(agentKey)) continue;
    if (rec.type === 'assistant') last.set(agentKey, false);
    else if (rec.type === 'user')
      last.set(agentKey, rec.toolResults.length === 0 && INTERRUPT.test(rec.text ?? ''));
  }
  for (const [key, interrupted] of last) {
    const agent = agents.get(key);
    if (agent !== undefined && interrupted) agent.interrupted = true;
  }
}
