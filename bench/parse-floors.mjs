// npm run bench:parse-floors -- [--size 200MB] [--progress-share S] [--runs 3] [--corpus DIR]
// How fast can any Node conversion of the corpus be, on one thread? Issue 15
// asks for `export --dry-run` at 1.5× the naive loop's speed; this measures
// the floors under it in the same run, each step in a fresh process over the
// same files (read whole, as the naive loop reads them), interleaved:
//   naive        bench:convert's baseline: read each file whole, split, JSON.parse
//   read         every file's bytes, and finding its newlines
//   lines        + decoding each line to a string (what ccotel's splitter does)
//   chunk-lines  + decoding each file once and cutting lines from that string
//                (the alternative to per-line decoding: measured, not built)
//   parse        + JSON.parse of every line
//   parse-record + ccotel's parseRecord (JSON.parse and the projection), labels mode
//   byte-scan    read + a JS loop visiting every byte of every string literal
//                (quote, backslash, control characters): the least a hand-written
//                parser that skips what it does not keep must do, without
//                building anything (measured, not built)
// Every step reports its own time in its process (start-up excluded, as for
// the baseline) and its share of the naive loop's: to run at 1.5× the naive
// loop's speed, a whole conversion must take 67 % of it.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, printTable, round, runWorkload, writeResult } from './lib/report.mjs';
import { jsonlFiles } from './lib/workloads.mjs';
import { peakRssMB } from './lib/peak-rss.mjs';
import { runChild, variantSamples } from './lib/variant-runs.mjs';

const SELF = fileURLToPath(import.meta.url);
const DIST = new URL('../dist/', import.meta.url);
const NEWLINE = 0x0a;

/** Calls `onLine(buffer, from, to)` for each non-empty line of each file; returns the byte count. */
function eachLine(files, onLine) {
  let bytes = 0;
  for (const file of files) {
    const buf = readFileSync(file);
    bytes += buf.length;
    let from = 0;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, from);
      const to = nl === -1 ? buf.length : nl;
      if (to > from) onLine(buf, from, to);
      if (nl === -1) break;
      from = nl + 1;
    }
  }
  return bytes;
}

/** Index just past the string literal opening at `i`, or -1 where JSON.parse would fail. */
function skipString(buf, i, end) {
  for (let at = i + 1; at < end;) {
    const c = buf[at];
    if (c === 0x22) return at + 1;
    if (c < 0x20) return -1;
    at += c === 0x5c ? (buf[at + 1] === 0x75 ? 6 : 2) : 1;
  }
  return -1;
}

function byteScan(files) {
  let bad = 0;
  const bytes = eachLine(files, (buf, from, to) => {
    for (let i = buf.indexOf(0x22, from); i !== -1 && i < to; i = buf.indexOf(0x22, i)) {
      i = skipString(buf, i, to);
      if (i === -1) {
        bad += 1;
        return;
      }
    }
  });
  return { bytes, bad };
}

function chunkLines(files) {
  let chars = 0;
  let bytes = 0;
  for (const file of files) {
    const buf = readFileSync(file);
    bytes += buf.length;
    const text = buf.toString('utf8');
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      const to = nl === -1 ? text.length : nl;
      if (to > from) chars += text.slice(from, to).length;
      if (nl === -1) break;
      from = nl + 1;
    }
  }
  return { bytes, chars };
}

async function step(variant, files) {
  let n = 0;
  const decode = (buf, from, to) => buf.toString('utf8', from, to);
  const parse = (text) => {
    try {
      JSON.parse(text);
    } catch {
      n -= 1;
    }
    n += 1;
  };
  switch (variant) {
    case 'read':
      return { bytes: eachLine(files, () => (n += 1)), lines: n };
    case 'lines':
      return { bytes: eachLine(files, (b, f, t) => (n += decode(b, f, t).length)), chars: n };
    case 'chunk-lines':
      return chunkLines(files);
    case 'parse':
      return { bytes: eachLine(files, (b, f, t) => parse(decode(b, f, t))), parsed: n };
    case 'parse-record': {
      const { parseRecord } = await import(new URL('core/transcript/parse-record.js', DIST).href);
      const options = { keepTexts: false };
      const bytes = eachLine(files, (b, f, t) => {
        if (parseRecord(decode(b, f, t), options).kind === 'record') n += 1;
      });
      return { bytes, records: n };
    }
    case 'byte-scan':
      return byteScan(files);
    default:
      throw new Error(`unknown variant ${variant}`);
  }
}

/** One in-process step: its figures as one JSON line. */
async function measure(variant, dir) {
  const files = await jsonlFiles(dir);
  const started = performance.now();
  const counts = await step(variant, files);
  const usage = process.resourceUsage();
  return {
    variant,
    counts,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    peakRssMB: peakRssMB(),
  };
}

/** The naive loop is bench:convert's baseline workload, timed in its process as there. */
const runStep = (variant, dir) =>
  variant === 'naive' ? runWorkload('baseline', { dir }) : runChild(SELF, variant, dir);

const VARIANTS = ['naive', 'read', 'lines', 'chunk-lines', 'parse', 'parse-record', 'byte-scan'];

async function main() {
  const result = await variantSamples(VARIANTS, measure, runStep);
  if (result === null) return;
  const { args, samples } = result;
  const dir = args.corpus;
  const naive = median(samples.naive.map((r) => r.seconds));
  const rows = VARIANTS.map((v) => {
    const seconds = median(samples[v].map((r) => r.seconds));
    const rss = samples[v].map((r) => r.peakRssMB).filter((x) => x !== undefined);
    return {
      step: v,
      seconds: round(seconds, 3),
      'share of naive': `${round((100 * seconds) / naive, 0)} %`,
      'peak RSS MB': rss.length === 0 ? '' : round(median(rss), 0),
    };
  });
  printTable(`parse floors, ${dir} (median of ${args.runs} runs)`, rows);
  writeResult('parse-floors', { corpus: dir, rows, samples });
}

await main();
