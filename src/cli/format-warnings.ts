import type { ReadWarning } from '../core/view/waterfall-row.js';
import { terminalText } from '../core/view/terminal-text.js';

const SHOWN = 20;

/**
 * One line per bad transcript line (file:line: reason), the first 20, then a
 * count; paths and reasons may quote the transcript, so they are escaped.
 */
export function formatWarnings(warnings: ReadWarning[]): string {
  if (warnings.length === 0) return '';
  // Line 0: the problem is the file (or dir) as a whole, not one of its lines.
  const lines = warnings
    .slice(0, SHOWN)
    .map(
      (w) =>
        `warning: ${terminalText(w.file)}${w.line > 0 ? `:${w.line}` : ''}: ${terminalText(w.reason)}\n`,
    );
  if (warnings.length > SHOWN)
    lines.push(`warning: … and ${warnings.length - SHOWN} more malformed lines\n`);
  return lines.join('');
}
