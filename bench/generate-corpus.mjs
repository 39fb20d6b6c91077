// npm run bench:corpus -- [--size 200MB] [--seed 1] [--out DIR] [--projects 20] [--single 1GB]
//   [--progress-share 0.5] [--only hand/,real-layout/]
// Generates the benchmark corpus from the fixtures (see lib/corpus.mjs), or with
// --single one session transcript of that size. Prints what it wrote.
import { relative, resolve } from 'node:path';
import { benchArgs, formatSize, parseSize } from './lib/args.mjs';
import {
  CORPUS_ROOT,
  ROOT,
  generateCorpus,
  generateSingleTranscript,
  progressSuffix,
} from './lib/corpus.mjs';
import { printTable, writeResult } from './lib/report.mjs';

const HELP = `Usage: node bench/generate-corpus.mjs [--size 200MB | --files N] [--seed N] [--projects N] [--out DIR] [--no-rewrite]
       [--progress-share 0.5] [--only hand/,real-layout/]
       node bench/generate-corpus.mjs --single 1GB [--seed N] [--out DIR]

Copies every fixture session (fixtures/real, real-layout, hand) with fresh ids
and shifted timestamps until the corpus reaches --size. Default output:
bench/.corpus/corpus-<size>-seed<seed>/projects/ (gitignored). --files N stops
at N transcript files instead; --no-rewrite lays the fixtures out unchanged
(one copy is a reference to check rewritten copies against).
--progress-share S adds progress lines until they are S of each transcript's
lines (real 2.1.x transcripts: 0.5-0.7; the fixtures alone: ~0.01); output
dir gets a -progressNN suffix. --only keeps the fixture groups under those
prefixes (the daemon corpus of bench:memory is --only hand/,real-layout/).
`;

const args = benchArgs({
  size: { type: 'string', default: '200MB' },
  seed: { type: 'string', default: '1' },
  projects: { type: 'string', default: '20' },
  out: { type: 'string' },
  single: { type: 'string' },
  files: { type: 'string' },
  'no-rewrite': { type: 'boolean', default: false },
  'progress-share': { type: 'string', default: '0' },
  only: { type: 'string' },
});
if (args.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}

const seed = Number(args.seed);
const started = performance.now();
if (args.single !== undefined) {
  const size = parseSize(args.single);
  const dir = resolve(args.out ?? `${CORPUS_ROOT}/single-${formatSize(size)}-seed${seed}`);
  const m = generateSingleTranscript({ size, seed, dir });
  const seconds = (performance.now() - started) / 1000;
  printTable('single transcript', [
    { file: relative(ROOT, m.file), MB: m.bytes / 1e6, lines: m.lines, seconds },
  ]);
  writeResult('corpus-single', { ...m, seconds });
} else {
  const size = parseSize(args.size);
  const maxFiles = args.files === undefined ? Infinity : Number(args.files);
  const label = args.files === undefined ? formatSize(size) : `${maxFiles}files`;
  const progressShare = Number(args['progress-share']);
  const out = resolve(
    args.out ?? `${CORPUS_ROOT}/corpus-${label}-seed${seed}${progressSuffix(progressShare)}`,
  );
  const m = generateCorpus({
    progressShare,
    only: args.only === undefined ? null : args.only.split(','),
    size: args.files === undefined ? size : Infinity,
    maxFiles,
    seed,
    out,
    projects: Number(args.projects),
    rewrite: !args['no-rewrite'],
  });
  const seconds = (performance.now() - started) / 1000;
  printTable('corpus', [
    {
      dir: relative(ROOT, out),
      MB: m.bytes / 1e6,
      copies: m.copies,
      projects: m.projects,
      sessions: m.sessions,
      files: m.files,
      lines: m.lines,
      seconds,
    },
  ]);
  writeResult('corpus', { dir: out, ...m, seconds });
}
