import { show } from '../../app/show.js';
import { defaultProjectsDirs } from '../../adapters/projects-dir.js';
import { CliError } from '../../adapters/cli-error.js';
import { parseCommandArgs } from '../parse-args.js';
import type { CommandIo } from '../command-io.js';

export const SHOW_HELP = `Usage: ccotel show <transcript.jsonl | session-dir | session-id> [options]

Draws one session as a waterfall: every tool call on a shared time axis,
sub-agents nested under the call that spawned them.

Options:
  --json                 print {"sessionId", "rows", "warnings"} as one JSON object
  --html FILE            write a self-contained HTML waterfall to FILE (scrubbed of secrets)
  --projects-dir DIR     where to look up a session id (default $CLAUDE_CONFIG_DIR/projects
                         or ~/.claude/projects); may be given more than once
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
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(SHOW_HELP);
    return 0;
  }
  const target = positionals[0];
  if (target === undefined || positionals.length > 1)
    throw new CliError('show: name exactly one transcript, session dir or session id', 2);
  const result = await show({
    target,
    projectsDirs: values['projects-dir'] ?? defaultProjectsDirs(io.env),
    format: values.json === true ? 'json' : 'terminal',
    html: values.html ?? null,
    pricingFile: values.pricing ?? null,
    color: values['no-color'] !== true && io.isTTY && io.env.NO_COLOR === undefined,
    width: io.columns,
    write: io.stdout,
    ...(io.stdoutDrained === undefined ? {} : { drained: () => io.stdoutDrained?.() }),
  });
  for (const note of result.notes) io.stderr(`ccotel: ${note}\n`);
  io.stdout(result.stdout);
  return 0;
}
