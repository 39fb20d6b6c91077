// npm run bench:startup -- [--runs N] [--before DIST_CLI_MAIN_JS]
// Whole-process time of the commands a person runs first, against `node -e 0`
// in the same run: `ccotel --help` and `ccotel show` of the bundled demo
// session (issue 15's target: each within 2x of `node -e 0`, median of 10),
// and `ccotel export --dry-run` of that session (export's fixed cost).
// Runs are interleaved (node, help, show, node, help, show, ...) so that load
// from anything else on the machine falls on all three alike; the ratios of
// medians are the figures, not the seconds. --before adds the same two
// commands through another build (e.g. the previous commit's dist/cli/main.js)
// to the same interleaved rounds, for a before/after in one run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './lib/args.mjs';
import { ROOT } from './lib/corpus.mjs';
import { printTable, writeResult } from './lib/report.mjs';

const args = benchArgs({
  runs: { type: 'string', default: '10' },
  before: { type: 'string' },
});
const runs = Number(args.runs);
const cli = join(ROOT, 'dist', 'cli', 'main.js');
const demo = join(
  ROOT,
  'fixtures',
  'real',
  'marot_spotter__test_fixtures_transcripts__subagent.jsonl',
);

// Export's fixed cost: the command and its modules, one small session, no state to read.
const stateDir = mkdtempSync(join(tmpdir(), 'ccotel-startup-'));
const dryRun = ['export', '--dry-run', '--quiet', '--state-dir', stateDir, demo];

const commands = {
  'node -e 0': ['-e', '0'],
  'ccotel --help': [cli, '--help'],
  'ccotel show <demo>': [cli, 'show', demo],
  'ccotel export --dry-run <demo>': [cli, ...dryRun],
};
if (args.before !== undefined) {
  commands['before: ccotel --help'] = [args.before, '--help'];
  commands['before: ccotel show <demo>'] = [args.before, 'show', demo];
  commands['before: ccotel export --dry-run <demo>'] = [args.before, ...dryRun];
}

function timeOnce(argv) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`${argv.join(' ')} exited ${run.status}: ${run.stderr}`);
  return seconds;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
for (const argv of Object.values(commands)) timeOnce(argv); // warm the file cache
for (let i = 0; i < runs; i += 1) {
  for (const [name, argv] of Object.entries(commands)) samples[name].push(timeOnce(argv));
}

const baseline = median(samples['node -e 0']);
const rows = Object.entries(samples).map(([command, xs]) => ({
  command,
  'median s': median(xs),
  'min s': Math.min(...xs),
  'x node -e 0': median(xs) / baseline,
}));
printTable(`start-up, median of ${runs} interleaved runs`, rows);
writeResult('startup', { runs, rows });
rmSync(stateDir, { recursive: true, force: true });
