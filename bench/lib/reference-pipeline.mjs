// The conversion path as it was before the speed work (commit 87a8040), kept
// to measure before/after in the same run and as the plain reference the
// shipped path must equal: a read stream per file, readFile for sidecars,
// JSON.parse of every line, and the OpenTelemetry SDK's protobuf serializer.
// Only the I/O and the encoder differ from the shipped path; the projection,
// the fold, the assembly and the span builder are the shipped ones (dist/).
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

// CCOTEL_BENCH_DIST points at another build (an experiment) instead of ./dist.
const DIST =
  process.env.CCOTEL_BENCH_DIST === undefined
    ? new URL('../../dist/', import.meta.url)
    : new URL(`file://${process.env.CCOTEL_BENCH_DIST.replace(/\/?$/, '/')}`);
const dist = (path) => import(new URL(path, DIST).href);
const [
  { createLineSplitter },
  { parseRecord },
  state,
  { parseAgentMeta },
  { finish },
  spans,
  { encodeSpansWithSdk },
  { windowsOf },
] = await Promise.all([
  dist('core/transcript/line-splitter.js'),
  dist('core/transcript/parse-record.js'),
  dist('core/session/state.js'),
  dist('core/transcript/agent-meta.js'),
  dist('core/model/assemble/finish.js'),
  dist('app/read/session-spans.js'),
  import('./sdk-encode.mjs'),
  dist('core/cost/pricing.js'),
]);

async function readLinesStream(file, onLines) {
  const splitter = createLineSplitter(0, 1);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const lines = splitter.push(chunk);
    if (lines.length > 0) onLines(lines);
  }
  return splitter.pendingBytes;
}

async function feed(s, file, agentId, parse) {
  const source = { file, agentId };
  const pending = await readLinesStream(file, (lines) => {
    for (const line of lines) {
      if (line.text.trim() === '') continue;
      state.step(s, source, line.number, parseRecord(line.text, parse));
    }
  });
  return pending > 0;
}

export async function loadSessionReference(files, parse = {}) {
  const s = state.createSessionState(files.sessionId, files.mainFile);
  const unterminated = [];
  for (const meta of files.metaFiles) {
    const text = await readFile(meta, 'utf8').catch(() => null);
    const parsed = text === null ? null : parseAgentMeta(meta, text);
    if (parsed === null)
      s.warnings.push({ file: meta, line: 1, reason: 'unreadable agent meta file' });
    else state.addAgentMeta(s, parsed);
  }
  for (const agent of files.agentFiles) state.registerAgentFile(s, agent.agentId, agent.file);
  if (await feed(s, files.mainFile, null, parse)) unterminated.push(files.mainFile);
  for (const agent of files.agentFiles)
    if (await feed(s, agent.file, agent.agentId, parse)) unterminated.push(agent.file);
  return { state: s, unterminated };
}

export async function sessionSpansReference(files, prices, options) {
  const loaded = await loadSessionReference(files, { textLimit: spans.textLimitFor(options) });
  const model = finish(loaded.state, windowsOf(prices));
  return {
    model,
    ...spans.spansOfModel(model, prices, options),
    unterminated: loaded.unterminated,
  };
}

export const encodeSpansReference = (batch, resource, protocol) =>
  encodeSpansWithSdk(batch, resource, protocol);
