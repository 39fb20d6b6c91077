// The binary's exit codes for the errors meant for a person (core/user-error.ts):
// 1 the work failed, 2 bad arguments or configuration, 3 input not found.
// (0 is success; anything unexpected also exits 1, as "unexpected error".)
import { UserError, type UserErrorKind } from '../core/user-error.js';

export type ExitCode = 1 | 2 | 3;

const EXIT_CODES: Record<UserErrorKind, ExitCode> = { failed: 1, usage: 2, 'not-found': 3 };

/** The exit code of an error meant for a person; null for any other error. */
export function exitCodeOf(err: unknown): ExitCode | null {
  return err instanceof UserError ? EXIT_CODES[err.kind] : null;
}
