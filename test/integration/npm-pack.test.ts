// The package as the registry would ship it: a fresh clone of this repository
// packed with `npm pack` (whose prepack builds dist/), the tarball installed
// into a temp prefix offline, and the installed `ccotel` run on the sample.
//
// The clone borrows this checkout's node_modules for its build (a second
// `npm ci` of every dev dependency would only test npm). The tarball's own
// dependencies come from the npm cache, which `npm ci` filled; the cache
// holds their tarballs but not the registry's version lists, so the prefix
// gets a lockfile naming the versions this repository's lockfile resolved.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SAMPLE = join('fixtures', 'real', 'marot_spotter__test_fixtures_transcripts__subagent.jsonl');
const WINDOWS = process.platform === 'win32';
const exec = promisify(execFile);

let dir: string;
let clone: string;
let prefix: string;
let tarball: string;
let files: string[];

/** npm and the installed bin are .cmd shims on Windows: they need a shell there. */
async function run(file: string, args: string[], cwd: string) {
  return exec(file, args, { cwd, shell: WINDOWS, timeout: 180_000, maxBuffer: 16 << 20 });
}

interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

/** A lockfile for a project whose one dependency is the tarball: its deps as this repo resolved them. */
function writePrefixProject(at: string, tgz: string): void {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const self = lock.packages[''] ?? {};
  const spec = `file:${tgz}`;
  const packages: Record<string, unknown> = {
    '': { dependencies: { ccotel: spec } },
    'node_modules/ccotel': {
      version: self.version,
      resolved: spec,
      license: self.license,
      dependencies: self.dependencies,
      bin: self.bin,
      engines: self.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages))
    if (path !== '' && entry.dev !== true && entry.devOptional !== true) packages[path] = entry;
  const name = 'ccotel-pack-test';
  writeFileSync(
    join(at, 'package.json'),
    JSON.stringify({ name, private: true, dependencies: { ccotel: spec } }),
  );
  writeFileSync(
    join(at, 'package-lock.json'),
    JSON.stringify({ name, lockfileVersion: 3, requires: true, packages }),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ccotel-pack-'));
  clone = join(dir, 'clone');
  prefix = join(dir, 'prefix');
  await run('git', ['clone', '--quiet', ROOT, clone], dir);
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'junction');
  expect(existsSync(join(clone, 'dist'))).toBe(false);
  await run('npm', ['pack', '--silent', '--pack-destination', dir], clone);
  const [tgz] = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
  tarball = join(dir, tgz ?? 'missing.tgz');
  files = (await run('tar', ['-tzf', tarball], dir)).stdout.split(/\r?\n/).filter(Boolean);
  mkdirSync(prefix);
  writePrefixProject(prefix, tarball);
  await run(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball],
    dir,
  );
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ccotel = (args: string[]) =>
  run(join(prefix, 'node_modules', '.bin', WINDOWS ? 'ccotel.cmd' : 'ccotel'), args, ROOT);

describe('npm pack from a fresh clone', () => {
  it('ships a built dist/, the config files and the changelog, and no sources', () => {
    expect(files).toContain('package/dist/cli/main.js');
    expect(files).toContain('package/dist/app/show/render/html-waterfall-assets.js');
    expect(files).toContain('package/config/pricing.json');
    expect(files).toContain('package/CHANGELOG.md');
    expect(files).toContain('package/README.md');
    expect(files.filter((f) => /^package\/(src|test|fixtures|bench)\//.test(f))).toEqual([]);
  });

  it('names where the project lives', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      repository?: { url?: string };
      homepage?: string;
      bugs?: { url?: string };
      keywords?: string[];
    };
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\/github\.com\/.+\.git$/);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs?.url).toMatch(/^https:\/\/.+\/issues$/);
    expect(pkg.keywords).toEqual(expect.arrayContaining(['claude-code', 'opentelemetry']));
  });

  it('installs offline and runs: ccotel --version', async () => {
    const version = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const { stdout } = await ccotel(['--version']);
    expect(stdout).toBe(`${version}\n`);
  });

  it('installs offline and runs: ccotel show on the bundled sample', async () => {
    const { stdout } = await ccotel(['show', SAMPLE]);
    expect(stdout).toMatch(/^Session 491e126e-1e71-469c-ade2-fcc8af567c74\n2 turns · 25 calls/);
    // From the installed copy, not from this checkout's dist/.
    const installed = join(prefix, 'node_modules', 'ccotel', 'dist', 'cli', 'main.js');
    expect(existsSync(installed)).toBe(true);
  });
});
