// `show --compact`: one line per turn (index, start, duration, end state,
// calls, errors, the prompt) and its slowest calls, so a long session reads
// in one screen. Widths by display width, as in the full view.
import { displayWidth, fitWidth, padStartWidth, padWidth } from './text-width.js';
import { clockLabeller, type Paint } from './terminal-style.js';
import {
  flattenRows,
  formatDuration,
  rowEnd,
  toSingleLine,
  type TimeAxis,
  type TurnGroup,
} from './waterfall-view.js';

export interface CompactOptions {
  width: number;
  now: number;
  paint: Paint;
}

/** How many of a turn's slowest calls a compact line names. */
const TOP_CALLS = 3;
const STATE = { completed: 'ok', api_error: 'ERR', interrupted: 'INT', open: 'open' } as const;

export function renderCompact(
  groups: readonly TurnGroup[],
  axes: readonly TimeAxis[],
  o: CompactOptions,
): string[] {
  const clock = clockLabeller(axes);
  const clockW = displayWidth(clock(axes[0]?.start ?? 0));
  const lines = ['', o.paint(fitWidth(compactHead(clockW), o.width), 'dim')];
  const prompts = groups.map((g) =>
    g.turn === null ? 'outside any turn' : toSingleLine(g.turn.label),
  );
  // One prompt column for all lines (at most 2/5 of the room), so the slowest calls line up after it.
  const fixedW = 4 + 1 + clockW + 1 + 6 + 1 + 4 + 1 + 5 + 1 + 4;
  const promptW = Math.max(
    8,
    Math.min(
      Math.floor(((o.width - fixedW - 1) * 2) / 5),
      prompts.reduce((m, p) => Math.max(m, displayWidth(p)), 0),
    ),
  );
  groups.forEach((g, i) => {
    const axis = axes[i]!;
    const flat = flattenRows(g.rows).map((f) => f.row);
    const errors = flat.filter((r) => r.status === 'error').length;
    const fixed = [
      (g.turn === null ? '–' : String(g.turn.index)).padStart(4),
      padWidth(clock(axis.start), clockW),
      padStartWidth(formatDuration(axis.end - axis.start), 6),
      padWidth(g.turn === null ? '' : STATE[g.turn.endState], 4),
      padStartWidth(String(flat.length), 5),
      padWidth(errors > 0 ? `${errors}✗` : '', 4),
    ].join(' ');
    const top = [...g.rows]
      .sort((a, b) => rowEnd(b, o.now) - b.startTime - (rowEnd(a, o.now) - a.startTime))
      .slice(0, TOP_CALLS)
      .map((r) => `${toSingleLine(r.label)} ${formatDuration(rowEnd(r, o.now) - r.startTime)}`);
    const promptText = padWidth(prompts[i] ?? '', promptW);
    const tail = top.length === 0 ? '' : ` │ ${top.join(' · ')}`;
    const line = fitWidth(`${fixed} ${promptText}${tail}`, o.width).trimEnd();
    lines.push(errors > 0 || g.turn?.endState === 'api_error' ? o.paint(line, 'red') : line);
  });
  return lines;
}

function compactHead(clockW: number): string {
  return [
    'turn',
    padWidth('start', clockW),
    padStartWidth('dur', 6),
    padWidth('end', 4),
    padStartWidth('calls', 5),
    padWidth('err', 4),
    'prompt │ slowest calls',
  ].join(' ');
}
