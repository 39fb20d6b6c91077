import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/adapters/config/config-loader.js';
import { parseRetryAfter } from '../../../src/adapters/otlp/http-sender.js';
import { exitCodeOf } from '../../../src/cli/exit-code.js';
import { maskSecrets, tracesUrl } from '../../../src/core/settings.js';

const env = (e: Record<string, string>): NodeJS.ProcessEnv => ({ HOME: '/home/x', ...e });

/** Temp dirs made by a test, removed after it: runs leave nothing behind in /tmp. */
const made: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('settings', () => {
  it('uses the OTel endpoint rules: generic gets /v1/traces, signal-specific is verbatim', () => {
    expect(loadConfig({}, env({})).settings.endpoint).toBe('http://localhost:4318/v1/traces');
    expect(
      loadConfig({}, env({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).settings.endpoint,
    ).toBe('http://c:4318/v1/traces');
    expect(
      loadConfig({}, env({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' })).settings
        .endpoint,
    ).toBe('http://c:4318/custom');
    expect(tracesUrl('http://a:1/v1/traces')).toBe('http://a:1/v1/traces');
  });

  it('ranks flag over env over file over default, and says where each came from', async () => {
    const dir = await tempDir('ccotel-cfg-');
    const file = join(dir, 'c.json');
    await writeFile(
      file,
      JSON.stringify({ content: 'none', serviceName: 'from-file', protocol: 'http/json' }),
    );
    const { settings, sources } = loadConfig(
      { protocol: 'http/protobuf' },
      env({ OTEL_SERVICE_NAME: 'from-env' }),
      file,
    );
    expect(settings.protocol).toBe('http/protobuf');
    expect(sources.protocol.source).toBe('flag');
    expect(settings.serviceName).toBe('from-env');
    expect(sources.serviceName.source).toBe('env');
    expect(settings.content).toBe('none');
    expect(sources.content.source).toBe('file');
    expect(sources.timeoutMs.source).toBe('default');
  });

  it('maps the GenAI content switch to full and merges OTLP headers', () => {
    const { settings } = loadConfig(
      {},
      env({
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
        OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=x%20y',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'a=2',
      }),
    );
    expect(settings.content).toBe('full');
    expect(settings.headers).toEqual({ a: '2', b: 'x y' });
  });

  it('rejects bad values with the key named, as exit code 2', () => {
    let bad: unknown = null;
    try {
      loadConfig({ endpoint: 'not a url' }, env({}));
    } catch (err) {
      bad = err;
    }
    expect(exitCodeOf(bad)).toBe(2);
    expect((bad as Error).message).toContain('endpoint');
    expect(() => loadConfig({ protocol: 'grpc' }, env({}))).toThrow(/grpc is not supported/);
    expect(() => loadConfig({}, env({ OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }))).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS: expected key=value/,
    );
  });

  it('rejects unknown keys and wrong types in a config file', async () => {
    const dir = await tempDir('ccotel-cfg-');
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ endpiont: 'http://x' }));
    expect(() => loadConfig({}, env({}), bad)).toThrow(/unknown key 'endpiont'/);
    await writeFile(bad, JSON.stringify({ headers: { a: 1 } }));
    expect(() => loadConfig({}, env({}), bad)).toThrow(
      /headers: must be an object of string values/,
    );
    await writeFile(bad, '{ nope');
    expect(() => loadConfig({}, env({}), bad)).toThrow(/not valid JSON/);
  });

  it('masks secret headers and URL passwords for display', () => {
    const { settings } = loadConfig(
      {
        endpoint: 'https://u:pw@t:4318',
        headers: { Authorization: 'Bearer abc', 'X-Scope-OrgID': 'team' },
      },
      env({}),
    );
    const masked = maskSecrets(settings);
    expect(JSON.stringify(masked)).not.toContain('abc');
    expect(masked.endpoint).not.toContain('pw');
    expect(masked.headers['X-Scope-OrgID']).toBe('team');
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(
      parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')),
    ).toBe(5000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });
});
