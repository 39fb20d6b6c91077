// Session model → the seed's waterfall rows: the main thread's calls in start
// order, each Task/Agent call an agent row holding its sub-agent's calls.
import { totalInput } from './assemble.js';
import type { SessionModel, ToolCall } from './session-model.js';
import type { WaterfallRow } from './waterfall-row.js';

const round2 = (x: number): number => Math.round(x * 100) / 100;

function byStart(a: ToolCall, b: ToolCall): number {
  return a.startTime - b.startTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function buildWaterfall(model: SessionModel): WaterfallRow[] {
  const callsByAgent = new Map<string | null, ToolCall[]>();
  for (const tool of model.tools.values()) {
    if (tool.turnIndex < 0) continue;
    const list = callsByAgent.get(tool.agentKey);
    if (list === undefined) callsByAgent.set(tool.agentKey, [tool]);
    else list.push(tool);
  }
  const visiting = new Set<string>();

  const toRow = (tool: ToolCall, parentAgentId: string | null): WaterfallRow => {
    const response = tool.responseKey === null ? undefined : model.responses.get(tool.responseKey);
    const usage = response?.usage ?? null;
    const inputTokens = usage === null ? 0 : totalInput(usage);
    const agent =
      tool.spawnedAgentKey === null ? undefined : model.agents.get(tool.spawnedAgentKey);
    const isAgent = agent !== undefined || tool.name === 'Task' || tool.name === 'Agent';
    const row: WaterfallRow = {
      id: tool.id,
      type: isAgent ? 'agent' : 'tool',
      toolName: tool.name,
      label: tool.label,
      startTime: tool.startTime,
      endTime: tool.endTime,
      duration: tool.endTime === null ? null : tool.endTime - tool.startTime,
      status: tool.status,
      parentAgentId,
      input: tool.input,
      output: tool.output,
      inputTokens,
      outputTokens: usage?.output ?? 0,
      contextFillPercent: round2(
        (inputTokens / (model.turns[tool.turnIndex]?.contextWindow ?? model.contextWindow)) * 100,
      ),
      children: [],
    };
    if (isAgent) {
      row.tokens = { input: agent?.tokens.input ?? 0, output: agent?.tokens.output ?? 0 };
      if (agent !== undefined && !visiting.has(agent.key)) {
        visiting.add(agent.key);
        row.children = (callsByAgent.get(agent.key) ?? [])
          .sort(byStart)
          .map((child) => toRow(child, tool.id));
        visiting.delete(agent.key);
      }
    }
    return row;
  };

  return (callsByAgent.get(null) ?? []).sort(byStart).map((tool) => toRow(tool, null));
}
