// The projection of one transcript line that the rest of ccotel reads.
// Real lines carry far more (docs/spans.md lists what is read); we keep
// only what the waterfall, the spans and the live state need, so that large
// payloads (file contents, base64 images) are dropped right after parsing.

/** Token usage of one API response, as written on an assistant line. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  /** cache_creation_input_tokens: all cache writes, whatever their TTL. */
  cacheWrite: number;
  /** Part of cacheWrite written with the 1-hour TTL (priced higher). */
  cacheWrite1h: number;
  /** usage.speed: "fast" is billed at the fast-mode rates; null when not written. */
  speed?: string | null;
  /** output_tokens_details.thinking_tokens (part of output). */
  thinkingTokens?: number;
  /** server_tool_use.web_search_requests / web_fetch_requests. */
  webSearchRequests?: number;
  webFetchRequests?: number;
}

/**
 * What a Task/Agent result says of the sub-agent's run (`toolUseResult.totalTokens`,
 * `totalToolUseCount`, `totalDurationMs`, `usage`: the usage of its last API call).
 * The only trace of its work when its transcript is missing.
 */
export interface AgentReport {
  agentId: string | null;
  totalTokens: number | null;
  toolUseCount: number | null;
  durationMs: number | null;
  usage: Usage | null;
}

/** What a Workflow call's launch result names: the run its agents' dir is named after. */
export interface WorkflowLaunch {
  /** `wf_<id>`: the `subagents/workflows/<runId>/` dir of its agents. */
  runId: string;
  name: string | null;
}

/** A `<teammate-message>` user line: an agent-team member writing to the lead. */
export interface TeammateMessage {
  /** teammate_id: the teammate's name. */
  from: string;
  summary: string | null;
}

/** A `cost-state` record (2.1.2xx): what Claude Code itself counts the session at. */
export interface CostState {
  totalCostUSD: number | null;
  /** Claude Code met a model it has no price for: its total leaves that out. */
  hasUnknownModelCost: boolean;
  /** The models of its modelUsage. */
  models: string[];
}

export interface ToolUseBlock {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlock {
  toolUseId: string;
  isError: boolean;
  /** Result text, truncated to MAX_KEPT_TEXT characters ('' when not kept: ParseOptions.keepTexts). */
  text: string;
}

/** Fields every chain record may carry. Missing data stays missing. */
interface BaseRecord {
  uuid: string | null;
  parentUuid: string | null;
  /** Epoch milliseconds, or null when the line has no (valid) timestamp. */
  timestamp: number | null;
  sessionId: string | null;
  isSidechain: boolean;
  agentId: string | null;
  cwd: string | null;
  gitBranch: string | null;
  version: string | null;
  /** Set on history copied into a forked session. */
  forkedFromSessionId: string | null;
}

/**
 * What the session's name and setting records say (2.1.x: `custom-title`,
 * `ai-title`, `agent-name`, `pr-link`, `permission-mode`, `mode`). Later
 * records of a kind replace earlier ones; PR links accumulate.
 */
export interface SessionInfo {
  customTitle?: string;
  aiTitle?: string;
  agentName?: string;
  permissionMode?: string;
  mode?: string;
  prLinks?: { number: number | null; url: string | null; repository: string | null }[];
}

export interface UserRecord extends BaseRecord {
  type: 'user';
  /** promptId (2.1.7x+): Claude Code's native telemetry keys its events by it (prompt.id). */
  promptId: string | null;
  /** Characters of the text before it was clipped (`text` is cut to the parse limit). */
  textLength: number | null;
  /** entrypoint (2.1.x): cli, claude-desktop, sdk-cli, sdk-py…; null when not written. */
  entrypoint: string | null;
  /** permissionMode written on a prompt. */
  permissionMode: string | null;
  /** origin.kind (2.1.19x+): human, peer, task-notification, coordinator… */
  originKind: string | null;
  /** A peer message's sender (`<cross-session-message from-name=…>`). */
  peerName: string | null;
  isMeta: boolean;
  isCompactSummary: boolean;
  /** Text of a string content or of the text blocks, truncated. Null if none. */
  text: string | null;
  toolResults: ToolResultBlock[];
  /** toolUseResult.agentId of a Task/Agent result (2.0.x+). */
  resultAgentId: string | null;
  /** A Task/Agent toolUseResult's run summary; null for other results and async launches. */
  agentReport: AgentReport | null;
  /** toolUseResult.status === 'async_launched': the agent keeps running. */
  resultAsyncLaunched: boolean;
  /** toolUseResult given as a string naming a rejection ("User rejected tool use"). */
  rejected: boolean;
  /** `<task-notification>` join of a background task: the tool_use id it reports on. */
  notifiesToolUseId: string | null;
  /** Its `<task-id>`: the agentId of a fork or background agent (forks have no tool_use id). */
  notifiesTaskId: string | null;
  /** A Workflow call's launch result (2.1.2xx). */
  workflowLaunch: WorkflowLaunch | null;
  /** A `<teammate-message>` line (agent teams). */
  teammate: TeammateMessage | null;
  /** sessionKind written on a prompt (`bg`: a background session). */
  sessionKind: string | null;
}

export interface AssistantRecord extends BaseRecord {
  type: 'assistant';
  messageId: string | null;
  requestId: string | null;
  model: string | null;
  stopReason: string | null;
  /** Null on synthetic API-error lines: they carry no real usage. */
  usage: Usage | null;
  isApiError: boolean;
  /** `error` field of an API-error line ("rate_limit", …) or null. */
  errorType: string | null;
  toolUses: ToolUseBlock[];
  /** True when the line holds a text block (a final answer candidate). */
  hasText: boolean;
  /** Text of the line's text blocks, truncated (null when not kept: ParseOptions.keepTexts). */
  text: string | null;
}

export interface SystemRecord extends BaseRecord {
  type: 'system';
  subtype: string | null;
  /** turn_duration's durationMs. */
  durationMs: number | null;
  /**
   * A `local_command` whose output is `⑂ forked <name> (<4 hex>)` (2.1.220+ `/subtask`):
   * the fork's name and the last 4 hex digits of its agentId.
   */
  fork: { name: string; idSuffix: string } | null;
}

export interface ProgressRecord extends BaseRecord {
  type: 'progress';
  dataType: string | null;
  /** agent_progress: the sub-agent's id and the spawning tool_use id. */
  progressAgentId: string | null;
  parentToolUseId: string | null;
  /**
   * agent_progress (2.1.x) carries a full copy of one sub-agent record. When the
   * agent's own file is missing this copy is the only trace of its work; when it
   * is present the copy has the same uuid and is dropped as a duplicate.
   */
  embedded: UserRecord | AssistantRecord | null;
}

export type TranscriptRecord = UserRecord | AssistantRecord | SystemRecord | ProgressRecord;

/** Text kept per field in the model; content capture truncates further. */
export const MAX_KEPT_TEXT = 4096;
