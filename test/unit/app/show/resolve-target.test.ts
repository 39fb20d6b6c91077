// `show` targets written the ways a shell hands them over: the transcript path
// as join() gives it, with `./` or a doubled separator, and on Windows with
// forward or mixed slashes. Each is the one session, its sub-agents included.
// Real files: the 2.1.x hand fixture with sub-agents, copied to a temp dir.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSession } from '../../../../src/app/show/resolve-target.js';
import { UserError } from '../../../../src/core/user-error.js';
import { ON_WINDOWS } from '../../../support/platform.js';

const SESSION = 'bd8ec9a1-f803-45ed-9d7c-9ec7081ab44d';
let base: string;
let project: string;
let main: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'ccotel-targets-'));
  project = join(base, 'D--proj');
  cpSync('fixtures/hand/v21-subagents-meta', project, { recursive: true });
  main = join(project, `${SESSION}.jsonl`);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** How else a user may type `main`: the forms this host's paths take. */
function typed(): string[] {
  const forms = [
    main,
    `.${sep}${relative(process.cwd(), main)}`,
    `${project}${sep}${sep}${SESSION}.jsonl`,
  ];
  if (ON_WINDOWS) forms.push(main.replace(/\\/g, '/'), `${project}/${SESSION}.jsonl`);
  return forms;
}

describe('a show target given as a path', () => {
  it(`is its session with its 4 sub-agents, however the path is written${ON_WINDOWS ? ' (Windows: with / and \\)' : ''}`, async () => {
    for (const target of typed()) {
      const found = await resolveSession(target, []);
      expect(found.sessionId, target).toBe(SESSION);
      expect(found.agentFiles.map((a) => resolve(a.file)).sort(), target).toEqual(
        [
          'agent-a3f1c9e27b4d6a80e',
          'agent-a5e09c3b7f2d14a68',
          'agent-a8b27d4e0c91f635d',
          'agent-acompact-5e8d21',
        ].map((a) => join(project, SESSION, 'subagents', `${a}.jsonl`)),
      );
    }
  });

  it('a Windows path that is not there is named as given, not taken for a session id', async () => {
    const target = 'D:\\oh-my-posh\\491e126e.jsonl';
    const error = await resolveSession(target, [base]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).kind).toBe('not-found');
    expect((error as UserError).message).toContain(target);
  });
});
