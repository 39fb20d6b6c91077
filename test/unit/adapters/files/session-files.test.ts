// The paths discovery gives a 2.1.x session's sub-agent files: join()'s, with
// the host's separator at every level (on Windows a '/' before the file name
// would key the file apart from the watcher's path for it).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subagentFilesSync } from '../../../../src/adapters/files/session-files.js';

const SESSION = 'bd8ec9a1-f803-45ed-9d7c-9ec7081ab44d';
let project: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'ccotel-session-files-'));
  cpSync('fixtures/hand/v21-subagents-meta', project, { recursive: true });
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('sub-agent files of a session dir', () => {
  it('are named as join() names them, sidecars too', () => {
    const dir = join(project, SESSION);
    const { agents, metas } = subagentFilesSync(dir);
    const under = (name: string): string => join(dir, 'subagents', name);
    expect(agents.map((a) => a.file).sort()).toEqual(
      [
        'agent-a3f1c9e27b4d6a80e.jsonl',
        'agent-a5e09c3b7f2d14a68.jsonl',
        'agent-a8b27d4e0c91f635d.jsonl',
        'agent-acompact-5e8d21.jsonl',
      ].map(under),
    );
    expect(metas.sort()).toEqual(
      [
        'agent-a3f1c9e27b4d6a80e.meta.json',
        'agent-a5e09c3b7f2d14a68.meta.json',
        'agent-a8b27d4e0c91f635d.meta.json',
      ].map(under),
    );
  });
});
