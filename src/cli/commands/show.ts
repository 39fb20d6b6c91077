import { show } from '../../app/show/show.js';
import { defaultProjectsDirs } from '../../adapters/files/projects-dir.js';
import { UserError } from '../../core/user-error.js';
import { terminalText } from '../../core/view/terminal-text.js';
import { parseCommandArgs } from '../parse-args.js';
import type { CommandIo } from '../command-io.js';

export const SHOW_HELP = `Usage: ccotel show <transcript.jsonl | session-dir | session-id | id-prefix> [options]
       ccotel show --follow [target] [--once]

Draws one session as a waterfall: an overview with one row per turn (idle gaps
folded), then each turn on its own time axis, sub-agents nested under the call
that spawned them. The filters narrow the terminal view, --json and --html.

Options:
  --json                 print {"sessionId", "rows", "warnings"} as one JSON object
  --html FILE            write a self-contained HTML waterfall to FILE (scrubbed of secrets)
  --projects-dir DIR     where to look up a session id (default: $CLAUDE_CONFIG_DIR/projects,
                         else ~/.config/claude/projects and ~/.claude/projects); repeatable
  --errors               only failed calls, in the agents they ran in (turns
                         without one are left out)
  --turn N               only turn N, numbered from 0 as the view prints them
  --since DATE           only turns that started at or after DATE (ISO date or time)
  --until DATE           only turns that started before DATE (ISO date or time)
  --compact              one line per turn with its slowest calls
  --follow               follow the running session live (default target: the newest
                         session of this directory's project, else the newest anywhere);
                         on a terminal a full-screen view (q quits), else one line per
                         finished call or turn
  --once                 with --follow: print what has finished so far, then exit
  --pricing FILE         price table (default: the bundled config/pricing.json)
  --no-color             plain output even on a terminal
  -h, --help             this help
`;

export async function runShow(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('show', argv, {
    json: { type: 'boolean' },
    html: { type: 'string' },
    'projects-dir': { type: 'string', multiple: true },
    pricing: { type: 'string' },
    'no-color': { type: 'boolean' },
    errors: { type: 'boolean' },
    turn: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    compact: { type: 'boolean' },
    follow: { type: 'boolean' },
    once: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(SHOW_HELP);
    return 0;
  }
  if (values.once === true && values.follow !== true)
    throw new UserError('show: --once goes with --follow', 'usage');
  if (values.follow === true) return follow(positionals, values, io);
  const target = positionals[0];
  if (target === undefined || positionals.length > 1)
    throw new UserError('show: name exactly one transcript, session dir or session id', 'usage');
  const result = await show({
    target,
    projectsDirs: values['projects-dir'] ?? defaultProjectsDirs(io.env),
    format: values.json === true ? 'json' : 'terminal',
    html: values.html ?? null,
    pricingFile: values.pricing ?? null,
    color: values['no-color'] !== true && io.isTTY && io.env.NO_COLOR === undefined,
    // Off a terminal, $COLUMNS says how wide the reader is (100 when unset).
    width: io.isTTY ? io.columns : (positiveInt(io.env.COLUMNS) ?? 100),
    filter: {
      errorsOnly: values.errors === true,
      turn: values.turn === undefined ? null : turnIndex(values.turn),
      since: isoDate('--since', values.since),
      until: isoDate('--until', values.until),
    },
    compact: values.compact === true,
    write: io.stdout,
    ...(io.stdoutDrained === undefined ? {} : { drained: () => io.stdoutDrained?.() }),
  });
  for (const note of result.notes) io.stderr(`ccotel: ${terminalText(note)}\n`);
  io.stdout(result.stdout);
  return 0;
}

/** `show --follow [target]`: its own module, loaded only when asked for. */
async function follow(
  positionals: string[],
  values: { 'projects-dir'?: string[]; pricing?: string; once?: boolean },
  io: CommandIo,
): Promise<number> {
  if (positionals.length > 1)
    throw new UserError(
      'show --follow: name at most one transcript, session dir or session id',
      'usage',
    );
  const { runFollow } = await import('./show-follow.js');
  return runFollow(
    {
      target: positionals[0] ?? null,
      projectsDirs: values['projects-dir'] ?? defaultProjectsDirs(io.env),
      pricingFile: values.pricing ?? null,
      once: values.once === true,
    },
    io,
  );
}

function positiveInt(text: string | undefined): number | null {
  const n = Number(text);
  return text !== undefined && Number.isInteger(n) && n > 0 ? n : null;
}

function turnIndex(text: string): number {
  if (!/^\d+$/.test(text))
    throw new UserError(`--turn: not a turn number (0, 1, 2…): '${text}'`, 'usage');
  return Number(text);
}

/** Dates as `export --since` takes them: anything Date.parse reads (ISO dates and times). */
function isoDate(flag: string, text: string | undefined): number | null {
  if (text === undefined) return null;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UserError(`${flag}: not a date or time: '${text}'`, 'usage');
  return ms;
}
