// No secret leaves the machine. The seeded session in fixtures/secrets/ (main
// transcript, sub-agent, meta sidecar; every planted value listed in
// secrets.json with the pattern meant to catch it) is exported in every content
// mode to a receiver that keeps the raw request bytes (gzip off, protobuf and
// JSON) and with --out, in both schemas (Claude Code's adds events, as log
// requests and --out lines); `show --html` writes its page. No planted value may
// appear in any attribute, event, link, resource, span name or status, nor
// anywhere in the raw bytes.
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_PATTERNS } from '../../src/core/spans/scrub.js';
import type { DecodedLogRecord, DecodedSpan } from '../support/otlp-decode.js';
import { decodeJsonTraces, decodeOtlpLogsRequest } from '../support/otlp-decode.js';
import { runCcotel } from '../support/run-cli.js';
import {
  canonical,
  decodeCaptured,
  decodeCapturedLogs,
  startRawCapture,
} from '../support/fault-harness.js';

const FIXTURE = 'fixtures/secrets';
const SECRETS_FILE = join(FIXTURE, 'secrets.json');
const MAIN = '5e3c7a1f-2b4d-4e8a-9c6f-0d1e2f3a4b5c';

interface Planted {
  pattern: string;
  value: string;
}
// The seeded fixture is part of the repository: missing, the suite fails rather than skips.
const planted = JSON.parse(readFileSync(SECRETS_FILE, 'utf8')) as Planted[];

/** One place an output can carry text: where (for the message) and what. */
interface Output {
  where: string;
  text: string;
  bytes?: Buffer;
}

const MODES = ['none', 'labels', 'full'] as const;
let dir: string;
const outputs: Output[] = [];

/** Every string of a decoded span, by where it sits. */
function spanTexts(mode: string, how: string, spans: DecodedSpan[]): Output[] {
  const out: Output[] = [];
  for (const s of spans) {
    const at = `${mode}/${how} span '${s.name}'`;
    out.push({ where: `${at} name+status`, text: `${s.name}\n${s.status.message}` });
    for (const [k, v] of Object.entries(s.attributes))
      out.push({ where: `${at} attribute ${k}`, text: JSON.stringify(v) });
    for (const e of s.events)
      out.push({
        where: `${at} event ${e.name}`,
        text: JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      });
    for (const l of s.links) out.push({ where: `${at} link`, text: JSON.stringify(l) });
    for (const [k, v] of Object.entries(s.resource))
      out.push({ where: `${at} resource ${k}`, text: JSON.stringify(v) });
  }
  return out;
}

/** Every string of a decoded log record (Claude Code's schema). */
function logTexts(mode: string, how: string, logs: DecodedLogRecord[]): Output[] {
  return logs.map((l, i) => ({
    where: `${mode}/${how} claude-code event ${i} (${String(l.body)})`,
    text: JSON.stringify(l, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
  }));
}

type Capture = Awaited<ReturnType<typeof startRawCapture>>;

/** `ccotel export … project` to a raw capture, which must succeed: its request bodies are outputs. */
async function exportCaptured(
  args: string[],
  project: string,
  where: string,
  decode: (capture: Capture) => void,
): Promise<void> {
  const capture = await startRawCapture();
  try {
    const run = await runCcotel([
      'export',
      ...args,
      '--endpoint',
      capture.url,
      '--compression',
      'none',
      '--quiet',
      project,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(capture.bodies.length).toBeGreaterThan(0);
    capture.bodies.forEach((b, i) =>
      outputs.push({
        where: `${where} request ${i} (${b.path}) raw bytes`,
        text: b.body.toString('latin1'),
        bytes: b.body,
      }),
    );
    decode(capture);
  } finally {
    await capture.stop();
  }
}

/** `ccotel export --out` of the project, which must succeed: its file and its lines (the file's text is an output). */
async function exportWritten(
  args: string[],
  project: string,
  where: string,
): Promise<{ lines: string[]; printed: string }> {
  const out = join(dir, `out-${where.replace(/\W+/g, '-')}.jsonl`);
  const run = await runCcotel(['export', ...args, '--out', out, '--quiet', project]);
  expect(run.code, run.stderr).toBe(0);
  const text = await readFile(out, 'utf8');
  outputs.push({ where: `${where} --out file`, text });
  return { lines: text.trim().split('\n'), printed: run.stdout + run.stderr };
}

/** The default schema, every mode: sent over both protocols, and written (--out). */
async function captureGenAi(project: string): Promise<void> {
  for (const mode of MODES) {
    for (const protocol of ['http/protobuf', 'http/json'] as const) {
      const state = join(dir, `state-${mode}-${protocol.slice(5)}`);
      const args = ['--protocol', protocol, '--content', mode, '--state-dir', state];
      await exportCaptured(args, project, `${mode}/${protocol}`, (capture) => {
        const spans = decodeCaptured(capture);
        expect(spans.length).toBeGreaterThan(10);
        outputs.push(...spanTexts(mode, protocol, spans));
        outputs.push({
          where: `${mode}/${protocol} decoded spans`,
          text: spans.map(canonical).join('\n'),
        });
      });
    }
    const args = ['--content', mode, '--state-dir', join(dir, 'state-out')];
    const { lines, printed } = await exportWritten(args, project, mode);
    outputs.push(
      ...spanTexts(
        mode,
        '--out',
        lines.flatMap((l) => decodeJsonTraces(l)),
      ),
    );
    // What the exporter prints is on the machine, but goes to logs and CI output.
    outputs.push({ where: `${mode} export stdout+stderr`, text: printed });
  }
}

/** Claude Code's schema, every mode: spans and events, sent (protobuf) and written (--out). */
async function captureClaudeCodeSchema(project: string): Promise<void> {
  for (const mode of MODES) {
    const schema = ['--schema', 'claude-code', '--content', mode];
    const sent = [...schema, '--state-dir', join(dir, `state-cc-${mode}`)];
    await exportCaptured(sent, project, `${mode}/claude-code`, (capture) => {
      const logs = decodeCapturedLogs(capture);
      expect(logs.length).toBeGreaterThan(5);
      outputs.push(...spanTexts(mode, 'claude-code', decodeCaptured(capture)));
      outputs.push(...logTexts(mode, 'claude-code', logs));
    });
    const written = [...schema, '--state-dir', join(dir, 'state-cc-out')];
    const { lines } = await exportWritten(written, project, `${mode}/claude-code`);
    const logLines = lines.filter((l) => l.startsWith('{"resourceLogs"'));
    outputs.push(
      ...logTexts(
        mode,
        'claude-code --out',
        logLines.flatMap((l) => decodeOtlpLogsRequest(Buffer.from(l), 'json')),
      ),
    );
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-secrets-'));
  const project = join(dir, 'projects', '-home-dev-secrets');
  await cp(FIXTURE, project, { recursive: true });
  const transcript = join(project, `${MAIN}.jsonl`);
  await captureGenAi(project);
  await captureClaudeCodeSchema(project);
  const html = join(dir, 'waterfall.html');
  const show = await runCcotel(['show', '--html', html, transcript]);
  expect(show.code, show.stderr).toBe(0);
  outputs.push({ where: 'show --html page', text: await readFile(html, 'utf8') });
}, 120_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Where a value appears, if anywhere (raw bytes searched as UTF-8 too). */
function leaksOf(value: string): string[] {
  const found: string[] = [];
  const utf8 = Buffer.from(value, 'utf8');
  for (const o of outputs) {
    if (o.text.includes(value) || (o.bytes !== undefined && o.bytes.includes(utf8)))
      found.push(o.where);
  }
  return found;
}

describe('secret scrubbing, end to end', () => {
  it('the fixture plants a value for every pattern the scrubber knows', () => {
    const covered = new Set(planted.map((p) => p.pattern));
    expect(SECRET_PATTERNS.map((p) => p.name).filter((n) => !covered.has(n))).toEqual([]);
    // And the values really are in the transcripts (else the test proves nothing).
    const raw = [join(FIXTURE, `${MAIN}.jsonl`), join(FIXTURE, MAIN, 'subagents')]
      .map((p) => (p.endsWith('.jsonl') ? readFileSync(p, 'utf8') : ''))
      .join('');
    const sub = readFileSync(
      join(FIXTURE, MAIN, 'subagents', 'agent-a3f9c2e1b7d40586a.jsonl'),
      'utf8',
    );
    for (const p of planted)
      expect(
        raw.includes(p.value) ||
          sub.includes(p.value) ||
          raw.includes(JSON.stringify(p.value).slice(1, -1)) ||
          sub.includes(JSON.stringify(p.value).slice(1, -1)),
        `${p.pattern} value is planted`,
      ).toBe(true);
  });

  it('the exports carry content (labels and full mode are not empty)', () => {
    const labels = outputs.filter(
      (o) =>
        o.where.startsWith('labels/http/protobuf span') &&
        o.where.includes('claude_code.tool.label'),
    );
    const full = outputs.filter(
      (o) =>
        o.where.startsWith('full/http/protobuf span') &&
        o.where.includes('gen_ai.tool.call.result'),
    );
    expect(labels.length).toBeGreaterThan(3);
    expect(full.length).toBeGreaterThan(3);
  });

  // Pattern by pattern: the first leak fails the test, naming the pattern, the value and where it went.
  it('no planted secret appears anywhere, checked pattern by pattern', () => {
    for (const pattern of [
      ...SECRET_PATTERNS.map((p) => p.name),
      ...new Set(planted.map((p) => p.pattern)),
    ]) {
      for (const p of planted.filter((x) => x.pattern === pattern)) {
        const where = leaksOf(p.value);
        if (where.length > 0)
          throw new Error(
            `secret of pattern '${pattern}' leaked (${p.value.slice(0, 12)}…) in: ${where.slice(0, 5).join('; ')}${where.length > 5 ? ` and ${where.length - 5} more` : ''}`,
          );
      }
    }
  });

  it.each(planted.map((p, i) => [`${p.pattern} #${i}`, p] as const))(
    '%s does not leak',
    (_name, p) => {
      expect(leaksOf(p.value)).toEqual([]);
    },
  );
});

// ---- fragments: a secret cut before it is scrubbed ----

describe('a secret cut short before scrubbing', () => {
  // Labels are shortened to 120 characters and long texts clipped at parse time
  // (1024 characters outside full mode). If that happens before scrubbing, a
  // token cut below its pattern's minimum length is no longer recognised and its
  // first characters leave the machine in the default (labels) mode.
  const TOKEN = 'ghp_Q7vLm2Xc9RtB4nKp8WzY3aHd6JfS1eGu5oTi';
  const KEY = 'sk-ant-api03-Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA-_zYxWvUtSrQpOnMlK';
  const sid = 'aaaaaaaa-bbbb-4ccc-8ddd-00000000000f';
  const secretBodies = [TOKEN.slice(4, 16), KEY.slice(13, 25)];

  async function exportLabels(lines: object[]): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), 'ccotel-cut-'));
    try {
      const { writeFile, mkdir } = await import('node:fs/promises');
      await mkdir(join(d, 'p'));
      await writeFile(
        join(d, 'p', `${sid}.jsonl`),
        `${lines.map((l) => JSON.stringify({ sessionId: sid, cwd: '/p', ...l })).join('\n')}\n`,
      );
      const texts: string[] = [];
      for (const mode of ['labels', 'full']) {
        const out = join(d, `out-${mode}.jsonl`);
        const run = await runCcotel([
          'export',
          '--out',
          out,
          '--content',
          mode,
          '--state-dir',
          join(d, 's'),
          '--quiet',
          join(d, 'p'),
        ]);
        expect(run.code, run.stderr).toBe(0);
        texts.push(await readFile(out, 'utf8'));
      }
      const html = join(d, 'w.html');
      expect((await runCcotel(['show', '--html', html, join(d, 'p', `${sid}.jsonl`)])).code).toBe(
        0,
      );
      texts.push(await readFile(html, 'utf8'));
      return texts.join('\n');
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  }

  it.each([80, 86, 92, 98, 104])(
    'a token at column %i of a long command does not leak from the 120-character label',
    async (pad) => {
      const command = `echo ${'x'.repeat(pad)} ${TOKEN}`;
      const text = await exportLabels([
        {
          type: 'user',
          uuid: 'u1',
          parentUuid: null,
          timestamp: '2026-03-01T10:00:00.000Z',
          message: { role: 'user', content: `run it ${'y'.repeat(pad)} ${KEY}` },
        },
        {
          type: 'assistant',
          uuid: 'u2',
          parentUuid: 'u1',
          timestamp: '2026-03-01T10:00:01.000Z',
          message: {
            id: 'msg_1',
            model: 'claude-opus-4-6',
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command } }],
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        },
        {
          type: 'user',
          uuid: 'u3',
          parentUuid: 'u2',
          timestamp: '2026-03-01T10:00:02.000Z',
          message: {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: `${'z'.repeat(2000 + pad / 2)} ${TOKEN}`,
              },
            ],
          },
        },
      ]);
      for (const body of secretBodies) {
        // Any 6 characters of the secret's body after its public prefix is a leak.
        for (let i = 0; i + 6 <= body.length; i += 1)
          expect(text, `fragment '${body.slice(i, i + 6)}'`).not.toContain(body.slice(i, i + 6));
      }
    },
  );
});
