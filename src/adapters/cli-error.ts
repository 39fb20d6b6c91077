// An error meant for a person: one line, and the exit code the CLI returns.
// Exit codes: 1 work failed (e.g. spans not delivered), 2 bad arguments or
// configuration, 3 input not found or unreadable.
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 | 3,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
