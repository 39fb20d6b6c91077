// Bad arguments, bad configuration and bad input: one line on stderr naming the
// problem, the documented exit code (1 work failed, 2 bad arguments or
// configuration or an unusable path, 3 input not found), never a stack trace,
// never a control character from the input echoed to the terminal.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCcotel, type CliRun } from '../support/run-cli.js';
import { CLI, ensureBuilt } from '../support/fault-harness.js';
import { ON_WINDOWS, POSIX_CHILD_ENV } from '../support/platform.js';

let dir: string;
let project: string;
let transcript: string;

describe.skipIf(ON_WINDOWS)(`CLI errors (${POSIX_CHILD_ENV})`, () => {
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
    await writeFile(
      join(dir, 'in', 'prose.jsonl'),
      'This is not a transcript.\nNeither is this.\n',
    );
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
      [
        '--max-batch-spans 0',
        () => exp('--max-batch-spans', '0', project),
        () => ({}),
        /max-?batch-?spans.*must be a positive whole number/i,
      ],
      [
        'a bad CCOTEL_MAX_BATCH_SPANS',
        () => exp(project),
        () => ({ CCOTEL_MAX_BATCH_SPANS: 'lots' }),
        /max-?batch-?spans.*must be a positive whole number/i,
      ],
    ];
    it('config check shows maxBatchSpans and where it came from', async () => {
      const dflt = await runCcotel(['config', 'check']);
      expect(dflt.stdout).toMatch(/^maxBatchSpans +512 +\[default\]$/m);
      const env = await runCcotel(['config', 'check'], { CCOTEL_MAX_BATCH_SPANS: '20' });
      expect(env.stdout).toMatch(/^maxBatchSpans +20 +\[env\]$/m);
      const flag = await runCcotel(['config', 'check', '--max-batch-spans', '7'], {
        CCOTEL_MAX_BATCH_SPANS: '20',
      });
      expect(flag.stdout).toMatch(/^maxBatchSpans +7 +\[flag\]$/m);
    });
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

  // The built binary, as a user runs it: the process wiring (stdout closed early,
  // exit codes) is part of the contract.
  describe('bad paths and closed pipes, through the built binary', () => {
    const big = 'fixtures/real/marot_spotter__test_fixtures_transcripts__tool_heavy.jsonl';
    // A session whose waterfall (terminal and JSON) is bigger than a pipe's buffer (64 KiB), so
    // that a reader closing early makes the writer fail with EPIPE: a real one six times over.
    const source =
      'fixtures/real/d-kimuson_claude-code-viewer__mock-global-claude-dir__sample-project__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl';
    const long = (): string => join(dir, 'long-session.jsonl');
    const bin = (args: string[], timeout = 30_000) =>
      spawnSync(process.execPath, [CLI, ...args], {
        encoding: 'utf8',
        timeout,
        env: { PATH: process.env.PATH, HOME: dir },
      });
    const oneLine = (r: ReturnType<typeof bin>, code: number, names: RegExp): void => {
      expect(r.signal, 'did not hang').toBeNull();
      expectOneLineError({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, code, names);
    };
    beforeAll(async () => {
      ensureBuilt();
      const text = await readFile(source, 'utf8');
      let all = text;
      for (let n = 1; n < 6; n += 1) {
        const tag = String(n).padStart(2, '0');
        all += text
          .replace(/\b(toolu|msg|req)_[A-Za-z0-9]+/g, (m) => `${m}x${n}`)
          .replace(/"(uuid|parentUuid)":"([0-9a-f-]{34})[0-9a-f]{2}"/g, `"$1":"$2${tag}"`);
      }
      await writeFile(long(), all);
    }, 120_000);

    for (const args of [['show', '--json'], ['show']])
      it(`${args.join(' ')} <long session> | head -c 100: ends quietly, exit 0`, async () => {
        expect(bin([...args, long()]).stdout.length, 'output larger than a pipe').toBeGreaterThan(
          70_000,
        );
        const child = spawn(process.execPath, [CLI, ...args, long()], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        let got = 0;
        child.stdout.on('data', (c: Buffer) => {
          got += c.length;
          if (got >= 100) child.stdout.destroy();
        });
        const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
        expect(stderr).toBe('');
        expect(code).toBe(0);
      });

    it('--html into a missing dir → exit 2 naming --html', () => {
      oneLine(
        bin(['show', '--html', join(dir, 'no-such-dir', 'w.html'), big]),
        2,
        /--html .*no-such-dir.*: directory .* does not exist/,
      );
    });
    it('--html onto a symlink → exit 2; the file it points to is untouched', async () => {
      const target = join(dir, 'precious.txt');
      await writeFile(target, 'keep me\n');
      const link = join(dir, 'w-link.html');
      await symlink(target, link);
      oneLine(bin(['show', '--html', link, big]), 2, /--html .*w-link\.html: is a symbolic link/);
      expect(await readFile(target, 'utf8')).toBe('keep me\n');
    });
    it('--out into a missing dir → exit 2 naming --out', () => {
      oneLine(
        bin(['export', '--out', join(dir, 'no-such-dir', 'o.jsonl'), big]),
        2,
        /--out .*: directory .* does not exist/,
      );
    });
    for (const cmd of [['export'], ['export', '--dry-run'], ['watch', '--once']])
      it(`${cmd.join(' ')} --state-dir under a regular file → exit 2 naming --state-dir`, () => {
        oneLine(
          bin([
            ...cmd,
            '--endpoint',
            'http://127.0.0.1:9',
            '--projects-dir',
            project,
            '--state-dir',
            join(dir, 'notes.txt', 'state'),
            ...(cmd[0] === 'export' ? [project] : []),
          ]),
          2,
          /--state-dir .*notes\.txt\/state: .*notes\.txt is not a directory/,
        );
      });
    for (const cmd of [['export'], ['watch', '--once']])
      it(`${cmd.join(' ')} --state-dir /proc/nope → exit 2 at once (no mkdir loop)`, () => {
        oneLine(
          bin(
            [
              ...cmd,
              '--endpoint',
              'http://127.0.0.1:9',
              '--projects-dir',
              project,
              '--state-dir',
              '/proc/nope',
              ...(cmd[0] === 'export' ? [project] : []),
            ],
            15_000,
          ),
          2,
          /--state-dir \/proc\/nope: cannot create \/proc\/nope/,
        );
      });
  });
});
