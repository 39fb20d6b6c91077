// node:util parseArgs, with its errors turned into one-line usage errors (exit 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from '../adapters/cli-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends Options>(command: string, argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const message = (err as Error).message.split('\n')[0] ?? 'invalid arguments';
    throw new CliError(
      `${command}: ${message.replace(/\. To specify a positional.*$/, '')} (see 'ccotel ${command} --help')`,
      2,
    );
  }
}
