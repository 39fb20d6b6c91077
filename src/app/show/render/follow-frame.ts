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
  flattenDepth,
  type FollowEvent,
  type FollowSnapshot,
  type FollowTurn,
} from '../follow/session-follow.js';
import { fitWidth, padWidth } from './text-width.js';
import { formatCost, formatDuration, formatTokens, toSingleLine } from './waterfall-view.js';

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

function openLines(open: FollowTurn, now: number, width: number, room: number): string[] {
  const facts = `turn ${open.index} · ${formatDuration(Math.max(0, now - open.startTime))} · ${formatTokens(open.inputTokens)} in / ${formatTokens(open.outputTokens)} out · ${formatCost(open.costUsd)} · context ${Math.round(open.contextFillPercent)}%`;
  const rows = flattenDepth(open.rows).map(({ row, depth }) => rowLine(row, depth, now, width));
  // The latest calls are the ones to see: the oldest go first when the screen is short.
  const shown = rows.length > room - 2 ? rows.slice(rows.length - Math.max(0, room - 3)) : rows;
  const skipped = rows.length - shown.length;
  return [
    fitWidth(facts, width),
    fitWidth(`  ${prompt(open.label)}`, width),
    ...(skipped > 0 ? [fitWidth(`  (${skipped} earlier calls)`, width)] : []),
    ...shown,
  ];
}

/** The whole screen, `height` lines at most, each at most `width` columns. */
export function followFrame(
  snapshot: FollowSnapshot,
  now: number,
  width: number,
  height: number,
): string[] {
  const w = Math.max(20, width);
  const title = snapshot.header?.title ?? `session ${snapshot.sessionId}`;
  const top = fitWidth(
    `ccotel · ${terminalText(toSingleLine(title))} · ${stateText(snapshot.status)}`,
    w,
  );
  const finished = snapshot.finished.slice(-FINISHED_SHOWN).map((t) => turnLine(t, w));
  const footer = fitWidth('q quit', w);
  const room = Math.max(3, height - 2 - finished.length - (finished.length > 0 ? 1 : 0) - 1);
  const body =
    snapshot.open === null
      ? [fitWidth('  waiting for the next prompt', w)]
      : openLines(snapshot.open, now, w, room);
  const lines = [
    top,
    '',
    ...body,
    ...(finished.length > 0 ? [fitWidth('── earlier turns', w), ...finished] : []),
  ];
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
