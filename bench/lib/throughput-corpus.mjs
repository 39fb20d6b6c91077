// The start shared by the throughput benchmarks (convert-throughput.mjs,
// export-throughput.mjs): which corpus they read (--corpus, else the generated
// one of --size/--seed) and how busy the machine was before the runs, printed
// together so a result can be read against the load it ran under.
import { ensureCorpus } from './corpus.mjs';
import { backgroundLoad } from './report.mjs';

/**
 * The projects dir to read (`corpus` as given, else the generated corpus, made
 * on first use) and the machine's other load in % of all cores (null if unknown).
 */
export async function throughputCorpus({ corpus, size, seed, progressShare = 0 }) {
  const projectsDir =
    corpus ??
    ensureCorpus({
      size,
      seed,
      progressShare,
      log: (m) => process.stdout.write(`${m}\n`),
    }).projectsDir;
  const load = await backgroundLoad();
  process.stdout.write(
    `corpus ${projectsDir}; other load on the machine before the runs: ${load ?? '?'}% of all cores\n`,
  );
  return { projectsDir, load };
}
