// Issue 15's "use both cores" premise, measured without building it: two
// `ccotel export --dry-run` processes at once, each over every other project
// dir of the corpus. A project dir is the unit a split could hand out whole
// (a resumed or forked session stays in its project's dir). `nodeArgs`
// (e.g. --single-threaded) keeps each process to one core: one dry run alone
// already keeps ~1.3 cores busy with V8's compiler and GC threads.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCcotel } from './report.mjs';

/** The corpus's project dirs, dealt alternately into two halves. */
export function projectHalves(projectsDir) {
  const dirs = readdirSync(projectsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(projectsDir, e.name))
    .sort();
  // An empty half would be `ccotel export` with no path: every projects dir of this machine.
  if (dirs.length < 2) throw new Error(`halves need two or more project dirs in ${projectsDir}`);
  return [dirs.filter((_, i) => i % 2 === 0), dirs.filter((_, i) => i % 2 === 1)];
}

async function dryRun(paths, stateDir, { env, nodeArgs, quiet }) {
  const argv = ['export', ...paths, '--state-dir', stateDir, '--dry-run'];
  const r = await runCcotel(quiet ? [...argv, '--quiet'] : argv, { env, nodeArgs });
  if (r.measured === null || r.code !== 0)
    throw new Error(`ccotel export failed (${r.code}): ${r.stderr.slice(-500)}`);
  return r;
}

/**
 * Both halves at once. `seconds` is the later one's (both start together),
 * CPU and peak RSS the sum: what the machine held for the whole job.
 */
export async function runHalves(projectsDir, stateDir, { env = {}, nodeArgs = [] } = {}) {
  const halves = projectHalves(projectsDir);
  const rs = await Promise.all(
    halves.map((paths, i) => dryRun(paths, `${stateDir}-${i}`, { env, nodeArgs, quiet: true })),
  );
  const ms = rs.map((r) => r.measured);
  return {
    seconds: Math.max(...ms.map((m) => m.seconds)),
    cpuSeconds: ms.reduce((sum, m) => sum + m.cpuSeconds, 0),
    peakRssMB: ms.reduce((sum, m) => sum + m.peakRssMB, 0),
    bytes: null,
    files: null,
    outDigest: null,
  };
}

const SUMMARY = /dry run: (\d+) sessions, (\d+) turns, (\d+) spans would be sent, (\d+) warnings/;

function counts(r) {
  const m = SUMMARY.exec(r.stderr) ?? SUMMARY.exec(r.stdout);
  if (m === null) throw new Error(`no dry-run summary in: ${r.stderr.slice(-300)}`);
  return m.slice(1).map(Number);
}

/**
 * Untimed check that the split loses and doubles nothing: the two halves'
 * summary lines (sessions, turns, spans, warnings) add up to one whole run's.
 */
export async function halvesAddUp(projectsDir, stateDir, env = {}) {
  const opts = { env, nodeArgs: [], quiet: false };
  const whole = counts(await dryRun([projectsDir], `${stateDir}-whole`, opts));
  const parts = await Promise.all(
    projectHalves(projectsDir).map(async (paths, i) =>
      counts(await dryRun(paths, `${stateDir}-part${i}`, opts)),
    ),
  );
  const summed = whole.map((_, k) => parts[0][k] + parts[1][k]);
  return { whole, summed, equal: summed.every((n, k) => n === whole[k]) };
}
