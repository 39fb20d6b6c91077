// `ccotel watch` as a child process for the benchmarks that measure the daemon
// (live-latency.mjs, memory.mjs): one way to start it, keep its stderr for the
// error message or the "watching" line, and stop it, so both measure the same
// command line.
import { spawn } from 'node:child_process';
import { within } from './report.mjs';

/**
 * Starts `node CLI watch` over one projects dir, sending to `endpoint`, with
 * only PATH and HOME in its environment (no developer OTEL_* settings).
 * stdout is dropped; stderr is kept whole (`stderr()`).
 */
export function spawnWatchDaemon({ cli, projects, endpoint, stateDir, logLevel, home }) {
  const child = spawn(
    process.execPath,
    [
      cli,
      'watch',
      '--projects-dir',
      projects,
      '--endpoint',
      endpoint,
      '--state-dir',
      stateDir,
      '--log-level',
      logLevel,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, HOME: home } },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    /** Resolves with the exit code. */
    exited,
    stderr: () => stderr,
    /** SIGTERM, then SIGKILL if it has not exited 10 s later. */
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await within(exited, 10_000);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
