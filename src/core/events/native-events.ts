// Session model → Claude Code's events (--schema claude-code), as OTLP log
// records: user_prompt, api_request, api_error, tool_result and tool_decision,
// with the attributes its Monitoring page lists (docs/native-telemetry.md).
// Only what the transcript shows: a decision only where a call was rejected,
// no error category, no client_request_id or attempt.
import type { SessionCosts } from '../cost/session-cost.js';
import type { ApiResponse, SessionModel, ToolCall, Turn } from '../model/session-model.js';
import type { AttributeValue, SpanOptions } from '../spans/data.js';
import { truncateUtf8 } from '../spans/content.js';
import { scrubText } from '../spans/scrub.js';
import { eventUidFor, nativeTraceIdFor } from '../spans/ids.js';
import {
  interactionSpanIdFor,
  requestSpanIdFor,
  toolCallSpanIdFor,
} from '../spans/native/native-ids.js';
import { querySourceOf, speedOf } from '../spans/native/native-agents.js';
import { putWorkflow, REDACTED } from '../spans/native/native-spans.js';
import { internalResponseKeys, isRejected } from '../spans/turn-work.js';
import type { LogRecordData } from './log-record.js';

type Attrs = Record<string, AttributeValue>;

/**
 * event.sequence grows through a session: the turn's index times this, plus
 * the event's place in the turn. A re-run, a segment or the daemon gives every
 * event the same number without counting the turns before it.
 */
export const SEQUENCE_PER_TURN = 1_000_000;

interface Pending {
  timeMs: number;
  name: string;
  /** What makes the event unique in the session (its uid is hashed from it). */
  key: string;
  attributes: Attrs;
  /** Span id of the work it tells of; null: the interaction. */
  of: string | null;
}

function put(attrs: Attrs, key: string, value: AttributeValue | null | undefined): void {
  if (value !== null && value !== undefined && value !== '') attrs[key] = value;
}

function userPrompt(turn: Turn, options: SpanOptions): Pending | null {
  const text = turn.promptText;
  if (text === null) return null;
  const attrs: Attrs = {};
  put(attrs, 'prompt_length', turn.promptLength ?? text.length);
  attrs.prompt =
    options.content === 'full'
      ? truncateUtf8(scrubText(text), options.maxAttributeBytes)
      : REDACTED;
  attrs['message.uuid'] = turn.promptUuid;
  return {
    timeMs: turn.startTime,
    name: 'user_prompt',
    key: turn.promptUuid,
    attributes: attrs,
    of: null,
  };
}

function apiEvent(
  model: SessionModel,
  r: ApiResponse,
  costs: SessionCosts,
  options: SpanOptions,
): Pending {
  const attrs: Attrs = { model: r.model ?? 'unknown' };
  putWorkflow(attrs, model, r.agentKey, options);
  const duration = Math.max(0, Math.round(r.endTime - r.startTime));
  if (r.isApiError) {
    attrs.error = r.errorType ?? 'api_error';
    attrs.duration_ms = duration;
  } else {
    const cost = costs.byResponse.get(r.key) ?? null;
    if (cost !== null) {
      attrs.cost_usd = Math.round(cost * 1e6) / 1e6;
      attrs.cost_usd_micros = Math.round(cost * 1e6);
    }
    attrs.duration_ms = duration;
    const usage = r.usage;
    attrs.input_tokens = usage?.input ?? 0;
    attrs.output_tokens = usage?.output ?? 0;
    attrs.cache_read_tokens = usage?.cacheRead ?? 0;
    attrs.cache_creation_tokens = usage?.cacheWrite ?? 0;
  }
  put(attrs, 'request_id', r.requestId);
  put(attrs, 'speed', speedOf(r.usage?.speed));
  attrs.query_source = querySourceOf(model, r.agentKey);
  return {
    timeMs: Math.max(r.startTime, r.endTime),
    name: r.isApiError ? 'api_error' : 'api_request',
    key: r.key,
    attributes: attrs,
    of: requestSpanIdFor(r.key),
  };
}

/** A finished call: its result, or the rejection that stood in for one. */
function toolEvent(model: SessionModel, t: ToolCall, options: SpanOptions): Pending | null {
  if (t.endTime === null) return null;
  const attrs: Attrs = { tool_name: t.name, tool_use_id: t.id };
  putWorkflow(attrs, model, t.agentKey, options);
  const rejected = isRejected(t);
  if (rejected) {
    attrs.decision = 'reject';
    attrs.source = 'user_reject';
  } else {
    attrs.success = t.status === 'error' ? 'false' : 'true';
    attrs.duration_ms = Math.max(0, Math.round(t.endTime - t.startTime));
    attrs.decision_type = 'accept';
  }
  return {
    timeMs: t.endTime,
    name: rejected ? 'tool_decision' : 'tool_result',
    key: t.id,
    attributes: attrs,
    of: toolCallSpanIdFor(t.id),
  };
}

/** The turn's events in time order, each with the standard and correlation attributes. */
export function buildTurnEvents(
  model: SessionModel,
  turnIndex: number,
  costs: SessionCosts,
  options: SpanOptions,
): LogRecordData[] {
  const turn = model.turns[turnIndex];
  if (turn === undefined) return [];
  const pending: Pending[] = [];
  const prompt = userPrompt(turn, options);
  if (prompt !== null) pending.push(prompt);
  for (const key of [...turn.responseKeys, ...internalResponseKeys(model, turn)]) {
    const r = model.responses.get(key);
    if (r !== undefined) pending.push(apiEvent(model, r, costs, options));
  }
  for (const id of turn.toolIds) {
    const t = model.tools.get(id);
    const event = t === undefined ? null : toolEvent(model, t, options);
    if (event !== null) pending.push(event);
  }
  // The prompt first, then by time; a stable order for events of the same millisecond.
  pending.sort(
    (a, b) =>
      Number(b === prompt) - Number(a === prompt) ||
      a.timeMs - b.timeMs ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  const traceId = nativeTraceIdFor(turn.promptUuid);
  const spanId = interactionSpanIdFor(turn.promptUuid);
  const promptId = turn.promptId ?? turn.promptUuid;
  return pending.map((p, i) => {
    const attributes: Attrs = {};
    put(attributes, 'session.id', model.sessionId);
    attributes['event.name'] = p.name;
    attributes['event.timestamp'] = new Date(p.timeMs).toISOString();
    attributes['event.sequence'] = turn.index * SEQUENCE_PER_TURN + i + 1;
    attributes['prompt.id'] = promptId;
    Object.assign(attributes, p.attributes);
    attributes['log.record.uid'] = eventUidFor(p.name, p.key);
    return {
      timeMs: p.timeMs,
      body: `claude_code.${p.name}`,
      attributes,
      traceId,
      spanId,
      turnKey: turn.promptUuid,
      of: p.of ?? spanId,
    };
  });
}
