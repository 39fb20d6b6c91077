// `ccotel show --html`: one self-contained page (inline CSS and JS, no network,
// no fonts or images) that draws the waterfall from JSON embedded in the page.
//
// Everything that depends on numbers (positions, durations, token counts) is
// computed here with the same helpers as the terminal renderer, so the page's
// script only builds DOM nodes, and only through textContent: data never goes
// through innerHTML. A CSP allowing nothing but this page's own script (by
// hash) and inline styles backs that up and forbids any network access.
//
// An overview on top puts every turn on one folded session axis (idle gaps
// cut to a break mark); below, each turn is drawn on its own time axis, as a
// trace viewer shows one trace per turn. Turns of more than COLLAPSE_PAST calls
// start collapsed, agent rows always do, and an agent hiding failed or running
// calls says so with a badge. The script builds the rows of a turn only when
// it is first shown, so a 5,000-call session opens at once.
import { createHash } from 'node:crypto';
import type { WaterfallRow } from '../../../core/view/waterfall-row.js';
import { HTML_WATERFALL_SCRIPT, HTML_WATERFALL_STYLE } from './html-waterfall-assets.js';
import {
  axisFraction,
  axisTicks,
  flattenRows,
  foldedAxis,
  groupAxis,
  formatCost,
  formatDuration,
  formatPercent,
  formatTokens,
  groupByTurn,
  lastTimestamp,
  rowEnd,
  rowTokens,
  sessionAxis,
  FOLD_GAP_MS,
  type FoldedAxis,
  type TimeAxis,
  type TurnGroup,
  type WaterfallView,
} from './waterfall-view.js';

export interface HtmlWaterfallOptions {
  /** Where running rows end; defaults to the view's last timestamp. */
  now?: number;
  /** Cap on each row's input JSON and output text, so huge tool results do not bloat the page. */
  maxTextChars?: number;
}

const DEFAULT_MAX_TEXT = 20_000;
/** Turns with more calls than this start collapsed: a long turn would bury the next ones. */
export const COLLAPSE_PAST = 30;
/** Tick labels are ~40px wide and the timeline column ~450px at 1280px. */
const MAX_TICKS = 6;

/** The JSON the page's script reads: display-ready, nothing left to format. */
export interface HtmlPayload {
  sessionId: string;
  title: string;
  startIso: string;
  /** Wall time, first call to last. */
  duration: string;
  /** Time inside turns: what the folded overview axis shows to scale. */
  activeDuration: string;
  collapsePast: number;
  /** Every tool name and sub-agent type in the session, for the filters. */
  tools: string[];
  agentTypes: string[];
  /** The idle gaps folded out of the overview axis. */
  breaks: { percent: number; label: string }[];
  foldGap: string;
  totals: {
    tokens: string;
    cost: string;
    calls: number;
    agents: number;
    errors: number;
    running: number;
  };
  warnings: { where: string; reason: string }[];
  groups: PayloadGroup[];
}

export interface PayloadGroup {
  /** null for rows no turn claims. */
  index: number | null;
  label: string;
  state: string;
  /** HH:MM (UTC) of the turn's start, or MM-DD HH:MM when the session spans days. */
  clock: string;
  /** Position on the folded overview axis, in percent. */
  left: number;
  width: number;
  /** The turn's own axis: grid spacing and tick labels over it. */
  tickPercent: number;
  ticks: { percent: number; label: string }[];
  duration: string;
  tokens: string;
  cost: string;
  calls: number;
  errors: number;
  rows: PayloadRow[];
}

export interface PayloadRow {
  id: string;
  type: 'agent' | 'tool';
  toolName: string;
  label: string;
  status: WaterfallRow['status'];
  /** On the axis of the row's turn, in percent. */
  left: number;
  width: number;
  /** Duration in ms, for "slowest first". */
  ms: number;
  /** The sub-agent type of an agent row (Explore, Plan…), for the filter. */
  agentType: string | null;
  start: string;
  offset: string;
  end: string | null;
  duration: string;
  tokens: string;
  tokensInPercent: number;
  tokensOutPercent: number;
  /** The issuing response's usage; for agents this differs from `tokens`. */
  callTokens: string;
  ctx: number;
  ctxText: string;
  parentAgentId: string | null;
  input: string;
  output: string | null;
  errorsInside: number;
  runningInside: number;
  children: PayloadRow[];
}

export function renderHtmlWaterfall(view: WaterfallView, opts: HtmlWaterfallOptions = {}): string {
  const payload = buildPayload(view, opts);
  const title = view.title.trim() || 'Claude Code session';
  const scriptHash = createHash('sha256').update(HTML_WATERFALL_SCRIPT, 'utf8').digest('base64');
  // default-src 'none': no request of any kind can leave the page, even if some
  // data slipped past escaping; only the script below (by hash) may run.
  const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; base-uri 'none'; form-action 'none'`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)} · ccotel</title>`,
    `<style>${HTML_WATERFALL_STYLE}</style>`,
    '</head>',
    '<body>',
    `<header class="page-head"><h1 id="title">${escapeHtml(title)}</h1><div id="meta" class="meta"></div></header>`,
    '<noscript><p class="noscript">This waterfall needs JavaScript to draw its rows.</p></noscript>',
    '<main id="app"></main>',
    `<script type="application/json" id="ccotel-data">${embedJson(payload)}</script>`,
    `<script>${HTML_WATERFALL_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export function buildPayload(view: WaterfallView, opts: HtmlWaterfallOptions = {}): HtmlPayload {
  const now = opts.now ?? lastTimestamp(view);
  const wall = sessionAxis(view, now);
  const all = flattenRows(view.rows).map((f) => f.row);
  const groups = groupByTurn(view).filter((g) => g.turn !== null || g.rows.length > 0);
  const axes = groups.map((g) => groupAxis(g, now));
  const folded = foldedAxis(axes);
  const ctx: RowContext = {
    axis: wall,
    now,
    maxText: opts.maxTextChars ?? DEFAULT_MAX_TEXT,
    maxIn: maxOf(
      all.map((r) => rowTokens(r).input),
      1,
    ),
    maxOut: maxOf(
      all.map((r) => rowTokens(r).output),
      1,
    ),
  };
  const days = new Set(axes.map((a) => isoTime(a.start).slice(0, 10)));
  const clock = (ms: number): string =>
    days.size > 1 ? isoTime(ms).slice(5, 16).replace('T', ' ') : isoTime(ms).slice(11, 16);
  return {
    sessionId: view.sessionId,
    title: view.title,
    startIso: all.length > 0 || view.turns.length > 0 ? isoTime(wall.start) : '',
    duration: formatDuration(wall.end - wall.start),
    activeDuration: formatDuration(axes.reduce((sum, a) => sum + (a.end - a.start), 0)),
    collapsePast: COLLAPSE_PAST,
    tools: [...new Set(all.map((r) => r.toolName))].sort(),
    agentTypes: [...new Set(all.map(agentTypeOf).filter((t): t is string => t !== null))].sort(),
    breaks: folded.breaks.map((b) => ({
      percent: round3(b.at * 100),
      label: `idle ${formatDuration(b.idleMs)}`,
    })),
    foldGap: formatDuration(FOLD_GAP_MS),
    totals: {
      tokens: `${formatTokens(view.totals.inputTokens)} in / ${formatTokens(view.totals.outputTokens)} out`,
      cost: formatCost(view.totals.costUsd),
      calls: all.length,
      agents: all.filter((r) => r.type === 'agent').length,
      errors: all.filter((r) => r.status === 'error').length,
      running: all.filter((r) => r.status === 'running').length,
    },
    warnings: view.warnings.map((w) => ({ where: `${w.file}:${w.line}`, reason: w.reason })),
    groups: groups.map((g, i) =>
      toPayloadGroup(g, view, { ...ctx, axis: axes[i] ?? wall }, folded, clock),
    ),
  };
}

interface RowContext {
  /** The axis rows are placed on: their turn's. */
  axis: TimeAxis;
  now: number;
  maxText: number;
  maxIn: number;
  maxOut: number;
}

function toPayloadGroup(
  group: TurnGroup,
  view: WaterfallView,
  ctx: RowContext,
  folded: FoldedAxis,
  clock: (ms: number) => string,
): PayloadGroup {
  const { axis } = ctx;
  const flat = flattenRows(group.rows).map((f) => f.row);
  const ticks = axisTicks(axis, MAX_TICKS);
  const left = folded.fraction(axis.start) * 100;
  const right = folded.fraction(axis.end) * 100;
  const { turn } = group;
  const base = {
    clock: clock(axis.start),
    left: round3(left),
    width: round3(Math.max(0, right - left)),
    tickPercent: (ticks.stepMs / axis.span) * 100,
    ticks: ticks.offsetsMs.map((t) => ({
      percent: (t / axis.span) * 100,
      label: t === 0 ? '0s' : formatDuration(t),
    })),
    duration: formatDuration(axis.end - axis.start),
    calls: flat.length,
    errors: flat.filter((r) => r.status === 'error').length,
    rows: group.rows.map((r) => toPayloadRow(r, ctx)),
  };
  if (turn) {
    return {
      ...base,
      index: turn.index,
      label: turn.label.trim() || '(no prompt text)',
      state: turn.endState,
      tokens: `${formatTokens(turn.inputTokens)} / ${formatTokens(turn.outputTokens)}`,
      cost: formatCost(turn.costUsd),
    };
  }
  return {
    ...base,
    index: null,
    label: view.turns.length === 0 ? 'All calls' : 'Outside any turn',
    state: '',
    tokens: '',
    cost: '',
  };
}

function toPayloadRow(row: WaterfallRow, ctx: RowContext): PayloadRow {
  const end = rowEnd(row, ctx.now);
  const [left, width] = span(ctx.axis, row.startTime, end);
  const tokens = rowTokens(row);
  const descendants = flattenRows(row.children).map((f) => f.row);
  return {
    id: row.id,
    type: row.type,
    toolName: row.toolName,
    label: row.label,
    status: row.status,
    left,
    width,
    ms: end - row.startTime,
    agentType: agentTypeOf(row),
    start: isoTime(row.startTime),
    offset: `+${formatDuration(row.startTime - ctx.axis.start)}`,
    end: row.endTime === null ? null : isoTime(row.endTime),
    duration: formatDuration(end - row.startTime),
    tokens: `${formatTokens(tokens.input)} / ${formatTokens(tokens.output)}`,
    tokensInPercent: (tokens.input / ctx.maxIn) * 100,
    tokensOutPercent: (tokens.output / ctx.maxOut) * 100,
    callTokens: `${formatTokens(row.inputTokens)} / ${formatTokens(row.outputTokens)}`,
    ctx: Math.min(100, Math.max(0, row.contextFillPercent)),
    ctxText: formatPercent(row.contextFillPercent),
    parentAgentId: row.parentAgentId,
    input: cap(stringifyInput(row.input), ctx.maxText),
    output: row.output === null ? null : cap(row.output, ctx.maxText),
    errorsInside: descendants.filter((r) => r.status === 'error').length,
    runningInside: descendants.filter((r) => r.status === 'running').length,
    children: row.children.map((c) => toPayloadRow(c, ctx)),
  };
}

/** An agent row's sub-agent type, as the Task/Agent call asked for it. */
function agentTypeOf(row: WaterfallRow): string | null {
  if (row.type !== 'agent') return null;
  const t = row.input.subagent_type;
  return typeof t === 'string' && t.trim() !== '' ? t : null;
}

/** [left%, width%] of a time range on an axis. */
function span(axis: TimeAxis, start: number, end: number): [number, number] {
  const left = axisFraction(axis, start) * 100;
  const right = axisFraction(axis, Math.max(start, end)) * 100;
  return [round3(left), round3(right - left)];
}

function stringifyInput(input: Record<string, unknown>): string {
  try {
    return JSON.stringify(input, null, 2) ?? '{}';
  } catch {
    // Inputs come from parsed JSON, but a cycle must not take the page down.
    return '(input could not be serialised)';
  }
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters not shown)`;
}

function isoTime(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : '';
}

/** Math.max without spreading: sessions can have more rows than the call stack allows arguments. */
function maxOf(values: number[], floor: number): number {
  return values.reduce((m, v) => (v > m ? v : m), floor);
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * JSON safe inside <script type="application/json">: `<`, `>` and `&` only
 * occur inside JSON strings, where \uXXXX means the same character, so
 * `</script`, `<!--` and `]]>` can never appear in the page. U+2028/2029 are
 * escaped for engines that still treat them as line ends.
 */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
