// Gathers settings from flags, the OTel environment, a config file and the
// defaults, remembering where each value came from (for `ccotel config check`).
// Config file: --config FILE, else $CCOTEL_CONFIG, else
// $XDG_CONFIG_HOME/ccotel/config.json (~/.config/ccotel/config.json) if present.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  coerce,
  DEFAULTS,
  SettingError,
  validateConfigFile,
  type Settings,
  type Source,
  type Sourced,
} from '../../core/settings.js';
import { UserError } from '../../core/user-error.js';
import { defaultProjectsDirs } from '../files/projects-dir.js';
import { parseKeyValueList } from '../otlp/resource.js';

/** Raw values from flags, as the CLI parsed them (strings, or lists for repeatable flags). */
export type FlagValues = Partial<Record<keyof Settings, unknown>>;

export interface LoadedConfig {
  settings: Settings;
  sources: Sourced<Settings>;
  configFile: string | null;
}

export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const base =
    env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME !== ''
      ? env.XDG_STATE_HOME
      : join(homedir(), '.local', 'state');
  return join(base, 'ccotel');
}

function configPath(flag: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (flag !== undefined) return flag;
  if (env.CCOTEL_CONFIG !== undefined && env.CCOTEL_CONFIG !== '') return env.CCOTEL_CONFIG;
  const base =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : join(homedir(), '.config');
  const candidate = join(base, 'ccotel', 'config.json');
  return statSync(candidate, { throwIfNoEntry: false })?.isFile() === true ? candidate : null;
}

function readConfigFile(path: string): Partial<Settings> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(
      `cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      'usage',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UserError(
      `config file ${path} is not valid JSON: ${(err as Error).message}`,
      'usage',
    );
  }
  try {
    return validateConfigFile(value);
  } catch (err) {
    if (err instanceof SettingError)
      throw new UserError(`config file ${path}: ${err.message}`, 'usage');
    throw err;
  }
}

const first = (...values: (string | undefined)[]): string | undefined =>
  values.find((v) => v !== undefined && v !== '');

/** The OTel (and ccotel) environment variables, as raw setting values. */
function fromEnv(env: NodeJS.ProcessEnv): FlagValues {
  const out: FlagValues = {};
  const tracesEndpoint = first(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  // The signal-specific endpoint is used verbatim (OTel spec); the generic one gets /v1/traces.
  if (tracesEndpoint !== undefined) out.endpoint = { verbatim: tracesEndpoint };
  else if (first(env.OTEL_EXPORTER_OTLP_ENDPOINT) !== undefined)
    out.endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const set = (key: keyof Settings, value: string | undefined): void => {
    if (value !== undefined && value !== '') out[key] = value;
  };
  set('protocol', first(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, env.OTEL_EXPORTER_OTLP_PROTOCOL));
  set(
    'compression',
    first(env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION, env.OTEL_EXPORTER_OTLP_COMPRESSION),
  );
  set('timeoutMs', first(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, env.OTEL_EXPORTER_OTLP_TIMEOUT));
  set(
    'tlsCa',
    first(env.OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE, env.OTEL_EXPORTER_OTLP_CERTIFICATE),
  );
  set(
    'tlsCert',
    first(
      env.OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE,
      env.OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE,
    ),
  );
  set('tlsKey', first(env.OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY, env.OTEL_EXPORTER_OTLP_CLIENT_KEY));
  set('serviceName', env.OTEL_SERVICE_NAME);
  set('stateDir', env.CCOTEL_STATE_DIR);
  set('logLevel', env.CCOTEL_LOG_LEVEL);
  set('maxBatchSpans', env.CCOTEL_MAX_BATCH_SPANS);
  const headers = {
    ...parseKeyValueList(env.OTEL_EXPORTER_OTLP_HEADERS ?? '', 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...parseKeyValueList(
      env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? '',
      'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
    ),
  };
  if (Object.keys(headers).length > 0) out.headers = headers;
  const resource = parseKeyValueList(
    env.OTEL_RESOURCE_ATTRIBUTES ?? '',
    'OTEL_RESOURCE_ATTRIBUTES',
  );
  if (Object.keys(resource).length > 0) out.resource = resource;
  if (env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true')
    out.content = 'full';
  else set('content', env.CCOTEL_CONTENT);
  set('schema', env.CCOTEL_SCHEMA);
  set('logsEndpoint', env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT);
  if (first(env.CLAUDE_CONFIG_DIR) !== undefined) out.projectsDirs = defaultProjectsDirs(env);
  return out;
}

/** The variables each setting is read from, signal-specific first (as fromEnv reads them). */
const ENV_NAMES: Partial<Record<keyof Settings, string[]>> = {
  endpoint: ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
  protocol: ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'],
  compression: ['OTEL_EXPORTER_OTLP_TRACES_COMPRESSION', 'OTEL_EXPORTER_OTLP_COMPRESSION'],
  timeoutMs: ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT'],
  serviceName: ['OTEL_SERVICE_NAME'],
  stateDir: ['CCOTEL_STATE_DIR'],
  logLevel: ['CCOTEL_LOG_LEVEL'],
  content: ['CCOTEL_CONTENT'],
  schema: ['CCOTEL_SCHEMA'],
  logsEndpoint: ['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'],
};

/** Where an environment value came from, for its error: the variable's name when known. */
function envSource(key: keyof Settings, env: NodeJS.ProcessEnv): string {
  const name = ENV_NAMES[key]?.find((n) => first(env[n]) !== undefined);
  return name === undefined ? 'environment' : `environment: ${name}`;
}

function typed<K extends keyof Settings>(key: K, raw: unknown, where: string): Settings[K] {
  try {
    if (key === 'endpoint' && typeof raw === 'object' && raw !== null && 'verbatim' in raw) {
      const verbatim = (raw as { verbatim: string }).verbatim;
      coerce('endpoint', verbatim);
      return verbatim as Settings[K];
    }
    return coerce(key, raw);
  } catch (err) {
    if (!(err instanceof SettingError)) throw err;
    // A named variable says what it is; the setting's own name would only repeat it.
    const named = where.startsWith('environment: ') && err.message.startsWith(`${err.key}: `);
    throw new UserError(
      `${where}: ${named ? err.message.slice(err.key.length + 2) : err.message}`,
      'usage',
    );
  }
}

export function loadConfig(
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
  configFlag?: string,
): LoadedConfig {
  const file = configPath(configFlag, env);
  const fileValues = file === null ? {} : readConfigFile(file);
  const envValues = fromEnv(env);
  const sources = {} as Record<keyof Settings, { value: unknown; source: Source }>;
  const defaults: Settings = {
    ...DEFAULTS,
    stateDir: defaultStateDir(env),
    projectsDirs: defaultProjectsDirs(env),
  };
  for (const key of Object.keys(DEFAULTS) as (keyof Settings)[]) {
    if (flags[key] !== undefined)
      sources[key] = { value: typed(key, flags[key], `--${key}`), source: 'flag' };
    else if (envValues[key] !== undefined)
      sources[key] = { value: typed(key, envValues[key], envSource(key, env)), source: 'env' };
    else if (fileValues[key] !== undefined)
      sources[key] = { value: fileValues[key], source: 'file' };
    else sources[key] = { value: defaults[key], source: 'default' };
  }
  const settings = Object.fromEntries(
    Object.entries(sources).map(([k, v]) => [k, v.value]),
  ) as unknown as Settings;
  return { settings, sources: sources as Sourced<Settings>, configFile: file };
}
