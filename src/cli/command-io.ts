// What a command may touch of the process: passed in so tests can run commands in-process.
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
  columns: number;
  /** Resolves when SIGINT/SIGTERM asks the command to stop (the daemon uses it). */
  stopSignal: Promise<string>;
}
