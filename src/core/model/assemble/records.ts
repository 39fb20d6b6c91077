// The one walk over a segment's entries: each record kind leaves what the
// later steps of finishSegment (assemble.ts) need, keyed by response, call or
// agent, in file order (the maps' insertion order is the output's order).
// Plain functions over one state object: this runs per record of every
// conversion, so nothing here allocates per entry beyond what it keeps.
import type { AgentReport, AssistantRecord, Usage, UserRecord } from '../../transcript/records.js';
import type { Entry } from '../../session/state.js';
import type { AgentKey, ApiResponse, ToolCall } from '../session-model.js';
import { isApiCall, responseKeyOf } from '../../session/turn-lifecycle.js';
import { totalInput } from './tokens.js';

export interface ResultInfo {
  time: number | null;
  isError: boolean;
  rejected: boolean;
  text: string;
  asyncLaunched: boolean;
  agentReport: AgentReport | null;
  file: string;
  line: number;
}

/** A `⑂ forked <name> (<4 hex>)` line of the main thread. */
export interface ForkMarker {
  name: string;
  idSuffix: string;
  time: number | null;
  turnIndex: number;
}

export interface TimeSpan {
  start: number;
  end: number;
}

/** What the walk collects; the maps are keyed as their names say. */
export interface SegmentRecords {
  /** Turn of each entry (buildTurns), read by the walk for main-thread responses and calls. */
  readonly turnOf: Int32Array;
  /** SessionState.uuidTime: when each parent a response answers was written. */
  readonly uuidTime: Map<string, number>;
  responses: Map<string, ApiResponse>;
  tools: Map<string, ToolCall>;
  /** tool_use id → its result. */
  results: Map<string, ResultInfo>;
  /** agentId → the tool_use id whose result names it. */
  agentLinks: Map<string, string>;
  /** tool_use id → time of its first <task-notification>. */
  notifications: Map<string, number>;
  /** agent key → first and last timestamp of its records. */
  agentSpan: Map<string, TimeSpan>;
  /** agent key → text of its first user record. */
  firstUserText: Map<string, string | null>;
  /**
   * Line of each agent's first record in this segment, for its warnings. Its
   * keys are the agents with records here, in order of their first record.
   */
  firstLine: Map<string, number>;
  forkMarkers: ForkMarker[];
  /** task id → time of its last <task-notification>. */
  taskNotified: Map<string, number>;
  /** Each thread's (main: null) last timestamp so far. */
  prevTime: Map<AgentKey, number>;
  lastTimestamp: number | null;
}

export function collectRecords(
  entries: Entry[],
  turnOf: Int32Array,
  uuidTime: Map<string, number>,
  carried: { prevMainTime: number | null; lastTimestamp: number | null },
): SegmentRecords {
  const records: SegmentRecords = {
    turnOf,
    uuidTime,
    responses: new Map(),
    tools: new Map(),
    results: new Map(),
    agentLinks: new Map(),
    notifications: new Map(),
    agentSpan: new Map(),
    firstUserText: new Map(),
    firstLine: new Map(),
    forkMarkers: [],
    taskNotified: new Map(),
    prevTime: new Map(),
    lastTimestamp: carried.lastTimestamp,
  };
  if (carried.prevMainTime !== null) records.prevTime.set(null, carried.prevMainTime);
  entries.forEach((entry, i) => collectEntry(records, entry, i));
  return records;
}

function collectEntry(records: SegmentRecords, entry: Entry, i: number): void {
  const { rec, agentKey } = entry;
  const ts = rec.timestamp;
  if (ts !== null) noteTime(records, agentKey, ts);
  if (agentKey !== null) noteAgentRecord(records, entry, agentKey);
  else if (rec.type === 'system' && rec.fork !== null)
    records.forkMarkers.push({ ...rec.fork, time: ts, turnIndex: turnOfEntry(records, i) });
  else if (rec.type === 'user' && rec.notifiesTaskId !== null && ts !== null)
    noteTaskNotified(records, rec.notifiesTaskId, ts);
  if (rec.type === 'assistant' && isApiCall(rec)) collectCall(records, rec, agentKey, i);
  else if (rec.type === 'user') collectUser(records, rec, entry);
  if (ts !== null) records.prevTime.set(agentKey, ts);
}

function turnOfEntry(records: SegmentRecords, i: number): number {
  return records.turnOf[i] ?? -1;
}

function noteTime(records: SegmentRecords, agentKey: AgentKey, ts: number): void {
  records.lastTimestamp = records.lastTimestamp === null ? ts : Math.max(records.lastTimestamp, ts);
  if (agentKey === null) return;
  const span = records.agentSpan.get(agentKey);
  if (span === undefined) records.agentSpan.set(agentKey, { start: ts, end: ts });
  else {
    span.start = Math.min(span.start, ts);
    span.end = Math.max(span.end, ts);
  }
}

function noteAgentRecord(records: SegmentRecords, entry: Entry, agentKey: string): void {
  if (!records.firstLine.has(agentKey)) records.firstLine.set(agentKey, entry.line);
  if (entry.rec.type === 'user' && !records.firstUserText.has(agentKey))
    records.firstUserText.set(agentKey, entry.rec.text);
}

/** A fork may notify more than once (resumed by SendMessage): its work runs to the last. */
function noteTaskNotified(records: SegmentRecords, taskId: string, ts: number): void {
  records.taskNotified.set(taskId, Math.max(records.taskNotified.get(taskId) ?? ts, ts));
}

/** An API call's line: its response (one per key, over all its lines) and its tool calls. */
function collectCall(
  records: SegmentRecords,
  rec: AssistantRecord,
  agentKey: AgentKey,
  i: number,
): void {
  const time = rec.timestamp ?? records.prevTime.get(agentKey) ?? 0;
  const turnIndex = agentKey === null ? turnOfEntry(records, i) : -1;
  const key = responseKeyOf(rec);
  if (key !== null) {
    let r = records.responses.get(key);
    if (r === undefined) {
      r = newResponse(records, rec, key, agentKey, time, turnIndex);
      records.responses.set(key, r);
    } else mergeResponseLine(r, rec, time);
    for (const use of rec.toolUses) if (!r.toolUseIds.includes(use.id)) r.toolUseIds.push(use.id);
  }
  for (const use of rec.toolUses) {
    if (records.tools.has(use.id)) continue;
    records.tools.set(use.id, {
      id: use.id,
      name: use.name,
      input: use.input,
      label: null,
      cwd: rec.cwd,
      agentKey,
      turnIndex,
      responseKey: key,
      startTime: time,
      endTime: null,
      status: 'running',
      errorType: null,
      output: null,
      spawnedAgentKey: null,
      agentReport: null,
      transcriptMissing: false,
      usageAtCall:
        rec.usage === null ? null : { input: totalInput(rec.usage), output: rec.usage.output },
    });
  }
}

function newResponse(
  records: SegmentRecords,
  rec: AssistantRecord,
  key: string,
  agentKey: AgentKey,
  time: number,
  turnIndex: number,
): ApiResponse {
  const parentTime = rec.parentUuid === null ? undefined : records.uuidTime.get(rec.parentUuid);
  const answered =
    parentTime !== undefined && parentTime <= time
      ? parentTime
      : (records.prevTime.get(agentKey) ?? time);
  return {
    key,
    messageId: rec.messageId ?? key,
    requestId: rec.requestId,
    model: rec.model,
    agentKey,
    turnIndex,
    startTime: Math.min(answered, time),
    endTime: time,
    usage: rec.usage === null ? null : { ...rec.usage },
    stopReason: rec.stopReason,
    isApiError: rec.isApiError,
    errorType: rec.errorType,
    toolUseIds: [],
  };
}

function mergeResponseLine(r: ApiResponse, rec: AssistantRecord, time: number): void {
  r.endTime = Math.max(r.endTime, time);
  r.stopReason = rec.stopReason ?? r.stopReason;
  if (rec.usage === null) return;
  if (r.usage === null) r.usage = { ...rec.usage };
  else mergeUsage(r.usage, rec.usage);
}

function mergeUsage(into: Usage, from: Usage): void {
  // Every line repeats the response's usage; output is a running count.
  into.output = Math.max(into.output, from.output);
  into.input = Math.max(into.input, from.input);
  into.cacheRead = Math.max(into.cacheRead, from.cacheRead);
  into.cacheWrite = Math.max(into.cacheWrite, from.cacheWrite);
  into.cacheWrite1h = Math.max(into.cacheWrite1h, from.cacheWrite1h);
  mergeUsageExtras(into, from);
}

/** Thinking, server-tool and speed fields: any line may carry them, the maximum holds. */
function mergeUsageExtras(into: Usage, from: Usage): void {
  into.speed = from.speed ?? into.speed;
  if (into.speed === undefined) delete into.speed;
  for (const k of ['thinkingTokens', 'webSearchRequests', 'webFetchRequests'] as const) {
    const v = from[k];
    if (v !== undefined) into[k] = Math.max(into[k] ?? 0, v);
  }
}

/** A user line: its <task-notification> join and its tool results (the first of each id holds). */
function collectUser(records: SegmentRecords, rec: UserRecord, entry: Entry): void {
  const ts = rec.timestamp;
  const notified = rec.notifiesToolUseId;
  if (notified !== null && ts !== null && !records.notifications.has(notified))
    records.notifications.set(notified, ts);
  for (const result of rec.toolResults) {
    if (records.results.has(result.toolUseId)) continue;
    records.results.set(result.toolUseId, {
      time: ts,
      isError: result.isError,
      rejected: rec.rejected,
      text: result.text,
      asyncLaunched: rec.resultAsyncLaunched,
      agentReport: rec.agentReport,
      file: entry.file,
      line: entry.line,
    });
    if (rec.resultAgentId !== null && !records.agentLinks.has(rec.resultAgentId))
      records.agentLinks.set(rec.resultAgentId, result.toolUseId);
  }
}
