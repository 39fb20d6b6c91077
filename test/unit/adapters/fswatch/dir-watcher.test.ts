// The directory watcher on a real temp dir (one fs.watch per directory, no
// per-file watches): the behaviours the daemon relies on (trailing re-check,
// missing root watched through its ancestor, dirs appearing and going away,
// the start-up walk's listing handed over), and what chokidar, which it
// replaces, would have reported (renames, atomic replaces, new project dirs;
// docs/benchmarks.md step 13).
import { appendFile, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  watchDirs,
  type DirWatcher,
  type WatchEvent,
} from '../../../../src/adapters/fswatch/dir-watcher.js';
import { walkDirs } from '../../../../src/adapters/files/dir-walk.js';
import {
  findSessionsSync,
  ownerOfSync,
  sessionsInProject,
} from '../../../../src/adapters/files/session-files.js';
import { isWatchedPath } from '../../../../src/app/watch/intake/file-kind.js';
import { ON_WINDOWS } from '../../../support/platform.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const cleanups: (() => Promise<void>)[] = [];
describe.skipIf(ON_WINDOWS)(
  'dir watcher (skipped on Windows: fs.watch reports and holds dirs differently there, and watch is not yet checked on Windows)',
  () => {
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    });

    async function tempRoot(): Promise<string> {
      const base = await mkdtemp(join(tmpdir(), 'ccotel-dirwatch-'));
      cleanups.push(() => rm(base, { recursive: true, force: true }));
      return base;
    }

    interface Watching {
      events: WatchEvent[];
      errors: Error[];
      watcher: DirWatcher;
      has(type: WatchEvent['type'], path: string): boolean;
    }

    async function watching(root: string, trailingMs = 60): Promise<Watching> {
      const events: WatchEvent[] = [];
      const errors: Error[] = [];
      const watcher = await watchDirs([root], {
        onEvent: (e) => events.push(e),
        onError: (e) => errors.push(e),
        wanted: (path, isDir) => isWatchedPath(path, isDir, root),
        trailingMs,
      });
      await watcher.ready;
      cleanups.push(() => watcher.close());
      return {
        events,
        errors,
        watcher,
        has: (type, path) => events.some((e) => e.type === type && e.path === path),
      };
    }

    describe('watchDirs', () => {
      it('reports appends, new files and deletions, nothing for existing files, and only wanted files', async () => {
        const root = await tempRoot();
        const project = join(root, '-home-dev-app');
        await mkdir(project);
        const old = join(project, 'old.jsonl');
        await writeFile(old, '{}\n');
        const w = await watching(root);
        await sleep(50);
        expect(w.events).toEqual([]);

        await appendFile(old, '{}\n');
        await waitFor(() => w.has('change', old), 'the append');
        const fresh = join(project, 'fresh.jsonl');
        await writeFile(fresh, '{}\n');
        await waitFor(() => w.has('add', fresh), 'the new file');
        await writeFile(join(project, 'sessions-index.json'), '{}');
        await rm(old);
        await waitFor(() => w.has('unlink', old), 'the deletion');
        expect(w.events.some((e) => e.path.endsWith('sessions-index.json'))).toBe(false);
        expect(w.errors).toEqual([]);
      });

      it('follows every burst with one trailing change', async () => {
        const root = await tempRoot();
        const file = join(root, 's.jsonl');
        await writeFile(file, '');
        const w = await watching(root, 40);
        for (let i = 0; i < 5; i += 1) await appendFile(file, '{}\n');
        await waitFor(() => w.events.length >= 1, 'the first change');
        const quiet = (): number => w.events.length;
        await sleep(150);
        const afterBurst = quiet();
        await sleep(150);
        // The burst: its own events plus exactly one trailing change, then silence.
        expect(quiet()).toBe(afterBurst);
        expect(w.events.every((e) => e.type === 'change' && e.path === file)).toBe(true);
        expect(w.events.length).toBeGreaterThanOrEqual(2);
      });

      it('watches dirs created later, reports the files already in them, and forgets deleted dirs', async () => {
        const root = await tempRoot();
        const project = join(root, '-home-dev-app');
        await mkdir(project);
        const w = await watching(root);
        // A sub-agent dir written in one go: its file may exist before the dir is watched.
        const sub = join(project, 'sid', 'subagents');
        await mkdir(sub, { recursive: true });
        const agent = join(sub, 'agent-a1.jsonl');
        await writeFile(agent, '{}\n');
        await waitFor(() => w.has('add', agent), 'the sub-agent file');
        await appendFile(agent, '{}\n');
        await waitFor(() => w.has('change', agent), 'an append to it');
        await rm(join(project, 'sid'), { recursive: true });
        await waitFor(() => w.has('unlinkDir', join(project, 'sid')), 'the dir deletion');
        // Renamed in: a whole project dir moved under the root.
        const outside = join(await tempRoot(), '-moved');
        await mkdir(outside);
        await writeFile(join(outside, 'm.jsonl'), '{}\n');
        await rename(outside, join(root, '-moved'));
        await waitFor(() => w.has('add', join(root, '-moved', 'm.jsonl')), 'the moved-in file');
        expect(w.errors).toEqual([]);
      });

      it('does not watch dirs that never hold transcripts', async () => {
        const root = await tempRoot();
        const project = join(root, '-home-dev-app');
        await mkdir(join(project, 'sid', 'tool-results'), { recursive: true });
        const w = await watching(root);
        const listed = [...w.watcher.takeListing().entries()].map(([d]) => d);
        expect(listed.sort()).toEqual([root, project, join(project, 'sid')].sort());
        await writeFile(join(project, 'sid', 'tool-results', 'x.jsonl'), '{}\n');
        await sleep(100);
        expect(w.events).toEqual([]);
      });

      it('watches a missing root through its nearest ancestor until it appears, and again after it is deleted', async () => {
        const base = await tempRoot();
        const root = join(base, '.claude', 'projects');
        const w = await watching(root);
        await writeFile(join(base, 'unrelated.jsonl'), '{}\n');
        await mkdir(join(base, '.claude'));
        await mkdir(root);
        const first = join(root, '-p', 's1.jsonl');
        await mkdir(join(root, '-p'));
        await writeFile(first, '{}\n');
        await waitFor(() => w.has('add', first), 'a file under the new root');
        await rm(root, { recursive: true });
        await waitFor(() => w.has('unlinkDir', root), 'the root deletion');
        await mkdir(join(root, '-q'), { recursive: true });
        const second = join(root, '-q', 's2.jsonl');
        await writeFile(second, '{}\n');
        await waitFor(() => w.has('add', second), 'a file under the re-created root');
        expect(w.events.some((e) => e.path.endsWith('unrelated.jsonl'))).toBe(false);
        expect(w.errors).toEqual([]);
      });

      it('hands over the start-up listing once, and discovery over it finds what the disk walk finds', async () => {
        const root = await tempRoot();
        const project = join(root, '-home-dev-app');
        await mkdir(join(project, 's2', 'subagents', 'workflows', 'wf_1'), { recursive: true });
        await writeFile(join(project, 's1.jsonl'), '{"sessionId":"s1"}\n');
        await writeFile(join(project, 's2.jsonl'), '{"sessionId":"s2"}\n');
        await writeFile(
          join(project, 'agent-f1.jsonl'),
          `{"x":"${'y'.repeat(300)}","sessionId":"s1"}\n`,
        );
        await writeFile(join(project, 's2', 'subagents', 'agent-a1.jsonl'), '{}\n');
        await writeFile(join(project, 's2', 'subagents', 'agent-a1.meta.json'), '{}');
        await writeFile(
          join(project, 's2', 'subagents', 'workflows', 'wf_1', 'agent-a2.jsonl'),
          '{}\n',
        );
        const w = await watching(root);
        const listing = w.watcher.takeListing();
        expect(listing.size).toBe(6);
        expect(w.watcher.takeListing().size).toBe(0);
        const fromListing = findSessionsSync(root, undefined, listing);
        expect(fromListing).toEqual(findSessionsSync(root));
        expect(fromListing).toEqual(await sessionsInProject(project));
        const s1 = fromListing.find((s) => s.sessionId === 's1');
        expect(s1?.agentFiles.map((a) => a.agentId)).toEqual(['f1']);
        const s2 = fromListing.find((s) => s.sessionId === 's2');
        expect(s2?.agentFiles.map((a) => a.agentId).sort()).toEqual(['a1', 'a2']);
        expect(s2?.metaFiles).toHaveLength(1);
        // The same from a walk without watches (--once).
        const walked = walkDirs([root], { wantDir: (p) => isWatchedPath(p, true, root) });
        expect(findSessionsSync(root, undefined, walked)).toEqual(fromListing);
      });
    });

    describe('watchDirs: what a file-watching library would report', () => {
      it('a rename: the old name unlinked, the new one added', async () => {
        const root = await tempRoot();
        const project = join(root, '-home-dev-app');
        await mkdir(project);
        const from = join(project, 'a.jsonl');
        await writeFile(from, '{}\n');
        const w = await watching(root);
        const to = join(project, 'b.jsonl');
        await rename(from, to);
        await waitFor(() => w.has('unlink', from) && w.has('add', to), 'the rename');
        await appendFile(to, '{}\n');
        await waitFor(() => w.has('change', to), 'an append under the new name');
        expect(w.errors).toEqual([]);
      });

      it('an atomic replace (write a temp file, rename it over): the file added again, never unlinked', async () => {
        const root = await tempRoot();
        const project = join(root, '-home-dev-app');
        await mkdir(project);
        const file = join(project, 's.jsonl');
        await writeFile(file, '{}\n');
        const w = await watching(root);
        const temp = join(project, 's.jsonl.tmp-123');
        await writeFile(temp, '{}\n{}\n');
        await rename(temp, file);
        await waitFor(() => w.has('add', file), 'the replaced file');
        await sleep(100);
        expect(w.has('unlink', file)).toBe(false);
        expect(w.events.some((e) => e.path === temp)).toBe(false);
        await appendFile(file, '{}\n');
        await waitFor(() => w.has('change', file), 'an append to the new inode');
      });

      it('a new project dir with a session in it, and an old session resumed and appended', async () => {
        const root = await tempRoot();
        const old = join(root, '-home-dev-old', 'old.jsonl');
        await mkdir(dirname(old));
        await writeFile(old, '{}\n');
        const w = await watching(root);
        const project = join(root, '-home-dev-new');
        await mkdir(project);
        const fresh = join(project, 'fresh.jsonl');
        await writeFile(fresh, '{}\n');
        await waitFor(() => w.has('add', fresh), 'the session in the new project dir');
        await appendFile(fresh, '{}\n');
        await waitFor(() => w.has('change', fresh), 'an append to it');
        await appendFile(old, '{}\n');
        await waitFor(() => w.has('change', old), 'the append to the old session');
        expect(w.errors).toEqual([]);
      });

      it('appends to every one of many files, each reported', async () => {
        const root = await tempRoot();
        const project = join(root, '-home-dev-app');
        await mkdir(project);
        const files = Array.from({ length: 200 }, (_, i) => join(project, `s${i}.jsonl`));
        for (const f of files) await writeFile(f, '{}\n');
        const w = await watching(root);
        for (const f of files) await appendFile(f, '{}\n');
        await waitFor(() => files.every((f) => w.has('change', f)), 'every append');
      });
    });

    describe('ownerOfSync', () => {
      it('reads the owner from the first line, wherever the key sits, and null when there is none', async () => {
        const root = await tempRoot();
        const late = join(root, 'late.jsonl');
        await writeFile(
          late,
          `{"text":"\\"sessionId\\": no","pad":"${'z'.repeat(20_000)}","sessionId" : "abc"}\n`,
        );
        expect(ownerOfSync(late)).toBe('abc');
        const none = join(root, 'none.jsonl');
        await writeFile(none, '{"type":"user"}\n');
        expect(ownerOfSync(none)).toBeNull();
        expect(ownerOfSync(join(root, 'missing.jsonl'))).toBeNull();
        // The shared buffer still holds the longer file: nothing of it may leak into the next.
        expect(ownerOfSync(none)).toBeNull();
      });
    });
  },
);
