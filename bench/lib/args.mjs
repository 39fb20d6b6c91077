// Flag parsing shared by the benchmark scripts: `--size 200MB`, `--seed 7`,
// `--json`, and sizes with binary-free decimal units (1 MB = 1e6 bytes, like
// the reference figures in the issue).
import { parseArgs } from 'node:util';

const UNITS = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 };

/** '200MB' → 200_000_000; a bare number is bytes. */
export function parseSize(text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB)?\s*$/i.exec(String(text));
  if (m === null) throw new Error(`not a size: '${text}' (expected e.g. 200MB, 1GB, 5MB)`);
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? 'B').toUpperCase()]);
}

export function formatSize(bytes) {
  if (bytes >= 1e9 && bytes % 1e9 === 0) return `${bytes / 1e9}GB`;
  if (bytes >= 1e6 && bytes % 1e6 === 0) return `${bytes / 1e6}MB`;
  if (bytes >= 1e3 && bytes % 1e3 === 0) return `${bytes / 1e3}KB`;
  return `${bytes}B`;
}

/** parseArgs with the benchmark defaults; unknown flags are an error, as in the CLI. */
export function benchArgs(options) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { help: { type: 'boolean', short: 'h' }, ...options },
    strict: true,
  });
  return values;
}
