// ccotel's settings, where each can come from, and validation of a config file.
// Precedence: flag > environment > config file > default. Pure: the loader
// (adapters/config-loader.ts) gathers the raw inputs.
import type { ContentMode, SpanSchema } from './spans/data.js';

export type Protocol = 'http/protobuf' | 'http/json';
export type Source = 'flag' | 'env' | 'file' | 'default';

export interface Settings {
  /** Full traces URL (…/v1/traces). */
  endpoint: string;
  /** Full logs URL for events (Claude Code's schema); null: …/v1/logs beside the traces URL. */
  logsEndpoint: string | null;
  protocol: Protocol;
  headers: Record<string, string>;
  compression: 'gzip' | 'none';
  timeoutMs: number;
  tlsCa: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
  serviceName: string;
  resource: Record<string, string>;
  content: ContentMode;
  /** The names and keys spans (and, for claude-code, events) are sent in. */
  schema: SpanSchema;
  maxAttributeBytes: number;
  /** Spans per OTLP request (a collector answering 413 gets halves of it). */
  maxBatchSpans: number;
  stateDir: string | null;
  projectsDirs: string[];
  pricing: string | null;
  idleTimeoutMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

export type Sourced<T> = { [K in keyof T]: { value: T[K]; source: Source } };

export const DEFAULT_ENDPOINT = 'http://localhost:4318/v1/traces';

export const DEFAULTS: Settings = {
  endpoint: DEFAULT_ENDPOINT,
  logsEndpoint: null,
  protocol: 'http/protobuf',
  headers: {},
  compression: 'none',
  timeoutMs: 10_000,
  tlsCa: null,
  tlsCert: null,
  tlsKey: null,
  serviceName: 'claude-code',
  resource: {},
  content: 'labels',
  schema: 'genai',
  maxAttributeBytes: 2048,
  maxBatchSpans: 512,
  stateDir: null,
  projectsDirs: [],
  pricing: null,
  idleTimeoutMs: 10 * 60_000,
  logLevel: 'info',
};

/** A base URL gets /v1/traces appended; a URL already naming it is kept. */
export function tracesUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces') ? trimmed : `${trimmed}/v1/traces`;
}

export class SettingError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

const isRecordOfStrings = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every((x) => typeof x === 'string');

function checkUrl(key: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingError(key, `${key}: not a valid URL: '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SettingError(key, `${key}: only http and https are supported, got '${url.protocol}'`);
  return value;
}

/** Checks one raw value (from a file, env or flag) and returns it typed. */
export function coerce<K extends keyof Settings>(key: K, raw: unknown): Settings[K] {
  const fail = (what: string): never => {
    throw new SettingError(key, `${key}: ${what}`);
  };
  const oneOf = <T extends string>(options: readonly T[]): T =>
    typeof raw === 'string' && (options as readonly string[]).includes(raw)
      ? (raw as T)
      : fail(`must be one of ${options.join(', ')}`);
  const positiveInt = (): number => {
    const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
    return typeof n === 'number' && Number.isInteger(n) && n > 0
      ? n
      : fail('must be a positive whole number');
  };
  const text = (): string =>
    typeof raw === 'string' && raw !== '' ? raw : fail('must be a non-empty string');
  const value: unknown = (() => {
    switch (key) {
      case 'endpoint':
        return tracesUrl(checkUrl(key, text()));
      case 'logsEndpoint':
        return checkUrl(key, text());
      case 'protocol':
        if (raw === 'grpc') fail('grpc is not supported; use http/protobuf (port 4318)');
        return oneOf(['http/protobuf', 'http/json'] as const);
      case 'compression':
        return oneOf(['gzip', 'none'] as const);
      case 'content':
        return oneOf(['none', 'labels', 'full'] as const);
      case 'schema':
        return oneOf(['genai', 'claude-code'] as const);
      case 'logLevel':
        return oneOf(['debug', 'info', 'warn', 'error'] as const);
      case 'timeoutMs':
      case 'maxAttributeBytes':
      case 'maxBatchSpans':
      case 'idleTimeoutMs':
        return positiveInt();
      case 'headers':
      case 'resource':
        return isRecordOfStrings(raw) ? raw : fail('must be an object of string values');
      case 'projectsDirs':
        return Array.isArray(raw) && raw.every((d) => typeof d === 'string' && d !== '')
          ? raw
          : fail('must be a list of directories');
      case 'tlsCa':
      case 'tlsCert':
      case 'tlsKey':
      case 'stateDir':
      case 'pricing':
      case 'serviceName':
        return text();
      default:
        return fail('unknown setting');
    }
  })();
  return value as Settings[K];
}

/** Validates a parsed config file: every key known and well typed. */
export function validateConfigFile(value: unknown): Partial<Settings> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SettingError('(file)', 'a config file must hold a JSON object');
  const out: Partial<Settings> = {};
  for (const [key, raw] of Object.entries(value)) {
    if (key === '$schema' || key === '$comment') continue;
    if (!(key in DEFAULTS)) throw new SettingError(key, `unknown key '${key}'`);
    (out as Record<string, unknown>)[key] = coerce(key as keyof Settings, raw);
  }
  return out;
}

const SECRET_HEADER = /authorization|api[-_]?key|token|secret|password|cookie/i;

/** For display: secret-looking header values and URL passwords masked. */
export function maskSecrets(settings: Settings): Settings {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(settings.headers))
    headers[k] = SECRET_HEADER.test(k) ? `(masked, ${v.length} chars)` : v;
  let endpoint = settings.endpoint;
  try {
    const url = new URL(endpoint);
    if (url.password !== '') {
      url.password = 'masked';
      endpoint = url.toString();
    }
  } catch {
    // keep as is: validated elsewhere
  }
  return { ...settings, headers, endpoint };
}
