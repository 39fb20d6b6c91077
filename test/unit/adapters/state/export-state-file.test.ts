// The export state's format on disk: a version 1 file is taken with its turns
// and no marks, a bad mark costs only that session, a bad file is moved aside.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  exportStatePath,
  loadExportState,
  mergeExportState,
  saveExportState,
  type SessionMark,
} from '../../../../src/adapters/state/export-state-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-export-state-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const mark: SessionMark = {
  under: 'k',
  since: null,
  files: [['s.jsonl', 1, 2, 3, 4.5, 4.5]],
  turns: [['t1', 1000, 'd1']],
  warnings: [{ file: '/p/s.jsonl', line: 3, reason: 'malformed JSON' }],
  unknownModels: ['m'],
  lateAgents: 0,
};

describe('export state file', () => {
  it('round-trips turns and marks', async () => {
    await saveExportState(dir, {
      version: 2,
      turns: { t1: 'd1' },
      sessions: { '/p/s.jsonl': mark },
    });
    const loaded = await loadExportState(dir);
    expect(loaded.problem).toBeNull();
    expect(loaded.state).toEqual({
      version: 2,
      turns: { t1: 'd1' },
      sessions: { '/p/s.jsonl': mark },
    });
  });

  it('takes a version 1 file (before marks) with its turns and no marks', async () => {
    await writeFile(exportStatePath(dir), JSON.stringify({ version: 1, turns: { t1: 'd1' } }));
    const loaded = await loadExportState(dir);
    expect(loaded).toEqual({
      state: { version: 2, turns: { t1: 'd1' }, sessions: {} },
      problem: null,
    });
  });

  it('drops a mark of the wrong shape and keeps the rest', async () => {
    const bad = { ...mark, files: [['s.jsonl', 2, 3]] };
    await writeFile(
      exportStatePath(dir),
      JSON.stringify({ version: 2, turns: {}, sessions: { '/a.jsonl': mark, '/b.jsonl': bad } }),
    );
    const loaded = await loadExportState(dir);
    expect(Object.keys(loaded.state.sessions)).toEqual(['/a.jsonl']);
  });

  it('moves aside a file of an unknown version and starts afresh, saying so', async () => {
    await writeFile(exportStatePath(dir), JSON.stringify({ version: 3, turns: {}, sessions: {} }));
    const loaded = await loadExportState(dir);
    expect(loaded.state).toEqual({ version: 2, turns: {}, sessions: {} });
    expect(loaded.problem).toMatch(/was unreadable/);
    expect((await readdir(dir)).some((n) => n.includes('.corrupt-'))).toBe(true);
  });

  it('a merge of turns (the daemon) keeps the marks on disk', async () => {
    await saveExportState(dir, {
      version: 2,
      turns: { t1: 'd1' },
      sessions: { '/p/s.jsonl': mark },
    });
    await mergeExportState(dir, new Map([['t2', 'd2']]), () => undefined);
    const saved = JSON.parse(await readFile(exportStatePath(dir), 'utf8')) as unknown;
    expect(saved).toEqual({
      version: 2,
      turns: { t1: 'd1', t2: 'd2' },
      sessions: { '/p/s.jsonl': mark },
    });
  });
});
