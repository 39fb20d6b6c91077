// Session model → spans, one trace per turn (see docs/spans.md):
//   invoke_agent Claude Code (turn root)
//   ├─ chat {model}                      one per API response
//   ├─ execute_tool {tool}               one per call
//   └─ execute_tool Agent|Task
//      └─ invoke_agent {subagent_type}   its chats and calls below it, at any depth
// Token totals of turns and agents go under claude_code.* so that summing
// gen_ai.usage.* over chat spans never double counts.
import { totalInput } from './assemble.js';
import { sumCost, type SessionCosts } from './session-cost.js';
import type {
  ApiResponse,
  SessionModel,
  SubAgent,
  TokenTotals,
  ToolCall,
  Turn,
} from './session-model.js';
import type { AttributeValue, SpanData, SpanOptions } from './span-data.js';
import type { Usage } from './records.js';
import {
  agentDescriptionAttrs,
  promptAttrs,
  toolContentAttrs,
  toolLabelFor,
  truncateUtf8,
} from './span-content.js';
import { scrubText } from './scrub.js';
import {
  agentSpanIdFor,
  chatSpanIdFor,
  toolSpanIdFor,
  traceIdFor,
  turnSpanIdFor,
} from './span-ids.js';

export const PROVIDER = 'anthropic';
export const ROOT_AGENT_NAME = 'Claude Code';

type Attrs = Record<string, AttributeValue>;

const round2 = (x: number): number => Math.round(x * 100) / 100;

function costAttr(cost: number | null): Attrs {
  return cost === null ? {} : { 'claude_code.cost.usd': Math.round(cost * 1e6) / 1e6 };
}

/** The parts of a response's usage beyond the GenAI four: TTL split, thinking, server tools, speed. */
function usageDetailAttrs(usage: Usage | null): Attrs {
  if (usage === null) return {};
  const writes = usage.cacheWrite > 0;
  return withoutNulls({
    'claude_code.usage.cache_write_5m.input_tokens': writes
      ? Math.max(0, usage.cacheWrite - usage.cacheWrite1h)
      : undefined,
    'claude_code.usage.cache_write_1h.input_tokens': writes ? usage.cacheWrite1h : undefined,
    'claude_code.usage.thinking_tokens': usage.thinkingTokens,
    'claude_code.usage.web_search_requests': usage.webSearchRequests,
    'claude_code.usage.web_fetch_requests': usage.webFetchRequests,
    'claude_code.usage.speed': usage.speed,
  });
}

/** A Task/Agent call whose sub-agent transcript is missing carries what its result reported. */
function reportedAgentAttrs(t: ToolCall): Attrs {
  const r = t.agentReport;
  if (!t.transcriptMissing || r === null) return {};
  return withoutNulls({
    'claude_code.agent.transcript_missing': true,
    'claude_code.agent.id': r.agentId,
    'claude_code.agent.reported.total_tokens': r.totalTokens,
    'claude_code.agent.reported.tool_use_count': r.toolUseCount,
    'claude_code.agent.reported.duration_ms': r.durationMs,
    'claude_code.agent.reported.last_call.input_tokens':
      r.usage === null ? null : totalInput(r.usage),
    'claude_code.agent.reported.last_call.output_tokens': r.usage?.output,
    'claude_code.agent.reported.last_call.cache_read_tokens': r.usage?.cacheRead,
    'claude_code.agent.reported.last_call.cache_write_tokens': r.usage?.cacheWrite,
  });
}

function totalsAttrs(prefix: string, t: TokenTotals): Attrs {
  return {
    [`${prefix}.input_tokens`]: t.input,
    [`${prefix}.output_tokens`]: t.output,
    [`${prefix}.cache_read_tokens`]: t.cacheRead,
    [`${prefix}.cache_write_tokens`]: t.cacheWrite,
  };
}

function withoutNulls(attrs: Record<string, AttributeValue | null | undefined>): Attrs {
  const out: Attrs = {};
  for (const [k, v] of Object.entries(attrs))
    if (v !== null && v !== undefined && v !== '') out[k] = v;
  return out;
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
}

/** End time and completeness of a piece of work that may still be running. */
function closing(
  ctx: TurnContext,
  start: number,
  end: number | null,
): { endMs: number; complete: boolean } {
  if (end !== null) return { endMs: Math.max(start, end), complete: true };
  return { endMs: Math.max(start, ctx.cutoff), complete: false };
}

function incompleteAttrs(complete: boolean): Attrs {
  return complete ? {} : { 'claude_code.incomplete': true };
}

function agentTypeOf(model: SessionModel, agentKey: string | null): string {
  return agentKey === null ? 'main' : (model.agents.get(agentKey)?.agentType ?? 'subagent');
}

/** Span id of the agent span a piece of work hangs under. */
function parentOf(ctx: TurnContext, agentKey: string | null): string {
  if (agentKey === null) return ctx.rootId;
  return ctx.model.agents.has(agentKey) ? agentSpanIdFor(agentKey) : ctx.rootId;
}

function chatSpan(ctx: TurnContext, r: ApiResponse): SpanData {
  const usage = r.usage;
  const model = r.model ?? 'unknown';
  return {
    traceId: ctx.traceId,
    spanId: chatSpanIdFor(r.key),
    parentSpanId: parentOf(ctx, r.agentKey),
    name: `chat ${model}`,
    kind: 'CLIENT',
    startMs: r.startTime,
    endMs: Math.max(r.startTime, r.endTime),
    attributes: withoutNulls({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': PROVIDER,
      'gen_ai.conversation.id': ctx.model.sessionId,
      'session.id': ctx.model.sessionId,
      'gen_ai.request.model': model,
      'gen_ai.response.model': model,
      'gen_ai.response.id': r.messageId,
      'gen_ai.response.finish_reasons': r.isApiError
        ? ['error']
        : r.stopReason === null
          ? undefined
          : [r.stopReason],
      'gen_ai.usage.input_tokens': usage === null ? 0 : totalInput(usage),
      'gen_ai.usage.output_tokens': usage?.output ?? 0,
      'gen_ai.usage.cache_read.input_tokens': usage?.cacheRead ?? 0,
      'gen_ai.usage.cache_write.input_tokens': usage?.cacheWrite ?? 0,
      ...usageDetailAttrs(usage),
      'claude_code.agent.type': agentTypeOf(ctx.model, r.agentKey),
      'claude_code.request.id': r.requestId,
      'error.type': r.isApiError ? (r.errorType ?? 'api_error') : undefined,
      ...costAttr(ctx.costs.byResponse.get(r.key) ?? null),
    }),
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

function toolSpan(ctx: TurnContext, t: ToolCall): SpanData {
  const tokens = callTokens(ctx, t);
  const input = tokens.input;
  const { endMs, complete } = closing(ctx, t.startTime, t.endTime);
  return {
    traceId: ctx.traceId,
    spanId: toolSpanIdFor(t.id),
    parentSpanId: parentOf(ctx, t.agentKey),
    name: `execute_tool ${t.name}`,
    kind: 'INTERNAL',
    startMs: t.startTime,
    endMs,
    attributes: withoutNulls({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.conversation.id': ctx.model.sessionId,
      'session.id': ctx.model.sessionId,
      'gen_ai.tool.name': t.name,
      'gen_ai.tool.call.id': t.id,
      'gen_ai.tool.type': 'function',
      'claude_code.tool.label': toolLabelFor(ctx.options.content, t.name, t.label),
      'claude_code.tokens.input': input,
      'claude_code.tokens.output': tokens.output,
      'claude_code.context.fill_percent': round2((input / ctx.turn.contextWindow) * 100),
      'claude_code.agent.type': agentTypeOf(ctx.model, t.agentKey),
      'error.type': t.status === 'error' ? (t.errorType ?? 'tool_error') : undefined,
      ...incompleteAttrs(complete),
      ...reportedAgentAttrs(t),
      ...toolContentAttrs(ctx.options, t.input, t.output),
    }),
    status:
      t.status === 'error'
        ? { code: 'ERROR', message: t.errorType ?? 'tool_error' }
        : { code: 'UNSET' },
    links: [],
    complete,
    turnKey: ctx.turn.promptUuid,
  };
}

function agentSpan(ctx: TurnContext, a: SubAgent): SpanData | null {
  // The spawning call's span exists only if the call belongs to this turn (a
  // call made before the first prompt belongs to none): otherwise hang the agent
  // under the turn root rather than under a span no trace holds.
  const linked = a.toolUseId === null ? undefined : ctx.model.tools.get(a.toolUseId);
  const call = linked !== undefined && linked.turnIndex === ctx.turn.index ? linked : undefined;
  const start = call?.startTime ?? a.startTime;
  if (start === null) return null;
  // A sync agent ends when its call returns; async ones when their last line is written.
  const end =
    call === undefined
      ? a.endTime
      : call.endTime === null
        ? null
        : Math.max(call.endTime, a.endTime ?? call.endTime);
  const { endMs, complete } = closing(ctx, start, end);
  return {
    traceId: ctx.traceId,
    spanId: agentSpanIdFor(a.key),
    parentSpanId: call === undefined ? ctx.rootId : toolSpanIdFor(call.id),
    name: `invoke_agent ${a.agentType}`,
    kind: 'INTERNAL',
    startMs: start,
    endMs,
    attributes: withoutNulls({
      // No gen_ai.provider.name: gen_ai.invocation.internal has none (docs/spans.md).
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': a.agentType,
      'gen_ai.conversation.id': ctx.model.sessionId,
      'session.id': ctx.model.sessionId,
      'gen_ai.invocation.is_nested': true,
      'claude_code.agent.id': a.agentId ?? a.key,
      'claude_code.agent.type': a.fork ? 'fork' : undefined,
      'claude_code.agent.name': a.name,
      'claude_code.agent.internal': a.internal ? true : undefined,
      ...totalsAttrs('claude_code.agent', a.tokens),
      ...costAttr(sumCost(a.responseKeys, ctx.costs.byResponse)),
      ...agentDescriptionAttrs(ctx.options, a.description),
      ...incompleteAttrs(complete),
    }),
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
function turnOriginAttrs(ctx: TurnContext): Attrs {
  const { turn } = ctx;
  const info = turn.sessionInfo ?? {};
  const labels = ctx.options.content !== 'none';
  const label = (v: string | null | undefined): string | undefined =>
    labels && v !== null && v !== undefined ? truncateUtf8(scrubText(v), 240) : undefined;
  const prUrls = (info.prLinks ?? []).flatMap((l) => (l.url === null ? [] : [scrubText(l.url)]));
  return withoutNulls({
    'prompt.id': turn.promptId,
    'claude_code.turn.origin': turn.origin,
    'claude_code.turn.peer.name': label(turn.peerName),
    'claude_code.permission_mode': turn.permissionMode ?? info.permissionMode,
    'claude_code.session.mode': info.mode,
    'claude_code.session.title': label(info.customTitle ?? info.aiTitle),
    'claude_code.session.agent_name': label(info.agentName),
    'claude_code.session.pr_urls': labels && prUrls.length > 0 ? prUrls : undefined,
  });
}

function rootSpan(ctx: TurnContext, previous: Turn | undefined, children: SpanData[]): SpanData {
  const { turn, model } = ctx;
  const open = turn.endState === 'open';
  // The root covers the turn's own work; an internal side call (its agent span
  // and the chats under it) may outlast it, and may be written after the turn
  // ended: it must not move a root already sent.
  const sideCalls = new Set(
    children
      .filter((s) => s.attributes['claude_code.agent.internal'] === true)
      .map((s) => s.spanId),
  );
  const childEnd = children.reduce(
    (m, s) =>
      sideCalls.has(s.spanId) || sideCalls.has(s.parentSpanId ?? '') ? m : Math.max(m, s.endMs),
    turn.endTime,
  );
  const endMs = open ? Math.max(childEnd, ctx.cutoff) : childEnd;
  return {
    traceId: ctx.traceId,
    spanId: ctx.rootId,
    parentSpanId: null,
    name: `invoke_agent ${ROOT_AGENT_NAME}`,
    kind: 'INTERNAL',
    startMs: turn.startTime,
    endMs: Math.max(turn.startTime, endMs),
    attributes: withoutNulls({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': ROOT_AGENT_NAME,
      'gen_ai.conversation.id': model.sessionId,
      'gen_ai.invocation.is_nested': false,
      'session.id': model.sessionId,
      'claude_code.turn.index': turn.index,
      'claude_code.turn.end_state': turn.endState,
      ...totalsAttrs('claude_code.turn', turn.tokens),
      ...costAttr(sumCost(turn.responseKeys, ctx.costs.byResponse)),
      'claude_code.cwd': turn.cwd,
      'vcs.repository.ref.name': turn.gitBranch,
      'claude_code.version': turn.version,
      'error.type': turn.endState === 'api_error' ? (turn.errorType ?? 'api_error') : undefined,
      ...turnOriginAttrs(ctx),
      ...incompleteAttrs(!open),
      ...promptAttrs(ctx.options, turn.promptText),
    }),
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

/** All spans of one turn, root first, then by start time (stable for golden tests). */
export function buildTurnSpans(
  model: SessionModel,
  turnIndex: number,
  costs: SessionCosts,
  options: SpanOptions,
): SpanData[] {
  const turn = model.turns[turnIndex];
  if (turn === undefined) return [];
  const ctx: TurnContext = {
    model,
    turn,
    traceId: traceIdFor(turn.promptUuid),
    rootId: turnSpanIdFor(turn.promptUuid),
    // A closed turn's unfinished work ends with the turn, so its spans stop
    // changing once a later turn starts; only the last turn runs to the end of the session.
    cutoff:
      turnIndex === model.turns.length - 1 && model.moreTurnsFollow !== true
        ? (model.lastTimestamp ?? turn.endTime)
        : turn.endTime,
    costs,
    options,
  };
  const children: SpanData[] = [];
  // Internal side calls are outside the turn's totals but still exported, under
  // their own invoke_agent span, so their cost is not lost.
  const internalKeys = turn.agentKeys.flatMap((k) => {
    const a = model.agents.get(k);
    return a?.internal === true ? a.responseKeys : [];
  });
  for (const key of [...turn.responseKeys, ...internalKeys]) {
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

export function buildSessionSpans(
  model: SessionModel,
  costs: SessionCosts,
  options: SpanOptions,
): SpanData[] {
  return model.turns.flatMap((t) => buildTurnSpans(model, t.index, costs, options));
}
