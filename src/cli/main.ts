#!/usr/bin/env node
// The ccotel binary: wires the process to run.ts and maps failures to one line
// on stderr and an exit code (1 work failed, 2 bad arguments/config, 3 input
// not found). Stack traces only with CCOTEL_DEBUG=1.
import { CliError } from '../adapters/cli-error.js';
import type { CommandIo } from './command-io.js';
import { main } from './run.js';

function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string) => resolve(signal);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}

const io: CommandIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  isTTY: process.stdout.isTTY === true,
  columns: process.stdout.columns ?? 100,
  stopSignal: stopSignal(),
};

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof CliError) {
      process.stderr.write(`ccotel: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`ccotel: unexpected error: ${message.split('\n')[0]}\n`);
    if (process.env.CCOTEL_DEBUG === '1' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  },
);
