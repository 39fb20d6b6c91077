// `agent-<id>.meta.json` sidecars (later 2.1.x): {agentType, description, toolUseId, spawnDepth, parentAgentId?};
// forks (2.1.220+ `/subtask`): {agentType:"fork", isFork:true, name, spawnDepth} and no toolUseId;
// workflow agents: {agentType:"workflow-subagent", description, workflowPhase, spawnDepth:1}, no toolUseId;
// agent-team members: {name, teamName, taskKind:"in_process_teammate", spawnDepth:0, model, color}, no toolUseId.
import type { AgentMeta } from '../session/state.js';

const AGENT_META_NAME = /agent-(.+)\.meta\.json$/;

/** Null when the text is not a JSON object; missing fields read as null. */
export function parseAgentMeta(path: string, text: string): AgentMeta | null {
  const agentId = AGENT_META_NAME.exec(path)?.[1];
  if (agentId === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const s = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    agentId,
    agentType: s(o.agentType),
    description: s(o.description),
    toolUseId: s(o.toolUseId),
    parentAgentId: s(o.parentAgentId),
    isFork: o.isFork === true || o.agentType === 'fork',
    name: s(o.name),
    workflowPhase: s(o.workflowPhase),
    teamName: s(o.teamName),
    taskKind: s(o.taskKind),
  };
}
