// Session model → spans, one trace per turn (see docs/spans.md):
//   invoke_agent Claude Code (turn root)
//   ├─ chat {model}                      one per API response
//   ├─ execute_tool {tool}               one per call
//   └─ execute_tool Agent|Task
//      └─ invoke_agent {subagent_type}   its chats and calls below it, at any depth
// Token totals of turns and agents go under claude_code.* so that summing
// gen_ai.usage.* over chat spans never double counts.
import { totalInput } from '../model/assemble/finish.js';
import { sumCost, type SessionCosts } from '../cost/session-cost.js';
import type {
  ApiResponse,
  SessionModel,
  SubAgent,
  TokenTotals,
  ToolCall,
  Turn,
} from '../model/session-model.js';
import type { AttributeValue, SpanData, SpanOptions } from './data.js';
import type { Usage } from '../transcript/records.js';
import {
  putAgentDescription,
  putPrompt,
  putToolContent,
  toolLabelFor,
  truncateUtf8,
} from './content.js';
import { scrubText } from './scrub.js';
import { agentSpanIdFor, chatSpanIdFor, toolSpanIdFor, traceIdFor, turnSpanIdFor } from './ids.js';
import { buildNativeTurnSpans } from './native/native-spans.js';
import { closing, internalResponseKeys, turnCutoff } from './turn-work.js';

export const PROVIDER = 'anthropic';
export const ROOT_AGENT_NAME = 'Claude Code';

type Attrs = Record<string, AttributeValue>;

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * Sets an attribute only when it has a value: an absent (null, undefined) or
 * empty string value is left out. Attributes are written straight into the
 * span's object in their final order; building a literal with holes and then
 * copying it without them cost a dry run dearly.
 */
function put(attrs: Attrs, key: string, value: AttributeValue | null | undefined): void {
  if (value !== null && value !== undefined && value !== '') attrs[key] = value;
}

function putCost(attrs: Attrs, cost: number | null): void {
  if (cost !== null) attrs['claude_code.cost.usd'] = Math.round(cost * 1e6) / 1e6;
}

/** The parts of a response's usage beyond the GenAI four: TTL split, thinking, server tools, speed. */
function putUsageDetails(attrs: Attrs, usage: Usage | null): void {
  if (usage === null) return;
  if (usage.cacheWrite > 0) {
    attrs['claude_code.usage.cache_write_5m.input_tokens'] = Math.max(
      0,
      usage.cacheWrite - usage.cacheWrite1h,
    );
    attrs['claude_code.usage.cache_write_1h.input_tokens'] = usage.cacheWrite1h;
  }
  put(attrs, 'claude_code.usage.thinking_tokens', usage.thinkingTokens);
  put(attrs, 'claude_code.usage.web_search_requests', usage.webSearchRequests);
  put(attrs, 'claude_code.usage.web_fetch_requests', usage.webFetchRequests);
  put(attrs, 'claude_code.usage.speed', usage.speed);
}

/** A Task/Agent call whose sub-agent transcript is missing carries what its result reported. */
function putReportedAgent(attrs: Attrs, t: ToolCall): void {
  const r = t.agentReport;
  if (!t.transcriptMissing || r === null) return;
  attrs['claude_code.agent.transcript_missing'] = true;
  put(attrs, 'claude_code.agent.id', r.agentId);
  put(attrs, 'claude_code.agent.reported.total_tokens', r.totalTokens);
  put(attrs, 'claude_code.agent.reported.tool_use_count', r.toolUseCount);
  put(attrs, 'claude_code.agent.reported.duration_ms', r.durationMs);
  const usage = r.usage;
  if (usage === null) return;
  put(attrs, 'claude_code.agent.reported.last_call.input_tokens', totalInput(usage));
  put(attrs, 'claude_code.agent.reported.last_call.output_tokens', usage.output);
  put(attrs, 'claude_code.agent.reported.last_call.cache_read_tokens', usage.cacheRead);
  put(attrs, 'claude_code.agent.reported.last_call.cache_write_tokens', usage.cacheWrite);
}

/** Token totals of a turn or an agent; the keys are spelled out so each store is a plain one. */
function putTurnTotals(attrs: Attrs, t: TokenTotals): void {
  attrs['claude_code.turn.input_tokens'] = t.input;
  attrs['claude_code.turn.output_tokens'] = t.output;
  attrs['claude_code.turn.cache_read_tokens'] = t.cacheRead;
  attrs['claude_code.turn.cache_write_tokens'] = t.cacheWrite;
}

function putAgentTotals(attrs: Attrs, t: TokenTotals): void {
  attrs['claude_code.agent.input_tokens'] = t.input;
  attrs['claude_code.agent.output_tokens'] = t.output;
  attrs['claude_code.agent.cache_read_tokens'] = t.cacheRead;
  attrs['claude_code.agent.cache_write_tokens'] = t.cacheWrite;
}

interface TurnContext {
  model: SessionModel;
  turn: Turn;
  traceId: string;
  rootId: string;
  /** Where unfinished work is cut off: the last timestamp seen in the session. */
  cutoff: number;
  costs: SessionCosts;
  options: SpanOptions;
  /** Span ids of the turn's agents and calls, each hashed once though children ask again. */
  agentIds: Map<string, string>;
  toolIds: Map<string, string>;
}

function agentIdOf(ctx: TurnContext, agentKey: string): string {
  let id = ctx.agentIds.get(agentKey);
  if (id === undefined) {
    id = agentSpanIdFor(agentKey);
    ctx.agentIds.set(agentKey, id);
  }
  return id;
}

function toolIdOf(ctx: TurnContext, toolUseId: string): string {
  let id = ctx.toolIds.get(toolUseId);
  if (id === undefined) {
    id = toolSpanIdFor(toolUseId);
    ctx.toolIds.set(toolUseId, id);
  }
  return id;
}

/** End time and completeness of a piece of work that may still be running. */
function agentTypeOf(model: SessionModel, agentKey: string | null): string {
  return agentKey === null ? 'main' : (model.agents.get(agentKey)?.agentType ?? 'subagent');
}

/** Span id of the agent span a piece of work hangs under. */
function parentOf(ctx: TurnContext, agentKey: string | null): string {
  if (agentKey === null) return ctx.rootId;
  return ctx.model.agents.has(agentKey) ? agentIdOf(ctx, agentKey) : ctx.rootId;
}

function chatAttrs(ctx: TurnContext, r: ApiResponse, model: string): Attrs {
  const usage = r.usage;
  const sessionId = ctx.model.sessionId;
  const attrs: Attrs = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': PROVIDER };
  put(attrs, 'gen_ai.conversation.id', sessionId);
  put(attrs, 'session.id', sessionId);
  put(attrs, 'gen_ai.request.model', model);
  put(attrs, 'gen_ai.response.model', model);
  put(attrs, 'gen_ai.response.id', r.messageId);
  if (r.isApiError) attrs['gen_ai.response.finish_reasons'] = ['error'];
  else if (r.stopReason !== null) attrs['gen_ai.response.finish_reasons'] = [r.stopReason];
  attrs['gen_ai.usage.input_tokens'] = usage === null ? 0 : totalInput(usage);
  attrs['gen_ai.usage.output_tokens'] = usage?.output ?? 0;
  attrs['gen_ai.usage.cache_read.input_tokens'] = usage?.cacheRead ?? 0;
  attrs['gen_ai.usage.cache_write.input_tokens'] = usage?.cacheWrite ?? 0;
  putUsageDetails(attrs, usage);
  put(attrs, 'claude_code.agent.type', agentTypeOf(ctx.model, r.agentKey));
  put(attrs, 'claude_code.request.id', r.requestId);
  if (r.isApiError) put(attrs, 'error.type', r.errorType ?? 'api_error');
  putCost(attrs, ctx.costs.byResponse.get(r.key) ?? null);
  return attrs;
}

function chatSpan(ctx: TurnContext, r: ApiResponse): SpanData {
  const model = r.model ?? 'unknown';
  return {
    traceId: ctx.traceId,
    spanId: chatSpanIdFor(r.key),
    parentSpanId: parentOf(ctx, r.agentKey),
    name: `chat ${model}`,
    kind: 'CLIENT',
    startMs: r.startTime,
    endMs: Math.max(r.startTime, r.endTime),
    attributes: chatAttrs(ctx, r, model),
    status: r.isApiError
      ? { code: 'ERROR', message: r.errorType ?? 'api_error' }
      : { code: 'UNSET' },
    links: [],
    complete: true,
    turnKey: ctx.turn.promptUuid,
  };
}

/**
 * Tokens of the response that issued a call, final figures (as `show` rows
 * carry them): 2.1.x writes a streaming placeholder on the `tool_use` line
 * itself, so a live span waits for the response's last line (core/finality.ts).
 */
function callTokens(ctx: TurnContext, t: ToolCall): { input: number; output: number } {
  const usage = t.responseKey === null ? null : ctx.model.responses.get(t.responseKey)?.usage;
  if (usage === null || usage === undefined) return t.usageAtCall ?? { input: 0, output: 0 };
  return { input: totalInput(usage), output: usage.output };
}

function toolAttrs(ctx: TurnContext, t: ToolCall, complete: boolean): Attrs {
  const tokens = callTokens(ctx, t);
  const input = tokens.input;
  const sessionId = ctx.model.sessionId;
  const attrs: Attrs = { 'gen_ai.operation.name': 'execute_tool' };
  put(attrs, 'gen_ai.conversation.id', sessionId);
  put(attrs, 'session.id', sessionId);
  put(attrs, 'gen_ai.tool.name', t.name);
  put(attrs, 'gen_ai.tool.call.id', t.id);
  attrs['gen_ai.tool.type'] = 'function';
  put(attrs, 'claude_code.tool.label', toolLabelFor(ctx.options.content, t));
  attrs['claude_code.tokens.input'] = input;
  attrs['claude_code.tokens.output'] = tokens.output;
  attrs['claude_code.context.fill_percent'] = round2((input / ctx.turn.contextWindow) * 100);
  put(attrs, 'claude_code.agent.type', agentTypeOf(ctx.model, t.agentKey));
  if (t.status === 'error') put(attrs, 'error.type', t.errorType ?? 'tool_error');
  if (!complete) attrs['claude_code.incomplete'] = true;
  putReportedAgent(attrs, t);
  putToolContent(attrs, ctx.options, t.input, t.output);
  return attrs;
}

function toolSpan(ctx: TurnContext, t: ToolCall): SpanData {
  const { endMs, complete } = closing(ctx.cutoff, t.startTime, t.endTime);
  return {
    traceId: ctx.traceId,
    spanId: toolIdOf(ctx, t.id),
    parentSpanId: parentOf(ctx, t.agentKey),
    name: `execute_tool ${t.name}`,
    kind: 'INTERNAL',
    startMs: t.startTime,
    endMs,
    attributes: toolAttrs(ctx, t, complete),
    status:
      t.status === 'error'
        ? { code: 'ERROR', message: t.errorType ?? 'tool_error' }
        : { code: 'UNSET' },
    links: [],
    complete,
    turnKey: ctx.turn.promptUuid,
  };
}

function agentAttrs(ctx: TurnContext, a: SubAgent, complete: boolean): Attrs {
  const sessionId = ctx.model.sessionId;
  // No gen_ai.provider.name: gen_ai.invocation.internal has none (docs/spans.md).
  const attrs: Attrs = { 'gen_ai.operation.name': 'invoke_agent' };
  put(attrs, 'gen_ai.agent.name', a.agentType);
  put(attrs, 'gen_ai.conversation.id', sessionId);
  put(attrs, 'session.id', sessionId);
  attrs['gen_ai.invocation.is_nested'] = true;
  put(attrs, 'claude_code.agent.id', a.agentId ?? a.key);
  if (a.fork) attrs['claude_code.agent.type'] = 'fork';
  put(attrs, 'claude_code.agent.name', a.name);
  put(attrs, 'claude_code.agent.team', a.team);
  if (a.workflow !== undefined) {
    put(attrs, 'claude_code.workflow.run_id', a.workflow.runId);
    put(attrs, 'claude_code.workflow.name', a.workflow.name);
    put(attrs, 'claude_code.workflow.phase', a.workflow.phase);
  }
  if (a.internal) attrs['claude_code.agent.internal'] = true;
  putAgentTotals(attrs, a.tokens);
  putCost(attrs, sumCost(a.responseKeys, ctx.costs.byResponse));
  putAgentDescription(attrs, ctx.options, a.description);
  if (!complete) attrs['claude_code.incomplete'] = true;
  return attrs;
}

function agentSpan(ctx: TurnContext, a: SubAgent): SpanData | null {
  // The spawning call's span exists only if the call belongs to this turn (a
  // call made before the first prompt belongs to none): otherwise hang the agent
  // under the turn root rather than under a span no trace holds.
  const linked = a.toolUseId === null ? undefined : ctx.model.tools.get(a.toolUseId);
  const call = linked !== undefined && linked.turnIndex === ctx.turn.index ? linked : undefined;
  // A workflow's agents run inside its call's span, each from its own first to last line.
  const own = a.workflow !== undefined;
  const start = own ? (a.startTime ?? call?.startTime ?? null) : (call?.startTime ?? a.startTime);
  if (start === null) return null;
  // A sync agent ends when its call returns; async ones when their last line is written.
  const end =
    call === undefined || (own && a.endTime !== null)
      ? a.endTime
      : call.endTime === null
        ? null
        : Math.max(call.endTime, a.endTime ?? call.endTime);
  const { endMs, complete } = closing(ctx.cutoff, start, end);
  return {
    traceId: ctx.traceId,
    spanId: agentIdOf(ctx, a.key),
    parentSpanId: call === undefined ? ctx.rootId : toolIdOf(ctx, call.id),
    name: `invoke_agent ${a.agentType}`,
    kind: 'INTERNAL',
    startMs: start,
    endMs,
    attributes: agentAttrs(ctx, a, complete),
    status: { code: 'UNSET' },
    links: [],
    complete,
    turnKey: ctx.turn.promptUuid,
  };
}

/**
 * prompt.id joins a turn with Claude Code's own telemetry (same key); the
 * session's title, agent name and PR links are labels (not in `none` mode).
 */
function putTurnOrigin(attrs: Attrs, ctx: TurnContext): void {
  const { turn } = ctx;
  const info = turn.sessionInfo ?? {};
  const labels = ctx.options.content !== 'none';
  const label = (v: string | null | undefined): string | undefined =>
    labels && v !== null && v !== undefined ? truncateUtf8(scrubText(v), 240) : undefined;
  put(attrs, 'prompt.id', turn.promptId);
  put(attrs, 'claude_code.turn.origin', turn.origin);
  put(attrs, 'claude_code.turn.peer.name', label(turn.peerName));
  put(attrs, 'claude_code.session.kind', turn.sessionKind);
  put(attrs, 'claude_code.entrypoint', turn.entrypoint);
  const senders = [...new Set((turn.teammateMessages ?? []).map((m) => m.from))];
  if (labels && senders.length > 0)
    attrs['claude_code.turn.teammate_message.senders'] = senders.map((s) =>
      truncateUtf8(scrubText(s), 240),
    );
  put(attrs, 'claude_code.permission_mode', turn.permissionMode ?? info.permissionMode);
  put(attrs, 'claude_code.session.mode', info.mode);
  put(attrs, 'claude_code.session.title', label(info.customTitle ?? info.aiTitle));
  put(attrs, 'claude_code.session.agent_name', label(info.agentName));
  const links = info.prLinks ?? [];
  if (!labels || links.length === 0) return;
  const prUrls = links.flatMap((l) => (l.url === null ? [] : [scrubText(l.url)]));
  if (prUrls.length > 0) attrs['claude_code.session.pr_urls'] = prUrls;
}

function rootAttrs(ctx: TurnContext, open: boolean): Attrs {
  const { turn, model } = ctx;
  const sessionId = model.sessionId;
  const attrs: Attrs = { 'gen_ai.operation.name': 'invoke_agent' };
  attrs['gen_ai.agent.name'] = ROOT_AGENT_NAME;
  put(attrs, 'gen_ai.conversation.id', sessionId);
  attrs['gen_ai.invocation.is_nested'] = false;
  put(attrs, 'session.id', sessionId);
  attrs['claude_code.turn.index'] = turn.index;
  put(attrs, 'claude_code.turn.end_state', turn.endState);
  putTurnTotals(attrs, turn.tokens);
  putCost(attrs, sumCost(turn.responseKeys, ctx.costs.byResponse));
  put(attrs, 'claude_code.cwd', turn.cwd);
  put(attrs, 'vcs.repository.ref.name', turn.gitBranch);
  put(attrs, 'claude_code.version', turn.version);
  if (turn.endState === 'api_error') put(attrs, 'error.type', turn.errorType ?? 'api_error');
  putTurnOrigin(attrs, ctx);
  if (open) attrs['claude_code.incomplete'] = true;
  putPrompt(attrs, ctx.options, turn.promptText);
  return attrs;
}

function rootSpan(ctx: TurnContext, previous: Turn | undefined, children: SpanData[]): SpanData {
  const { turn } = ctx;
  const open = turn.endState === 'open';
  // The root covers the turn's own work; an internal side call (its agent span
  // and the chats under it) may outlast it, and may be written after the turn
  // ended: it must not move a root already sent.
  const sideCalls = new Set<string>();
  for (const s of children)
    if (s.attributes['claude_code.agent.internal'] === true) sideCalls.add(s.spanId);
  let childEnd = turn.endTime;
  for (const s of children)
    if (sideCalls.size === 0 || !(sideCalls.has(s.spanId) || sideCalls.has(s.parentSpanId ?? '')))
      childEnd = Math.max(childEnd, s.endMs);
  const endMs = open ? Math.max(childEnd, ctx.cutoff) : childEnd;
  return {
    traceId: ctx.traceId,
    spanId: ctx.rootId,
    parentSpanId: null,
    name: `invoke_agent ${ROOT_AGENT_NAME}`,
    kind: 'INTERNAL',
    startMs: turn.startTime,
    endMs: Math.max(turn.startTime, endMs),
    attributes: rootAttrs(ctx, open),
    status:
      turn.endState === 'api_error'
        ? { code: 'ERROR', message: turn.errorType ?? 'api_error' }
        : { code: 'UNSET' },
    links:
      previous === undefined
        ? []
        : [
            {
              traceId: traceIdFor(previous.promptUuid),
              spanId: turnSpanIdFor(previous.promptUuid),
              attributes: { 'claude_code.link.type': 'previous_turn' },
            },
          ],
    complete: !open,
    turnKey: turn.promptUuid,
  };
}

/**
 * All spans of one turn, root first, then by start time (stable for golden
 * tests), in the schema the options name (GenAI unless told).
 */
export function buildTurnSpans(
  model: SessionModel,
  turnIndex: number,
  costs: SessionCosts,
  options: SpanOptions,
): SpanData[] {
  if (options.schema === 'claude-code')
    return buildNativeTurnSpans(model, turnIndex, costs, options);
  const turn = model.turns[turnIndex];
  if (turn === undefined) return [];
  const ctx: TurnContext = {
    model,
    turn,
    traceId: traceIdFor(turn.promptUuid),
    rootId: turnSpanIdFor(turn.promptUuid),
    cutoff: turnCutoff(model, turnIndex, turn),
    costs,
    options,
    agentIds: new Map(),
    toolIds: new Map(),
  };
  const children: SpanData[] = [];
  // Internal side calls are outside the turn's totals but still exported, under
  // their own invoke_agent span, so their cost is not lost.
  for (const key of [...turn.responseKeys, ...internalResponseKeys(model, turn)]) {
    const r = model.responses.get(key);
    if (r !== undefined) children.push(chatSpan(ctx, r));
  }
  for (const id of turn.toolIds) {
    const t = model.tools.get(id);
    if (t !== undefined) children.push(toolSpan(ctx, t));
  }
  for (const key of turn.agentKeys) {
    const a = model.agents.get(key);
    const span = a === undefined ? null : agentSpan(ctx, a);
    if (span !== null) children.push(span);
  }
  children.sort(
    (a, b) => a.startMs - b.startMs || (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0),
  );
  return [rootSpan(ctx, model.turns[turnIndex - 1], children), ...children];
}

/**
 * How many GenAI spans buildTurnSpans gives for the turn, without building them:
 * what a run that only counts (`export --dry-run` with nothing to compare)
 * needs. Follows buildTurnSpans rule for rule; test/unit/core/spans/build.count.test.ts
 * holds the two equal on every fixture.
 */
export function countTurnSpans(model: SessionModel, turnIndex: number): number {
  const turn = model.turns[turnIndex];
  if (turn === undefined) return 0;
  let count = 1;
  for (const key of turn.responseKeys) if (model.responses.has(key)) count += 1;
  for (const id of turn.toolIds) if (model.tools.has(id)) count += 1;
  for (const key of turn.agentKeys) {
    const a = model.agents.get(key);
    if (a === undefined) continue;
    if (a.internal) for (const k of a.responseKeys) if (model.responses.has(k)) count += 1;
    // agentSpan: no span when neither the spawning call of this turn nor the agent has a start.
    const linked = a.toolUseId === null ? undefined : model.tools.get(a.toolUseId);
    const call = linked !== undefined && linked.turnIndex === turn.index ? linked : undefined;
    if ((call?.startTime ?? a.startTime) !== null) count += 1;
  }
  return count;
}
