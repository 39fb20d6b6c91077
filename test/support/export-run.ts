// `ccotel export` in-process against an OTLP endpoint, the way every fault
// suite delivers a corpus and builds the spans a clean export must deliver:
// one spelling of the command line instead of one per test.
import type { DecodedSpan } from './otlp-decode.js';
import { startOtlpReceiver } from './otlp-receiver.js';
import { runCcotel, type CliRun } from './run-cli.js';

/** `ccotel export --endpoint ENDPOINT --state-dir STATE_DIR --quiet EXTRA… ROOT`. */
export function exportCorpus(
  endpoint: string,
  stateDir: string,
  root: string,
  ...extra: string[]
): Promise<CliRun> {
  return runCcotel([
    'export',
    '--endpoint',
    endpoint,
    '--state-dir',
    stateDir,
    '--quiet',
    ...extra,
    root,
  ]);
}

/**
 * A clean export of `root` into a receiver of its own: the run (callers assert
 * its exit code, each the way its suite reports it) and every span received.
 */
export async function cleanExport(
  root: string,
  stateDir: string,
): Promise<{ run: CliRun; spans: DecodedSpan[] }> {
  const receiver = await startOtlpReceiver();
  try {
    const run = await exportCorpus(receiver.url, stateDir, root);
    return { run, spans: receiver.spans() };
  } finally {
    await receiver.stop();
  }
}
