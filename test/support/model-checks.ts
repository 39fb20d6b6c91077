// Shared invariants for the fuzz and fault suites: the in-memory pipeline
// (bytes → lines → records → state → model → rows → spans) and the checks every
// output of it must pass, whatever the input was. Each check returns a list of
// problems (empty when all is well) so a property can print all of them.
import { finish } from '../../src/core/model/assemble/finish.js';
import { createLineSplitter } from '../../src/core/transcript/line-splitter.js';
import { parseRecord, type ParseOutcome } from '../../src/core/transcript/parse-record.js';
import type { PriceTable } from '../../src/core/cost/pricing.js';
import { costSession } from '../../src/core/cost/session-cost.js';
import type { SessionModel } from '../../src/core/model/session-model.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  step,
  type AgentMeta,
  type SessionState,
} from '../../src/core/session/state.js';
import type { SpanData, SpanOptions } from '../../src/core/spans/data.js';
import { buildTurnSpans } from '../../src/core/spans/build.js';
import { buildWaterfall } from '../../src/core/view/waterfall.js';
import type { WaterfallRow } from '../../src/core/view/waterfall-row.js';

/** One transcript file held in memory. agentId: from an agent-<id>.jsonl name, null for the main file. */
export interface MemFile {
  file: string;
  agentId: string | null;
  bytes: Buffer;
}

export interface PipelineResult {
  state: SessionState;
  model: SessionModel;
  rows: WaterfallRow[];
  spans: SpanData[];
  /** Per file: bytes held back as an unterminated last line. */
  pending: Map<string, number>;
}

export const NO_PRICES: PriceTable = { models: [] };
export const PRICES: PriceTable = {
  models: [
    { match: 'claude', input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6 },
  ],
};

/** Feeds bytes through the splitter in chunks of `chunk` bytes (the reader's path, minus the disk). */
export function splitLines(
  bytes: Buffer,
  chunk = 1 << 20,
): { lines: { number: number; text: string }[]; pending: number } {
  const splitter = createLineSplitter();
  const lines: { number: number; text: string }[] = [];
  for (let i = 0; i < bytes.length; i += chunk)
    lines.push(...splitter.push(bytes.subarray(i, i + chunk)));
  return { lines, pending: splitter.pendingBytes };
}

/** The same fold load-session.ts does, from memory. */
export function foldFiles(
  files: MemFile[],
  sessionId = 'fuzz-session',
  metas: AgentMeta[] = [],
  textLimit?: number,
  chunk?: number,
): { state: SessionState; pending: Map<string, number> } {
  const main = files.find((f) => f.agentId === null) ?? files[0];
  const state = createSessionState(sessionId, main?.file ?? 'main.jsonl');
  for (const meta of metas) addAgentMeta(state, meta);
  for (const f of files) if (f.agentId !== null) registerAgentFile(state, f.agentId, f.file);
  const pending = new Map<string, number>();
  for (const f of files) {
    const { lines, pending: rest } = splitLines(f.bytes, chunk);
    pending.set(f.file, rest);
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      step(
        state,
        { file: f.file, agentId: f.agentId },
        line.number,
        parseRecord(line.text, textLimit === undefined ? {} : { textLimit }),
      );
    }
  }
  return { state, pending };
}

export const DEFAULT_SPAN_OPTIONS: SpanOptions = { content: 'full', maxAttributeBytes: 2048 };

export function runPipeline(
  files: MemFile[],
  options: { metas?: AgentMeta[]; spans?: SpanOptions; textLimit?: number; chunk?: number } = {},
): PipelineResult {
  const { state, pending } = foldFiles(
    files,
    'fuzz-session',
    options.metas ?? [],
    options.textLimit,
    options.chunk,
  );
  return fromState(state, pending, options.spans);
}

export function fromState(
  state: SessionState,
  pending: Map<string, number>,
  spanOptions: SpanOptions = DEFAULT_SPAN_OPTIONS,
): PipelineResult {
  const model = finish(state);
  const rows = buildWaterfall(model);
  const spans = ((costs) =>
    model.turns.flatMap((t) => buildTurnSpans(model, t.index, costs, spanOptions)))(
    costSession(model, PRICES),
  );
  return { state, model, rows, spans, pending };
}

/** Outcomes parsed once, stepped many times (cheap re-folds for the truncation sweep). */
export function stepAll(
  state: SessionState,
  file: string,
  agentId: string | null,
  outcomes: { line: number; outcome: ParseOutcome }[],
): void {
  for (const o of outcomes) step(state, { file, agentId }, o.line, o.outcome);
}

// ---- invariants ----

const isFiniteNumber = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/** A Workflow call's row holds its run's agents (agent rows of their own), and nothing else. */
const isWorkflowChild = (parent: WaterfallRow, row: WaterfallRow): boolean =>
  parent.type === 'tool' && parent.toolName === 'Workflow' && row.type === 'agent';

/** Waterfall rows: well-formed, ids unique, parents existing, children linked to their agent. */
export function checkRows(result: PipelineResult): string[] {
  const { rows, model, state } = result;
  const problems: string[] = [];
  const seen = new Set<string>();
  // Where each tool call was first written (file and agent identity).
  const origin = new Map<string, { file: string; agentKey: string | null }>();
  for (const e of state.entries) {
    // As finish() does: a synthetic non-error line ("No response requested.") is no call.
    if (e.rec.type !== 'assistant' || (!e.rec.isApiError && e.rec.model === '<synthetic>'))
      continue;
    for (const use of e.rec.toolUses)
      if (!origin.has(use.id)) origin.set(use.id, { file: e.file, agentKey: e.agentKey });
  }
  const visit = (row: WaterfallRow, parent: WaterfallRow | null): void => {
    const where = `row ${row.id} (${row.toolName})`;
    if (seen.has(row.id)) problems.push(`${where}: id appears twice`);
    seen.add(row.id);
    if (!isFiniteNumber(row.startTime)) problems.push(`${where}: startTime ${row.startTime}`);
    if ((row.endTime === null) !== (row.duration === null))
      problems.push(`${where}: endTime ${row.endTime} but duration ${row.duration}`);
    if (row.endTime !== null && !(row.endTime >= row.startTime))
      problems.push(`${where}: ends before it starts`);
    if (row.duration !== null && !(row.duration >= 0))
      problems.push(`${where}: negative duration ${row.duration}`);
    if (row.status === 'running' && row.endTime !== null)
      problems.push(`${where}: running with an end`);
    // Finite; a transcript's own negative counts are passed on as written.
    if (!isFiniteNumber(row.inputTokens) || !isFiniteNumber(row.outputTokens))
      problems.push(`${where}: bad token counts`);
    if (!isFiniteNumber(row.contextFillPercent))
      problems.push(`${where}: contextFillPercent ${row.contextFillPercent}`);
    if (!row.label.startsWith(row.toolName))
      problems.push(`${where}: label '${row.label}' does not start with the tool name`);
    if (parent === null) {
      if (row.parentAgentId !== null)
        problems.push(`${where}: top-level row with parentAgentId ${row.parentAgentId}`);
    } else if (isWorkflowChild(parent, row)) {
      // A Workflow run's agent: a row of its own under the call whose launch named its run.
      if (row.parentAgentId !== parent.id)
        problems.push(`${where}: parentAgentId ${row.parentAgentId} but shown under ${parent.id}`);
      const agent = model.agents.get(row.id);
      if (agent?.workflow === undefined || agent.toolUseId !== parent.id)
        problems.push(`${where}: under Workflow call ${parent.id} without being one of its run`);
    } else {
      if (row.parentAgentId !== parent.id)
        problems.push(`${where}: parentAgentId ${row.parentAgentId} but shown under ${parent.id}`);
      if (parent.type !== 'agent') problems.push(`${where}: child of a non-agent row`);
      const parentCall = model.tools.get(parent.id);
      // An agent no call spawned (a fork, an unlinked file) has a row of its own, id = its key.
      const ownRow = parentCall === undefined && model.agents.has(parent.id);
      const agentKey = ownRow ? parent.id : (parentCall?.spawnedAgentKey ?? null);
      const agent = agentKey === null ? undefined : model.agents.get(agentKey);
      const call = model.tools.get(row.id);
      const from = origin.get(row.id);
      if (agent === undefined || call === undefined || from === undefined) {
        problems.push(`${where}: no spawned agent / call / origin for child of ${parent.id}`);
      } else {
        if (!ownRow && agent.toolUseId !== parent.id)
          problems.push(
            `${where}: agent ${agent.key} is linked to ${agent.toolUseId}, not to ${parent.id}`,
          );
        if (call.agentKey !== agent.key || from.agentKey !== agent.key)
          problems.push(`${where}: call belongs to ${call.agentKey}, not ${agent.key}`);
        // Inside the agent's own file, or written in the main file under the agent's identity
        // (inline sidechains, agent_progress copies); an inline (1.0.x) chain is linked by its prompt.
        const ownFile = state.agentFiles.get(agent.key);
        // An agent of its own row may be known only from progress copies inside another agent's file.
        const inFile = ownRow || from.file === ownFile || from.file === state.file;
        if (!inFile)
          problems.push(
            `${where}: written in ${from.file}, outside agent ${agent.key}'s file ${ownFile ?? '(none)'} and the main file`,
          );
        if (!ownRow && agent.key.startsWith('sidechain:')) {
          const prompt = state.chainPrompt.get(agent.key);
          if (parentCall?.input.prompt !== prompt)
            problems.push(`${where}: inline agent ${agent.key} not linked by its prompt`);
        }
      }
    }
    if (row.type === 'tool' && row.children.some((c) => !isWorkflowChild(row, c)))
      problems.push(`${where}: a tool row with children`);
    for (const child of row.children) visit(child, row);
  };
  for (const row of rows) visit(row, null);
  return problems;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const ZERO = /^0+$/;
/** Latest Unix ms whose nanoseconds still fit OTLP's fixed64 (year 2554). */
export const MAX_OTLP_MS = Number((2n ** 64n - 1n) / 1_000_000n);

/** Spans as OTLP wants them: valid ids, times in range, parents and links inside the session's set. */
export interface SpanCheckOptions {
  /** Check times against what OTLP's unsigned nanoseconds can hold (default on). */
  timeRange?: boolean;
  /** Check that parents exist and parent chains end at the root (default on). */
  tree?: boolean;
}

export function checkSpans(spans: SpanData[], options: SpanCheckOptions = {}): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  const roots = new Map<string, number>();
  for (const s of spans) {
    const key = `${s.traceId}/${s.spanId}`;
    const where = `span ${s.name} ${key}`;
    if (!HEX32.test(s.traceId) || ZERO.test(s.traceId)) problems.push(`${where}: bad trace id`);
    if (!HEX16.test(s.spanId) || ZERO.test(s.spanId)) problems.push(`${where}: bad span id`);
    if (ids.has(key)) problems.push(`${where}: duplicate span id`);
    ids.add(key);
    if (!isFiniteNumber(s.startMs) || !isFiniteNumber(s.endMs))
      problems.push(`${where}: non-finite time ${s.startMs}..${s.endMs}`);
    if (!(s.endMs >= s.startMs))
      problems.push(`${where}: ends before it starts (${s.startMs}..${s.endMs})`);
    if (options.timeRange !== false && (s.startMs < 0 || s.endMs > MAX_OTLP_MS))
      problems.push(
        `${where}: time ${s.startMs}..${s.endMs} outside what OTLP's unsigned nanoseconds can hold`,
      );
    if (s.parentSpanId === null) roots.set(s.traceId, (roots.get(s.traceId) ?? 0) + 1);
    if (s.name.trim() === '') problems.push(`${where}: empty name`);
    for (const [k, v] of Object.entries(s.attributes)) {
      const ok =
        typeof v === 'string' ||
        typeof v === 'boolean' ||
        isFiniteNumber(v) ||
        (Array.isArray(v) && v.every((x) => typeof x === 'string'));
      if (!ok) problems.push(`${where}: attribute ${k} = ${String(v)} is not a valid OTLP value`);
    }
  }
  for (const s of spans) {
    const where = `span ${s.name} ${s.traceId}/${s.spanId}`;
    if (
      options.tree !== false &&
      s.parentSpanId !== null &&
      !ids.has(`${s.traceId}/${s.parentSpanId}`)
    )
      problems.push(`${where}: parent ${s.parentSpanId} missing from its trace`);
    if (s.parentSpanId !== null && !HEX16.test(s.parentSpanId))
      problems.push(`${where}: bad parent id`);
    for (const l of s.links) {
      if (!HEX32.test(l.traceId) || !HEX16.test(l.spanId)) problems.push(`${where}: bad link ids`);
      if (!ids.has(`${l.traceId}/${l.spanId}`))
        problems.push(`${where}: link to ${l.traceId}/${l.spanId} outside the session`);
    }
  }
  for (const [trace, n] of roots) if (n !== 1) problems.push(`trace ${trace}: ${n} root spans`);
  for (const s of spans)
    if (!roots.has(s.traceId)) problems.push(`trace ${s.traceId}: no root span`);
  // Every parent chain ends at the root (no cycles).
  if (options.tree === false) return [...new Set(problems)];
  const parentOf = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s.parentSpanId]));
  for (const s of spans) {
    let id: string | null = s.spanId;
    for (let hops = 0; id !== null; hops += 1) {
      if (hops > spans.length) {
        problems.push(`span ${s.traceId}/${s.spanId}: parent chain loops`);
        break;
      }
      id = parentOf.get(`${s.traceId}/${id}`) ?? null;
    }
  }
  return [...new Set(problems)];
}

/** Model-level sanity: no NaN times, turns ordered, tool times consistent. */
export function checkModel(model: SessionModel): string[] {
  const problems: string[] = [];
  for (const t of model.turns) {
    if (!isFiniteNumber(t.startTime) || !isFiniteNumber(t.endTime))
      problems.push(`turn ${t.index}: non-finite times`);
    if (t.endTime < t.startTime)
      problems.push(`turn ${t.index}: ends (${t.endTime}) before it starts (${t.startTime})`);
  }
  for (const tool of model.tools.values()) {
    if (tool.endTime !== null && tool.endTime < tool.startTime)
      problems.push(`tool ${tool.id}: ends before it starts`);
  }
  for (const r of model.responses.values()) {
    if (r.endTime < r.startTime) problems.push(`response ${r.key}: ends before it starts`);
  }
  return problems;
}

/** Independent oracle for the reader: which complete, non-blank lines must be reported. */
export function expectedBadLines(bytes: Buffer): number[] {
  const bad: number[] = [];
  let start = 0;
  let number = 1;
  for (let i = 0; i < bytes.length; i += 1) {
    if (bytes[i] !== 0x0a) continue;
    let text = bytes.subarray(start, i).toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() !== '') {
      let ok: boolean;
      try {
        const v: unknown = JSON.parse(text);
        ok = typeof v === 'object' && v !== null && !Array.isArray(v);
      } catch {
        ok = false;
      }
      if (!ok) bad.push(number);
    }
    number += 1;
    start = i + 1;
  }
  return bad;
}

/** All invariants at once, for one pipeline result. */
export function allProblems(result: PipelineResult, options: SpanCheckOptions = {}): string[] {
  return [...checkModel(result.model), ...checkRows(result), ...checkSpans(result.spans, options)];
}
