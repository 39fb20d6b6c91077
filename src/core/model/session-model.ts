// What a session is once its records are folded: turns, API responses, tool
// calls and sub-agents, linked the way the real files link them.
import type { AgentReport, SessionInfo, TeammateMessage, Usage } from '../transcript/records.js';
import type { ReadWarning } from '../view/waterfall-row.js';
import type { SessionState } from '../session/state.js';

export type TurnEndState = 'completed' | 'api_error' | 'interrupted' | 'open';

/** Key of the agent a record belongs to; null is the main thread. */
export type AgentKey = string | null;

export interface ApiResponse {
  /** message.id, plus ":" + requestId when present (usage is counted once per key). */
  key: string;
  messageId: string;
  requestId: string | null;
  model: string | null;
  agentKey: AgentKey;
  turnIndex: number;
  /** Time of the event the response answered (its first line's parent). */
  startTime: number;
  /** Time of its last line. */
  endTime: number;
  /** Deduplicated usage (output = max over the lines); null for synthetic errors. */
  usage: Usage | null;
  stopReason: string | null;
  isApiError: boolean;
  errorType: string | null;
  toolUseIds: string[];
}

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /**
   * The call's short label, null until first asked for (callLabel, labels.ts):
   * a dry run counts spans and never reads it.
   */
  label: string | null;
  /** The cwd of the line that made the call: its label's paths are shown relative to it. */
  cwd: string | null;
  agentKey: AgentKey;
  turnIndex: number;
  responseKey: string | null;
  startTime: number;
  /** Null while no result has been written. */
  endTime: number | null;
  status: 'running' | 'success' | 'error';
  /** 'tool_error' or 'rejected' when status is error. */
  errorType: string | null;
  output: string | null;
  /** The sub-agent this call spawned (Task/Agent), once linked. */
  spawnedAgentKey: AgentKey;
  /** A Task/Agent result's report of the sub-agent's run (toolUseResult totals). */
  agentReport: AgentReport | null;
  /** The report names an agent whose transcript is not among the session's files. */
  transcriptMissing: boolean;
  /**
   * Usage of the issuing response as written on the tool_use line itself (a
   * streaming placeholder in 2.1.x); spans and rows use the response's final
   * usage, this only when the response is unknown.
   */
  usageAtCall: { input: number; output: number } | null;
}

export interface TokenTotals {
  /** input + cache read + cache write. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
}

export interface SubAgent {
  key: string;
  /** Claude Code's agentId; null for 1.0.x inline sidechains. */
  agentId: string | null;
  /** subagent_type of the spawning call, or the meta file's agentType. */
  agentType: string;
  description: string | null;
  /** The Task/Agent tool call that spawned it; null if unlinked or internal. */
  toolUseId: string | null;
  /** Internal side calls (acompact, aprompt_suggestion, Warmup): never children of a call. */
  internal: boolean;
  /** A 2.1.220+ fork (`/subtask`): no spawning call; placed by its `⑂ forked` line. */
  fork: boolean;
  /** The fork's (or team agent's) name. */
  name: string | null;
  /** Turn of the `⑂ forked` line that started a fork; null otherwise. */
  forkTurnIndex: number | null;
  turnIndex: number | null;
  startTime: number | null;
  endTime: number | null;
  /** The agent's own responses, each once. */
  tokens: TokenTotals;
  responseKeys: string[];
  file: string;
  /** A workflow agent's run (its `wf_<id>` dir), the workflow's name and its meta's phase. */
  workflow?: { runId: string; name: string | null; phase: string | null };
  /** An agent-team member's team (meta teamName); `name` is its name in the team. */
  team?: string;
  /** Its file ends with an interrupt marker (a workflow agent stopped and restarted under a new id). */
  interrupted?: boolean;
}

/** How a turn was opened (docs/spans.md "Turns and their origin"). */
export type TurnOrigin = 'human' | 'peer' | 'system' | string;

export interface Turn {
  index: number;
  /** The prompt's promptId (Claude Code's native telemetry: prompt.id); null before 2.1.7x. */
  promptId: string | null;
  /** origin.kind of the prompt (`human` when not written), `peer` for another session's message. */
  origin: TurnOrigin;
  /** The sending session's name of a peer message. */
  peerName: string | null;
  /** permissionMode written on the prompt. */
  permissionMode: string | null;
  /** The session's names and settings as known by the turn's end (SessionState.infoMarks). */
  sessionInfo?: SessionInfo;
  /** 200k, or 1M from the first turn in which a main-thread response went past 200k. */
  contextWindow: number;
  /** uuid of the prompt record: the trace id is derived from it. */
  promptUuid: string;
  promptText: string | null;
  /** Characters of the prompt as written (promptText is cut to the parse limit). */
  promptLength: number | null;
  /** How the session was launched, as the prompt says (cli, claude-desktop, sdk-cli…). */
  entrypoint: string | null;
  /** The prompt's sessionKind (`bg`: a background session, 2.1.2xx). */
  sessionKind?: string | null;
  /** `<teammate-message>` lines that arrived in the turn (agent teams): they open none. */
  teammateMessages?: TeammateMessage[];
  startTime: number;
  /** Last event of the turn, sub-agents included. */
  endTime: number;
  endState: TurnEndState;
  /** error type of the API error that ended the turn. */
  errorType: string | null;
  cwd: string | null;
  gitBranch: string | null;
  version: string | null;
  /** The turn's responses, sub-agents included; internal side calls are not (see SubAgent.internal). */
  responseKeys: string[];
  toolIds: string[];
  agentKeys: string[];
  /** The responses of responseKeys, each once. */
  tokens: TokenTotals;
}

export interface SessionModel {
  sessionId: string;
  file: string;
  turns: Turn[];
  responses: Map<string, ApiResponse>;
  tools: Map<string, ToolCall>;
  agents: Map<string, SubAgent>;
  /** 1M if any main-thread response went past 200k, else 200k (per turn: Turn.contextWindow). */
  contextWindow: number;
  /** Last timestamp seen anywhere in the session. */
  lastTimestamp: number | null;
  /**
   * Set on a segment of a session read in segments (assemble.ts SegmentCarry):
   * its last turn is not the session's last, a later prompt closed it.
   */
  moreTurnsFollow?: boolean;
  warnings: ReadWarning[];
  /** Lines that parsed but were of no use (unknown types etc.). */
  ignoredLines: number;
  /** Session names and settings from the session's own records. */
  sessionInfo?: SessionInfo;
  /** Record types ccotel does not know, with their line counts. */
  unknownRecordTypes?: Record<string, number>;
  /** Warnings derived from the records as a whole (linking), also in `warnings`. */
  derivedWarnings?: ReadWarning[];
  /** The session's last `cost-state` record (2.1.2xx), where it was read: compared once priced (core/cost/cost-state.ts). */
  costState?: SessionState['costState'];
}
