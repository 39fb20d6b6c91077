import { status } from '../../app/status/status.js';
import { defaultProjectsDirs } from '../../adapters/files/projects-dir.js';
import { UserError } from '../../core/user-error.js';
import { terminalText } from '../../core/view/terminal-text.js';
import { defaultStateDir, loadConfig } from '../../adapters/config/config-loader.js';
import { DEFAULT_STALE_AFTER_MS } from '../../core/session/live-status.js';
import { parseCommandArgs } from '../parse-args.js';
import { formatWarnings } from '../format-warnings.js';
import type { CommandIo } from '../command-io.js';

// --now is deliberately left out of the help: it exists so tests get stable
// relative times and staleness.
export const STATUS_HELP = `Usage: ccotel status [options]

Lists the sessions active in the last hours and whose move it is, read from
the transcripts alone: working, your_turn, api_error, interrupted, or unknown
(not enough data — e.g. a session "working" with no event for --stale-minutes).
Malformed transcript lines of the sessions listed are warnings on stderr.

Options:
  --json                 print a JSON array, one object per session, newest first
                         ("malformedLines": N on a session with bad lines)
  --hours N              sessions with an event in the last N hours (default 24)
  --stale-minutes N      report "working" with no event for N minutes as unknown (default 30)
  --projects-dir DIR     where the transcripts are (default: $CLAUDE_CONFIG_DIR/projects,
                         else ~/.config/claude/projects and ~/.claude/projects); repeatable
  -h, --help             this help
`;

function positive(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0)
    throw new UserError(`status: ${flag} must be a positive number, not '${text}'`, 'usage');
  return n;
}

/** The export state dir as `export` would use it (a bad config file is export's to report). */
function stateDirOf(env: NodeJS.ProcessEnv): string {
  try {
    return loadConfig({}, env).settings.stateDir ?? defaultStateDir(env);
  } catch {
    return defaultStateDir(env);
  }
}

function parseNow(text: string | undefined): number {
  if (text === undefined) return Date.now();
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new UserError(`status: --now: not a date or time: '${text}'`, 'usage');
  return ms;
}

export async function runStatusCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('status', argv, {
    json: { type: 'boolean' },
    hours: { type: 'string' },
    'stale-minutes': { type: 'string' },
    'projects-dir': { type: 'string', multiple: true },
    now: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(STATUS_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UserError(
      `status: unexpected argument '${positionals[0]}' (see 'ccotel status --help')`,
      'usage',
    );
  const result = await status({
    projectsDirs: values['projects-dir'] ?? defaultProjectsDirs(io.env),
    hours: positive('--hours', values.hours, 24),
    now: parseNow(values.now),
    staleAfterMs:
      positive('--stale-minutes', values['stale-minutes'], DEFAULT_STALE_AFTER_MS / 60_000) *
      60_000,
    format: values.json === true ? 'json' : 'table',
    stateDir: stateDirOf(io.env),
  });
  // Bad lines are problems with the input: printed as export prints them, --json or not.
  const warned = formatWarnings(result.warnings);
  if (warned !== '') io.stderr(warned);
  for (const note of result.notes) io.stderr(`ccotel: ${terminalText(note)}\n`);
  io.stdout(result.stdout);
  return 0;
}
