// Runs a ccotel command in-process, capturing what it prints.
import { runCli } from '../../src/cli/run.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCcotel(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  stop?: Promise<string>,
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    // A clean environment: the developer's OTEL_* variables must not leak into tests.
    env: { HOME: process.env.HOME, PATH: process.env.PATH, ...env },
    isTTY: false,
    columns: 120,
    stopSignal: stop ?? new Promise(() => undefined),
  });
  return { code, stdout, stderr };
}
