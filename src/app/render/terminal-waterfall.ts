// The `ccotel show` terminal waterfall: one line per call, a tree on the left,
// a duration bar on one time axis shared by the whole session, then duration,
// status, tokens and context fill. Output depends only on its arguments
// (running rows stop at `opts.now`, or at the view's last timestamp), so it
// can be compared byte for byte in tests.
import type { WaterfallRow } from '../../core/waterfall-row.js';
import {
  axisFraction,
  flattenRows,
  formatCost,
  formatDuration,
  formatPercent,
  formatTokens,
  groupByTurn,
  lastTimestamp,
  rowEnd,
  rowTokens,
  sessionAxis,
  toSingleLine,
  type FlatRow,
  type TimeAxis,
  type TurnSummary,
  type WaterfallView,
} from './waterfall-view.js';

export interface TerminalWaterfallOptions {
  color: boolean;
  /** Terminal columns; every line fits in it (values below MIN_WIDTH are raised). */
  width: number;
  /** Where running rows end; defaults to the view's last timestamp. */
  now?: number;
}

const MIN_WIDTH = 60;
const DUR_W = 6;
const STATUS_W = 3;
const TOKENS_W = 11;
const CTX_W = 4;
/** The fixed columns right of the bar, separators included. */
const RIGHT_W = 1 + DUR_W + 1 + STATUS_W + 1 + TOKENS_W + 1 + CTX_W;
const MAX_LABEL_W = 48;
const WARNINGS_SHOWN = 3;

const ANSI = {
  bold: '1',
  dim: '2',
  red: '31',
  green: '32',
  yellow: '33',
  magenta: '35',
  cyan: '36',
} as const;
type AnsiName = keyof typeof ANSI;

interface Layout {
  width: number;
  labelW: number;
  barW: number;
  axis: TimeAxis;
  now: number;
  color: boolean;
}

export function renderTerminalWaterfall(
  view: WaterfallView,
  opts: TerminalWaterfallOptions,
): string {
  const now = opts.now ?? lastTimestamp(view);
  const layout = makeLayout(view, opts, now);
  const lines = [
    ...renderHeader(view, layout),
    ...renderBody(view, layout),
    ...renderFooter(view, layout),
  ];
  return lines.join('\n') + '\n';
}

function makeLayout(view: WaterfallView, opts: TerminalWaterfallOptions, now: number): Layout {
  const width = Math.max(MIN_WIDTH, Math.floor(opts.width));
  const rest = width - RIGHT_W;
  // Labels get half of what is left (capped), the bar the other half.
  const labelW = Math.min(MAX_LABEL_W, Math.floor(rest / 2));
  const barW = rest - labelW - 1;
  return { width, labelW, barW, axis: sessionAxis(view, now), now, color: opts.color };
}

function renderHeader(view: WaterfallView, l: Layout): string[] {
  const all = flattenRows(view.rows);
  const title = fit(toSingleLine(view.title) || 'Claude Code session', l.width);
  const summary = [
    `session ${toSingleLine(view.sessionId)}`,
    plural(view.turns.length, 'turn'),
    plural(all.length, 'call'),
    formatDuration(l.axis.end - l.axis.start),
  ].join(' · ');
  return [paint(l, title, 'bold'), fit(summary, l.width), '', columnHeader(l)];
}

/** Column titles, with the axis' two ends over the bar column. */
function columnHeader(l: Layout): string {
  const endLabel = formatDuration(l.axis.end - l.axis.start);
  const ruler = '0s'.padEnd(Math.max(0, l.barW - endLabel.length)) + endLabel;
  const line =
    'call'.padEnd(l.labelW) +
    ' ' +
    fit(ruler, l.barW).padEnd(l.barW) +
    ' ' +
    'time'.padStart(DUR_W) +
    ' ' +
    'st'.padEnd(STATUS_W) +
    ' ' +
    'in/out'.padStart(TOKENS_W) +
    ' ' +
    'ctx'.padStart(CTX_W);
  return paint(l, line, 'dim');
}

function renderBody(view: WaterfallView, l: Layout): string[] {
  const lines: string[] = [];
  for (const group of groupByTurn(view)) {
    if (group.turn) lines.push('', turnHeader(group.turn, l));
    else if (view.turns.length > 0) lines.push('', ruleLine('── outside any turn ', l));
    for (const flat of flattenRows(group.rows)) lines.push(rowLine(flat, l));
  }
  return lines;
}

function turnHeader(turn: TurnSummary, l: Layout): string {
  const head = `── Turn ${turn.index} · ${turn.endState} · `;
  const cost = ` · ${formatCost(turn.costUsd)} `;
  const full =
    ` · ${formatDuration(turn.endTime - turn.startTime)}` +
    ` · in ${formatTokens(turn.inputTokens)} out ${formatTokens(turn.outputTokens)}` +
    cost;
  // On narrow terminals the prompt keeps some room and the numbers go first.
  const tail = [full, cost, ' '].find((t) => l.width - head.length - t.length >= 12) ?? ' ';
  const labelRoom = Math.max(1, l.width - head.length - tail.length - 2);
  const label = fit(toSingleLine(turn.label) || '(no prompt text)', labelRoom);
  const line = fit(head + label + tail, l.width);
  const colour: AnsiName = turn.endState === 'api_error' ? 'red' : 'bold';
  return paint(l, padCp(line, l.width, '─'), colour);
}

function ruleLine(text: string, l: Layout): string {
  return paint(l, padCp(fit(text, l.width), l.width, '─'), 'dim');
}

function rowLine(flat: FlatRow, l: Layout): string {
  const { row } = flat;
  const prefix = treePrefix(flat);
  const label = padCp(fit(prefix + toSingleLine(row.label), l.labelW), l.labelW);
  const tokens = rowTokens(row);
  const duration = rowEnd(row, l.now) - row.startTime;
  return [
    label,
    bar(row, l),
    formatDuration(duration).padStart(DUR_W),
    statusMarker(row, l),
    `${formatTokens(tokens.input)}/${formatTokens(tokens.output)}`.padStart(TOKENS_W),
    ctxCell(row.contextFillPercent, l),
  ].join(' ');
}

/** `│  ` per open ancestor level, then `├─ ` or `└─ `. */
function treePrefix(flat: FlatRow): string {
  const guides = flat.ancestorsLast.map((last) => (last ? '   ' : '│  ')).join('');
  return guides + (flat.isLast ? '└─ ' : '├─ ');
}

function bar(row: WaterfallRow, l: Layout): string {
  const from = Math.min(l.barW - 1, Math.floor(axisFraction(l.axis, row.startTime) * l.barW));
  const to = Math.min(
    l.barW,
    Math.max(from + 1, Math.ceil(axisFraction(l.axis, rowEnd(row, l.now)) * l.barW)),
  );
  // Running rows are shaded rather than solid so they read as open-ended without colour.
  const glyph = row.status === 'running' ? '░' : '█';
  const filled = paint(l, glyph.repeat(to - from), barColour(row));
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
    return plain[row.status].padEnd(STATUS_W);
  }
  const fancy = { success: ['✓', 'green'], error: ['✗', 'red'], running: ['…', 'yellow'] } as const;
  const [glyph, colour] = fancy[row.status];
  return paint(l, glyph, colour) + ' '.repeat(STATUS_W - 1);
}

function ctxCell(percent: number, l: Layout): string {
  const text = formatPercent(percent).padStart(CTX_W);
  // A context nearly full is what precedes auto-compaction: worth a glance.
  if (percent >= 90) return paint(l, text, 'red');
  if (percent >= 75) return paint(l, text, 'yellow');
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
  const lines = ['', paint(l, '─'.repeat(l.width), 'dim'), ...wrapParts(parts, ' · ', l.width)];
  for (const w of view.warnings.slice(0, WARNINGS_SHOWN)) {
    const text = `  ! ${toSingleLine(w.file)}:${w.line}: ${toSingleLine(w.reason)}`;
    lines.push(paint(l, fit(text, l.width), 'yellow'));
  }
  const more = view.warnings.length - WARNINGS_SHOWN;
  if (more > 0) lines.push(fit(`  … and ${more} more`, l.width));
  return lines;
}

/** Joins `parts` with `sep`, starting a new line rather than cutting a part. */
function wrapParts(parts: string[], sep: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const part of parts) {
    const candidate = current === '' ? part : current + sep + part;
    if (current !== '' && Array.from(candidate).length > width) {
      lines.push(current);
      current = part;
    } else {
      current = candidate;
    }
  }
  if (current !== '') lines.push(current);
  return lines.map((line) => fit(line, width));
}

/** Cuts `text` to `width` code points, ending in `…` when something was cut. */
function fit(text: string, width: number): string {
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  if (width <= 0) return '';
  return chars.slice(0, width - 1).join('') + '…';
}

/** padEnd by code points: labels may hold characters outside the BMP (emoji). */
function padCp(text: string, width: number, fill = ' '): string {
  const missing = width - Array.from(text).length;
  return missing > 0 ? text + fill.repeat(missing) : text;
}

function paint(l: Layout, text: string, colour: AnsiName): string {
  if (!l.color || text === '') return text;
  return `\u001b[${ANSI[colour]}m${text}\u001b[0m`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
