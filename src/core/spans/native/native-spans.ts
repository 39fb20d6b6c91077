// Session model → Claude Code's own beta trace schema (--schema claude-code),
// one trace per turn, shaped as its Monitoring page draws it (docs/native-telemetry.md):
//   claude_code.interaction                   the turn
//   ├─ claude_code.llm_request                one per API response
//   └─ claude_code.tool                       one per call
//      ├─ claude_code.tool.blocked_on_user    a rejected call: the transcript shows that answer
//      ├─ claude_code.tool.execution          a call that ran
//      └─ a sub-agent's llm_request and tool spans, under the call that spawned it
// What a transcript cannot know (ttft_ms, attempt, client_request_id) is left
// out rather than made up; what ccotel knows beyond the schema is under ccotel.*.
import { sumCost, type SessionCosts } from '../../cost/session-cost.js';
import type {
  AgentKey,
  ApiResponse,
  SessionModel,
  ToolCall,
  Turn,
} from '../../model/session-model.js';
import type { AttributeValue, SpanData, SpanLink, SpanOptions } from '../data.js';
import { toolLabelFor, truncateUtf8 } from '../content.js';
import { promptLabel } from '../labels.js';
import { scrubText } from '../scrub.js';
import { nativeSpanIdFor, nativeTraceIdFor } from '../ids.js';
import {
  agentIdsOf,
  parentOfWork,
  querySourceOf,
  speedOf,
  workflowOf,
  type TurnPlace,
  type WorkParent,
} from './native-agents.js';
import { interactionSpanIdFor, requestSpanIdFor, toolCallSpanIdFor } from './native-ids.js';
import { closing, internalResponseKeys, isRejected, turnCutoff } from '../turn-work.js';

type Attrs = Record<string, AttributeValue>;

const UNSET: SpanData['status'] = { code: 'UNSET' };

/** What Claude Code writes for a prompt it does not log (OTEL_LOG_USER_PROMPTS unset). */
export const REDACTED = '<REDACTED>';

function put(attrs: Attrs, key: string, value: AttributeValue | null | undefined): void {
  if (value !== null && value !== undefined && value !== '') attrs[key] = value;
}

/**
 * workflow.run_id and workflow.name of a workflow agent's work; the name is
 * `custom` without content labels, as Claude Code writes a user-authored one
 * unless told to log tool details.
 */
export function putWorkflow(
  attrs: Attrs,
  model: SessionModel,
  agentKey: AgentKey,
  options: SpanOptions,
): void {
  const run = workflowOf(model, agentKey);
  if (run === null) return;
  attrs['workflow.run_id'] = run.runId;
  const name = options.content === 'none' || run.name === null ? 'custom' : scrubText(run.name);
  attrs['workflow.name'] = truncateUtf8(name, 240);
}

function putCost(attrs: Attrs, cost: number | null): void {
  if (cost !== null) attrs['ccotel.cost.usd'] = Math.round(cost * 1e6) / 1e6;
}

interface NativeTurn extends TurnPlace {
  traceId: string;
  /** Where unfinished work is cut off (as in the GenAI schema). */
  cutoff: number;
  costs: SessionCosts;
  options: SpanOptions;
}

function standard(nt: NativeTurn, spanType: string): Attrs {
  const attrs: Attrs = {};
  put(attrs, 'session.id', nt.model.sessionId);
  attrs['span.type'] = spanType;
  return attrs;
}

function span(
  nt: NativeTurn,
  fields: Pick<SpanData, 'spanId' | 'parentSpanId' | 'name' | 'startMs' | 'endMs' | 'attributes'> &
    Partial<Pick<SpanData, 'status' | 'links' | 'complete'>>,
): SpanData {
  return {
    traceId: nt.traceId,
    kind: 'INTERNAL',
    status: { code: 'UNSET' },
    links: [],
    complete: true,
    turnKey: nt.turn.promptUuid,
    ...fields,
  };
}

function requestAttrs(nt: NativeTurn, r: ApiResponse, parent: WorkParent): Attrs {
  const attrs = standard(nt, 'llm_request');
  const model = r.model ?? 'unknown';
  attrs.model = model;
  attrs['gen_ai.system'] = 'anthropic';
  attrs['gen_ai.request.model'] = model;
  attrs.query_source = querySourceOf(nt.model, r.agentKey);
  const ids = agentIdsOf(nt.model, r.agentKey);
  put(attrs, 'agent_id', ids.agentId);
  put(attrs, 'parent_agent_id', ids.parentAgentId);
  putWorkflow(attrs, nt.model, r.agentKey, nt.options);
  put(attrs, 'speed', speedOf(r.usage?.speed));
  attrs['llm_request.context'] = parent.context;
  attrs.duration_ms = Math.max(0, Math.round(r.endTime - r.startTime));
  const usage = r.usage;
  if (usage !== null) {
    attrs.input_tokens = usage.input;
    attrs.output_tokens = usage.output;
    attrs.cache_read_tokens = usage.cacheRead;
    attrs.cache_creation_tokens = usage.cacheWrite;
  }
  put(attrs, 'request_id', r.requestId);
  put(attrs, 'gen_ai.response.id', r.requestId);
  attrs.success = !r.isApiError;
  if (r.isApiError) attrs.error = r.errorType ?? 'api_error';
  attrs['response.has_tool_call'] = r.toolUseIds.length > 0;
  if (!r.isApiError && r.stopReason !== null) {
    attrs.stop_reason = r.stopReason;
    attrs['gen_ai.response.finish_reasons'] = [r.stopReason];
  }
  putCost(attrs, nt.costs.byResponse.get(r.key) ?? null);
  attrs['ccotel.message.id'] = r.messageId;
  return attrs;
}

function requestSpan(nt: NativeTurn, r: ApiResponse): SpanData {
  const parent = parentOfWork(nt, r.agentKey);
  return span(nt, {
    spanId: requestSpanIdFor(r.key),
    parentSpanId: parent.spanId,
    name: 'claude_code.llm_request',
    startMs: r.startTime,
    endMs: Math.max(r.startTime, r.endTime),
    attributes: requestAttrs(nt, r, parent),
    status: r.isApiError
      ? { code: 'ERROR', message: r.errorType ?? 'api_error' }
      : { code: 'UNSET' },
  });
}

/** The gated details of a call (OTEL_LOG_TOOL_DETAILS there): `full` content only, scrubbed. */
function putToolDetails(attrs: Attrs, options: SpanOptions, t: ToolCall): void {
  if (options.content !== 'full') return;
  const text = (v: unknown): string | null =>
    typeof v === 'string' ? truncateUtf8(scrubText(v), options.maxAttributeBytes) : null;
  const input = t.input;
  if (t.name === 'Read' || t.name === 'Edit' || t.name === 'Write')
    put(attrs, 'file_path', text(input.file_path));
  if (t.name === 'Bash') put(attrs, 'full_command', text(input.command));
  if (t.name === 'Skill') put(attrs, 'skill_name', text(input.skill ?? input.command));
  if (t.name === 'Agent' || t.name === 'Task')
    put(attrs, 'subagent_type', text(input.subagent_type));
}

/** The request that asked for the call: the link Claude Code's tool spans lack. */
function requestLink(nt: NativeTurn, t: ToolCall): SpanLink[] {
  if (t.responseKey === null || !nt.model.responses.has(t.responseKey)) return [];
  return [
    {
      traceId: nt.traceId,
      spanId: requestSpanIdFor(t.responseKey),
      attributes: { 'ccotel.link.type': 'requested_by' },
    },
  ];
}

function toolAttrs(nt: NativeTurn, t: ToolCall, duration: number, complete: boolean): Attrs {
  const ids = agentIdsOf(nt.model, t.agentKey);
  const attrs = standard(nt, 'tool');
  attrs.tool_name = t.name;
  attrs.duration_ms = duration;
  put(attrs, 'agent_id', ids.agentId);
  put(attrs, 'parent_agent_id', ids.parentAgentId);
  putWorkflow(attrs, nt.model, t.agentKey, nt.options);
  attrs.tool_use_id = t.id;
  attrs['gen_ai.tool.call.id'] = t.id;
  putToolDetails(attrs, nt.options, t);
  put(attrs, 'ccotel.tool.label', toolLabelFor(nt.options.content, t));
  if (t.responseKey !== null)
    put(attrs, 'ccotel.request_id', nt.model.responses.get(t.responseKey)?.requestId);
  if (t.transcriptMissing) {
    // A sub-agent whose transcript is gone: only its call's result tells of it.
    attrs['ccotel.agent.transcript_missing'] = true;
    put(attrs, 'ccotel.agent.id', t.agentReport?.agentId);
  }
  if (!complete) attrs['ccotel.incomplete'] = true;
  return attrs;
}

/** The call's part below it: the wait for a rejection (the transcript shows only that answer), else its run. */
function toolPart(nt: NativeTurn, t: ToolCall, duration: number, complete: boolean) {
  if (isRejected(t)) {
    // When the prompt appeared is not written: the wait is bounded by the call.
    const blocked = standard(nt, 'tool.blocked_on_user');
    blocked.duration_ms = duration;
    blocked.decision = 'reject';
    blocked.source = 'user_reject';
    return { name: 'tool.blocked_on_user', attributes: blocked, status: UNSET };
  }
  const execution = standard(nt, 'tool.execution');
  execution.duration_ms = duration;
  execution.tool_use_id = t.id;
  execution['gen_ai.tool.call.id'] = t.id;
  if (complete) execution.success = t.status !== 'error';
  if (t.status === 'error') execution['ccotel.error.type'] = t.errorType ?? 'tool_error';
  if (!complete) execution['ccotel.incomplete'] = true;
  const status: SpanData['status'] =
    t.status === 'error' ? { code: 'ERROR', message: t.errorType ?? 'tool_error' } : UNSET;
  return { name: 'tool.execution', attributes: execution, status };
}

function toolSpans(nt: NativeTurn, t: ToolCall): SpanData[] {
  const { endMs, complete } = closing(nt.cutoff, t.startTime, t.endTime);
  const toolId = toolCallSpanIdFor(t.id);
  const duration = Math.max(0, Math.round(endMs - t.startTime));
  const times = { startMs: t.startTime, endMs, complete };
  const part = toolPart(nt, t, duration, complete);
  return [
    span(nt, {
      spanId: toolId,
      parentSpanId: parentOfWork(nt, t.agentKey).spanId,
      name: 'claude_code.tool',
      ...times,
      attributes: toolAttrs(nt, t, duration, complete),
      links: requestLink(nt, t),
    }),
    span(nt, {
      spanId: nativeSpanIdFor(part.name, t.id),
      parentSpanId: toolId,
      name: `claude_code.${part.name}`,
      ...times,
      attributes: part.attributes,
      status: part.status,
    }),
  ];
}

function interactionAttrs(nt: NativeTurn, startMs: number, endMs: number, open: boolean): Attrs {
  const { turn, options } = nt;
  const attrs = standard(nt, 'interaction');
  const text = turn.promptText;
  if (text !== null) {
    const scrubbed = scrubText(text);
    attrs.user_prompt =
      options.content === 'full' ? truncateUtf8(scrubbed, options.maxAttributeBytes) : REDACTED;
    if (options.content !== 'none') put(attrs, 'ccotel.turn.label', promptLabel(scrubbed));
  }
  put(attrs, 'user_prompt_length', turn.promptLength ?? text?.length);
  attrs['interaction.sequence'] = turn.index + 1;
  attrs['interaction.duration_ms'] = Math.max(0, Math.round(endMs - startMs));
  put(attrs, 'ccotel.prompt.id', turn.promptId);
  put(attrs, 'ccotel.turn.end_state', turn.endState);
  putCost(attrs, sumCost(turn.responseKeys, nt.costs.byResponse));
  if (open) attrs['ccotel.incomplete'] = true;
  return attrs;
}

function interactionSpan(
  nt: NativeTurn,
  previous: Turn | undefined,
  children: SpanData[],
): SpanData {
  const { turn } = nt;
  const open = turn.endState === 'open';
  // A side call (standalone request) may outlast the turn and be written after
  // it ended: it must not move a root already sent.
  let childEnd = turn.endTime;
  for (const s of children)
    if (s.attributes['llm_request.context'] !== 'standalone')
      childEnd = Math.max(childEnd, s.endMs);
  const endMs = Math.max(turn.startTime, open ? Math.max(childEnd, nt.cutoff) : childEnd);
  return span(nt, {
    spanId: nt.rootId,
    parentSpanId: null,
    name: 'claude_code.interaction',
    startMs: turn.startTime,
    endMs,
    attributes: interactionAttrs(nt, turn.startTime, endMs, open),
    complete: !open,
    links:
      previous === undefined
        ? []
        : [
            {
              traceId: nativeTraceIdFor(previous.promptUuid),
              spanId: interactionSpanIdFor(previous.promptUuid),
              attributes: { 'ccotel.link.type': 'previous_turn' },
            },
          ],
  });
}

/** All spans of one turn in Claude Code's schema, root first, then by start time. */
export function buildNativeTurnSpans(
  model: SessionModel,
  turnIndex: number,
  costs: SessionCosts,
  options: SpanOptions,
): SpanData[] {
  const turn = model.turns[turnIndex];
  if (turn === undefined) return [];
  const nt: NativeTurn = {
    model,
    turn,
    traceId: nativeTraceIdFor(turn.promptUuid),
    rootId: interactionSpanIdFor(turn.promptUuid),
    cutoff: turnCutoff(model, turnIndex, turn),
    costs,
    options,
  };
  const children: SpanData[] = [];
  for (const key of [...turn.responseKeys, ...internalResponseKeys(model, turn)]) {
    const r = model.responses.get(key);
    if (r !== undefined) children.push(requestSpan(nt, r));
  }
  for (const id of turn.toolIds) {
    const t = model.tools.get(id);
    if (t !== undefined) children.push(...toolSpans(nt, t));
  }
  // By start; a call before its own blocked/execution span of the same start.
  children.sort(
    (a, b) =>
      a.startMs - b.startMs ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0),
  );
  return [interactionSpan(nt, model.turns[turnIndex - 1], children), ...children];
}
