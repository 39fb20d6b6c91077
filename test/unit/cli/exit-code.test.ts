// The exit codes the README documents, from the kind of error core, adapters
// and use cases throw: 1 the work failed, 2 usage, 3 not found; any other
// error is not a person's error (the CLI prints it as unexpected, exit 1).
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../src/cli/exit-code.js';
import { UserError } from '../../../src/core/user-error.js';

describe('exit codes', () => {
  it('maps each kind of UserError to its documented code', () => {
    expect(exitCodeOf(new UserError('spans not delivered', 'failed'))).toBe(1);
    expect(exitCodeOf(new UserError('--endpoint: not a URL', 'usage'))).toBe(2);
    expect(exitCodeOf(new UserError('no such file or directory: x', 'not-found'))).toBe(3);
  });

  it('gives no code for other errors', () => {
    expect(exitCodeOf(new Error('boom'))).toBeNull();
    expect(exitCodeOf('text')).toBeNull();
    expect(exitCodeOf({ kind: 'usage', message: 'looks like one' })).toBeNull();
  });
});
