// A session read whole (no segments) through the shipped reader of dist/,
// and its spans: what the benchmarks compare export's segmented path with.
// The same as test/support/whole-session.ts, for the build instead of src.

// CCOTEL_BENCH_DIST points at another build (an experiment) instead of ./dist.
const DIST =
  process.env.CCOTEL_BENCH_DIST === undefined
    ? new URL('../../dist/', import.meta.url)
    : new URL(`file://${process.env.CCOTEL_BENCH_DIST.replace(/\/?$/, '/')}`);
const dist = (path) => import(new URL(path, DIST).href);
const [
  { finish, wholeSession },
  { windowsOf },
  { createSessionReader },
  read,
  spans,
  { sessionCostWarning },
] = await Promise.all([
  dist('core/model/assemble/finish.js'),
  dist('core/cost/pricing.js'),
  dist('core/session/reader.js'),
  dist('app/read/read-session.js'),
  dist('app/read/session-spans.js'),
  dist('core/cost/cost-state.js'),
]);

/** Every file of the session folded into one state: main file first, then each agent file. */
export async function loadSession(files, parse = {}) {
  const reader = createSessionReader(read.openSession(files), wholeSession());
  const unterminated = [];
  const all = [{ file: files.mainFile, agentId: null }, ...files.agentFiles];
  for (const { file, agentId } of all)
    if ((await read.foldFile(reader, file, agentId, parse)) > 0) unterminated.push(file);
  return { state: reader.state, unterminated };
}

export async function sessionSpans(files, prices, options) {
  const loaded = await loadSession(files, spans.parseOptionsFor(options));
  const model = finish(loaded.state, windowsOf(prices));
  const { turns, unknownModels, costs } = spans.spansOfModel(model, prices, options);
  // The cost-state warning needs prices: export adds it after the linking ones.
  const cost = sessionCostWarning(model, costs.byResponse);
  if (cost !== null) model.warnings = [...model.warnings, cost];
  return { model, turns, unknownModels, unterminated: loaded.unterminated };
}

/** As export reads a session: a segment of turns at a time, each handed to onTurns. */
export async function streamSessionSpans(files, prices, options, onTurns) {
  const session = new spans.SessionSpansRead(files, prices, options);
  for await (const turns of session.turns()) await onTurns(turns);
  return session.summary();
}
