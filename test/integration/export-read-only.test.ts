// Read-only exports (--dry-run, --out) skip each turn's protobuf encoding and
// digest when nothing is compared: no state file, or --force. Their counts
// and files must be what they are when the digests are compared, and a
// recorded state must still make unchanged turns count as unchanged.
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { runCcotel } from '../support/run-cli.js';

const FIXTURE = 'fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl';
const SESSION = '491e126e-1e71-469c-ade2-fcc8af567c74';

let dir: string;
let receiver: OtlpReceiver;
let transcript: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-export-ro-'));
  transcript = join(dir, `${SESSION}.jsonl`);
  await copyFile(FIXTURE, transcript);
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver.stop();
  await rm(dir, { recursive: true, force: true });
});

const run = async (state: string, ...extra: string[]) => {
  const r = await runCcotel(['export', '--state-dir', join(dir, state), ...extra, transcript]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('read-only export: same counts and files with or without digests', () => {
  it('--dry-run and --out without a state, with --force over one, and after a real export', async () => {
    const fresh = await run('fresh', '--dry-run');
    expect(fresh).toMatch(/^dry run: 1 sessions, 2 turns, \d+ spans would be sent, 0 warnings\n$/);
    await run('fresh', '--out', join(dir, 'fresh.jsonl'), '--quiet');

    // A real export records both turns (their digests) in the state file.
    await run('sent', '--endpoint', receiver.url, '--quiet');
    const spansSent = receiver.spans().length;
    expect(fresh).toContain(` ${spansSent} spans would be sent`);

    // With that state the digests are computed and compared: nothing would be sent.
    const again = await run('sent', '--dry-run');
    expect(again).toContain('2 turns (2 unchanged, skipped)');
    expect(again).toContain(' 0 spans would be sent');
    await run('sent', '--out', join(dir, 'unchanged.jsonl'), '--quiet');
    expect(await readFile(join(dir, 'unchanged.jsonl'), 'utf8')).toBe('');

    // --force compares nothing: the counts and the file of a run without a state.
    expect(await run('sent', '--dry-run', '--force')).toBe(fresh);
    await run('sent', '--out', join(dir, 'forced.jsonl'), '--force', '--quiet');
    const forced = await readFile(join(dir, 'forced.jsonl'));
    expect(forced.length).toBeGreaterThan(0);
    expect(forced.equals(await readFile(join(dir, 'fresh.jsonl')))).toBe(true);
  }, 60_000);

  it('a dry run with nothing to compare counts, without building them, the spans --out writes', async () => {
    // Every fixture session: the count-only path (countTurnSpans) against the spans built.
    const roots = ['fixtures/hand', 'fixtures/real-layout', 'fixtures/real'];
    const out = join(dir, 'all.jsonl');
    const counted = await runCcotel([
      'export',
      '--state-dir',
      join(dir, 'all'),
      '--dry-run',
      ...roots,
    ]);
    expect(counted.code, counted.stderr).toBe(0);
    const written = await runCcotel([
      'export',
      '--state-dir',
      join(dir, 'all'),
      '--out',
      out,
      ...roots,
    ]);
    expect(written.code, written.stderr).toBe(0);
    const spans = (await readFile(out, 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .reduce((n, line) => {
        const request = JSON.parse(line) as {
          resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
        };
        return (
          n + request.resourceSpans.flatMap((r) => r.scopeSpans).flatMap((s) => s.spans).length
        );
      }, 0);
    expect(spans).toBeGreaterThan(200);
    expect(counted.stdout).toContain(` ${spans} spans would be sent`);
  }, 60_000);
});
