// The shipped conversion path against the plain one, on every fixture session:
//   plain:   read each file whole, JSON.parse every line (parseRecord), fold,
//            assemble, build spans, encode with the OpenTelemetry SDK serializer
//   shipped: loadSession's chunked synchronous reader, the same projection,
//            and otlp-encode's direct protobuf writer (whole requests, and
//            span fields assembled into requests as the worker pool does)
// The spans must be deep-equal (digests included) and the protobuf bytes
// identical. The direct encoder is also checked against the SDK on generated
// spans, and the worker pool (bench/lib, over the built dist/) against
// the plain path.
import { spawnSync } from 'node:child_process';
import { sessionCostWarning } from '../../../../src/core/cost/cost-state.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { findSessions, type SessionFiles } from '../../../../src/adapters/files/session-files.js';
import {
  assembleRequest,
  encodeSpanFields,
  encodeSpans,
} from '../../../../src/adapters/otlp/encode.js';
import { encodeSpansWithSdk } from '../../../support/sdk-encode.js';
import { buildResource } from '../../../../src/adapters/otlp/resource.js';
import { loadPriceTable } from '../../../../src/adapters/config/price-file.js';
import { parseAgentMeta } from '../../../../src/core/transcript/agent-meta.js';
import { finish } from '../../../../src/core/model/assemble/finish.js';
import { parseRecord, type ParseOptions } from '../../../../src/core/transcript/parse-record.js';
import { windowsOf, type PriceTable } from '../../../../src/core/cost/pricing.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
  step,
  type SessionState,
} from '../../../../src/core/session/state.js';
import type {
  AttributeValue,
  ContentMode,
  SpanData,
  SpanOptions,
} from '../../../../src/core/spans/data.js';
import {
  spansOfModel,
  parseOptionsFor,
  type ProtobufTurn,
} from '../../../../src/app/read/session-spans.js';
import { sessionSpans, streamSessionSpans } from '../../../support/whole-session.js';
import { fixtureSessions } from '../../../support/fixture-sessions.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const fixturesDir = join(repoRoot, 'fixtures');
const MODES: ContentMode[] = ['none', 'labels', 'full'];
const resource = buildResource({
  serviceName: 'claude-code',
  attributes: {
    'host.name': 'bench',
    'deployment.environment': 'tést ✓',
    'service.instance.id': 'x'.repeat(300),
  },
});

let sessions: SessionFiles[] = [];
let prices: PriceTable;

beforeAll(async () => {
  prices = await loadPriceTable();
  sessions = await fixtureSessions(fixturesDir);
});

// ---- the plain path ----

function feedPlain(
  state: SessionState,
  file: string,
  agentId: string | null,
  parse: ParseOptions,
): boolean {
  const parts = readFileSync(file, 'utf8').split('\n');
  // What follows the last newline is still being written: not consumed.
  const tail = parts.pop() ?? '';
  parts.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    step(state, { file, agentId }, i + 1, parseRecord(line, parse));
  });
  return tail.length > 0;
}

function loadPlain(
  files: SessionFiles,
  parse: ParseOptions,
): { state: SessionState; unterminated: string[] } {
  const state = createSessionState(files.sessionId, files.mainFile);
  const readSidecar = (file: string): string | null => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return null;
    }
  };
  for (const meta of files.metaFiles) {
    const text = readSidecar(meta);
    const parsed = text === null ? null : parseAgentMeta(meta, text);
    if (parsed === null)
      state.warnings.push({ file: meta, line: 1, reason: 'unreadable agent meta file' });
    else addAgentMeta(state, parsed);
  }
  for (const agent of files.agentFiles) registerAgentFile(state, agent.agentId, agent.file);
  const unterminated: string[] = [];
  if (feedPlain(state, files.mainFile, null, parse)) unterminated.push(files.mainFile);
  for (const agent of files.agentFiles)
    if (feedPlain(state, agent.file, agent.agentId, parse)) unterminated.push(agent.file);
  return { state, unterminated };
}

function plainSession(files: SessionFiles, options: SpanOptions) {
  const loaded = loadPlain(files, parseOptionsFor(options));
  const model = finish(loaded.state, windowsOf(prices));
  const spans = spansOfModel(model, prices, options);
  // The cost-state warning needs prices: export adds it after the linking ones.
  const cost = sessionCostWarning(model, spans.costs.byResponse);
  if (cost !== null) model.warnings = [...model.warnings, cost];
  return { model, ...spans, unterminated: loaded.unterminated };
}

const allSpans = (turns: ProtobufTurn[]): SpanData[] => turns.flatMap((t) => t.spans);
const sdkBytes = (spans: SpanData[]): Buffer =>
  Buffer.from(encodeSpansWithSdk(spans, resource, 'http/protobuf'));

/**
 * Requests of at most `size` spans cut across turns, as export batches them:
 * assembled from each turn's own span fields (ProtobufTurn.encoded, the bytes its
 * digest hashes), a turn split across requests where the batch fills.
 */
function assembledBatches(turns: ProtobufTurn[], size: number): Buffer[] {
  const out: Buffer[] = [];
  let ranges: { encoded: ProtobufTurn['encoded']; from: number; to: number }[] = [];
  let count = 0;
  const flush = () => {
    if (count > 0) out.push(Buffer.from(assembleRequest(ranges, resource)));
    ranges = [];
    count = 0;
  };
  for (const turn of turns) {
    for (let from = 0; from < turn.spans.length;) {
      const to = Math.min(turn.spans.length, from + size - count);
      ranges.push({ encoded: turn.encoded, from, to });
      count += to - from;
      from = to;
      if (count >= size) flush();
    }
  }
  flush();
  return out;
}

describe('shipped conversion path = plain path, on every fixture', () => {
  it('finds the fixture sessions', () => {
    expect(sessions.length).toBeGreaterThan(40);
  });

  for (const content of MODES) {
    it(`spans deep-equal and protobuf byte-identical (content: ${content})`, async () => {
      const options: SpanOptions = { content, maxAttributeBytes: 2048 };
      let spanCount = 0;
      for (const files of sessions) {
        const shipped = await sessionSpans(files, prices, options);
        const plain = plainSession(files, options);
        const where = files.mainFile.slice(fixturesDir.length + 1);
        expect(shipped.turns, where).toEqual(plain.turns);
        expect(shipped.model.warnings, where).toEqual(plain.model.warnings);
        expect(shipped.model.ignoredLines, where).toBe(plain.model.ignoredLines);
        expect(shipped.unknownModels, where).toEqual(plain.unknownModels);
        expect(shipped.unterminated, where).toEqual(plain.unterminated);

        const spans = allSpans(shipped.turns);
        spanCount += spans.length;
        const reference = sdkBytes(allSpans(plain.turns));
        expect(
          Buffer.from(encodeSpans(spans, resource, 'http/protobuf')).equals(reference),
          `${where}: one request`,
        ).toBe(true);
        // Cut across turns into small requests, from each turn's span fields (export's route).
        const expected: Buffer[] = [];
        for (let from = 0; from < spans.length; from += 7)
          expected.push(sdkBytes(allSpans(plain.turns).slice(from, from + 7)));
        const assembled = assembledBatches(shipped.turns, 7);
        expect(assembled.length, where).toBe(expected.length);
        assembled.forEach((bytes, i) =>
          expect(bytes.equals(expected[i] as Buffer), `${where}: batch ${i}`).toBe(true),
        );
      }
      expect(spanCount).toBeGreaterThan(500);
    });
  }

  it('http/json is the SDK serializer as before', async () => {
    const files = sessions.find((s) => s.agentFiles.length > 0) as SessionFiles;
    const spans = allSpans(
      (await sessionSpans(files, prices, { content: 'labels', maxAttributeBytes: 2048 })).turns,
    );
    expect(
      Buffer.from(encodeSpans(spans, resource, 'http/json')).equals(
        Buffer.from(encodeSpansWithSdk(spans, resource, 'http/json')),
      ),
    ).toBe(true);
  });

  it('no spans, no bytes (as the SDK)', () => {
    expect(encodeSpans([], resource, 'http/protobuf')).toEqual(
      encodeSpansWithSdk([], resource, 'http/protobuf'),
    );
    expect(assembleRequest([], resource).length).toBe(0);
  });
});

// ---- reading in segments (bounded memory for huge transcripts) ----

async function streamed(files: SessionFiles, options: SpanOptions, segmentRecords: number) {
  const turns: ProtobufTurn[] = [];
  const read = await streamSessionSpans(
    files,
    prices,
    options,
    (part) => {
      turns.push(...part);
    },
    { segmentRecords, forceRecords: Number.POSITIVE_INFINITY },
  );
  return { ...read, turns };
}

describe('reading a session in segments = reading it whole, on every fixture', () => {
  for (const content of MODES) {
    it(`same turns, spans and digests at every segment size (content: ${content})`, async () => {
      const options: SpanOptions = { content, maxAttributeBytes: 2048 };
      let cuts = 0;
      for (const files of sessions) {
        const plain = plainSession(files, options);
        const where = files.mainFile.slice(fixturesDir.length + 1);
        // 1: a close is tried at every prompt; 7 and 40: segments of several turns.
        for (const size of [1, 7, 40]) {
          const got = await streamed(files, options, size);
          expect(got.turns, `${where} @${size}`).toEqual(plain.turns);
          expect(got.warnings, `${where} @${size}`).toEqual(plain.model.warnings);
          expect(got.unknownModels, `${where} @${size}`).toEqual(plain.unknownModels);
          expect(got.unterminated.sort(), `${where} @${size}`).toEqual(plain.unterminated.sort());
          expect(got.forcedCuts).toBe(0);
          cuts += got.segments - 1;
        }
      }
      // The comparison means something only if sessions were really cut.
      expect(cuts).toBeGreaterThanOrEqual(20);
    });
  }

  it('one long session (real transcripts repeated, as bench:memory --single): same spans', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccotel-segments-'));
    try {
      const generated = spawnSync(
        process.execPath,
        [join(repoRoot, 'bench', 'generate-corpus.mjs'), '--single', '4MB', '--out', dir],
        { encoding: 'utf8' },
      );
      expect(generated.status, generated.stderr).toBe(0);
      const [files] = await findSessions(dir);
      expect(files).toBeDefined();
      const options: SpanOptions = { content: 'labels', maxAttributeBytes: 2048 };
      const plain = plainSession(files as SessionFiles, options);
      expect(plain.turns.length).toBeGreaterThan(40);
      for (const size of [1, 100, 800]) {
        const got = await streamed(files as SessionFiles, options, size);
        expect(got.segments).toBeGreaterThan(1);
        expect(got.turns, `@${size}`).toEqual(plain.turns);
        expect(got.warnings).toEqual(plain.model.warnings);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A generous limit: it reads a long session four times, and a busy machine is no failure.
  }, 240_000);

  it('a call still waiting keeps its segment open; a forced cut loses no turn and no call', async () => {
    // hand/running-tool (its Bash call has no result yet), then a second
    // prompt and answer, then the Bash result: the first turn waits on a line
    // of the second.
    const dir = mkdtempSync(join(tmpdir(), 'ccotel-segments-'));
    try {
      const source = join(fixturesDir, 'hand', 'running-tool');
      const name = readdirSync(source).find((n) => n.endsWith('.jsonl')) as string;
      const lines = readFileSync(join(source, name), 'utf8').trimEnd().split('\n');
      const base = JSON.parse(lines[1] as string) as Record<string, unknown>;
      const line = (fields: Record<string, unknown>): string =>
        JSON.stringify({ ...base, ...fields, thinkingMetadata: undefined, todos: undefined });
      lines.push(
        line({
          parentUuid: null,
          uuid: '00000000-0000-4000-8000-000000000001',
          timestamp: '2026-02-26T14:30:00.000Z',
          message: { role: 'user', content: 'And now the smoke tests.' },
        }),
        line({
          type: 'assistant',
          parentUuid: '00000000-0000-4000-8000-000000000001',
          uuid: '00000000-0000-4000-8000-000000000002',
          timestamp: '2026-02-26T14:30:05.000Z',
          message: {
            model: 'claude-opus-4-6',
            id: 'msg_later',
            type: 'message',
            role: 'assistant',
            content: [{ type: 'text', text: 'Done.' }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 3, output_tokens: 2 },
          },
        }),
        line({
          parentUuid: '00000000-0000-4000-8000-000000000002',
          uuid: '00000000-0000-4000-8000-000000000003',
          timestamp: '2026-02-26T14:31:00.000Z',
          message: {
            role: 'user',
            content: [
              { tool_use_id: 'toolu_01Bxav9W8RSP4C7ZfoNhC07Z', type: 'tool_result', content: 'ok' },
            ],
          },
        }),
      );
      writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
      const [files] = await findSessions(dir);
      const options: SpanOptions = { content: 'labels', maxAttributeBytes: 2048 };
      const plain = plainSession(files as SessionFiles, options);
      expect(plain.turns.length).toBe(2);

      // Not forced: the waiting call keeps the first segment open, so nothing differs.
      const waiting = await streamed(files as SessionFiles, options, 1);
      expect(waiting.segments).toBe(1);
      expect(waiting.turns).toEqual(plain.turns);

      const forced: ProtobufTurn[] = [];
      const read = await streamSessionSpans(
        files as SessionFiles,
        prices,
        options,
        (part) => {
          forced.push(...part);
        },
        { segmentRecords: 1, forceRecords: 1 },
      );
      expect(read.forcedCuts).toBe(1);
      const ids = (list: ProtobufTurn[]) =>
        list.flatMap((t) => t.spans.map((s) => s.spanId)).sort();
      expect(forced.map((t) => t.traceId)).toEqual(plain.turns.map((t) => t.traceId));
      expect(ids(forced)).toEqual(ids(plain.turns));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---- the direct encoder on generated spans ----

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.constant('x'.repeat(200)),
);
const attributeValue: fc.Arbitrary<AttributeValue> = fc.oneof(
  text,
  fc.boolean(),
  fc.integer(),
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc.double(),
  fc.constantFrom(
    2 ** 60,
    -(2 ** 62),
    0.1,
    -0,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 32,
    2 ** 32 - 1,
  ),
  fc.array(text, { maxLength: 4 }),
);
const attributes = fc.dictionary(text, attributeValue, { maxKeys: 25 });
const time = fc.oneof(
  fc.integer({ min: 0, max: 4_102_444_800_000 }),
  fc.double({ min: 0, max: 4_102_444_800_000, noNaN: true }),
);
const span: fc.Arbitrary<SpanData> = fc.record({
  traceId: hex(32),
  spanId: hex(16),
  parentSpanId: fc.option(hex(16), { nil: null }),
  name: text,
  kind: fc.constantFrom('INTERNAL' as const, 'CLIENT' as const),
  startMs: time,
  endMs: time,
  attributes,
  status: fc.oneof(
    fc.record({ code: fc.constantFrom('UNSET' as const, 'OK' as const, 'ERROR' as const) }),
    fc.record({
      code: fc.constantFrom('UNSET' as const, 'OK' as const, 'ERROR' as const),
      message: text,
    }),
  ),
  links: fc.array(fc.record({ traceId: hex(32), spanId: hex(16), attributes }), { maxLength: 2 }),
  complete: fc.boolean(),
  turnKey: fc.string(),
});

describe('direct protobuf encoder = SDK serializer, on generated spans', () => {
  it('whole requests', () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 12 }), (spans) => {
        expect(
          Buffer.from(encodeSpans(spans, resource, 'http/protobuf')).equals(sdkBytes(spans)),
        ).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('requests assembled from span fields, any split', () => {
    fc.assert(
      fc.property(fc.array(span, { minLength: 1, maxLength: 12 }), fc.nat(), (spans, cut) => {
        const encoded = encodeSpanFields(spans);
        const at = cut % (spans.length + 1);
        const bytes = assembleRequest(
          [
            { encoded, from: 0, to: at },
            { encoded, from: at, to: spans.length },
          ],
          resource,
        );
        expect(Buffer.from(bytes).equals(sdkBytes(spans))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

// ---- the worker pool (bench/lib/session-spans-pool.mjs, over the built dist/) ----

interface SlimSessionSpans {
  turns: unknown[];
  warnings: unknown[];
}
interface EncodedSession {
  turns: { traceId: string; digest: string; startTime: number; from: number; to: number }[];
  encoded: { bytes: Uint8Array; ends: Uint32Array };
}

describe('session-spans-pool (bench) = plain path', () => {
  const options: SpanOptions = { content: 'labels', maxAttributeBytes: 2048 };
  // The pool runs dist in its workers; the reference is the sources' whole-session read.
  const distSpans = join(repoRoot, 'dist', 'app', 'read', 'session-spans.js');
  it('on two worker threads (dist): spans in input order, requests byte-identical', async () => {
    expect(
      existsSync(distSpans),
      `${distSpans} is missing: run \`npm run build\` first (\`npm test\` does)`,
    ).toBe(true);
    const dist = (path: string): Promise<unknown> =>
      import(pathToFileURL(join(repoRoot, 'dist', path)).href);
    const pool = (await import(
      pathToFileURL(join(repoRoot, 'bench', 'lib', 'session-spans-pool.mjs')).href
    )) as {
      mapSessionSpans: (
        s: SessionFiles[],
        p: PriceTable,
        o: SpanOptions,
        pool: { workers: number },
      ) => AsyncGenerator<SlimSessionSpans>;
      mapEncodedSessions: (
        s: SessionFiles[],
        p: PriceTable,
        o: SpanOptions,
        pool: { workers: number },
      ) => AsyncGenerator<EncodedSession>;
    };
    const encode = (await dist('adapters/otlp/encode.js')) as {
      assembleRequest: typeof assembleRequest;
    };
    const reference = [];
    for (const files of sessions) reference.push(await sessionSpans(files, prices, options));
    const slim: SlimSessionSpans[] = [];
    for await (const s of pool.mapSessionSpans(sessions, prices, options, { workers: 2 }))
      slim.push(s);
    expect(slim.map((s) => s.turns)).toEqual(reference.map((r) => r.turns));
    expect(slim.map((s) => s.warnings)).toEqual(reference.map((r) => r.model.warnings));

    let i = 0;
    for await (const session of pool.mapEncodedSessions(sessions, prices, options, {
      workers: 2,
    })) {
      const expected = reference[i] as Awaited<ReturnType<typeof sessionSpans>>;
      i += 1;
      expect(session.turns.map((t) => [t.traceId, t.digest, t.startTime, t.to - t.from])).toEqual(
        expected.turns.map((t) => [t.traceId, t.digest, t.startTime, t.spans.length]),
      );
      const bytes = encode.assembleRequest(
        [{ encoded: session.encoded, from: 0, to: session.encoded.ends.length }],
        resource,
      );
      expect(
        Buffer.from(bytes).equals(
          Buffer.from(encodeSpansWithSdk(allSpans(expected.turns), resource, 'http/protobuf')),
        ),
      ).toBe(true);
    }
    expect(i).toBe(sessions.length);
  });
});
