// What the `show` renderers draw, and the small helpers both of them share
// (tree flattening, the session time axis, number formatting), so the terminal
// and HTML waterfalls agree on spans, durations and token counts.
import type { ReadWarning, WaterfallRow } from '../../../core/view/waterfall-row.js';
import type { SessionHeader } from '../../../core/view/session-header.js';
import { terminalText } from '../../../core/view/terminal-text.js';

export interface TurnSummary {
  index: number;
  /** Short prompt label, or '(no prompt text)'. */
  label: string;
  startTime: number;
  endTime: number;
  endState: 'completed' | 'api_error' | 'interrupted' | 'open';
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  /** ids of the top-level rows of this turn. */
  rowIds: string[];
  /** `<teammate-message>` lines of the turn: sender and summary. */
  teammateMessages?: { from: string; summary: string | null }[];
}

export interface WaterfallView {
  sessionId: string;
  title: string;
  rows: WaterfallRow[];
  turns: TurnSummary[];
  totals: { inputTokens: number; outputTokens: number; costUsd: number | null };
  warnings: ReadWarning[];
  /** Session names, settings and PR links (core/session-header.ts); absent when none. */
  header?: SessionHeader;
}

export interface FlatRow {
  row: WaterfallRow;
  /** 0 for the rows of `rows` itself, +1 per agent level. */
  depth: number;
  /** Whether the row is the last of its siblings (└─ rather than ├─). */
  isLast: boolean;
  /** For each ancestor level, whether that ancestor was last (draws │ or blank). */
  ancestorsLast: boolean[];
}

/** Depth-first, parents before children, siblings in the given order. */
export function flattenRows(rows: readonly WaterfallRow[]): FlatRow[] {
  const out: FlatRow[] = [];
  const visit = (list: readonly WaterfallRow[], depth: number, ancestorsLast: boolean[]): void => {
    list.forEach((row, i) => {
      const isLast = i === list.length - 1;
      out.push({ row, depth, isLast, ancestorsLast });
      if (row.children.length > 0) visit(row.children, depth + 1, [...ancestorsLast, isLast]);
    });
  };
  visit(rows, 0, []);
  return out;
}

export interface TurnGroup {
  turn: TurnSummary | null;
  rows: WaterfallRow[];
}

/**
 * Top-level rows per turn, in start order; rows no turn claims come last,
 * under `turn: null` (also the only group when the view has no turns).
 */
export function groupByTurn(view: WaterfallView): TurnGroup[] {
  if (view.turns.length === 0) return [{ turn: null, rows: view.rows }];
  const claimed = new Set<string>();
  const groups: TurnGroup[] = view.turns.map((turn) => {
    const ids = new Set(turn.rowIds);
    const rows = view.rows.filter((r) => ids.has(r.id) && !claimed.has(r.id));
    for (const r of rows) claimed.add(r.id);
    return { turn, rows };
  });
  const orphans = view.rows.filter((r) => !claimed.has(r.id));
  if (orphans.length > 0) groups.push({ turn: null, rows: orphans });
  return groups;
}

/** The latest timestamp in the view: where running rows stop when no `now` is given. */
export function lastTimestamp(view: WaterfallView): number {
  let last = Number.NEGATIVE_INFINITY;
  for (const { row } of flattenRows(view.rows)) {
    last = Math.max(last, row.startTime, row.endTime ?? row.startTime);
  }
  for (const turn of view.turns) last = Math.max(last, turn.startTime, turn.endTime);
  return Number.isFinite(last) ? last : 0;
}

/** End of a row on the axis: its own end, or `now` while it is still running. */
export function rowEnd(row: WaterfallRow, now: number): number {
  return Math.max(row.startTime, row.endTime ?? now);
}

export interface TimeAxis {
  start: number;
  end: number;
  /** end - start, never 0 so callers can divide by it. */
  span: number;
}

/** One axis for the whole session, so bars of different turns line up. */
export function sessionAxis(view: WaterfallView, now: number): TimeAxis {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const { row } of flattenRows(view.rows)) {
    start = Math.min(start, row.startTime);
    end = Math.max(end, rowEnd(row, now));
  }
  for (const turn of view.turns) {
    start = Math.min(start, turn.startTime);
    end = Math.max(end, turn.endTime);
  }
  if (!Number.isFinite(start)) return { start: 0, end: 0, span: 1 };
  return { start, end, span: Math.max(1, end - start) };
}

/**
 * The axis of one turn group: from its start to its last end, each turn scaled
 * to itself as a trace viewer draws one trace (a call may outlive the turn's
 * end record, so rows widen it).
 */
export function groupAxis(group: TurnGroup, now: number): TimeAxis {
  let start = group.turn?.startTime ?? Number.POSITIVE_INFINITY;
  let end = group.turn?.endTime ?? Number.NEGATIVE_INFINITY;
  for (const { row } of flattenRows(group.rows)) {
    start = Math.min(start, row.startTime);
    end = Math.max(end, rowEnd(row, now));
  }
  if (!Number.isFinite(start)) return { start: 0, end: 0, span: 1 };
  end = Math.max(start, end);
  return { start, end, span: Math.max(1, end - start) };
}

/** Idle gaps between turns longer than this are folded into a break mark. */
export const FOLD_GAP_MS = 60_000;

export interface FoldedAxis {
  /** Where `t` falls, 0..1; a time inside a folded gap maps to its break. */
  fraction(t: number): number;
  /** The folded gaps: where each break sits (0..1) and how long the idle time was. */
  breaks: { at: number; idleMs: number }[];
  /** Time the axis shows to scale (turns and short gaps). */
  shownMs: number;
}

/**
 * One axis over the whole session with idle time cut out: the turns and the
 * short gaps between them keep their scale, every gap longer than FOLD_GAP_MS
 * becomes a narrow break (its width fixed, the breaks together at most a
 * quarter of the axis), so a 9-minute turn after 20 idle hours is still wide.
 */
export function foldedAxis(spans: readonly TimeAxis[]): FoldedAxis {
  const sorted = spans.filter((s) => s.end >= s.start).sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const s of sorted) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end + FOLD_GAP_MS) last.end = Math.max(last.end, s.end);
    else merged.push({ start: s.start, end: s.end });
  }
  const shownMs = merged.reduce((sum, m) => sum + (m.end - m.start), 0);
  const gaps = Math.max(0, merged.length - 1);
  const breakUnits =
    gaps === 0 ? 0 : Math.max(1, Math.min(0.02 * shownMs, (0.25 * shownMs) / gaps));
  const total = Math.max(1, shownMs + breakUnits * gaps);
  const offsets: number[] = [];
  let acc = 0;
  merged.forEach((m, i) => {
    offsets.push(acc);
    acc += m.end - m.start + (i < gaps ? breakUnits : 0);
  });
  const breaks = merged.slice(1).map((m, i) => ({
    at: ((offsets[i + 1] ?? 0) - breakUnits / 2) / total,
    idleMs: m.start - (merged[i]?.end ?? m.start),
  }));
  const fraction = (t: number): number => {
    // Sessions have tens of turns, not thousands: a scan is enough.
    for (let i = merged.length - 1; i >= 0; i--) {
      const m = merged[i]!;
      if (t >= m.start)
        return Math.min(1, ((offsets[i] ?? 0) + Math.min(t, m.end) - m.start) / total);
    }
    return 0;
  };
  return { fraction, breaks, shownMs };
}

/** Siblings longest first at every level: "slowest first" within a turn. */
export function slowestFirst(rows: readonly WaterfallRow[], now: number): WaterfallRow[] {
  const took = (r: WaterfallRow): number => rowEnd(r, now) - r.startTime;
  return [...rows]
    .sort((a, b) => took(b) - took(a) || a.startTime - b.startTime)
    .map((r) => (r.children.length === 0 ? r : { ...r, children: slowestFirst(r.children, now) }));
}

/** Fraction (0..1) of the axis at which `t` falls. */
export function axisFraction(axis: TimeAxis, t: number): number {
  return Math.min(1, Math.max(0, (t - axis.start) / axis.span));
}

const TICK_STEPS_MS = [
  100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/** Round tick spacing giving at most `maxTicks` intervals, and the tick offsets from the start. */
export function axisTicks(
  axis: TimeAxis,
  maxTicks: number,
): { stepMs: number; offsetsMs: number[] } {
  const stepMs =
    TICK_STEPS_MS.find((s) => axis.span / s <= maxTicks) ?? Math.ceil(axis.span / maxTicks);
  const offsetsMs: number[] = [];
  for (let t = 0; t <= axis.span; t += stepMs) offsetsMs.push(t);
  return { stepMs, offsetsMs };
}

/** `350ms`, `1.2s`, `42s`, `2m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  const v = Math.max(0, Math.round(ms));
  if (v < 1000) return `${v}ms`;
  // Below 10s one decimal says something; above it, it is noise.
  if (v < 10_000) return `${(v / 1000).toFixed(1)}s`;
  const totalS = Math.round(v / 1000);
  if (totalS < 60) return `${totalS}s`;
  if (totalS < 3600) return `${Math.floor(totalS / 60)}m${pad2(totalS % 60)}s`;
  const totalM = Math.round(totalS / 60);
  return `${Math.floor(totalM / 60)}h${pad2(totalM % 60)}m`;
}

/** `950`, `12.3k`, `125k`, `1.2M`. */
export function formatTokens(n: number): string {
  const v = Math.max(0, Math.round(n));
  if (v < 1000) return String(v);
  if (v < 99_950) return `${trim1(v / 1000)}k`;
  if (v < 999_500) return `${Math.round(v / 1000)}k`;
  return `${trim1(v / 1_000_000)}M`;
}

/** `$0.42`, `$0.0031`, or `n/a` when the model's price is unknown. */
export function formatCost(usd: number | null): string {
  if (usd === null) return 'n/a';
  if (usd > 0 && usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** Rounded context fill, e.g. `45%`. */
export function formatPercent(p: number): string {
  return `${Math.round(p)}%`;
}

/**
 * Tokens shown for a row: an agent's own total when known (what the sub-agent
 * cost), otherwise the usage of the response that issued the call.
 */
export function rowTokens(row: WaterfallRow): { input: number; output: number } {
  return row.tokens ?? { input: row.inputTokens, output: row.outputTokens };
}

/**
 * Labels are user content: line breaks and tabs would break a one-line layout,
 * so they read as one space; other controls and bidi overrides (ESC above all,
 * which would let a transcript drive the terminal) are shown escaped.
 */
export function toSingleLine(text: string): string {
  return terminalText(text.replace(/\s+/g, ' ').trim());
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

function trim1(n: number): string {
  return n.toFixed(1).replace(/\.0$/, '');
}
