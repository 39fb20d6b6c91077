// Re-runs of `ccotel export` over real files and a real OTLP receiver: a
// session whose files are as they were marked is not read, every other change
// makes its session read whole (and only its changed turns sent), and what the
// receiver holds in the end is what a clean export of the final files gives.
import {
  appendFile,
  cp,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../support/otlp-decode.js';
import { cleanExport, exportCorpus } from '../support/export-run.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { runCcotel, type CliRun } from '../support/run-cli.js';

const WITH_AGENTS = 'bd8ec9a1-f803-45ed-9d7c-9ec7081ab44d';
// Transcript records as JSON: the fields copied are read by name.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const PLAIN = '491e126e-1e71-469c-ade2-fcc8af567c74';
/** Files in the corpus: the agent session's main file, agent files and meta sidecars; the plain one. */
let FILES: number;

let dir: string;
let proj: string;
let state: string;
let receiver: OtlpReceiver;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-unchanged-'));
  proj = join(dir, 'proj');
  state = join(dir, 'state');
  await cp('fixtures/hand/v21-subagents-meta', proj, { recursive: true });
  await cp('fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl', plainFile());
  FILES = (await readdir(proj, { recursive: true })).filter((n) =>
    /\.(jsonl|meta\.json)$/.test(n),
  ).length;
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await receiver.stop();
  await rm(dir, { recursive: true, force: true });
});

const plainFile = (): string => join(proj, `${PLAIN}.jsonl`);
const agentsMain = (): string => join(proj, `${WITH_AGENTS}.jsonl`);
const agentFile = (): string =>
  join(proj, WITH_AGENTS, 'subagents', 'agent-a3f1c9e27b4d6a80e.jsonl');

/** One export run: its output, and the spans the receiver got from it. */
async function exportRun(...extra: string[]): Promise<{ run: CliRun; spans: DecodedSpan[] }> {
  const before = receiver.spans().length;
  const run = await exportCorpus(receiver.url, state, proj, ...extra);
  expect(run.code, run.stderr).toBe(0);
  return { run, spans: receiver.spans().slice(before) };
}

/** The summary line of a run without --quiet. */
async function summaryOf(...extra: string[]): Promise<{ line: string; spans: DecodedSpan[] }> {
  const before = receiver.spans().length;
  const run = await runCcotel([
    'export',
    '--endpoint',
    receiver.url,
    '--state-dir',
    state,
    ...extra,
    proj,
  ]);
  expect(run.code, run.stderr).toBe(0);
  return { line: run.stdout.trim(), spans: receiver.spans().slice(before) };
}

const unread = (line: string): number =>
  Number(/(\d+) unchanged files? not read/.exec(line)?.[1] ?? 0);
const traces = (spans: DecodedSpan[]): string[] => [...new Set(spans.map((s) => s.traceId))].sort();

/** The lines of a new turn after the file's last line: a prompt and its answer, new uuids, a minute later. */
async function appendTurn(file: string, text: string): Promise<void> {
  const lines = (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);
  const prompt = lines.find((l) => l.type === 'user' && typeof l.message?.content === 'string');
  const answer = lines.find((l) => l.type === 'assistant' && l.isSidechain !== true);
  const last = lines.filter((l) => typeof l.uuid === 'string').at(-1);
  if (prompt === undefined || answer === undefined || last === undefined)
    throw new Error(`no turn to copy in ${file}`);
  const at = Date.parse(String(last.timestamp)) + 60_000;
  const p = {
    ...prompt,
    uuid: `${text}-0000-4000-8000-000000000001`,
    parentUuid: last.uuid,
    timestamp: new Date(at).toISOString(),
    message: { ...prompt.message, content: text },
  };
  const a = {
    ...answer,
    uuid: `${text}-0000-4000-8000-000000000002`,
    parentUuid: p.uuid,
    timestamp: new Date(at + 2000).toISOString(),
    requestId: `req_${text}`,
    message: {
      ...answer.message,
      id: `msg_${text}`,
      content: [{ type: 'text', text: 'done' }],
      stop_reason: 'end_turn',
    },
  };
  await appendFile(file, `${JSON.stringify(p)}\n${JSON.stringify(a)}\n`);
}

/** Each span id's last version received, against a clean export of the final files. */
async function expectReceiverEqualsCleanExport(): Promise<void> {
  const clean = await cleanExport(proj, join(dir, `clean-${Date.now()}`));
  expect(clean.run.code).toBe(0);
  const last = new Map(receiver.spans().map((s) => [s.spanId, s]));
  for (const span of clean.spans) expect(last.get(span.spanId), span.name).toEqual(span);
}

describe('export re-runs: unchanged files are not read', () => {
  it('a second run reads no file and sends nothing; the summary says so', async () => {
    const first = await summaryOf();
    expect(unread(first.line)).toBe(0);
    expect(first.spans.length).toBeGreaterThan(0);
    const again = await summaryOf();
    expect(again.spans).toHaveLength(0);
    expect(unread(again.line)).toBe(FILES);
    // The same counts as the run that read everything.
    expect(again.line).toMatch(
      new RegExp(
        `: 2 sessions, 3 turns \\(3 unchanged, skipped\\), ${FILES} unchanged files not read, 0 spans sent, 0 warnings$`,
      ),
    );
  });

  it('an appended turn: its session is read and only that turn is sent', async () => {
    await exportRun();
    await appendTurn(plainFile(), 'aaaaaaaa');
    const next = await summaryOf();
    expect(unread(next.line)).toBe(FILES - 1);
    expect(traces(next.spans)).toHaveLength(1);
    expect(next.spans.find((s) => s.name === 'invoke_agent Claude Code')).toBeDefined();
    await expectReceiverEqualsCleanExport();
    expect(unread((await summaryOf()).line)).toBe(FILES);
  });

  it('a sub-agent file that grew after its session was marked makes the session read', async () => {
    await exportRun();
    const lines = (await readFile(agentFile(), 'utf8')).trim().split('\n');
    const call = JSON.parse(lines.findLast((l) => l.includes('"assistant"')) ?? '{}') as Json;
    const more = {
      ...call,
      uuid: 'bbbbbbbb-0000-4000-8000-000000000001',
      parentUuid: call.uuid,
      timestamp: new Date(Date.parse(String(call.timestamp)) + 1000).toISOString(),
      requestId: 'req_more',
      message: {
        ...call.message,
        id: 'msg_more',
        content: [{ type: 'text', text: 'one more step' }],
      },
    };
    await appendFile(agentFile(), `${JSON.stringify(more)}\n`);
    const next = await summaryOf();
    expect(unread(next.line)).toBe(1); // the plain session's one file
    expect(next.spans.length).toBeGreaterThan(0);
    await expectReceiverEqualsCleanExport();
  });

  it('a rewrite in place with the same size is read, and its changed turn resent', async () => {
    await exportRun();
    const text = await readFile(plainFile(), 'utf8');
    const changed = text.replace(
      /"output_tokens":(\d)/,
      (_m, d: string) => `"output_tokens":${(Number(d) + 1) % 10}`,
    );
    expect(changed).not.toBe(text);
    expect(Buffer.byteLength(changed)).toBe(Buffer.byteLength(text));
    await writeFile(plainFile(), changed);
    const next = await summaryOf();
    expect(unread(next.line)).toBe(FILES - 1);
    expect(traces(next.spans)).toHaveLength(1);
    await expectReceiverEqualsCleanExport();
  });

  it('a touch, a replacement by rename and a truncation are read; nothing changed is resent', async () => {
    await appendTurn(plainFile(), 'cccccccc');
    await exportRun();
    const now = new Date();
    await utimes(plainFile(), now, now);
    let next = await summaryOf();
    expect([unread(next.line), next.spans.length]).toEqual([FILES - 1, 0]);
    expect(unread((await summaryOf()).line)).toBe(FILES);

    const copy = join(dir, 'copy.jsonl');
    await writeFile(copy, await readFile(plainFile()));
    await rename(copy, plainFile());
    next = await summaryOf();
    expect([unread(next.line), next.spans.length]).toEqual([FILES - 1, 0]);

    // Drop the appended turn: what is left was delivered already.
    const text = await readFile(plainFile(), 'utf8');
    const lines = text.trimEnd().split('\n');
    await truncate(plainFile(), Buffer.byteLength(lines.slice(0, -2).join('\n') + '\n'));
    next = await summaryOf();
    expect([unread(next.line), next.spans.length]).toEqual([FILES - 1, 0]);
    expect(next.line).toContain(' 3 turns ');
  });

  it('a state file from the previous format reads every session once, and resends nothing', async () => {
    await exportRun();
    const path = join(state, 'export-state.json');
    const current = JSON.parse(await readFile(path, 'utf8')) as { turns: Record<string, string> };
    await writeFile(path, JSON.stringify({ version: 1, turns: current.turns }));
    const next = await summaryOf();
    expect([unread(next.line), next.spans.length]).toEqual([0, 0]);
    expect(unread((await summaryOf()).line)).toBe(FILES);
  });

  it('a deleted session is forgotten; --force, other settings and a wider window read again', async () => {
    await exportRun();
    await rm(agentsMain());
    await rm(join(proj, WITH_AGENTS), { recursive: true });
    await exportRun();
    const saved = JSON.parse(await readFile(join(state, 'export-state.json'), 'utf8')) as {
      sessions: Record<string, unknown>;
    };
    expect(Object.keys(saved.sessions)).toEqual([plainFile()]);

    expect(unread((await summaryOf('--force')).line)).toBe(0);
    // Other content capture builds other spans: read, and resent.
    const other = await summaryOf('--content', 'none');
    expect(unread(other.line)).toBe(0);
    expect(other.spans.length).toBeGreaterThan(0);
    // A window that starts later is covered by the delivered one; an earlier one is not.
    await exportRun('--since', '2020-01-01');
    expect(unread((await summaryOf('--since', '2021-01-01')).line)).toBe(1);
    expect(unread((await summaryOf('--since', '2019-01-01')).line)).toBe(0);
  });
});
