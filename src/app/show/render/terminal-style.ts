// What the terminal views share besides layout: ANSI colour, plurals, and the
// clock labels of turn starts (UTC, so output does not depend on the machine).
import type { TimeAxis } from './waterfall-view.js';

const ANSI = {
  bold: '1',
  dim: '2',
  red: '31',
  green: '32',
  yellow: '33',
  magenta: '35',
  cyan: '36',
} as const;
export type AnsiName = keyof typeof ANSI;
export type Paint = (text: string, colour: AnsiName) => string;

export function paint(color: boolean, text: string, colour: AnsiName): string {
  if (!color || text === '') return text;
  return `\u001b[${ANSI[colour]}m${text}\u001b[0m`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * `HH:MM` (UTC) when every turn starts on one day, `MM-DD HH:MM` when the
 * session spans several, so a start time is never ambiguous.
 */
export function clockLabeller(axes: readonly TimeAxis[]): (ms: number) => string {
  const days = new Set(axes.map((a) => new Date(a.start).toISOString().slice(0, 10)));
  return (ms: number) => {
    const iso = new Date(ms).toISOString();
    return days.size > 1 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
  };
}
