#!/usr/bin/env node
// The ccotel binary: wires the process to run.ts and maps failures to one line
// on stderr and an exit code (1 work failed, 2 bad arguments/config, 3 input
// not found). Stack traces only with CCOTEL_DEBUG=1.
import type { CommandIo } from './command-io.js';
import { runCli } from './run.js';

let stop: Promise<string> | undefined;

/**
 * Installed only when a command asks (the daemon): other commands keep the
 * default behaviour, where Ctrl-C ends the process at once.
 */
function stopSignal(): Promise<string> {
  stop ??= new Promise((resolve) => {
    const onSignal = (signal: string) => resolve(signal);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  return stop;
}

// A reader that went away (`ccotel show --json | head -c 100`) has what it wanted:
// end quietly, with the command's own exit code so far (0 for show).
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});

const io: CommandIo = {
  stdout: (t) => process.stdout.write(t),
  stdoutDrained: () =>
    process.stdout.writableNeedDrain
      ? new Promise((resolve) => process.stdout.once('drain', () => resolve()))
      : Promise.resolve(),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  isTTY: process.stdout.isTTY === true,
  columns: process.stdout.columns ?? 100,
  get stopSignal() {
    return stopSignal();
  },
};

const argv = process.argv.slice(2);
void runCli(argv, io).then((code) => {
  process.exitCode = code;
  // The daemon has flushed and saved by now; a stopping service should not
  // linger on a handle some library still holds. Other commands exit on their
  // own, after stdout has drained.
  if (argv[0] === 'watch') process.exit(code);
});
