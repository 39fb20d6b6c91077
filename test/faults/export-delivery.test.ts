// `ccotel export` against a real OTLP/HTTP receiver that fails the ways a
// collector fails: error statuses (with and without Retry-After), answers
// slower than the timeout, connection resets, no answer, and being down.
//
// Each case: run export (it may fail), fix the receiver, re-run while it exits
// non-zero, then count against a clean export of the same corpus: every
// expected span received at least once (lost = 0), and repeats only
// byte-identical copies of spans of turns that were in an unacknowledged
// batch (a turn is recorded only once all its spans are accepted, so a turn
// that straddles a failed batch is resent whole).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodedLogRecord, DecodedSpan } from '../support/otlp-decode.js';
import {
  startOtlpReceiver,
  type LogsMode,
  type OtlpReceiver,
  type Scripted,
} from '../support/otlp-receiver.js';
import { runCcotel, type CliRun } from '../support/run-cli.js';
import { cleanExport, exportCorpus } from '../support/export-run.js';
import {
  canonical,
  createMatrix,
  makeCorpus,
  OUTAGE_MS,
  SOAK,
  strayRepeats,
  tally,
  unacknowledgedTraces,
  type Corpus,
  type Tally,
} from '../support/fault-harness.js';
import { FUZZ_SEED, fuzz } from '../support/fuzz-config.js';

const matrix = createMatrix('export-delivery');
let base: string;
let corpus: Corpus;
let expected: DecodedSpan[];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ccotel-faults-'));
  corpus = await makeCorpus(base, 2);
  const reference = await cleanExport(corpus.root, join(base, 'ref-state'));
  expect(reference.run.code).toBe(0);
  expected = reference.spans;
  expect(expected.length).toBeGreaterThan(2 * 512); // three batches at least
}, 60_000);

afterAll(async () => {
  matrix.write();
  await rm(base, { recursive: true, force: true });
});

let caseNo = 0;
const exportTo = (receiver: OtlpReceiver, stateDir: string, ...extra: string[]): Promise<CliRun> =>
  exportCorpus(receiver.url, stateDir, corpus.root, ...extra);

const noStack = (run: CliRun): void => {
  expect(run.stderr).not.toMatch(/^\s+at /m);
  for (const line of run.stderr.split('\n').filter((l) => l !== ''))
    expect(line).toMatch(/^ccotel: /);
};

interface Outcome {
  runs: CliRun[];
  receiver: OtlpReceiver;
  seconds: number;
}

/**
 * One fault case: `fault` sets the receiver up and runs the export (maybe failing);
 * then the receiver is fixed and export re-run until it succeeds (at most 3 times).
 */
async function faultCase(
  name: string,
  fault: (receiver: OtlpReceiver, stateDir: string) => Promise<CliRun[]>,
  check?: (o: Outcome) => void,
): Promise<void> {
  caseNo += 1;
  const receiver = await startOtlpReceiver();
  const stateDir = join(base, `state-${caseNo}`);
  const started = performance.now();
  try {
    const runs = await fault(receiver, stateDir);
    receiver.setMode('accept');
    for (let i = 0; i < 3 && runs[runs.length - 1]?.code !== 0; i += 1)
      runs.push(await exportTo(receiver, stateDir));
    const seconds = (performance.now() - started) / 1000;
    const received = receiver.spans();
    const t: Tally = tally(expected, received);
    const allowed = unacknowledgedTraces(receiver);
    const stray = strayRepeats(received, allowed);
    const codes = runs.map((r) => r.code).join('→');
    const ok =
      t.lost === 0 &&
      t.repeatedDiffering === 0 &&
      t.unexpected === 0 &&
      t.mismatched === 0 &&
      stray.length === 0 &&
      runs[runs.length - 1]?.code === 0;
    matrix.add({
      case: name,
      ...t,
      outcome: `exit ${codes}; ${receiver.requests().length} requests (${receiver
        .requests()
        .map((r) => r.status)
        .join(',')})`,
      repeatsAllowed: 'byte-identical spans of turns in an unacknowledged batch',
      seconds: Math.round(seconds * 10) / 10,
      status: ok ? 'pass' : 'fail',
    });
    for (const run of runs) noStack(run);
    expect(t.lost, 'lost').toBe(0);
    expect(t.repeatedDiffering, 'repeats that differ').toBe(0);
    expect(t.unexpected, 'unexpected spans').toBe(0);
    expect(t.mismatched, 'spans unlike the clean export').toBe(0);
    expect(stray, 'repeats outside unacknowledged batches').toEqual([]);
    expect(runs[runs.length - 1]?.code).toBe(0);
    check?.({ runs, receiver, seconds });
  } finally {
    await receiver.stop();
  }
}

const once =
  (script: Scripted[], ...flags: string[]) =>
  async (receiver: OtlpReceiver, stateDir: string): Promise<CliRun[]> => {
    receiver.script(script);
    return [await exportTo(receiver, stateDir, ...flags)];
  };

const failedFirst = ({ runs }: Outcome): void => {
  expect(runs[0]?.code).toBe(1);
  expect(runs[0]?.stderr.trim().split('\n')).toHaveLength(1);
  expect(runs[0]?.stderr).toMatch(
    /^ccotel: could not deliver spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: /,
  );
};
const succeededFirst = ({ runs }: Outcome): void => {
  expect(runs).toHaveLength(1);
  expect(runs[0]?.code).toBe(0);
};

describe('export: error statuses', () => {
  it('500 on the first batch: exit 1, nothing recorded; the re-run delivers all', () =>
    faultCase('500 on batch 1', once([{ status: 500 }]), failedFirst));
  it('500 on the second batch: the first batch stays delivered; only unacknowledged turns are resent', () =>
    faultCase('500 on batch 2', once([{ status: 200 }, { status: 500 }]), (o) => {
      failedFirst(o);
      // The re-run skipped the turns fully delivered in batch 1.
      expect(o.runs[1]?.code).toBe(0);
    }));
  it('413 once on the third batch: split in halves and resent in the same run', () =>
    faultCase(
      '413 on batch 3 (halves resent)',
      once([{ status: 200 }, { status: 200 }, { status: 413, body: 'too large' }]),
      succeededFirst,
    ));
  it('400 on the first batch', () =>
    faultCase('400 on batch 1', once([{ status: 400, body: 'bad span' }]), failedFirst));
  it('503 with Retry-After: 1, twice, then accepted: one run, no loss', () =>
    faultCase(
      '503 Retry-After 1 ×2',
      once([
        { status: 503, retryAfter: '1' },
        { status: 503, retryAfter: '1' },
      ]),
      succeededFirst,
    ));
  it('429 with Retry-After: 1 on the second batch', () =>
    faultCase(
      '429 Retry-After 1 on batch 2',
      once([{ status: 200 }, { status: 429, retryAfter: '1' }]),
      succeededFirst,
    ));
  it('502 and 504 without Retry-After: backoff, then accepted', () =>
    faultCase('502 then 504 (backoff)', once([{ status: 502 }, { status: 504 }]), succeededFirst));
  it('503 until the retries are used up: exit 1; the re-run delivers', () =>
    faultCase(
      '503 ×6 (retries exhausted)',
      once(Array.from({ length: 6 }, () => ({ status: 503, retryAfter: '0' }))),
      failedFirst,
    ));
});

describe('export: slow, silent and broken connections', () => {
  it('an answer slower than --timeout is abandoned and the batch resent', () =>
    faultCase(
      '200 after 2.5 s, --timeout 800',
      once([{ status: 200, delayMs: 2500 }], '--timeout', '800'),
      succeededFirst,
    ));
  it('connection reset mid-request, on two batches', () =>
    faultCase(
      'TCP reset on batches 1 and 2',
      once([{ reset: true }, { status: 200 }, { reset: true }]),
      succeededFirst,
    ));
  it('no answer at all', () =>
    faultCase(
      'no answer (hang), --timeout 800',
      once([{ hang: true }], '--timeout', '800'),
      succeededFirst,
    ));
  it(
    `the receiver down for ${OUTAGE_MS / 1000} s${SOAK ? ' (soak)' : ''}`,
    () =>
      faultCase(`receiver down ${OUTAGE_MS / 1000} s`, async (receiver, stateDir) => {
        await receiver.stop();
        const first = exportTo(receiver, stateDir, '--timeout', '1000');
        await new Promise((r) => setTimeout(r, OUTAGE_MS));
        await receiver.restart();
        const runs = [await first];
        // Retries span ~13 s: a short outage is ridden out, a long one fails and the re-run delivers.
        if (OUTAGE_MS < 10_000) expect(runs[0]?.code).toBe(0);
        return runs;
      }),
    OUTAGE_MS + 90_000,
  );
});

describe('export: random fault sequences', () => {
  // Each round scripts a random sequence of faults over the batches, then keeps
  // re-running export (as a user or cron would) until it succeeds.
  const fault: fc.Arbitrary<Scripted> = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Scripted>({ status: 200 }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<Scripted>(
        { status: 503, retryAfter: '0' },
        { status: 429, retryAfter: '0' },
        { status: 502, retryAfter: '0' },
        { status: 504, retryAfter: '0' },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Scripted>({ status: 500 }, { status: 413 }, { status: 400 }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Scripted>(
        { reset: true },
        { hang: true },
        { status: 200, delayMs: 600 },
      ),
    },
  );
  it(`loses nothing over seeded random rounds (seed ${FUZZ_SEED})`, async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fault, { minLength: 1, maxLength: 8 }), async (script) => {
        round += 1;
        const label = script
          .map((s) =>
            'reset' in s
              ? 'reset'
              : 'hang' in s
                ? 'hang'
                : 'rejectSpans' in s
                  ? 'partial'
                  : `${s.status}${s.delayMs ? '/slow' : ''}`,
          )
          .join(' ');
        await faultCase(
          `random round ${round}: ${label}`.slice(0, 58),
          async (receiver, stateDir) => {
            receiver.script(script);
            const runs: CliRun[] = [];
            // Re-run while faults remain in the script (each failed run consumes some).
            for (let i = 0; i < 6; i += 1) {
              runs.push(await exportTo(receiver, stateDir, '--timeout', '400'));
              if (runs[runs.length - 1]?.code === 0) break;
            }
            return runs;
          },
        );
      }),
      fuzz(4, { endOnFailure: true }),
    );
  }, 240_000);
});

describe('export: collectors that accept only part of a request', () => {
  // One span in five of every request dropped, as a quota or an ingester limit would.
  const oneInFive = { rejectSpans: (n: number) => Math.ceil(n / 5), message: 'quota exceeded' };
  const rejectedFirst = ({ runs }: Outcome): void => {
    const first = runs[0];
    expect(first?.code).toBe(1);
    expect(first?.stderr.trim().split('\n')).toHaveLength(1);
    expect(first?.stderr).toMatch(
      /^ccotel: the collector at http:\/\/127\.0\.0\.1:\d+\/v1\/traces rejected \d+ spans \(partial success: quota exceeded\); those turns stay unrecorded and will be resent whole, same ids$/m,
    );
    expect(first?.stdout).toBe('');
    // The re-run resent the rejected requests' turns and delivered everything.
    expect(runs[1]?.code).toBe(0);
  };
  for (const protocol of ['http/protobuf', 'http/json'])
    it(`partial_success (${protocol}): exit 1 naming the count and message; the re-run resends those turns whole`, () =>
      faultCase(
        `partial_success 1 in 5 (${protocol})`,
        async (receiver, stateDir) => {
          receiver.setMode(oneInFive);
          return [await exportTo(receiver, stateDir, '--protocol', protocol)];
        },
        rejectedFirst,
      ));
  it('413 above 20 spans: batches are halved until they pass; one run delivers every span once', () =>
    faultCase(
      '413 above 20 spans (split)',
      async (receiver, stateDir) => {
        receiver.limitSpans(20);
        return [await exportTo(receiver, stateDir)];
      },
      ({ runs, receiver }) => {
        expect(runs).toHaveLength(1);
        expect(runs[0]?.code).toBe(0);
        const statuses = receiver.requests().map((r) => r.status);
        expect(statuses).toContain(413);
        // Repeats: none; every accepted request held at most 20 spans.
        expect(receiver.spans()).toHaveLength(expected.length);
        for (const r of receiver.requests().filter((q) => q.status === 200))
          expect(r.spans.length).toBeLessThanOrEqual(20);
      },
    ));
  it('a span too large even alone is reported by id and size: exit 1, one line', async () => {
    const receiver = await startOtlpReceiver();
    try {
      receiver.limitSpans(0);
      const run = await exportCorpus(
        receiver.url,
        join(base, 'state-too-large'),
        corpus.mains[0] as string,
      );
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(
        /^ccotel: \d+ span\(s\) too large for the collector even alone \(HTTP 413\): [0-9a-f]{16} \(\d+ bytes\)/,
      );
      expect(receiver.spans()).toHaveLength(0);
    } finally {
      await receiver.stop();
    }
  });
  it('--max-batch-spans caps every request', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await exportTo(receiver, join(base, 'state-batch-7'), '--max-batch-spans', '7');
      expect(run.code).toBe(0);
      const sizes = receiver.requests().map((r) => r.spans.length);
      expect(Math.max(...sizes)).toBe(7);
      expect(receiver.spans()).toHaveLength(expected.length);
    } finally {
      await receiver.stop();
    }
  });
});

describe('export: what it prints', () => {
  const runPlain = (receiver: OtlpReceiver, stateDir: string, ...extra: string[]) =>
    runCcotel([
      'export',
      '--endpoint',
      receiver.url,
      '--state-dir',
      stateDir,
      ...extra,
      corpus.mains[0] as string,
    ]);
  it('an outage that passes: one line when it starts, one when it ends, then the summary', async () => {
    const receiver = await startOtlpReceiver();
    try {
      receiver.script([
        { status: 503, retryAfter: '0' },
        { status: 503, retryAfter: '0' },
        { status: 503, retryAfter: '0' },
      ]);
      const run = await runPlain(receiver, join(base, 'state-print-1'));
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^ccotel: collector not accepting \(HTTP 503\); retrying/);
      expect(lines[1]).toMatch(/^ccotel: collector answering again after \d+\.\ds$/);
      expect(run.stdout).toMatch(
        /^exported to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: 1 sessions, .* spans sent/,
      );
    } finally {
      await receiver.stop();
    }
  });
  it('an outage that lasts: its start, then the one-line failure; no "exported to"', async () => {
    const receiver = await startOtlpReceiver();
    await receiver.stop();
    const run = await runPlain(receiver, join(base, 'state-print-2'), '--timeout', '300');
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ccotel: collector not accepting \(ECONNREFUSED/);
    expect(lines[1]).toMatch(
      /^ccotel: could not deliver spans to .*: ECONNREFUSED .*\(0 spans sent, \d+ not delivered\); those turns stay unrecorded/,
    );
    expect(run.stdout).toBe('');
  }, 60_000);
  it('--dry-run says what would be sent', async () => {
    const run = await runCcotel([
      'export',
      '--dry-run',
      '--state-dir',
      join(base, 'state-print-3'),
      corpus.mains[0] as string,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^dry run: 1 sessions, \d+ turns, \d+ spans would be sent, 0 warnings\n$/,
    );
    expect(run.stdout).not.toMatch(/\d+ spans sent/);
  });
});

describe('export: a repeat is the same span, byte for byte', () => {
  it('a forced re-export resends spans identical to the first export', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const stateDir = join(base, 'state-force');
      expect((await exportTo(receiver, stateDir)).code).toBe(0);
      const first = receiver.spans().map(canonical);
      expect((await exportTo(receiver, stateDir, '--force')).code).toBe(0);
      const again = receiver.spans().slice(first.length).map(canonical);
      expect(again).toEqual(first);
    } finally {
      await receiver.stop();
    }
  });
});

describe('export --schema claude-code: events through a failing logs endpoint', () => {
  // The events of a batch travel after its spans; a turn is recorded only when both were
  // accepted. Whatever fails, the re-runs deliver every event at least once, and a repeat is
  // the same record (same log.record.uid, same content).
  const uidOf = (l: DecodedLogRecord): string => String(l.attributes['log.record.uid']);
  const key = (l: DecodedLogRecord): string =>
    JSON.stringify(l, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  let reference: DecodedLogRecord[] = [];

  beforeAll(async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await exportTo(receiver, join(base, 'cc-ref'), '--schema', 'claude-code');
      expect(run.code, run.stderr).toBe(0);
      reference = receiver.logs();
      expect(reference.length).toBeGreaterThan(512);
    } finally {
      await receiver.stop();
    }
  }, 60_000);

  it.each([
    ['500 on the first logs request', [{ status: 500 }]],
    [
      'accepted, then 500, then 503 (retried) on the next logs requests',
      ['accept', { status: 500 }, { status: 503 }],
    ],
    [
      'a partial_success on the second logs request',
      ['accept', { rejectRecords: 3, message: 'quota' }],
    ],
  ] as [string, LogsMode[]][])(
    '%s: nothing lost, repeats identical',
    async (_name, script) => {
      const receiver = await startOtlpReceiver();
      const stateDir = join(base, `state-cc-${(caseNo += 1)}`);
      try {
        receiver.scriptLogs(script);
        const runs = [
          await exportTo(receiver, stateDir, '--schema', 'claude-code', '--timeout', '400'),
        ];
        for (let i = 0; i < 3 && runs[runs.length - 1]?.code !== 0; i += 1)
          runs.push(await exportTo(receiver, stateDir, '--schema', 'claude-code'));
        for (const run of runs) noStack(run);
        expect(runs[0]?.code).toBe(1);
        expect(runs[runs.length - 1]?.code).toBe(0);
        const got = new Map<string, Set<string>>();
        for (const l of receiver.logs()) {
          const copies = got.get(uidOf(l)) ?? new Set<string>();
          copies.add(key(l));
          got.set(uidOf(l), copies);
        }
        const lost = reference.filter((l) => !got.has(uidOf(l)));
        expect(lost.length, 'events lost').toBe(0);
        expect([...got.values()].filter((c) => c.size > 1).length, 'repeats that differ').toBe(0);
        expect(new Set(reference.map(uidOf))).toEqual(new Set(got.keys()));
      } finally {
        await receiver.stop();
      }
    },
    60_000,
  );
});
