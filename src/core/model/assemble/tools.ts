// How each tool call of a segment ends: by its result, by its agent's
// <task-notification>, or abandoned with its interrupted turn; and whether any
// call still waits for a later line.
import type { SubAgent, ToolCall, Turn } from '../session-model.js';
import type { ResultInfo } from './records.js';

export function closeTools(
  tools: Map<string, ToolCall>,
  results: Map<string, ResultInfo>,
  agents: Map<string, SubAgent>,
  notifications: Map<string, number>,
): void {
  for (const tool of tools.values()) {
    const result = results.get(tool.id);
    if (result === undefined) continue;
    let end = Math.max(result.time ?? tool.startTime, tool.startTime);
    // An async launch is acknowledged at once; the agent's work ends at its
    // <task-notification> join, or (no join yet) at its last line.
    const agent = tool.spawnedAgentKey === null ? undefined : agents.get(tool.spawnedAgentKey);
    if (result.asyncLaunched)
      end = Math.max(end, notifications.get(tool.id) ?? agent?.endTime ?? end);
    // A teammate's spawn returns at once too; its work ends with its last line.
    else if (agent?.team !== undefined) end = Math.max(end, agent.endTime ?? end);
    tool.endTime = end;
    tool.output = result.text;
    tool.status = result.isError ? 'error' : 'success';
    tool.errorType = result.isError ? (result.rejected ? 'rejected' : 'tool_error') : null;
  }
}

/**
 * Calls left without a result in an interrupted turn will never get one: they
 * end, as errors of type "interrupted", when the turn ended. Only the last,
 * open turn keeps "running" calls.
 */
export function closeAbandoned(turn: Turn, tools: Map<string, ToolCall>): void {
  for (const id of turn.toolIds) {
    const tool = tools.get(id);
    if (tool === undefined || tool.status !== 'running') continue;
    tool.status = 'error';
    tool.errorType = 'interrupted';
    tool.endTime = Math.max(tool.startTime, turn.endTime);
  }
}

/** Whether every call has its result, and every async launch its <task-notification>. */
export function isClosed(
  tools: Map<string, ToolCall>,
  results: Map<string, ResultInfo>,
  notifications: Map<string, number>,
): boolean {
  for (const tool of tools.values()) {
    const result = results.get(tool.id);
    // Even a call an interrupted turn abandoned: its result may still come.
    if (result === undefined) return false;
    if (result.asyncLaunched && !notifications.has(tool.id)) return false;
  }
  return true;
}
