// bench:convert's `workers` variant: ccotel's conversion spread over worker
// threads. No command uses it (issue 11: slower than the plain path, with
// about twice its peak RSS), so it lives here, beside the benchmark that
// measures it, importing the built dist/. Compiled once from
// src/app/session-spans-pool.ts; the notes below are the original's.
// Sessions converted on worker threads, results in input order. Reading,
// folding, assembling and building spans is CPU-bound and sessions are
// independent, so on a 2-core machine two workers nearly halve a backfill;
// the main thread keeps encoding and sending. Optional: with workers: 0, or
// when a worker cannot start (e.g. running from TypeScript sources), sessions
// are converted on the calling thread, with the same results.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { UserError } from '../../dist/core/user-error.js';
import { encodeSpanFields } from '../../dist/adapters/otlp/encode.js';
import { sessionSpans } from './whole-session.mjs';
export function encodeSession(s) {
  const { turns, ...rest } = slimSessionSpans(s);
  const all = turns.flatMap((t) => t.spans);
  let from = 0;
  const encodedTurns = turns.map((t) => {
    const turn = {
      traceId: t.traceId,
      startTime: t.startTime,
      digest: t.digest,
      from,
      to: from + t.spans.length,
    };
    from = turn.to;
    return turn;
  });
  return { ...rest, turns: encodedTurns, encoded: encodeSpanFields(all) };
}
export function slimSessionSpans(s) {
  return {
    sessionId: s.model.sessionId,
    warnings: s.model.warnings,
    ignoredLines: s.model.ignoredLines,
    turns: s.turns,
    unknownModels: s.unknownModels,
    unterminated: s.unterminated,
  };
}
export function defaultWorkers() {
  const cores = availableParallelism();
  return cores < 2 ? 0 : Math.min(cores, 4);
}
const WORKER_URL = new URL('./session-spans-worker.mjs', import.meta.url);
function revive(error) {
  const kind = error.kind;
  if (kind === 'failed' || kind === 'usage' || kind === 'not-found')
    return new UserError(error.message, kind);
  const e = new Error(error.message);
  e.name = error.name;
  return e;
}
/** Starts `count` workers, or none: if one fails to start, the others are stopped. */
async function startWorkers(count, data) {
  const started = await Promise.allSettled(
    Array.from(
      { length: count },
      () =>
        new Promise((resolve, reject) => {
          const worker = new Worker(WORKER_URL, { workerData: data });
          // 'online' comes before the module has loaded: wait for the worker's own word.
          worker.once('message', () => resolve(worker));
          worker.once('error', reject);
          worker.once('exit', () => reject(new Error('conversion worker exited at start')));
        }),
    ),
  );
  const workers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  if (workers.length === count) return workers;
  await Promise.all(workers.map((w) => w.terminate()));
  return [];
}
/** Runs sessions through workers, yielding their responses in input order; null when no worker started. */
async function* viaWorkers(sessions, count, depth, data) {
  const workers = await startWorkers(count, data);
  if (workers.length === 0) {
    yield null;
    return;
  }
  const results = new Map();
  let wake = null;
  let failure = null;
  let next = 0;
  const busy = new Map(workers.map((w) => [w, 0]));
  const dispatch = (worker) => {
    while (next < sessions.length && (busy.get(worker) ?? 0) < depth) {
      const request = { id: next, files: sessions[next] };
      next += 1;
      busy.set(worker, (busy.get(worker) ?? 0) + 1);
      worker.postMessage(request);
    }
  };
  for (const worker of workers) {
    worker.on('message', (response) => {
      busy.set(worker, (busy.get(worker) ?? 1) - 1);
      results.set(response.id, response);
      dispatch(worker);
      wake?.();
    });
    worker.on('error', (err) => {
      failure ??= err;
      wake?.();
    });
    worker.on('exit', (code) => {
      failure ??= new Error(`conversion worker exited (code ${code})`);
      wake?.();
    });
    dispatch(worker);
  }
  try {
    for (let id = 0; id < sessions.length; id += 1) {
      while (!results.has(id)) {
        if (failure !== null) throw failure;
        await new Promise((resolve) => {
          wake = resolve;
        });
        wake = null;
      }
      const response = results.get(id);
      results.delete(id);
      if ('error' in response) throw revive(response.error);
      yield response;
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
const workerCount = (pool, sessions) => Math.min(pool.workers ?? defaultWorkers(), sessions);
/**
 * Runs `sessions` through the workers when there are any (and they start),
 * else in this thread; yields one result per session, in input order. `pick`
 * takes a worker's answer apart, `local` computes the same in this thread.
 */
async function* mapSessions(sessions, pool, request, pick, local) {
  const count = workerCount(pool, sessions.length);
  if (count > 0) {
    let started = false;
    for await (const response of viaWorkers(
      sessions,
      count,
      Math.max(1, pool.depth ?? 4),
      request,
    )) {
      if (response === null) break;
      started = true;
      const value = pick(response);
      if (value !== undefined) yield value;
    }
    if (started) return;
  }
  for (const files of sessions) yield await local(files);
}
/** Converts `sessions`, yielding each one's spans in input order. */
export function mapSessionSpans(sessions, prices, options, pool = {}) {
  return mapSessions(
    sessions,
    pool,
    { prices, options, encode: false },
    (r) => ('session' in r ? r.session : undefined),
    async (files) => slimSessionSpans(await sessionSpans(files, prices, options)),
  );
}
/**
 * Converts `sessions` and encodes their spans as protobuf span fields,
 * yielding each session in input order: the caller only assembles requests.
 */
export function mapEncodedSessions(sessions, prices, options, pool = {}) {
  return mapSessions(
    sessions,
    pool,
    { prices, options, encode: true },
    (r) => ('encoded' in r ? r.encoded : undefined),
    async (files) => encodeSession(await sessionSpans(files, prices, options)),
  );
}
