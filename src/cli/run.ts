// Command dispatch, separate from the process wiring in main.ts so tests can
// run commands in-process.
import { UserError } from '../core/user-error.js';
import { terminalText } from '../core/view/terminal-text.js';
import type { CommandIo } from './command-io.js';
import { exitCodeOf } from './exit-code.js';
import { ccotelVersion } from './version.js';

type Command = (argv: string[], io: CommandIo) => Promise<number>;

// Each command is imported when it runs, not at start-up: `--help` and `show`
// then never load the OpenTelemetry packages that only export and watch use
// (measured: they are ~60 of the ~116 modules `--help` loaded, ~0.06 s a run).
const COMMANDS: Record<string, () => Promise<Command>> = {
  show: async () => (await import('./commands/show.js')).runShow,
  export: async () => (await import('./commands/export.js')).runExportCommand,
  config: async () => (await import('./commands/config.js')).runConfigCommand,
  status: async () => (await import('./commands/status.js')).runStatusCommand,
  watch: async () => (await import('./commands/watch.js')).runWatchCommand,
};

const HELP = `ccotel: Claude Code transcripts → OpenTelemetry traces and waterfalls

Usage: ccotel <command> [options]

Commands:
  show <session>     draw a session as a waterfall (terminal, --json, --html FILE)
  export [paths]     send sessions to an OTLP/HTTP endpoint (Jaeger, Tempo), one trace per turn
  watch              follow live sessions and export each span as its work completes
  status             which recent sessions are working, waiting for you, or failed
  config check       print the effective configuration and where each value came from

Run 'ccotel <command> --help' for a command's options.
`;

export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${ccotelVersion()}\n`);
    return 0;
  }
  const load = COMMANDS[name];
  if (load === undefined)
    throw new UserError(`unknown command '${name}' (see 'ccotel --help')`, 'usage');
  const command = await load();
  return command(rest, io);
}

/** main() plus the error mapping of the binary: one line on stderr and an exit code. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (err) {
    const code = exitCodeOf(err);
    if (code !== null) {
      // Messages may quote a path, an argument or a transcript's text.
      io.stderr(`ccotel: ${terminalText((err as Error).message)}\n`);
      return code;
    }
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`ccotel: unexpected error: ${terminalText(message.split('\n')[0] ?? '')}\n`);
    if (io.env.CCOTEL_DEBUG === '1' && err instanceof Error) io.stderr(`${err.stack}\n`);
    return 1;
  }
}
