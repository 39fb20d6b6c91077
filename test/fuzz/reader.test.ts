// Property tests over the reader (line splitter + record parser + reducer) and
// everything downstream of it: whatever bytes a transcript holds, ccotel never
// throws, reports every bad line with its file and line number, and builds
// rows and spans that pass the invariants of test/support/model-checks.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  KNOWN_TYPES as KNOWN_RECORD_TYPES,
  parseRecord,
  type ParseOutcome,
} from '../../src/core/transcript/parse-record.js';
import {
  addAgentMeta,
  createSessionState,
  registerAgentFile,
} from '../../src/core/session/state.js';
import { loadSession } from '../support/whole-session.js';
import {
  allProblems,
  expectedBadLines,
  fromState,
  runPipeline,
  splitLines,
  stepAll,
  type MemFile,
} from '../support/model-checks.js';
import {
  FUZZ_SEED,
  fixtureSessions,
  fuzz,
  linesOf,
  type FixtureSession,
} from '../support/fuzz-config.js';

const sessions = fixtureSessions();
const realMains = sessions.flatMap((s) =>
  s.files.filter((f) => f.agentId === null && f.file.startsWith('fixtures/real/')),
);
const allLines = sessions.flatMap((s) =>
  s.files.flatMap((f) => linesOf(f.bytes).filter((l) => l.trim() !== '')),
);

beforeAll(() => {
  console.log(
    `fuzz seed ${FUZZ_SEED} (set CCOTEL_FUZZ_SEED to replay, CCOTEL_FUZZ_RUNS for more runs); ${sessions.length} fixture sessions`,
  );
});

const isDrift = (w: { reason: string }): boolean => w.reason.startsWith('unknown record type');

/**
 * Warnings of one file about bad lines, as line numbers. Unknown record types
 * get one warning per type and session (issue 12), checked on their own.
 */
function warnedLines(
  result: { state: { warnings: { file: string; line: number; reason: string }[] } },
  file: string,
): number[] {
  return result.state.warnings.filter((w) => w.file === file && !isDrift(w)).map((w) => w.line);
}

/** Record types a transcript may hold that are no format drift: the four ccotel reads, and the parser's list. */
const KNOWN_TYPES = new Set(['user', 'assistant', 'system', 'progress', ...KNOWN_RECORD_TYPES]);

// Text that looks like a transcript: real lines, broken real lines, JSON of every shape, noise.
const realLine = fc.constantFrom(...allLines);
const jsonValue = fc.json({ maxDepth: 3 });
const brokenLine = fc
  .tuple(realLine, fc.nat())
  .map(([l, n]) => l.slice(0, n % Math.max(1, l.length)));
const noiseLine = fc.string({ unit: 'binary', maxLength: 80 }).map((s) => s.replace(/\n/g, ' '));
const lineArb = fc.oneof(
  { weight: 4, arbitrary: realLine },
  { weight: 2, arbitrary: brokenLine },
  { weight: 2, arbitrary: jsonValue },
  { weight: 1, arbitrary: noiseLine },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '   ',
      '\t',
      '{}',
      '[]',
      'null',
      '"x"',
      '{"type":"user"}',
      '{"type":"assistant","message":null}',
    ),
  },
);
const transcriptText = fc
  .tuple(fc.array(lineArb, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
  .map(([lines, eol, terminated]) =>
    Buffer.from(lines.join(eol) + (terminated && lines.length > 0 ? eol : ''), 'utf8'),
  );
const randomBytes = fc.uint8Array({ maxLength: 4096 }).map((a) => Buffer.from(a));
const anyBytes = fc.oneof(
  randomBytes,
  transcriptText,
  fc.tuple(randomBytes, transcriptText).map(([a, b]) => Buffer.concat([b, a, b])),
);

describe('reader, fuzzed', () => {
  it('never throws on random bytes, and reports every bad line with its file and line', () => {
    fc.assert(
      fc.property(anyBytes, anyBytes, fc.integer({ min: 1, max: 97 }), (main, agent, chunk) => {
        const files: MemFile[] = [
          { file: '/p/main.jsonl', agentId: null, bytes: main },
          { file: '/p/main/subagents/agent-a1.jsonl', agentId: 'a1', bytes: agent },
        ];
        const result = runPipeline(files, { chunk });
        for (const f of files) {
          expect(warnedLines(result, f.file), f.file).toEqual(expectedBadLines(f.bytes));
          const tail = f.bytes.length - (f.bytes.lastIndexOf(0x0a) + 1);
          expect(result.pending.get(f.file)).toBe(tail);
        }
        for (const w of result.state.warnings) expect(w.reason.length).toBeGreaterThan(0);
        expect(allProblems(result, { timeRange: false })).toEqual([]);
      }),
      fuzz(300),
    );
  });

  it('splits lines the same way whatever the chunk boundaries', () => {
    fc.assert(
      fc.property(anyBytes, fc.integer({ min: 1, max: 64 }), (bytes, chunk) => {
        expect(splitLines(bytes, chunk)).toEqual(splitLines(bytes));
      }),
      fuzz(300),
    );
  });

  // The limit, plus the one-character marker (…) a cut text ends with.
  it('parses any string without throwing, and never keeps more text than its limit', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), realLine, jsonValue),
        fc.integer({ min: 1, max: 4096 }),
        (line, limit) => {
          const outcome = parseRecord(line, { textLimit: limit });
          if (outcome.kind !== 'record') return;
          const rec = outcome.record;
          if ((rec.type === 'user' || rec.type === 'assistant') && rec.text !== null)
            expect(rec.text.length).toBeLessThanOrEqual(limit + 1);
          if (rec.type === 'user')
            for (const r of rec.toolResults) expect(r.text.length).toBeLessThanOrEqual(limit + 1);
        },
      ),
      fuzz(500),
    );
  });

  it('reports an unterminated last line as pending through the real file reader', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ccotel-fuzz-read-'));
    try {
      const text = linesOf(realMains[0]?.bytes ?? Buffer.alloc(0)).filter((l) => l !== '');
      const file = join(dir, 'cut.jsonl');
      const last = text[text.length - 1] ?? '';
      await writeFile(
        file,
        `${text.slice(0, -1).join('\n')}\n${last.slice(0, Math.floor(last.length / 2))}`,
      );
      const loaded = await loadSession({
        sessionId: 'cut',
        projectDir: dir,
        mainFile: file,
        agentFiles: [],
        metaFiles: [],
      });
      expect(loaded.unterminated).toEqual([file]);
      expect(loaded.state.warnings).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('real transcripts cut at every byte offset of their last line', () => {
  // The tail a live writer has not finished: held back when unterminated, one
  // warning naming file and line when a newline follows the cut, and nothing
  // else of the session changes either way.
  const cases = sessions.flatMap((s) =>
    s.files.filter((f) => f.agentId === null).map((f) => ({ session: s, file: f })),
  );
  it.each(cases.map((c) => [c.file.file, c] as const))('%s', (_name, { session, file }) => {
    const raw = file.bytes.toString('utf8');
    const body = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
    const cut = body.lastIndexOf('\n') + 1;
    const prefix = Buffer.from(body.slice(0, cut), 'utf8');
    const lastLine = Buffer.from(body.slice(cut), 'utf8');
    const lastNumber = body.slice(0, cut).split('\n').length;
    const others = session.files.filter((f) => f !== file);
    // Parse the unchanging part once; each offset re-folds it (cheap) and adds its own tail.
    const prefixOutcomes: { line: number; outcome: ParseOutcome }[] = splitLines(prefix)
      .lines.filter((l) => l.text.trim() !== '')
      .map((l) => ({ line: l.number, outcome: parseRecord(l.text) }));
    const otherOutcomes = others.map((f) => ({
      f,
      outcomes: splitLines(f.bytes)
        .lines.filter((l) => l.text.trim() !== '')
        .map((l) => ({ line: l.number, outcome: parseRecord(l.text) })),
    }));
    const fold = (tail: ParseOutcome | null) => {
      const state = createSessionState('cut', file.file);
      for (const m of session.metas) addAgentMeta(state, m);
      for (const o of others) if (o.agentId !== null) registerAgentFile(state, o.agentId, o.file);
      stepAll(state, file.file, null, prefixOutcomes);
      if (tail !== null) stepAll(state, file.file, null, [{ line: lastNumber, outcome: tail }]);
      for (const o of otherOutcomes) stepAll(state, o.f.file, o.f.agentId, o.outcomes);
      return fromState(state, new Map());
    };
    const baseline = fold(null);
    expect(allProblems(baseline, { timeRange: false })).toEqual([]);
    let validCuts = 0;
    for (let k = 0; k <= lastLine.length; k += 1) {
      const partial = lastLine.subarray(0, k);
      // Unterminated: the splitter holds the bytes back and yields exactly the prefix lines.
      const held = splitLines(Buffer.concat([prefix, partial]), 4096);
      expect(held.pending).toBe(k);
      expect(held.lines.length).toBe(lastNumber - 1);
      if (k === 0) continue;
      // Terminated by a newline: one warning naming the line, unless the cut happens to be a record.
      const text = partial.toString('utf8');
      const outcome = parseRecord(text);
      const result = outcome.kind === 'record' ? fold(outcome) : null;
      if (outcome.kind === 'malformed') {
        const state = createSessionState('cut', file.file);
        stepAll(state, file.file, null, [{ line: lastNumber, outcome }]);
        expect(state.warnings).toEqual([
          { file: file.file, line: lastNumber, reason: outcome.reason },
        ]);
        expect(expectedBadLines(Buffer.from(`${text}\n`))).toEqual(text.trim() === '' ? [] : [1]);
      } else if (result !== null) {
        validCuts += 1;
        expect(allProblems(result, { timeRange: false }), `cut at ${k}`).toEqual([]);
      }
    }
    // The whole line is always a valid cut for these fixtures (when it is a JSON object).
    expect(validCuts).toBeGreaterThanOrEqual(
      parseRecord(lastLine.toString('utf8')).kind === 'record' ? 1 : 0,
    );
  });
});

describe('lines shuffled, duplicated and deleted', () => {
  // Whole lines only (an unfinished tail is the truncation suite's business); drawn
  // by index so that a counterexample prints small.
  const complete = (b: Buffer): Buffer => b.subarray(0, b.lastIndexOf(0x0a) + 1);
  const mains = sessions
    .filter((s) => s.files.length > 0)
    .map((s) => ({ ...s, files: s.files.map((f) => ({ ...f, bytes: complete(f.bytes) })) }));
  const sessionArb = fc.integer({ min: 0, max: mains.length - 1 });
  const at = (i: number): FixtureSession => mains[i] as FixtureSession;

  it('keeps every invariant whatever the order and the holes', () => {
    fc.assert(
      fc.property(sessionArb, fc.infiniteStream(fc.nat()), fc.nat(), (index, picks, seed) => {
        const session = at(index);
        const stream = picks[Symbol.iterator]();
        const pick = (n: number): number => (n === 0 ? 0 : (stream.next().value as number) % n);
        const files = session.files.map((f) => {
          const lines = linesOf(f.bytes).filter((l) => l !== '');
          // Delete some, duplicate some, then shuffle (Fisher-Yates from the stream).
          const kept = lines.filter(() => pick(5) !== 0);
          for (let d = pick(4); d > 0 && lines.length > 0; d -= 1)
            kept.splice(pick(kept.length + 1), 0, lines[pick(lines.length)] as string);
          if (seed % 2 === 0) {
            for (let i = kept.length - 1; i > 0; i -= 1) {
              const j = pick(i + 1);
              [kept[i], kept[j]] = [kept[j] as string, kept[i] as string];
            }
          }
          return { ...f, bytes: Buffer.from(`${kept.join('\n')}\n`) };
        });
        const result = runPipeline(files, { metas: session.metas });
        expect(allProblems(result, { timeRange: false })).toEqual([]);
        for (const f of files)
          expect(warnedLines(result, f.file)).toEqual(expectedBadLines(f.bytes));
      }),
      fuzz(200),
    );
  });

  it('changes no span when lines already read are written again later (a re-read, a resumed file)', () => {
    fc.assert(
      fc.property(
        sessionArb,
        fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
        (index, picks) => {
          const session = at(index);
          const reference = runPipeline(session.files, { metas: session.metas });
          const files = session.files.map((f, index) => {
            if (index !== 0) return f;
            const lines = linesOf(f.bytes).filter((l) => l.trim() !== '');
            if (lines.length === 0) return f;
            const again = picks.map((p) => lines[p % lines.length] as string);
            return { ...f, bytes: Buffer.from(`${lines.join('\n')}\n${again.join('\n')}\n`) };
          });
          const repeated = runPipeline(files, { metas: session.metas });
          // Lines whose uuid was seen are dropped; lines without one (summaries, snapshots) are ignored types.
          expect(repeated.spans).toEqual(reference.spans);
        },
      ),
      fuzz(100),
    );
  });

  it('ignores unknown record types wherever they appear', () => {
    const unknownType = fc.oneof(
      fc
        .string({ maxLength: 12 })
        .filter((t) => !['user', 'assistant', 'system', 'progress'].includes(t)),
      fc.constantFrom(
        'summary',
        'file-history-snapshot',
        'queue-operation',
        'custom-title',
        'x-future-record',
        'User',
        'ASSISTANT',
      ),
    );
    const unknownRecord = fc
      .tuple(
        unknownType,
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
        realLine,
      )
      .map(([type, extra, template]) => {
        const base = (() => {
          try {
            return JSON.parse(template) as Record<string, unknown>;
          } catch {
            return {};
          }
        })();
        return JSON.stringify({ ...base, ...extra, type });
      });
    fc.assert(
      fc.property(
        sessionArb,
        fc.array(fc.tuple(unknownRecord, fc.nat()), { maxLength: 10 }),
        (index, inserts) => {
          const session = at(index);
          const reference = runPipeline(session.files, { metas: session.metas });
          const main = session.files[0] as MemFile;
          const lines = linesOf(main.bytes).filter((l) => l !== '');
          const before = lines.length;
          for (const [rec, at] of inserts) lines.splice(at % (lines.length + 1), 0, rec);
          const files = [
            { ...main, bytes: Buffer.from(`${lines.join('\n')}\n`) },
            ...session.files.slice(1),
          ];
          const result = runPipeline(files, { metas: session.metas });
          const plain = (ws: { reason: string }[]): number => ws.filter((w) => !isDrift(w)).length;
          expect(plain(result.state.warnings)).toBe(plain(reference.state.warnings));
          // One warning per unknown type, however many lines of it.
          const drifted = new Set(reference.state.unknownTypes.keys());
          for (const [rec] of inserts) {
            const type = (JSON.parse(rec) as { type: string }).type;
            if (!KNOWN_TYPES.has(type)) drifted.add(type === '' ? '' : type.slice(0, 60));
          }
          expect(result.state.warnings.filter(isDrift)).toHaveLength(drifted.size);
          expect(new Set(result.state.unknownTypes.keys())).toEqual(drifted);
          expect(result.state.ignoredLines - reference.state.ignoredLines).toBe(
            lines.length - before,
          );
          // Same spans: inserting lines renumbers the file, and nothing in a span names a line number.
          expect(result.spans).toEqual(reference.spans);
        },
      ),
      fuzz(100),
    );
  });
});
