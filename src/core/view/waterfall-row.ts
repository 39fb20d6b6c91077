// What `show` draws and prints as JSON (docs/show.md), every field. Times are Unix milliseconds.

export type RowStatus = 'running' | 'success' | 'error';

export interface WaterfallRow {
  /** tool_use id of the call (for agents: the Task/Agent call). */
  id: string;
  type: 'agent' | 'tool';
  toolName: string;
  /** Short, human, starts with the tool name: "Bash: npm test". */
  label: string;
  startTime: number;
  endTime: number | null;
  duration: number | null;
  status: RowStatus;
  /** id of the agent row this call ran inside; null on the main thread. */
  parentAgentId: string | null;
  input: Record<string, unknown>;
  output: string | null;
  /** input + cache_creation + cache_read of the response that issued the call. */
  inputTokens: number;
  outputTokens: number;
  contextFillPercent: number;
  /** Agent rows: the sub-agent's own usage, each response once. */
  tokens?: { input: number; output: number };
  /**
   * Agent rows whose transcript is missing: what the Task/Agent result reported
   * of the run (toolUseResult totals; usage is that of its last API call).
   */
  reported?: {
    agentId: string | null;
    totalTokens: number | null;
    toolUseCount: number | null;
    durationMs: number | null;
    lastCallInputTokens: number | null;
    lastCallOutputTokens: number | null;
  };
  transcriptMissing?: boolean;
  /** Agent rows of a workflow's agents (under the Workflow call's row): its run, name and phase. */
  workflow?: { runId: string; name: string | null; phase: string | null };
  /** Agent rows of an agent-team member: its name and team. */
  teammate?: { name: string; team: string };
  children: WaterfallRow[];
}

export interface ReadWarning {
  file: string;
  line: number;
  reason: string;
}
