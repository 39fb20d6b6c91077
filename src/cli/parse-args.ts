// node:util parseArgs, with its errors turned into one-line usage errors (exit 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../core/user-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

const NEGATIVE_NUMBER = /^-\.?\d/;

/**
 * `--timeout -5` as `--timeout=-5`: parseArgs refuses a value that starts with
 * a dash ("argument is ambiguous"); joined, the flag's own check rejects it
 * with its own message. No flag takes a number as a positional or short option.
 */
function joinNegativeValues(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    const option = arg.startsWith('--') ? options[arg.slice(2)] : undefined;
    if (option?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

export function parseCommandArgs<O extends Options>(command: string, argv: string[], options: O) {
  try {
    return parseArgs({
      args: joinNegativeValues(argv, options),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    const message = (err as Error).message.split('\n')[0] ?? 'invalid arguments';
    throw new UserError(
      `${command}: ${message.replace(/\. To specify a positional.*$/, '')} (see 'ccotel ${command} --help')`,
      'usage',
    );
  }
}
