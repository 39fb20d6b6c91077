// What bench:parse-split and bench:parse-floors share: the flags and corpus,
// each variant in a fresh process of the same script (`--child VARIANT`,
// printing one JSON line), and the interleaved runs over the variants.
import { spawn } from 'node:child_process';
import { benchArgs, parseSize } from './args.mjs';
import { ensureCorpus } from './corpus.mjs';
import { round } from './report.mjs';

/** The flags of a variant script; `corpus` resolved (generated if need be) unless in a child. */
function variantArgs() {
  const args = benchArgs({
    size: { type: 'string', default: '200MB' },
    seed: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    corpus: { type: 'string' },
    'progress-share': { type: 'string', default: '0' },
    child: { type: 'string' },
  });
  if (args.child !== undefined || args.corpus !== undefined) return args;
  const { projectsDir } = ensureCorpus({
    size: parseSize(args.size),
    seed: Number(args.seed),
    progressShare: Number(args['progress-share']),
  });
  return { ...args, corpus: projectsDir };
}

/** Runs `script --child variant --corpus dir` and resolves its one JSON line. */
export function runChild(script, variant, dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, '--child', variant, '--corpus', dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim())) : reject(new Error(`${variant} exited ${code}`)),
    );
  });
}

/**
 * The script's two roles: as a child (`--child VARIANT`), print what `measure`
 * gives for that variant and resolve null; else resolve the flags and every
 * variant's samples, `runs` rounds interleaved, each as `run(variant, dir)` gives it.
 */
export async function variantSamples(variants, measure, run) {
  const args = variantArgs();
  if (args.child !== undefined) {
    process.stdout.write(`${JSON.stringify(await measure(args.child, args.corpus))}\n`);
    return null;
  }
  const samples = await interleaved(variants, Number(args.runs), (v) => run(v, args.corpus));
  return { args, samples };
}

/** `runs` rounds over every variant, interleaved; each sample as `run(variant)` resolves it. */
async function interleaved(variants, runs, run) {
  const samples = Object.fromEntries(variants.map((v) => [v, []]));
  for (let round_ = 1; round_ <= runs; round_ += 1)
    for (const v of variants) {
      const r = await run(v);
      samples[v].push(r);
      process.stdout.write(`run ${round_} ${v.padEnd(12)} ${round(r.seconds, 3)} s\n`);
    }
  return samples;
}
