// The two faces of `ccotel status`: a table for people, JSON for scripts.
import type { SessionStatusRow } from './status.js';
import { terminalText } from '../../core/view/terminal-text.js';
import { displayWidth } from '../show/render/text-width.js';

/** The `--json` contract: one object per session, newest first. */
export interface StatusJson {
  sessionId: string;
  project: string;
  cwd: string | null;
  state: SessionStatusRow['state'];
  /** `unknown` because a `working` session went quiet for too long. */
  stale: boolean;
  /** Working, and the latest event was an API retry attempt. */
  retrying: boolean;
  errorType: string | null;
  lastActivity: string;
  lastPromptAt: string | null;
  openToolCalls: { id: string; name: string }[];
  gitBranch: string | null;
  version: string | null;
  file: string;
  /**
   * Malformed lines (and unknown record types) read, each printed to stderr as
   * a warning with file and line; absent when there are none.
   */
  malformedLines?: number;
}

export function toStatusJson(row: SessionStatusRow): StatusJson {
  const json: StatusJson = {
    sessionId: row.sessionId,
    project: row.project,
    cwd: row.cwd,
    state: row.state,
    stale: row.stale,
    retrying: row.retrying,
    errorType: row.errorType,
    lastActivity: new Date(row.lastActivity).toISOString(),
    lastPromptAt: row.lastPromptAt === null ? null : new Date(row.lastPromptAt).toISOString(),
    openToolCalls: row.openToolCalls,
    gitBranch: row.gitBranch,
    version: row.version,
    file: row.file,
  };
  if (row.warnings.length > 0) json.malformedLines = row.warnings.length;
  return json;
}

export function renderStatusJson(rows: SessionStatusRow[]): string {
  return `${JSON.stringify(rows.map(toStatusJson))}\n`;
}

/** "42s ago", "5m ago", "3h ago", "12d ago"; event times ahead of `now` read as "now". */
export function relativeTime(then: number, now: number): string {
  const s = Math.max(0, Math.floor((now - then) / 1000));
  if (s < 60) return s === 0 ? 'now' : `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

function stateLabel(row: SessionStatusRow): string {
  if (row.stale) return 'unknown (stale)';
  if (row.retrying) return 'working (retrying)';
  if (row.state === 'api_error' && row.errorType !== null) return `api_error (${row.errorType})`;
  return row.state;
}

function openCalls(row: SessionStatusRow): string {
  if (row.openToolCalls.length === 0) return '-';
  return row.openToolCalls.map((c) => c.name).join(', ');
}

export function renderStatusTable(rows: SessionStatusRow[], now: number, hours: number): string {
  if (rows.length === 0) return `No sessions active in the last ${hours} hours.\n`;
  const header = ['SESSION', 'PROJECT', 'STATE', 'LAST ACTIVITY', 'OPEN CALLS'];
  // Every cell but the times holds transcript text: shown escaped, measured in columns.
  const body = rows.map((r) =>
    [r.sessionId, r.project, stateLabel(r), relativeTime(r.lastActivity, now), openCalls(r)].map(
      terminalText,
    ),
  );
  const widths = header.map((h, i) =>
    Math.max(h.length, ...body.map((cells) => displayWidth(cells[i] ?? ''))),
  );
  const padded = (c: string, w: number) => c + ' '.repeat(Math.max(0, w - displayWidth(c)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : padded(c, widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[header, ...body].map(line).join('\n')}\n`;
}
