// An error meant for a person: one line saying what is wrong and what to do.
// Core, adapters and use cases throw it with the kind of failure; only the CLI
// (src/cli/exit-code.ts) turns the kind into an exit code.

/**
 * failed: the work was tried and did not succeed (spans not delivered, the
 * state dir held by another ccotel); usage: bad arguments or configuration, or
 * a path that cannot be used; not-found: the input is missing (no such path,
 * no transcripts, no such session).
 */
export type UserErrorKind = 'failed' | 'usage' | 'not-found';

export class UserError extends Error {
  constructor(
    message: string,
    readonly kind: UserErrorKind,
  ) {
    super(message);
    this.name = 'UserError';
  }
}
