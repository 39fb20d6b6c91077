// Bad arguments, bad configuration and bad input: one line on stderr naming the
// problem, the documented exit code (1 work failed, 2 bad arguments or
// configuration, 3 input not found), never a stack trace, never a control
// character from the input echoed to the terminal.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCcotel, type CliRun } from '../support/run-cli.js';

let dir: string;
let project: string;
let transcript: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-cli-errors-'));
  project = join(dir, 'projects', 'p');
  await mkdir(project, { recursive: true });
  transcript = join(project, '491e126e-1e71-469c-ade2-fcc8af567c74.jsonl');
  await writeFile(
    transcript,
    await import('node:fs/promises').then((f) =>
      f.readFile('fixtures/real/marot_spotter__test_fixtures_transcripts__short.jsonl'),
    ),
  );
  await writeFile(join(dir, 'bad.json'), '{ "timeoutMs": 10,, }');
  await writeFile(
    join(dir, 'unknown-key.json'),
    JSON.stringify({ endpoint: 'http://localhost:4318', colour: 'blue' }),
  );
  await writeFile(join(dir, 'wrong-type.json'), JSON.stringify({ timeoutMs: 'soon' }));
  await writeFile(join(dir, 'wrong-type-headers.json'), JSON.stringify({ headers: { a: 1 } }));
  await writeFile(join(dir, 'array.json'), '[]');
  await writeFile(join(dir, 'bad-pricing.json'), '{"models": "none"}');
  // Bad input.
  const noise = Buffer.alloc(4096);
  for (let i = 0; i < noise.length; i += 1) noise[i] = (i * 2654435761) >>> 24;
  noise.write('\x1b]0;pwned\x07\x1b[2J', 100, 'latin1'); // terminal escapes inside the noise
  await mkdir(join(dir, 'in'), { recursive: true });
  await writeFile(join(dir, 'in', 'random.jsonl'), noise);
  await writeFile(
    join(dir, 'in', 'escapes.jsonl'),
    '\x1b]0;pwned\x07\x1b[31mnot json\n{"type":"user","message":\x1b[2J}\n',
  );
  await writeFile(join(dir, 'in', 'empty.jsonl'), '');
  await writeFile(join(dir, 'in', 'prose.jsonl'), 'This is not a transcript.\nNeither is this.\n');
  await writeFile(join(dir, 'notes.txt'), 'hello\n');
  await mkdir(join(dir, 'empty-dir'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The contract for a failing command. */
function expectOneLineError(run: CliRun, code: number, names: RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  const lines = run.stderr.split('\n').filter((l) => l !== '');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^ccotel: /);
  expect(lines[0]).toMatch(names);
  expect(run.stderr).not.toMatch(/^\s+at |\.ts:\d+|\.js:\d+/m);
  expect(run.stderr).not.toMatch(/unexpected error/);
}

/** Nothing from the input can drive the terminal: no C0 controls but newline, no DEL, no C1. */
function expectPrintable(text: string): void {
  // eslint-disable-next-line no-control-regex
  expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f\x80-\x9f]/);
}

const exp = (...args: string[]): string[] => ['export', '--dry-run', ...args];

describe('bad arguments → exit 2, one line', () => {
  const cases: [string, () => string[], RegExp, NodeJS.ProcessEnv?][] = [
    ['an unknown command', () => ['bogus'], /unknown command 'bogus'/],
    ['an unknown export flag', () => exp('--bogus', project), /Unknown option '--bogus'/],
    ['an unknown show flag', () => ['show', '--bogus', transcript], /Unknown option '--bogus'/],
    ['a flag without its value', () => ['export', '--endpoint'], /--endpoint/],
    [
      'an endpoint that is no URL',
      () => ['export', '--endpoint', 'not a url', project],
      /not a valid URL: 'not a url'/,
    ],
    [
      'an endpoint with another scheme',
      () => ['export', '--endpoint', 'ftp://collector:21/', project],
      /only http and https/,
    ],
    [
      'an empty endpoint',
      () => ['export', '--endpoint', '', project],
      /endpoint: must be a non-empty string/,
    ],
    [
      'a header without a value',
      () => exp('--header', 'novalue', project),
      /--header: expected key=value, got 'novalue'/,
    ],
    [
      'a header without a key',
      () => exp('--header', '=v', project),
      /--header: expected key=value/,
    ],
    [
      'a header with bad percent-encoding',
      () => exp('--header', 'k=%zz', project),
      /--header: bad percent-encoding/,
    ],
    [
      'a resource attribute without a value',
      () => exp('--resource', 'team', project),
      /--resource: expected key=value/,
    ],
    [
      'a timeout that is no number',
      () => exp('--timeout', 'soon', project),
      /^ccotel: --timeout: must be a positive whole number/,
    ],
    [
      'a zero timeout',
      () => exp('--timeout', '0', project),
      /^ccotel: --timeout: must be a positive whole number/,
    ],
    [
      'a negative timeout',
      () => exp('--timeout=-5', project),
      /^ccotel: --timeout: must be a positive whole number/,
    ],
    [
      'an unknown content mode',
      () => exp('--content', 'everything', project),
      /content: must be one of none, labels, full/,
    ],
    ['grpc', () => exp('--protocol', 'grpc', project), /grpc is not supported/],
    [
      'an unknown compression',
      () => exp('--compression', 'br', project),
      /compression: must be one of gzip, none/,
    ],
    [
      'a --since that is no date',
      () => exp('--since', 'yesterday-ish', project),
      /--since: not a date or time/,
    ],
    [
      '--dry-run with --out',
      () => exp('--out', join(dir, 'o.jsonl'), project),
      /cannot be combined/,
    ],
    [
      'a bad --max-attribute-bytes',
      () => exp('--max-attribute-bytes', '1.5', project),
      /^ccotel: --max-attribute-bytes: must be a positive whole number/,
    ],
    [
      'a missing CA file',
      () => ['export', '--ca-file', join(dir, 'nope.pem'), project],
      /cannot read CA file/,
    ],
    [
      'a missing price file',
      () => exp('--pricing', join(dir, 'nope.json'), project),
      /cannot read price file/,
    ],
    [
      'a price file of the wrong shape',
      () => exp('--pricing', join(dir, 'bad-pricing.json'), project),
      /price file .*models/,
    ],
    ['show without a target', () => ['show'], /name exactly one transcript/],
    [
      'show with two targets',
      () => ['show', transcript, transcript],
      /name exactly one transcript/,
    ],
    [
      'a bad --idle-timeout',
      () => ['export', '--idle-timeout', 'forever', project],
      /--idle-timeout: expected a duration/,
    ],
  ];
  it.each(cases)('%s', async (_name, argv, names, env) => {
    expectOneLineError(await runCcotel(argv(), env ?? {}), 2, names);
  });
});

describe('bad configuration → exit 2, one line naming the problem', () => {
  const cases: [string, () => string[], () => NodeJS.ProcessEnv, RegExp][] = [
    [
      'a config file that is not JSON',
      () => exp('--config', join(dir, 'bad.json'), project),
      () => ({}),
      /config file .*bad\.json is not valid JSON/,
    ],
    [
      'a config file with an unknown key',
      () => exp('--config', join(dir, 'unknown-key.json'), project),
      () => ({}),
      /unknown key 'colour'/,
    ],
    [
      'a config file with a wrong type',
      () => exp('--config', join(dir, 'wrong-type.json'), project),
      () => ({}),
      /config file .*: timeoutMs: must be a positive whole number/,
    ],
    [
      'a config file with non-string headers',
      () => exp('--config', join(dir, 'wrong-type-headers.json'), project),
      () => ({}),
      /headers: must be an object of string values/,
    ],
    [
      'a config file holding an array',
      () => exp('--config', join(dir, 'array.json'), project),
      () => ({}),
      /must hold a JSON object/,
    ],
    [
      'a config file that does not exist',
      () => exp('--config', join(dir, 'nope.json'), project),
      () => ({}),
      /cannot read config file .*nope\.json: ENOENT/,
    ],
    [
      '$CCOTEL_CONFIG naming a bad file',
      () => exp(project),
      () => ({ CCOTEL_CONFIG: join(dir, 'bad.json') }),
      /is not valid JSON/,
    ],
    [
      'a bad OTEL_EXPORTER_OTLP_ENDPOINT',
      () => exp(project),
      () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
      /environment: OTEL_EXPORTER_OTLP_ENDPOINT: (only http and https|not a valid URL)/,
    ],
    [
      'a bad OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      () => exp(project),
      () => ({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '::' }),
      /not a valid URL/,
    ],
    [
      'malformed OTEL_EXPORTER_OTLP_HEADERS',
      () => exp(project),
      () => ({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key' }),
      /OTEL_EXPORTER_OTLP_HEADERS: expected key=value/,
    ],
    [
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc',
      () => exp(project),
      () => ({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      /grpc is not supported/,
    ],
    [
      'a bad OTEL_EXPORTER_OTLP_TIMEOUT',
      () => exp(project),
      () => ({ OTEL_EXPORTER_OTLP_TIMEOUT: '10s' }),
      /environment: OTEL_EXPORTER_OTLP_TIMEOUT: must be a positive whole number$/m,
    ],
  ];
  it.each(cases)('%s', async (_name, argv, env, names) => {
    expectOneLineError(await runCcotel(argv(), env()), 2, names);
  });
});

describe('delivery failures → exit 1, one line', () => {
  it('an unreachable host', async () => {
    const run = await runCcotel([
      'export',
      '--endpoint',
      'http://127.0.0.1:9',
      '--timeout',
      '300',
      '--state-dir',
      join(dir, 'state'),
      '--quiet',
      project,
    ]);
    expectOneLineError(
      run,
      1,
      /could not deliver spans to http:\/\/127\.0\.0\.1:9\/v1\/traces: ECONNREFUSED/,
    );
  }, 60_000);
});

describe('bad input', () => {
  const both = (target: () => string): [string, () => string[]][] => [
    ['show', () => ['show', target()]],
    ['export', () => ['export', '--dry-run', '--state-dir', join(dir, 'state'), target()]],
  ];
  const missing: [string, () => string, RegExp][] = [
    [
      'a missing path',
      () => join(dir, 'does-not-exist'),
      /no such file or directory: .*does-not-exist/,
    ],
    [
      'a dir with no transcripts',
      () => join(dir, 'empty-dir'),
      /no Claude Code transcripts \(\*\.jsonl\) found under .*empty-dir/,
    ],
    [
      'a file that is not a .jsonl',
      () => join(dir, 'notes.txt'),
      /not a transcript \(\.jsonl\): .*notes\.txt/,
    ],
  ];
  for (const [what, target, names] of missing) {
    it.each(both(target))(`${what} → exit 3 (%s)`, async (_cmd, argv) => {
      expectOneLineError(await runCcotel(argv()), 3, names);
    });
  }
  it('a session id that is nowhere → exit 3', async () => {
    expectOneLineError(
      await runCcotel([
        'show',
        '--projects-dir',
        join(dir, 'projects'),
        '00000000-0000-4000-8000-000000000000',
      ]),
      3,
      /session 00000000-0000-4000-8000-000000000000 not found/,
    );
  });

  // Files that are transcripts by name but hold nothing usable: the command works
  // (exit 0), each bad line is a short, printable warning naming file and line.
  const unusable: [string, string, number][] = [
    ['random bytes', 'random.jsonl', 0],
    ['terminal escape sequences', 'escapes.jsonl', 2],
    ['an empty file', 'empty.jsonl', 0],
    ['prose', 'prose.jsonl', 2],
  ];
  it.each(unusable)(
    '%s → exit 0, printable warnings with file and line, no stack',
    async (_what, name, warnings) => {
      const file = join(dir, 'in', name);
      for (const argv of [
        ['export', '--dry-run', '--state-dir', join(dir, 'state'), file],
        ['show', file],
        ['show', '--json', file],
      ]) {
        const run = await runCcotel(argv);
        expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(0);
        expect(run.stderr).not.toMatch(/^\s+at /m);
        expectPrintable(run.stderr);
        if (argv[0] === 'export') {
          const lines = run.stderr.split('\n').filter((l) => l !== '');
          for (const l of lines) expect(l).toMatch(/^(warning: .+:\d+: .+|ccotel: .+)$/);
          if (warnings > 0)
            expect(lines.filter((l) => l.startsWith(`warning: ${file}:`))).toHaveLength(warnings);
          for (const l of lines) expect(l.length).toBeLessThan(400);
        }
        if (argv[1] === '--json') expectPrintable(run.stdout.replace(/\n$/, ''));
      }
    },
  );
});
