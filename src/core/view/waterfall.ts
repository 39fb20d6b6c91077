// Session model → waterfall rows (docs/show.md): the main thread's calls in start
// order, each Task/Agent call an agent row holding its sub-agent's calls.
import { needsOwnRow, totalInput } from '../model/assemble/finish.js';
import { callLabel } from '../spans/labels.js';
import type { SessionModel, SubAgent, ToolCall } from '../model/session-model.js';
import type { WaterfallRow } from './waterfall-row.js';

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** Start order; ties by id, so that the rows come out the same on every run. */
function byStart(
  a: { startTime: number; id: string },
  b: { startTime: number; id: string },
): number {
  return a.startTime - b.startTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** What every level of the rows needs. */
interface RowContext {
  model: SessionModel;
  /** The calls of each agent (null: the main thread), those in no turn left out. */
  callsByAgent: Map<string | null, ToolCall[]>;
  /** Agents whose rows are being built: a cycle of spawn links ends there instead of recursing forever. */
  visiting: Set<string>;
  /** The agents a Workflow call started, by its id. */
  workflowAgents: Map<string, SubAgent[]>;
}

export function buildWaterfall(model: SessionModel): WaterfallRow[] {
  const ctx: RowContext = {
    model,
    callsByAgent: callsByAgentKey(model),
    visiting: new Set(),
    workflowAgents: workflowAgentsByCall(model),
  };
  const rows = (ctx.callsByAgent.get(null) ?? [])
    .sort(byStart)
    .map((tool) => toolRow(tool, null, ctx));
  // Agents no call spawned (forks, unlinked files) get a row of their own, so
  // that none of their calls is left out.
  for (const agent of model.agents.values()) {
    if (agent.startTime === null || agent.turnIndex === null) continue;
    if (!needsOwnRow(agent, model.tools)) continue;
    rows.push(agentOwnRow(agent, ctx.callsByAgent.get(agent.key) ?? [], ctx, null));
  }
  return rows.sort(byStart);
}

function callsByAgentKey(model: SessionModel): Map<string | null, ToolCall[]> {
  const callsByAgent = new Map<string | null, ToolCall[]>();
  for (const tool of model.tools.values()) {
    if (tool.turnIndex < 0) continue;
    const list = callsByAgent.get(tool.agentKey);
    if (list === undefined) callsByAgent.set(tool.agentKey, [tool]);
    else list.push(tool);
  }
  return callsByAgent;
}

function workflowAgentsByCall(model: SessionModel): Map<string, SubAgent[]> {
  const byCall = new Map<string, SubAgent[]>();
  for (const agent of model.agents.values()) {
    if (agent.workflow === undefined || agent.toolUseId === null) continue;
    if (!model.tools.has(agent.toolUseId) || agent.startTime === null) continue;
    const list = byCall.get(agent.toolUseId);
    if (list === undefined) byCall.set(agent.toolUseId, [agent]);
    else list.push(agent);
  }
  return byCall;
}

/** A call's row; a Task/Agent call's row holds its sub-agent's calls, a Workflow call's its agents. */
function toolRow(tool: ToolCall, parentAgentId: string | null, ctx: RowContext): WaterfallRow {
  const { model } = ctx;
  const response = tool.responseKey === null ? undefined : model.responses.get(tool.responseKey);
  const usage = response?.usage ?? null;
  const inputTokens = usage === null ? 0 : totalInput(usage);
  const agent = tool.spawnedAgentKey === null ? undefined : model.agents.get(tool.spawnedAgentKey);
  const isAgent = agent !== undefined || tool.name === 'Task' || tool.name === 'Agent';
  const row: WaterfallRow = {
    id: tool.id,
    type: isAgent ? 'agent' : 'tool',
    toolName: tool.name,
    label: callLabel(tool),
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
  if (isAgent) addAgentFields(row, tool, agent, ctx);
  const started = ctx.workflowAgents.get(tool.id);
  if (started !== undefined)
    row.children = started
      .map((a) => agentOwnRow(a, ctx.callsByAgent.get(a.key) ?? [], ctx, tool.id))
      .sort(byStart);
  return row;
}

/** An agent row's own: the sub-agent's tokens, what its result reported when its transcript is missing, its calls. */
function addAgentFields(
  row: WaterfallRow,
  tool: ToolCall,
  agent: SubAgent | undefined,
  ctx: RowContext,
): void {
  row.tokens = { input: agent?.tokens.input ?? 0, output: agent?.tokens.output ?? 0 };
  if (agent?.team !== undefined && agent.name !== null) {
    row.teammate = { name: agent.name, team: agent.team };
    row.label = `${tool.name} ${agent.name}: ${agent.description ?? agent.agentType}`;
  }
  if (tool.transcriptMissing && tool.agentReport !== null) {
    const r = tool.agentReport;
    row.transcriptMissing = true;
    row.reported = {
      agentId: r.agentId,
      totalTokens: r.totalTokens,
      toolUseCount: r.toolUseCount,
      durationMs: r.durationMs,
      lastCallInputTokens: r.usage === null ? null : totalInput(r.usage),
      lastCallOutputTokens: r.usage?.output ?? null,
    };
  }
  if (agent !== undefined && !ctx.visiting.has(agent.key)) {
    ctx.visiting.add(agent.key);
    row.children = (ctx.callsByAgent.get(agent.key) ?? [])
      .sort(byStart)
      .map((child) => toolRow(child, tool.id, ctx));
    ctx.visiting.delete(agent.key);
  }
}

/** An agent's label when no call row names it: a fork's name, a workflow agent's phase. */
function ownRowLabel(agent: SubAgent): string {
  if (agent.fork) return `Fork: ${agent.name ?? agent.key}`;
  const what = `Agent: ${agent.description ?? agent.agentType}`;
  const phase = agent.workflow?.phase ?? null;
  return phase === null ? what : `${what} (${phase})`;
}

/**
 * The row of an agent that is not a Task/Agent call's: one without a spawning
 * call (parent null), or one a Workflow call started. Its id is the agent's key.
 */
function agentOwnRow(
  agent: SubAgent,
  calls: ToolCall[],
  ctx: RowContext,
  parent: string | null,
): WaterfallRow {
  const start = agent.startTime ?? 0;
  const label = ownRowLabel(agent);
  const status = agent.endTime === null ? 'running' : agent.interrupted ? 'error' : 'success';
  const row: WaterfallRow = {
    id: agent.key,
    type: 'agent',
    toolName: agent.fork ? 'Fork' : 'Agent',
    label,
    startTime: start,
    endTime: agent.endTime,
    duration: agent.endTime === null ? null : Math.max(0, agent.endTime - start),
    status,
    parentAgentId: parent,
    input: {},
    output: null,
    inputTokens: 0,
    outputTokens: 0,
    contextFillPercent: 0,
    tokens: { input: agent.tokens.input, output: agent.tokens.output },
    children: [...calls].sort(byStart).map((child) => toolRow(child, agent.key, ctx)),
  };
  if (agent.workflow !== undefined) row.workflow = agent.workflow;
  return row;
}
