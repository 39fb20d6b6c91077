// Sub-agents the waterfall cannot hang under a call, and calls whose agent
// left no transcript: each is still shown, with a warning saying why.
import type { ReadWarning } from '../../view/waterfall-row.js';
import type { SubAgent, ToolCall } from '../session-model.js';
import type { ResultInfo } from './records.js';

/**
 * A Task/Agent call whose result reports a run (tokens, tool calls) but whose
 * sub-agent left no records here: its transcript is missing. The call keeps the
 * report, and a warning says how many calls are not shown.
 */
export function markMissingTranscripts(
  tools: Map<string, ToolCall>,
  results: Map<string, ResultInfo>,
  agents: Map<string, SubAgent>,
  warnings: ReadWarning[],
): void {
  for (const tool of tools.values()) {
    const result = results.get(tool.id);
    if (result?.agentReport === null || result?.agentReport === undefined) continue;
    tool.agentReport = result.agentReport;
    const agent = tool.spawnedAgentKey === null ? undefined : agents.get(tool.spawnedAgentKey);
    const worked =
      agent !== undefined && (agent.startTime !== null || agent.responseKeys.length > 0);
    if (worked) continue;
    tool.transcriptMissing = true;
    const id = result.agentReport.agentId;
    const calls = result.agentReport.toolUseCount;
    warnings.push({
      file: result.file,
      line: result.line,
      reason:
        `transcript of sub-agent ${id ?? `of call ${tool.id}`} is missing: ` +
        (calls === null ? 'its calls are not shown' : `${calls} of its calls are not shown`),
    });
  }
}

/** Whether an agent without a spawning call did work that must be shown (waterfall.ts gives it a row). */
export function needsOwnRow(agent: SubAgent, tools: Map<string, ToolCall>): boolean {
  if (agent.internal) return false;
  const call = agent.toolUseId === null ? undefined : tools.get(agent.toolUseId);
  if (call !== undefined && call.turnIndex >= 0) return false;
  if (agent.fork || agent.responseKeys.length > 0) return true;
  return agentsWithCalls(tools).has(agent.key);
}

/** Agents that made calls, once per tools map: asked per agent, a scan each would be quadratic. */
const callersOf = new WeakMap<Map<string, ToolCall>, Set<string>>();
function agentsWithCalls(tools: Map<string, ToolCall>): Set<string> {
  let callers = callersOf.get(tools);
  if (callers === undefined) {
    callers = new Set();
    for (const t of tools.values()) if (t.agentKey !== null) callers.add(t.agentKey);
    callersOf.set(tools, callers);
  }
  return callers;
}

/** A sub-agent that is no fork, no side call and has no spawning call is shown, with a warning. */
export function warnUnlinked(
  agents: Map<string, SubAgent>,
  tools: Map<string, ToolCall>,
  firstLine: Map<string, number>,
  warnings: ReadWarning[],
): void {
  for (const agent of agents.values()) {
    if (agent.fork || !needsOwnRow(agent, tools)) continue;
    // A 1.0.x inline sidechain is named by its root line in the main file; an agent file by itself.
    const inline = agent.agentId === null;
    warnings.push({
      file: agent.file,
      line: inline ? (firstLine.get(agent.key) ?? 0) : 1,
      reason: inline
        ? 'inline sidechain matches no Task call by its prompt: shown under the turn of its first line'
        : agent.workflow !== undefined
          ? `workflow agent ${agent.agentId}: no Workflow call read names its run ${agent.workflow.runId}: shown under the turn of its first line`
          : `sub-agent ${agent.agentId} has no spawning call: shown under the turn of its first line`,
    });
  }
}
