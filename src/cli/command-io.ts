// What a command may touch of the process: passed in so tests can run commands in-process.
export interface CommandIo {
  stdout(text: string): void;
  /** Resolves once stdout has taken what was written (a pipe's reader may be slower): long output waits on it. */
  stdoutDrained?(): Promise<void>;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
  columns: number;
  /** Resolves when SIGINT/SIGTERM asks the command to stop (the daemon uses it). */
  stopSignal: Promise<string>;
}
