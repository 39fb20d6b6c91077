// Fields of the 2.1.2xx shapes (workflows, agent teams, background sessions,
// cost-state) read off a parsed line. Pure; each returns null when its shape
// is absent, so older lines pay one property read.
import type { CostState, TeammateMessage, WorkflowLaunch } from './records.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** Ids and names are short; a pathological value is cut rather than kept whole. */
const short = (v: unknown): string | null => (typeof v === 'string' ? v.slice(0, 200) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The last path component of a workflow's transcript dir: `…/subagents/workflows/wf_<run>`. */
const RUN_DIR = /[\\/](wf_[^\\/]+)[\\/]*$/;

/** A Workflow call's launch result: `toolUseResult{taskType:"local_workflow", runId, workflowName, transcriptDir}`. */
export function workflowLaunchOf(tur: unknown): WorkflowLaunch | null {
  if (!isObject(tur) || tur.taskType !== 'local_workflow') return null;
  const dir = typeof tur.transcriptDir === 'string' ? tur.transcriptDir : '';
  const runId = short(tur.runId) ?? short(RUN_DIR.exec(dir)?.[1]);
  if (runId === null) return null;
  return { runId, name: short(tur.workflowName) };
}

const TEAMMATE = /^\s*<teammate-message\b([^>]*)>/;
const ATTR = /\b(teammate_id|summary)="([^"]*)"/g;

/** `<teammate-message teammate_id="…" summary="…">`: a teammate's message to the lead. */
export function teammateMessageOf(text: string | null): TeammateMessage | null {
  if (text === null) return null;
  const head = TEAMMATE.exec(text)?.[1];
  if (head === undefined) return null;
  let from: string | null = null;
  let summary: string | null = null;
  for (const [, key, value] of head.matchAll(ATTR)) {
    if (key === 'teammate_id') from = short(value);
    else summary = short(value);
  }
  return { from: from ?? 'unknown', summary };
}

/** A `cost-state` record: Claude Code's own running cost of the session. */
export function costStateOf(o: Json): CostState {
  const usage = isObject(o.modelUsage) ? o.modelUsage : {};
  return {
    totalCostUSD: num(o.totalCostUSD),
    hasUnknownModelCost: o.hasUnknownModelCost === true,
    models: Object.keys(usage)
      .slice(0, 20)
      .map((m) => m.slice(0, 200)),
  };
}
