// Command dispatch, separate from the process wiring in main.ts so tests can
// run commands in-process.
import { readFileSync } from 'node:fs';
import { CliError } from '../adapters/cli-error.js';
import type { CommandIo } from './command-io.js';
import { runShow } from './commands/show.js';
import { runExportCommand } from './commands/export.js';
import { runConfigCommand } from './commands/config.js';
import { runStatusCommand } from './commands/status.js';
import { runWatchCommand } from './commands/watch.js';

type Command = (argv: string[], io: CommandIo) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  show: runShow,
  export: runExportCommand,
  config: runConfigCommand,
  status: runStatusCommand,
  watch: runWatchCommand,
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

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined)
    throw new CliError(`unknown command '${name}' (see 'ccotel --help')`, 2);
  return command(rest, io);
}

/** main() plus the error mapping of the binary: one line on stderr and an exit code. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr(`ccotel: ${err.message}\n`);
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`ccotel: unexpected error: ${message.split('\n')[0]}\n`);
    if (io.env.CCOTEL_DEBUG === '1' && err instanceof Error) io.stderr(`${err.stack}\n`);
    return 1;
  }
}
