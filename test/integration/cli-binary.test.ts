// The built binary as a new user meets it: installed from the clone as README
// says (`npm install -g .`, here into a temp prefix), `ccotel --version`, and
// the wording of its errors and notes.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/fault-harness.js';
import { ON_WINDOWS, POSIX_CHILD_ENV } from '../support/platform.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const run = promisify(execFile);

interface BinRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with a clean environment: the developer's OTEL_* must not leak in. */
async function exec(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<BinRun> {
  try {
    const r = await run(file, args, {
      cwd: ROOT,
      env: { HOME: process.env.HOME, PATH: process.env.PATH, ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const ccotel = (args: string[], env?: NodeJS.ProcessEnv): Promise<BinRun> =>
  exec(process.execPath, [CLI, ...args], env);

let dir: string;
let version: string;

describe.skipIf(ON_WINDOWS)(
  `the installed binary (${POSIX_CHILD_ENV}: npm's POSIX bin layout)`,
  () => {
    beforeAll(async () => {
      ensureBuilt();
      dir = await mkdtemp(join(tmpdir(), 'ccotel-cli-binary-'));
      version = (
        JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }
      ).version;
    }, 120_000);

    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    describe('install and version', () => {
      it('ccotel --version and -v print the package version', async () => {
        for (const flag of ['--version', '-v']) {
          const r = await ccotel([flag]);
          expect(r.code, r.stderr).toBe(0);
          expect(r.stdout).toBe(`${version}\n`);
        }
      });

      it('npm install -g . puts a working ccotel on PATH', async () => {
        const prefix = join(dir, 'prefix');
        const npm = await exec('npm', [
          'install',
          '-g',
          '--prefix',
          prefix,
          '--offline',
          '--no-audit',
          '--no-fund',
          '.',
        ]);
        expect(npm.code, npm.stderr).toBe(0);
        const bin = join(prefix, 'bin');
        const env = { PATH: `${bin}:${process.env.PATH ?? ''}` };
        const v = await exec('ccotel', ['--version'], env);
        expect(v.code, v.stderr).toBe(0);
        expect(v.stdout).toBe(`${version}\n`);
        // The quick start without Docker, as README writes it.
        const html = join(dir, 'waterfall.html');
        const show = await exec(
          'ccotel',
          [
            'show',
            'fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl',
            '--html',
            html,
          ],
          env,
        );
        expect(show.code, show.stderr).toBe(0);
        expect(await readFile(html, 'utf8')).toMatch(/^<!doctype html>/i);
      });
    });

    /** A usage error: exit 2, one line, naming the flag as typed and no internal setting name. */
    function expectFlagError(r: BinRun, line: RegExp): void {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(line);
      expect(lines[0]).not.toMatch(/logLevel|timeoutMs|maxAttributeBytes|ambiguous/);
    }

    describe('errors name the flag the user typed', () => {
      const fixture = 'fixtures/real/marot_spotter__test_fixtures_transcripts__short.jsonl';
      const cases: [string, string[], RegExp][] = [
        [
          'watch --log-level loud',
          ['watch', '--log-level', 'loud'],
          /^ccotel: --log-level: must be one of debug, info, warn, error$/,
        ],
        [
          'export --timeout 0',
          ['export', '--dry-run', '--timeout', '0', fixture],
          /^ccotel: --timeout: must be a positive whole number$/,
        ],
        [
          'export --timeout -5 (a negative number as its own argument)',
          ['export', '--dry-run', '--timeout', '-5', fixture],
          /^ccotel: --timeout: must be a positive whole number$/,
        ],
        [
          'watch --timeout -5',
          ['watch', '--once', '--timeout', '-5'],
          /^ccotel: --timeout: must be a positive whole number$/,
        ],
        [
          'export --max-attribute-bytes abc',
          ['export', '--dry-run', '--max-attribute-bytes', 'abc', fixture],
          /^ccotel: --max-attribute-bytes: must be a positive whole number$/,
        ],
        [
          'config check --max-attribute-bytes -1',
          ['config', 'check', '--max-attribute-bytes', '-1'],
          /^ccotel: --max-attribute-bytes: must be a positive whole number$/,
        ],
        [
          'status --hours -1',
          ['status', '--hours', '-1'],
          /^ccotel: status: --hours must be a positive number, not '-1'$/,
        ],
        [
          'status --stale-minutes -.5',
          ['status', '--stale-minutes', '-.5'],
          /^ccotel: status: --stale-minutes must be a positive number, not '-\.5'$/,
        ],
        [
          'watch --idle-timeout -5',
          ['watch', '--idle-timeout', '-5'],
          /^ccotel: --idle-timeout: expected a duration such as 30s, 10m or 1h, got '-5'$/,
        ],
        [
          'export --endpoint with no URL',
          ['export', '--dry-run', '--endpoint', 'collector', fixture],
          /^ccotel: --endpoint: not a valid URL: 'collector'$/,
        ],
      ];
      it.each(cases)('%s', async (_name, args, line) => {
        // Dirs of its own: a check that failed to fire must not touch the user's.
        const own = args[0] === 'status' ? '--projects-dir' : '--state-dir';
        expectFlagError(await ccotel([...args, own, join(dir, 'state')]), line);
      });

      it('a bad environment variable is named, not the setting it feeds', async () => {
        const r = await ccotel(['watch', '--once', '--state-dir', join(dir, 'state')], {
          CCOTEL_LOG_LEVEL: 'loud',
        });
        expectFlagError(
          r,
          /^ccotel: environment: CCOTEL_LOG_LEVEL: must be one of debug, info, warn, error$/,
        );
      });

      it('a dash-led word is still refused as a value of its own', async () => {
        // Only numbers are joined to their flag: `--endpoint --dry-run` stays a missing value.
        const r = await ccotel(['export', '--endpoint', '--dry-run']);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/--endpoint/);
      });
    });

    describe('notes that say what is there', () => {
      it('config check names the bundled price table as the default', async () => {
        const r = await ccotel(['config', 'check'], { XDG_CONFIG_HOME: join(dir, 'no-config') });
        expect(r.code, r.stderr).toBe(0);
        const line = r.stdout.split('\n').find((l) => l.startsWith('pricing '));
        expect(line).toBe(
          `pricing            ${join(ROOT, 'config', 'pricing.json')} (bundled)  [default]`,
        );
        const json = await ccotel(['config', 'check', '--json'], {
          XDG_CONFIG_HOME: join(dir, 'no-config'),
        });
        const settings = (
          JSON.parse(json.stdout) as {
            settings: Record<string, { value: unknown; source: string }>;
          }
        ).settings;
        expect(settings.pricing).toEqual({
          value: join(ROOT, 'config', 'pricing.json'),
          source: 'default',
        });
      });

      it('show on a binary file names the file and its unterminated last line', async () => {
        const file = join(dir, 'binary.jsonl');
        // Bytes with newlines among them and none at the end, as in any binary file.
        const bytes = Buffer.alloc(2048);
        for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 2654435761) >>> 24;
        bytes[bytes.length - 1] = 0x41;
        await writeFile(file, bytes);
        const lines = bytes.subarray(0, -1).filter((b) => b === 0x0a).length + 1;
        const r = await ccotel(['show', file]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).not.toMatch(/left for the next read|not yet complete/);
        expect(r.stderr).toContain(
          `ccotel: ${file}:${lines}: no newline at the end of the file; this last line was not read (still being written, or not a transcript)\n`,
        );
      });
    });

    describe('README: a refused call', () => {
      const refused =
        'fixtures/real/alfredjeanlab_claudeless__tests_fixtures__v2.1.29__bash-permission-dialog.projects__-te1EWG__f3ba0bdb-562d-4ca3-9069-3e5122f4ccc9.jsonl';

      it('is status error (ERR) in show and error.type rejected on its span', async () => {
        const json = await ccotel(['show', '--json', refused]);
        expect(json.code, json.stderr).toBe(0);
        const rows = (JSON.parse(json.stdout) as { rows: { label: string; status: string }[] })
          .rows;
        expect(rows.map((r) => [r.label, r.status])).toEqual([
          ['Bash: touch /tmp/test_file.txt', 'error'],
        ]);
        expect((await ccotel(['show', refused])).stdout).toMatch(/Bash: touch .* ERR /);
        const out = join(dir, 'refused.jsonl');
        const exported = await ccotel([
          'export',
          '--out',
          out,
          '--state-dir',
          join(dir, 's'),
          refused,
        ]);
        expect(exported.code, exported.stderr).toBe(0);
        expect(await readFile(out, 'utf8')).toContain(
          '{"key":"error.type","value":{"stringValue":"rejected"}}',
        );
      });
    });
  },
);
