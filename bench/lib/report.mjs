// What every benchmark prints and records: the machine, a plain-text table,
// and a JSON result file under bench/results/ (gitignored).
import { spawn } from 'node:child_process';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './corpus.mjs';

/** bench/results, or CCOTEL_BENCH_RESULTS (the smoke test writes elsewhere). */
export const RESULTS_DIR = process.env.CCOTEL_BENCH_RESULTS ?? join(ROOT, 'bench', 'results');

export function machine() {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? model;
  } catch {
    // Not Linux: os.cpus() is all there is.
  }
  return {
    cpuModel: model.trim(),
    cpus: cpus().length,
    memoryGB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** Prints rows (objects with the same keys) as an aligned table. */
export function printTable(title, rows, columns = Object.keys(rows[0] ?? {})) {
  const cell = (v) =>
    v === null || v === undefined ? '–' : typeof v === 'number' ? formatNumber(v) : String(v);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values) =>
    values.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  process.stdout.write(`\n${title}\n${line(columns)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const r of rows) process.stdout.write(`${line(columns.map((c) => cell(r[c])))}\n`);
}

function formatNumber(v) {
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
}

export function writeResult(name, result) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ benchmark: name, date: new Date().toISOString(), machine: machine(), ...result }, null, 2)}\n`,
  );
  process.stdout.write(`\nresults: ${path}\n`);
  return path;
}

/**
 * Runs one workload (bench/lib/workloads.mjs) in a fresh node process and
 * returns its JSON line. Fresh processes keep peak RSS and JIT state per workload.
 */
export function runWorkload(name, options, { nodeArgs = [], env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeArgs, join(ROOT, 'bench', 'lib', 'workloads.mjs'), name, JSON.stringify(options)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...env },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0)
        return reject(new Error(`workload ${name} exited ${code}: ${err.trim() || out.trim()}`));
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(
          new Error(`workload ${name} printed no result: ${out.slice(-500)} ${err.slice(-500)}`),
        );
      }
    });
  });
}

export const mbps = (bytes, seconds) => bytes / 1e6 / seconds;
export const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Share of both cores busy with other work over `ms`, from /proc/stat: the
 * benchmark machine is shared, and a figure measured beside a busy neighbour
 * says so in its result file.
 */
export async function backgroundLoad(ms = 2000) {
  const sample = () => {
    try {
      const fields = readFileSync('/proc/stat', 'utf8')
        .split('\n')[0]
        .trim()
        .split(/\s+/)
        .slice(1)
        .map(Number);
      return { total: fields.reduce((a, b) => a + b, 0), idle: fields[3] + fields[4] };
    } catch {
      return null;
    }
  };
  const a = sample();
  await new Promise((r) => setTimeout(r, ms));
  const b = sample();
  if (a === null || b === null || b.total === a.total) return null;
  return round((100 * (b.total - a.total - (b.idle - a.idle))) / (b.total - a.total), 0);
}

/** Forks the benchmark receiver (lib/receiver.mjs) in its own process. */
export async function forkReceiver(markers = null) {
  const { fork } = await import('node:child_process');
  const child = fork(
    join(ROOT, 'bench', 'lib', 'receiver.mjs'),
    ['--serve', ...(markers === null ? [] : ['--markers', markers])],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const url = await new Promise((resolve, reject) => {
    child.once('message', (m) =>
      m?.type === 'ready' ? resolve(m.url) : reject(new Error('receiver did not start')),
    );
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
  });
  const ask = () =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m?.type !== 'stats') return;
        child.off('message', on);
        resolve(m);
      };
      child.on('message', on);
      child.send({ type: 'stats' });
    });
  const stop = () =>
    new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.send({ type: 'stop' });
    });
  return { url, stats: ask, stop };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? null
    : s.length % 2 === 1
      ? s[(s.length - 1) / 2]
      : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Runs `ccotel <argv>` (dist) in a child; resolves with its exit code, output and own measurements. */
export function runCcotel(argv, { env = {}, keepStdout = true, nodeArgs = [] } = {}) {
  return new Promise((resolve, reject) => {
    const script = join(ROOT, 'bench', 'lib', 'run-cli.mjs');
    const child = spawn(process.execPath, [...nodeArgs, script, ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    let stdout = '';
    let stderr = '';
    // keepStdout: false counts the bytes only (show --json of a 1 GB session prints hundreds of MB).
    let stdoutBytes = 0;
    child.stdout.on('data', (d) => {
      stdoutBytes += d.length;
      if (keepStdout) stdout += d;
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /@@bench (\{.*\})\s*$/.exec(stderr);
      resolve({
        code,
        stdout,
        stdoutBytes,
        stderr: stderr.replace(/\n?@@bench \{.*\}\s*$/, ''),
        measured: m === null ? null : JSON.parse(m[1]),
      });
    });
  });
}

/** Resolves with the promise's value, or `fallback` after `ms`; the timer never outlives the race. */
export function within(promise, ms, fallback = undefined) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
