// The built CLI as a real process (`node dist/cli/main.js …`), for the tests
// that need signals, kill -9 or two processes on one state dir: spawned with a
// clean environment, its stderr kept whole and parsed as log lines, stopped
// with the signal the test chooses. One copy instead of one per suite.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { captureLogs, type LogCapture } from './log-capture.js';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  child: ChildProcess;
  /** stderr as parsed log lines (a daemon logs JSON there), whole lines only. */
  logs: LogCapture;
  /** All of stderr so far, as text (partial last line included). */
  stderr(): string;
  /**
   * Resolves once the daemon logs "watching" (its first scan is done), or once
   * it exits without (a kill during start-up): it never hangs a soak round.
   */
  watching: Promise<void>;
  exited: Promise<Exit>;
  /** Sends `signal` unless it has already exited; resolves on exit. */
  stop(signal: NodeJS.Signals): Promise<Exit>;
}

/**
 * Only PATH, a temp HOME and a config dir under it: the developer's OTEL_*
 * variables and ~/.config/ccotel must not reach the process under test.
 */
export function cliEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config') };
}

/** `node ARGV…` (e.g. from watchArgv or [CLI, 'export', …]); stdout dropped, stderr kept. */
export function spawnCli(argv: string[], env: NodeJS.ProcessEnv): CliProcess {
  const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const logs = captureLogs();
  let text = '';
  let partial = '';
  let sawWatching: () => void = () => undefined;
  const watchingLine = new Promise<void>((resolve) => (sawWatching = resolve));
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    text += chunk;
    if (text.includes('"msg":"watching"')) sawWatching();
    // Log lines are parsed whole: a chunk may end mid-line.
    const pending = partial + chunk;
    const cut = pending.lastIndexOf('\n');
    partial = pending.slice(cut + 1);
    if (cut >= 0) logs.write(pending.slice(0, cut + 1));
  });
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const watching = Promise.race([watchingLine, exited.then(() => undefined)]);
  const stop = (signal: NodeJS.Signals): Promise<Exit> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return { child, logs, stderr: () => text, watching, exited, stop };
}

/**
 * The flags every watch test starts the daemon with: this receiver, these
 * dirs, a 2 s request timeout, and the log level and idle timeout it asks for
 * (the fixtures' last turns have no turn_duration: their roots leave once the
 * session is quiet this long).
 */
export function watchFlags(
  endpoint: string,
  dirs: { projects: string; state: string },
  opts: { logLevel: string; idleTimeout: string },
): string[] {
  return [
    '--endpoint',
    endpoint,
    '--projects-dir',
    dirs.projects,
    '--state-dir',
    dirs.state,
    '--timeout',
    '2000',
    '--log-level',
    opts.logLevel,
    '--idle-timeout',
    opts.idleTimeout,
  ];
}
