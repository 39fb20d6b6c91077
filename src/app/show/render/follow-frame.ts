// What `show --follow` draws: a full-screen frame of the followed session (its
// state, the open turn's calls with the running ones' clocks, sub-agents
// nested, tokens, cost and context so far, the last turns folded to a line
// each), and the plain line per finished call or turn printed off a terminal.
// Pure: the snapshot, the time and the screen size come in; every line fits
// the width, and transcript text is made printable (terminalText).
import { terminalText } from '../../../core/view/terminal-text.js';
import type { WaterfallRow } from '../../../core/view/waterfall-row.js';
import type { StatusSnapshot } from '../../../core/session/live-status.js';
import {
  type FollowEvent,
  type FollowSnapshot,
  type FollowTurn,
} from '../follow/session-follow.js';
import { fitWidth, padWidth } from './text-width.js';
import {
  flattenRows,
  formatCost,
  formatDuration,
  formatTokens,
  toSingleLine,
} from './waterfall-view.js';

/** Finished turns drawn below the open one, at most. */
const FINISHED_SHOWN = 5;

const GLYPH: Record<WaterfallRow['status'], string> = { running: '…', success: '✓', error: '✗' };

export function stateText(status: StatusSnapshot): string {
  switch (status.state) {
    case 'working':
      return status.openToolCalls.length > 0
        ? `working (${status.openToolCalls.length} call${status.openToolCalls.length === 1 ? '' : 's'} running)`
        : 'working';
    case 'your_turn':
      return 'your turn';
    case 'api_error':
      return `API error${status.errorType === null ? '' : `: ${status.errorType}`}${status.retrying ? ', retrying' : ''}`;
    case 'interrupted':
      return 'interrupted';
    default:
      return status.stale ? 'quiet for a while' : 'unknown';
  }
}

const prompt = (label: string): string => terminalText(toSingleLine(label));

const elapsed = (row: WaterfallRow, now: number): string =>
  row.duration !== null
    ? formatDuration(row.duration)
    : formatDuration(Math.max(0, now - row.startTime));

/** One call: nested by its agent depth, its label, and its time (ticking while it runs). */
function rowLine(row: WaterfallRow, depth: number, now: number, width: number): string {
  const time = `${row.status === 'running' ? 'running ' : ''}${elapsed(row, now)}`;
  const head = `${'  '.repeat(depth + 1)}${GLYPH[row.status]} `;
  const labelWidth = Math.max(1, width - head.length - time.length - 1);
  return `${head}${padWidth(fitWidth(terminalText(toSingleLine(row.label)), labelWidth), labelWidth)} ${time}`;
}

const END: Record<FollowTurn['endState'], string> = {
  completed: '✓',
  api_error: '✗',
  interrupted: '✗',
  open: '…',
};

/** A finished turn on one line: state, duration, calls, errors, tokens, cost, prompt. */
export function turnLine(turn: FollowTurn, width: number): string {
  const errors = turn.errors > 0 ? `, ${turn.errors} failed` : '';
  const facts = `turn ${turn.index} ${END[turn.endState]} ${formatDuration(turn.endTime - turn.startTime)} · ${turn.calls} calls${errors} · ${formatTokens(turn.inputTokens)}/${formatTokens(turn.outputTokens)} tok · ${formatCost(turn.costUsd)}`;
  return fitWidth(`  ${facts}  ${prompt(turn.label)}`, width);
}

/** What the keys change: errors only (e), every agent open (a), the row picked (↑/↓), its details (Enter). */
export interface FollowViewState {
  errorsOnly: boolean;
  expandAll: boolean;
  /** Index into the rows listed (visibleRows), or null: none picked, the latest kept in sight. */
  selected: number | null;
  details: boolean;
}

export const INITIAL_VIEW: FollowViewState = {
  errorsOnly: false,
  expandAll: false,
  selected: null,
  details: false,
};

const hasError = (row: WaterfallRow): boolean =>
  row.status === 'error' || row.children.some(hasError);

/** A listed row: its depth, and for a folded agent how many calls it holds. */
export interface ListedRow {
  row: WaterfallRow;
  depth: number;
  folded: number;
}

/**
 * The open turn's rows as the view lists them: an agent's calls under it
 * while it runs or when all are expanded, else the agent on one line with
 * its count; with errors only, the failed calls and the agents that hold one.
 */
export function visibleRows(
  rows: readonly WaterfallRow[],
  view: FollowViewState,
  depth = 0,
): ListedRow[] {
  const out: ListedRow[] = [];
  for (const row of rows) {
    if (view.errorsOnly && !hasError(row)) continue;
    const open =
      row.children.length > 0 && (view.expandAll || row.status === 'running' || view.errorsOnly);
    out.push({
      row,
      depth,
      folded: row.children.length > 0 && !open ? flattenRows(row.children).length : 0,
    });
    if (open) out.push(...visibleRows(row.children, view, depth + 1));
  }
  return out;
}

function listedLine(item: ListedRow, picked: boolean, now: number, width: number): string {
  const line = rowLine(
    item.folded > 0
      ? { ...item.row, label: `${item.row.label} (+${item.folded} calls)` }
      : item.row,
    item.depth,
    now,
    width,
  );
  return picked ? `>${line.slice(1)}` : line;
}

/** The picked call in full: status, times, tokens, its input and the start of its output. */
function detailLines(row: WaterfallRow, width: number): string[] {
  const text = (t: string): string => terminalText(toSingleLine(t));
  const time = row.endTime === null ? 'running' : formatDuration(row.endTime - row.startTime);
  const lines = [
    `── ${text(row.label)}`,
    `${row.status} · ${time} · ${formatTokens(row.inputTokens)} in / ${formatTokens(row.outputTokens)} out · context ${Math.round(row.contextFillPercent)}%`,
    `input: ${text(JSON.stringify(row.input))}`,
    ...(row.output === null ? [] : [`output: ${text(row.output)}`]),
  ];
  return lines.map((l) => fitWidth(l, width));
}

function openLines(
  open: FollowTurn,
  now: number,
  width: number,
  room: number,
  view: FollowViewState,
): string[] {
  const facts = `turn ${open.index} · ${formatDuration(Math.max(0, now - open.startTime))} · ${formatTokens(open.inputTokens)} in / ${formatTokens(open.outputTokens)} out · ${formatCost(open.costUsd)} · context ${Math.round(open.contextFillPercent)}%`;
  const listed = visibleRows(open.rows, view);
  const fits = Math.max(1, room - 3);
  // The latest calls are the ones to see, or the picked one: the rest go when the screen is short.
  const picked = view.selected === null ? null : Math.min(view.selected, listed.length - 1);
  const end = picked === null ? listed.length : Math.min(listed.length, Math.max(picked + 1, fits));
  const start = listed.length > room - 2 ? Math.max(0, end - fits) : 0;
  const shown = listed
    .slice(start, listed.length > room - 2 ? end : listed.length)
    .map((item, i) => listedLine(item, start + i === picked, now, width));
  return [
    fitWidth(facts, width),
    fitWidth(`  ${prompt(open.label)}`, width),
    ...(start > 0 ? [fitWidth(`  (${start} earlier calls)`, width)] : []),
    ...shown,
  ];
}

/** The whole screen, `height` lines at most, each at most `width` columns. */
export function followFrame(
  snapshot: FollowSnapshot,
  now: number,
  width: number,
  height: number,
  view: FollowViewState = INITIAL_VIEW,
): string[] {
  const w = Math.max(20, width);
  const title = snapshot.header?.title ?? `session ${snapshot.sessionId}`;
  const top = fitWidth(
    `ccotel · ${terminalText(toSingleLine(title))} · ${stateText(snapshot.status)}`,
    w,
  );
  const listed = snapshot.open === null ? [] : visibleRows(snapshot.open.rows, view);
  const pickedRow =
    view.details && view.selected !== null
      ? listed[Math.min(view.selected, listed.length - 1)]
      : undefined;
  const below =
    pickedRow !== undefined
      ? detailLines(pickedRow.row, w)
      : snapshot.finished.length > 0
        ? [
            fitWidth('── earlier turns', w),
            ...snapshot.finished.slice(-FINISHED_SHOWN).map((t) => turnLine(t, w)),
          ]
        : [];
  const footer = fitWidth(
    `${view.errorsOnly ? 'errors only · ' : ''}q quit · ↑/↓ pick · Enter details · e errors · a agents`,
    w,
  );
  const room = Math.max(3, height - 2 - below.length - 1);
  const body =
    snapshot.open === null
      ? [fitWidth('  waiting for the next prompt', w)]
      : openLines(snapshot.open, now, w, room, view);
  const lines = [top, '', ...body, ...below];
  return [...lines.slice(0, Math.max(1, height - 1)), footer];
}

/** A finished call or turn as one plain line (no control sequence): `show --follow` off a terminal. */
export function followEventLine(event: FollowEvent, width: number): string {
  if (event.kind === 'turn') return turnLine(event.turn, width).trimStart();
  const { row, depth } = event;
  const time = row.endTime === null ? '' : ` ${formatDuration(row.endTime - row.startTime)}`;
  const status = row.status === 'error' ? ' failed' : '';
  const label = fitWidth(terminalText(toSingleLine(row.label)), Math.max(10, width - 30));
  return `turn ${event.turn} ${'  '.repeat(depth)}${GLYPH[row.status]} ${label}${time}${status}`;
}
