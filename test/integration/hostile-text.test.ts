// Transcript text that would drive a terminal (OSC title, clear screen, BEL,
// BS, the C1 CSI, DEL, bidi overrides) in every place a session lets anyone
// put text, through every command of the built binary: what reaches the
// terminal shows it escaped, and the JSON outputs keep it as it is.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/fault-harness.js';
import {
  HOSTILE_SESSION_ID,
  TERMINAL_PAYLOAD,
  UNSAFE_FOR_TERMINAL,
  writeHostileSession,
} from '../support/hostile-session.js';
import { ON_WINDOWS, POSIX_CHILD_ENV } from '../support/platform.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const run = promisify(execFile);
/** Wide and combining characters ride along: they must come out untouched. */
const PAYLOAD = `${TERMINAL_PAYLOAD} 日本語 e\u0301`;
/** How the payload's start reads once escaped. */
const ESCAPED =
  '\\x1b]0;pwned\\x07\\x1b[2J\\x08\\x9b31m\\x7f\\u202eevil\\u2066x\\u2069 日本語 e\u0301';
const NOW = '2026-11-20T11:00:00.000Z';

let dir: string;
let root: string;
let file: string;

interface BinRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function ccotel(args: string[]): Promise<BinRun> {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: join(dir, 'config') };
  try {
    const r = await run(process.execPath, [CLI, ...args], { env, timeout: 30_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Nothing in `text` a terminal acts on, and what was there reads escaped. */
function expectSafe(text: string): void {
  expect(text).not.toMatch(UNSAFE_FOR_TERMINAL);
}

describe.skipIf(ON_WINDOWS)(`hostile text through the built CLI (${POSIX_CHILD_ENV})`, () => {
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'ccotel-hostile-'));
    root = join(dir, 'projects');
    file = writeHostileSession(root, PAYLOAD);
  }, 120_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('ccotel status', () => {
    it('shows the cwd escaped in its table, wide and combining characters kept', async () => {
      const r = await ccotel(['status', '--projects-dir', root, '--now', NOW]);
      expect(r.code, r.stderr).toBe(0);
      expectSafe(r.stdout);
      expectSafe(r.stderr);
      const row = r.stdout.split('\n').find((l) => l.startsWith(HOSTILE_SESSION_ID)) ?? '';
      expect(row).toContain(`/home/dev/${ESCAPED}`);
      // The malformed line is a warning naming the (hostile) project dir.
      expect(r.stderr).toMatch(/^warning: .*\\x1b\]0;pwned.*:11: /m);
    });

    it('keeps the text as it is in --json', async () => {
      const r = await ccotel(['status', '--projects-dir', root, '--now', NOW, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const [session] = JSON.parse(r.stdout) as { cwd: string; gitBranch: string }[];
      expect(session?.cwd).toBe(`/home/dev/${PAYLOAD}`);
      expect(session?.gitBranch).toBe(`feature/${PAYLOAD}`);
    });
  });

  describe('ccotel show', () => {
    it('draws the title, prompt and calls escaped', async () => {
      const r = await ccotel(['show', file]);
      expect(r.code, r.stderr).toBe(0);
      expectSafe(r.stdout);
      expectSafe(r.stderr);
      expect(r.stdout.split('\n')[0]).toContain(`Title ${ESCAPED}`);
      expect(r.stdout).toContain('Bash: echo \\x1b]0;pwned');
      expect(r.stdout).toContain('Prompt \\x1b]0;pwned');
      expect(r.stdout).toMatch(/^ {2}! .*\\x1b\]0;pwned/m);
    });

    it('draws the compact view escaped', async () => {
      const r = await ccotel(['show', file, '--compact']);
      expect(r.code, r.stderr).toBe(0);
      expectSafe(r.stdout);
      expect(r.stdout).toContain('Prompt \\x1b]0;pwned');
    });

    it('keeps the text as it is in --json', async () => {
      const r = await ccotel(['show', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const json = JSON.parse(r.stdout) as {
        session?: { title: string };
        rows: { label: string }[];
      };
      expect(json.session?.title).toBe(`Title ${PAYLOAD}`);
      expect(json.rows.map((row) => row.label).join('\n')).toContain(`echo ${TERMINAL_PAYLOAD}`);
    });

    it('names a hostile target escaped in its one-line error', async () => {
      const r = await ccotel(['show', join(root, `missing-${PAYLOAD}.jsonl`)]);
      expect(r.code).not.toBe(0);
      expectSafe(r.stderr);
      expect(r.stderr).toContain('missing-\\x1b]0;pwned');
    });

    it('says where it wrote the page escaped', async () => {
      const out = join(dir, `page-${PAYLOAD}.html`);
      const r = await ccotel(['show', file, '--html', out]);
      expect(r.code, r.stderr).toBe(0);
      expectSafe(r.stderr);
      expect(r.stderr).toContain('page-\\x1b]0;pwned');
    });
  });

  describe('ccotel export', () => {
    it('prints its warnings and summary escaped', async () => {
      const r = await ccotel(['export', '--dry-run', root]);
      expect(r.code, r.stderr).toBe(0);
      expectSafe(r.stdout);
      expectSafe(r.stderr);
      expect(r.stderr).toContain('\\x1b]0;pwned');
      expect(r.stdout).toMatch(/^dry run: 1 sessions/);
    });

    it('names a hostile --out file escaped in its summary', async () => {
      const out = join(dir, `spans-${PAYLOAD}.jsonl`);
      const state = join(dir, 'state-out');
      const r = await ccotel(['export', '--out', out, '--state-dir', state, root]);
      expect(r.code, r.stderr).toBe(0);
      expectSafe(r.stdout);
      expect(r.stdout).toContain('written to ');
      expect(r.stdout).toContain('spans-\\x1b]0;pwned');
    });
  });

  describe('ccotel config check', () => {
    it('prints a hostile projects dir escaped', async () => {
      const project = dirname(file);
      const r = await ccotel(['config', 'check', '--projects-dir', project]);
      expect(r.code, r.stderr).toBe(0);
      expectSafe(r.stdout);
      expect(r.stdout).toContain('\\x1b]0;pwned');
    });
  });
});
