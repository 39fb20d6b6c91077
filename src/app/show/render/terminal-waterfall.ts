// The `ccotel show` terminal waterfall. On top, an overview: one row per turn
// on a folded session axis (idle gaps between turns cut to a `┊` break). Then
// each turn on its own time axis, as a trace viewer draws one trace per turn:
// one line per call, a tree on the left, a duration bar, then duration,
// status, tokens and context fill. Every column is measured in display width
// (wide CJK characters, emoji, combining marks), so lines fit `width` and
// columns line up. Output depends only on its arguments (running rows stop at
// `opts.now`, or at the view's last timestamp), so tests compare it byte for byte.
import type { WaterfallRow } from '../../../core/view/waterfall-row.js';
import { displayWidth, fitWidth, padStartWidth, padWidth } from './text-width.js';
import { renderCompact } from './terminal-compact.js';
import {
  axisFraction,
  flattenRows,
  foldedAxis,
  formatCost,
  formatDuration,
  formatPercent,
  formatTokens,
  groupAxis,
  groupByTurn,
  lastTimestamp,
  rowEnd,
  rowTokens,
  toSingleLine,
  type FlatRow,
  type FoldedAxis,
  type TimeAxis,
  type TurnGroup,
  type TurnSummary,
  type WaterfallView,
} from './waterfall-view.js';
import { clockLabeller, paint, plural, type AnsiName, type Paint } from './terminal-style.js';

export interface TerminalWaterfallOptions {
  color: boolean;
  /** Terminal columns; every line fits in it (values below MIN_WIDTH are raised). */
  width: number;
  /** Where running rows end; defaults to the view's last timestamp. */
  now?: number;
  /** One line per turn with its slowest calls, instead of every call. */
  compact?: boolean;
  /** Said under the summary when the view was narrowed (`--errors`, `--turn`…). */
  filterNote?: string;
}

const MIN_WIDTH = 60;
const DUR_W = 6;
const STATUS_W = 6;
const TOKENS_W = 11;
const CTX_W = 4;
/** The fixed columns right of the bar, separators included. */
const RIGHT_W = 1 + DUR_W + 1 + STATUS_W + 1 + TOKENS_W + 1 + CTX_W;
const MAX_LABEL_W = 48;
const WARNINGS_SHOWN = 3;

interface Layout {
  width: number;
  labelW: number;
  barW: number;
  now: number;
  color: boolean;
  paint: Paint;
}

export function renderTerminalWaterfall(
  view: WaterfallView,
  opts: TerminalWaterfallOptions,
): string {
  const now = opts.now ?? lastTimestamp(view);
  const l = makeLayout(opts, now);
  // An empty session has one empty group: nothing to draw, no axis to take.
  const groups = groupByTurn(view).filter((g) => g.turn !== null || g.rows.length > 0);
  const axes = groups.map((g) => groupAxis(g, now));
  const head = renderHeader(view, axes, l, opts.filterNote);
  const body =
    opts.compact === true
      ? renderCompact(groups, axes, { width: l.width, now, paint: l.paint })
      : [...renderOverview(groups, axes, l), ...renderTurns(view, groups, axes, l)];
  const lines = [...head, ...body, ...renderFooter(view, l)];
  return lines.join('\n') + '\n';
}

function makeLayout(opts: TerminalWaterfallOptions, now: number): Layout {
  const width = Math.max(MIN_WIDTH, Math.floor(opts.width));
  const rest = width - RIGHT_W;
  // Labels get half of what is left (capped), the bar the other half.
  const labelW = Math.min(MAX_LABEL_W, Math.floor(rest / 2));
  const barW = rest - labelW - 1;
  const p: Paint = (text, colour) => paint(opts.color, text, colour);
  return { width, labelW, barW, now, color: opts.color, paint: p };
}

function renderHeader(
  view: WaterfallView,
  axes: TimeAxis[],
  l: Layout,
  filterNote: string | undefined,
): string[] {
  const id = toSingleLine(view.sessionId);
  const title = toSingleLine(view.title) || `Session ${id}`;
  const start = Math.min(...axes.map((a) => a.start));
  const end = Math.max(...axes.map((a) => a.end));
  const inTurns = axes.reduce((s, a) => s + (a.end - a.start), 0);
  const summary = [
    // The title usually is "Session <id>": the id is not said twice.
    ...(title.includes(id) ? [] : [`session ${id}`]),
    plural(view.turns.length, 'turn'),
    plural(flattenRows(view.rows).length, 'call'),
    axes.length === 0 ? '0s' : `${formatDuration(end - start)} wall`,
    ...(axes.length > 1 ? [`${formatDuration(inTurns)} in turns`] : []),
    ...(axes.length > 0 ? [`from ${clockLabeller(axes)(start)} UTC`] : []),
  ];
  const lines = [l.paint(fitWidth(title, l.width), 'bold'), ...wrapParts(summary, ' · ', l.width)];
  if (filterNote) lines.push(l.paint(fitWidth(`showing ${filterNote}`, l.width), 'yellow'));
  return lines;
}

/** One row per turn on the folded session axis; only when there is more than one turn. */
function renderOverview(groups: TurnGroup[], axes: TimeAxis[], l: Layout): string[] {
  if (groups.length < 2) return [];
  const folded = foldedAxis(axes);
  const clock = clockLabeller(axes);
  const note = folded.breaks.length > 0 ? `, idle gaps over 1m folded (┊)` : '';
  const lines = ['', ruleLine(`── Overview: one row per turn${note} `, l)];
  lines.push(columnHeader('turn', breakRuler(folded, l.barW), '', l));
  groups.forEach((g, i) => {
    const axis = axes[i]!;
    const errors = flattenRows(g.rows).filter((f) => f.row.status === 'error').length;
    const name = g.turn === null ? 'outside any turn' : toSingleLine(g.turn.label);
    const index = g.turn === null ? '–' : String(g.turn.index);
    const errMark = errors > 0 ? `${errors}✗ ` : '';
    const label = `${index.padStart(3)} ${clock(axis.start)} ${errMark}${name}`;
    const tokens =
      g.turn === null
        ? ''
        : `${formatTokens(g.turn.inputTokens)}/${formatTokens(g.turn.outputTokens)}`;
    const [from, to] = barCells(folded.fraction(axis.start), folded.fraction(axis.end), l.barW);
    const failed = g.turn?.endState === 'api_error' || errors > 0;
    const bar = l.paint('█'.repeat(to - from), failed ? 'red' : 'cyan');
    lines.push(
      [
        padWidth(label, l.labelW),
        ' '.repeat(from) + bar + ' '.repeat(l.barW - to),
        padStartWidth(formatDuration(axis.end - axis.start), DUR_W),
        g.turn === null ? ' '.repeat(STATUS_W) : turnStateCell(g.turn, l),
        padStartWidth(tokens, TOKENS_W),
        ' '.repeat(CTX_W),
      ].join(' '),
    );
  });
  return lines;
}

/**
 * The folded gaps as `┊` over the bar column, once, in the overview's header;
 * left out when they would be closer than three columns (the title says they exist).
 */
function breakRuler(folded: FoldedAxis, barW: number): string {
  if (folded.breaks.length === 0 || folded.breaks.length > barW / 3) return '';
  const cells = Array.from({ length: barW }, () => ' ');
  for (const b of folded.breaks) cells[Math.min(barW - 1, Math.floor(b.at * barW))] = '┊';
  return cells.join('');
}

function renderTurns(
  view: WaterfallView,
  groups: TurnGroup[],
  axes: TimeAxis[],
  l: Layout,
): string[] {
  const lines: string[] = [];
  groups.forEach((group, i) => {
    const axis = axes[i]!;
    if (group.turn) lines.push('', turnHeader(group.turn, axis, l));
    else if (view.turns.length > 0) lines.push('', ruleLine('── outside any turn ', l));
    for (const m of group.turn?.teammateMessages ?? []) lines.push(teammateLine(m, l));
    const ruler = rulerText(axis, l.barW);
    lines.push(columnHeader('call', ruler, 'ctx', l));
    for (const flat of flattenRows(group.rows)) lines.push(rowLine(flat, axis, l));
  });
  return lines;
}

/** `0s` at the left end of the bar column, the axis' span at the right. */
function rulerText(axis: TimeAxis, barW: number): string {
  const endLabel = formatDuration(axis.end - axis.start);
  return padWidth('0s', Math.max(0, barW - endLabel.length)) + endLabel;
}

/** Column titles: the bar column carries the axis of the rows under it. */
function columnHeader(first: string, ruler: string, last: string, l: Layout): string {
  const line = [
    padWidth(first, l.labelW),
    padWidth(ruler, l.barW),
    padStartWidth('dur', DUR_W),
    padWidth('status', STATUS_W),
    padStartWidth('in/out', TOKENS_W),
    padStartWidth(last, CTX_W),
  ].join(' ');
  return l.paint(line, 'dim');
}

/** A teammate's message to the lead: part of the turn it arrived in, no prompt of its own. */
function teammateLine(m: { from: string; summary: string | null }, l: Layout): string {
  const text = `✉ from ${m.from}${m.summary === null ? '' : `: ${m.summary}`}`;
  return l.paint(fitWidth(toSingleLine(text), l.width), 'dim');
}

function turnHeader(turn: TurnSummary, axis: TimeAxis, l: Layout): string {
  const head = `── Turn ${turn.index} · ${turn.endState} · `;
  const cost = ` · ${formatCost(turn.costUsd)} `;
  const full =
    ` · ${formatDuration(axis.end - axis.start)}` +
    ` · in ${formatTokens(turn.inputTokens)} out ${formatTokens(turn.outputTokens)}` +
    cost;
  // On narrow terminals the prompt keeps some room and the numbers go first.
  const room = (t: string): number => l.width - displayWidth(head) - displayWidth(t);
  const tail = [full, cost, ' '].find((t) => room(t) >= 12) ?? ' ';
  const labelRoom = Math.max(1, room(tail) - 2);
  const label = fitWidth(toSingleLine(turn.label) || '(no prompt text)', labelRoom);
  const colour: AnsiName = turn.endState === 'api_error' ? 'red' : 'bold';
  return l.paint(padWidth(head + label + tail, l.width, '─'), colour);
}

/** A turn's end state in the status column: words without colour, marks with it (as rows). */
function turnStateCell(turn: TurnSummary, l: Layout): string {
  if (!l.color) {
    const plain = { completed: 'ok', api_error: 'ERR', interrupted: 'INT', open: 'open' } as const;
    return padWidth(plain[turn.endState], STATUS_W);
  }
  const fancy = {
    completed: ['✓', 'green'],
    api_error: ['✗', 'red'],
    interrupted: ['■', 'yellow'],
    open: ['…', 'yellow'],
  } as const;
  const [glyph, colour] = fancy[turn.endState];
  return l.paint(glyph, colour) + ' '.repeat(STATUS_W - 1);
}

function ruleLine(text: string, l: Layout): string {
  return l.paint(padWidth(text, l.width, '─'), 'dim');
}

function rowLine(flat: FlatRow, axis: TimeAxis, l: Layout): string {
  const { row } = flat;
  const label = padWidth(treePrefix(flat) + toSingleLine(row.label), l.labelW);
  const tokens = rowTokens(row);
  const duration = rowEnd(row, l.now) - row.startTime;
  return [
    label,
    bar(row, axis, l),
    padStartWidth(formatDuration(duration), DUR_W),
    statusMarker(row, l),
    padStartWidth(`${formatTokens(tokens.input)}/${formatTokens(tokens.output)}`, TOKENS_W),
    ctxCell(row.contextFillPercent, l),
  ].join(' ');
}

/** `│  ` per open ancestor level, then `├─ ` or `└─ `. */
function treePrefix(flat: FlatRow): string {
  const guides = flat.ancestorsLast.map((last) => (last ? '   ' : '│  ')).join('');
  return guides + (flat.isLast ? '└─ ' : '├─ ');
}

/** [from, to) cells of a bar; never empty, so the shortest call still shows. */
function barCells(fromFraction: number, toFraction: number, barW: number): [number, number] {
  const from = Math.min(barW - 1, Math.floor(fromFraction * barW));
  const to = Math.min(barW, Math.max(from + 1, Math.ceil(toFraction * barW)));
  return [from, to];
}

function bar(row: WaterfallRow, axis: TimeAxis, l: Layout): string {
  const [from, to] = barCells(
    axisFraction(axis, row.startTime),
    axisFraction(axis, rowEnd(row, l.now)),
    l.barW,
  );
  // Running rows are shaded rather than solid so they read as open-ended without colour.
  const glyph = row.status === 'running' ? '░' : '█';
  const filled = l.paint(glyph.repeat(to - from), barColour(row));
  return ' '.repeat(from) + filled + ' '.repeat(l.barW - to);
}

function barColour(row: WaterfallRow): AnsiName {
  if (row.status === 'error') return 'red';
  if (row.status === 'running') return 'yellow';
  return row.type === 'agent' ? 'magenta' : 'cyan';
}

function statusMarker(row: WaterfallRow, l: Layout): string {
  if (!l.color) {
    const plain = { success: 'ok', error: 'ERR', running: 'RUN' } as const;
    return padWidth(plain[row.status], STATUS_W);
  }
  const fancy = { success: ['✓', 'green'], error: ['✗', 'red'], running: ['…', 'yellow'] } as const;
  const [glyph, colour] = fancy[row.status];
  return l.paint(glyph, colour) + ' '.repeat(STATUS_W - 1);
}

function ctxCell(percent: number, l: Layout): string {
  const text = padStartWidth(formatPercent(percent), CTX_W);
  // A context nearly full is what precedes auto-compaction: worth a glance.
  if (percent >= 90) return l.paint(text, 'red');
  if (percent >= 75) return l.paint(text, 'yellow');
  return text;
}

function renderFooter(view: WaterfallView, l: Layout): string[] {
  const all = flattenRows(view.rows);
  const errors = all.filter((f) => f.row.status === 'error').length;
  const running = all.filter((f) => f.row.status === 'running').length;
  const parts = [
    `total in ${formatTokens(view.totals.inputTokens)} out ${formatTokens(view.totals.outputTokens)}`,
    `cost ${formatCost(view.totals.costUsd)}`,
    `${plural(errors, 'error')}`,
    `${running} running`,
    plural(view.warnings.length, 'warning'),
  ];
  const lines = ['', l.paint('─'.repeat(l.width), 'dim'), ...wrapParts(parts, ' · ', l.width)];
  for (const w of view.warnings.slice(0, WARNINGS_SHOWN)) {
    const text = `  ! ${toSingleLine(w.file)}:${w.line}: ${toSingleLine(w.reason)}`;
    lines.push(l.paint(fitWidth(text, l.width), 'yellow'));
  }
  const more = view.warnings.length - WARNINGS_SHOWN;
  if (more > 0) lines.push(fitWidth(`  … and ${more} more`, l.width));
  return lines;
}

/** Joins `parts` with `sep`, starting a new line rather than cutting a part. */
function wrapParts(parts: string[], sep: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const part of parts) {
    const candidate = current === '' ? part : current + sep + part;
    if (current !== '' && displayWidth(candidate) > width) {
      lines.push(current);
      current = part;
    } else {
      current = candidate;
    }
  }
  if (current !== '') lines.push(current);
  return lines.map((line) => fitWidth(line, width));
}
