// Flags shared by the commands that export (export, watch, config check), and
// their translation into raw setting values for the config loader.
import type { Resource } from '@opentelemetry/resources';
import { loadConfig, type FlagValues } from '../adapters/config/config-loader.js';
import { UserError } from '../core/user-error.js';
import { loadPriceTable } from '../adapters/config/price-file.js';
import {
  buildResource,
  lazyResource,
  parseKeyValueList,
  resourceAttributes,
} from '../adapters/otlp/resource.js';
import type { PriceTable } from '../core/cost/pricing.js';
import { coerce, SettingError, type Settings } from '../core/settings.js';

export const SETTINGS_FLAGS = {
  endpoint: { type: 'string' },
  'logs-endpoint': { type: 'string' },
  protocol: { type: 'string' },
  header: { type: 'string', multiple: true },
  compression: { type: 'string' },
  timeout: { type: 'string' },
  'service-name': { type: 'string' },
  resource: { type: 'string', multiple: true },
  content: { type: 'string' },
  schema: { type: 'string' },
  'max-attribute-bytes': { type: 'string' },
  'state-dir': { type: 'string' },
  'projects-dir': { type: 'string', multiple: true },
  pricing: { type: 'string' },
  config: { type: 'string' },
  'ca-file': { type: 'string' },
  'cert-file': { type: 'string' },
  'key-file': { type: 'string' },
  'log-level': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'max-batch-spans': { type: 'string' },
} as const;

export const SETTINGS_HELP = `Export options (flags override the environment, which overrides the config file):
  --endpoint URL           OTLP/HTTP endpoint (default http://localhost:4318; /v1/traces is appended)
  --logs-endpoint URL      where events go with --schema claude-code (default: /v1/logs beside
                           the traces URL; OTEL_EXPORTER_OTLP_LOGS_ENDPOINT)
  --protocol P             http/protobuf (default) or http/json
  --header K=V             extra request header, repeatable (OTEL_EXPORTER_OTLP_HEADERS)
  --compression C          gzip or none
  --timeout MS             per-request timeout in milliseconds (default 10000)
  --ca-file F, --cert-file F, --key-file F   TLS CA bundle, client certificate and key
  --service-name NAME      service.name (default claude-code; OTEL_SERVICE_NAME)
  --resource K=V           resource attribute, repeatable (OTEL_RESOURCE_ATTRIBUTES)
  --content MODE           none | labels (default) | full; secrets are scrubbed in every mode
  --schema S               genai (default: GenAI conventions) or claude-code (Claude Code's own
                           span names, plus its events as OTLP log records; CCOTEL_SCHEMA)
  --max-attribute-bytes N  cap for content attributes in full mode (default 2048)
  --max-batch-spans N      spans per request (default 512; CCOTEL_MAX_BATCH_SPANS); halved on HTTP 413
  --state-dir DIR          where state is kept (default $XDG_STATE_HOME/ccotel)
  --projects-dir DIR       transcript root, repeatable (default: $CLAUDE_CONFIG_DIR/projects, else
                           ~/.config/claude/projects and ~/.claude/projects, those that exist)
  --pricing FILE           price table (default: bundled config/pricing.json)
  --config FILE            config file (default $CCOTEL_CONFIG or $XDG_CONFIG_HOME/ccotel/config.json)
`;

/** "10m", "30s", "250ms", "1h"; a bare number is seconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (m === null)
    throw new UserError(
      `${flag}: expected a duration such as 30s, 10m or 1h, got '${text}'`,
      'usage',
    );
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return Math.round(n * factor);
}

/** Settings whose flag is not the setting's name in kebab case. */
const FLAG_NAMES: Partial<Record<keyof Settings, string>> = {
  headers: '--header',
  timeoutMs: '--timeout',
  projectsDirs: '--projects-dir',
  tlsCa: '--ca-file',
  tlsCert: '--cert-file',
  tlsKey: '--key-file',
  idleTimeoutMs: '--idle-timeout',
};

/** The flag a user types for a setting: maxAttributeBytes → --max-attribute-bytes. */
export function flagName(key: keyof Settings): string {
  return FLAG_NAMES[key] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Checks a flag's value here, where the flag is known, so that the error names
 * it as typed (`--log-level: must be one of …`), not the setting behind it.
 */
function checkFlag(key: keyof Settings, value: unknown): void {
  try {
    coerce(key, value);
  } catch (err) {
    if (!(err instanceof SettingError)) throw err;
    const reason = err.message.startsWith(`${err.key}: `)
      ? err.message.slice(err.key.length + 2)
      : err.message;
    throw new UserError(`${flagName(key)}: ${reason}`, 'usage');
  }
}

type Values = {
  [K in keyof typeof SETTINGS_FLAGS]?: (typeof SETTINGS_FLAGS)[K] extends { multiple: true }
    ? string[]
    : string;
};

export function settingsFromFlags(values: Values): {
  flags: FlagValues;
  configFile: string | undefined;
} {
  const flags: FlagValues = {};
  const put = (key: keyof FlagValues, v: unknown): void => {
    if (v === undefined) return;
    checkFlag(key, v);
    flags[key] = v;
  };
  put('endpoint', values.endpoint);
  put('logsEndpoint', values['logs-endpoint']);
  put('protocol', values.protocol);
  if (values.header !== undefined)
    flags.headers = Object.assign(
      {},
      ...values.header.map((h) => parseKeyValueList(h, '--header')),
    );
  put('compression', values.compression);
  put('timeoutMs', values.timeout);
  put('serviceName', values['service-name']);
  if (values.resource !== undefined)
    flags.resource = Object.assign(
      {},
      ...values.resource.map((r) => parseKeyValueList(r, '--resource')),
    );
  put('content', values.content);
  put('schema', values.schema);
  put('maxAttributeBytes', values['max-attribute-bytes']);
  put('stateDir', values['state-dir']);
  put('projectsDirs', values['projects-dir']);
  put('pricing', values.pricing);
  put('tlsCa', values['ca-file']);
  put('tlsCert', values['cert-file']);
  put('tlsKey', values['key-file']);
  put('logLevel', values['log-level']);
  put('maxBatchSpans', values['max-batch-spans']);
  if (values['idle-timeout'] !== undefined)
    flags.idleTimeoutMs = parseDuration(values['idle-timeout'], '--idle-timeout');
  return { flags, configFile: values.config };
}

/** The effective settings and prices (export builds the resource only when it sends or writes). */
export async function exportSettings(
  values: Values,
  env: NodeJS.ProcessEnv,
): Promise<{ settings: Settings; prices: PriceTable }> {
  const { flags, configFile } = settingsFromFlags(values);
  const { settings } = loadConfig(flags, env, configFile);
  const prices = await loadPriceTable(settings.pricing ?? undefined);
  return { settings, prices };
}

/** The resource of every span sent or written under these settings. */
export function resourceOf(settings: Settings): Resource {
  return buildResource(resourceSettingsOf(settings));
}

/** The same resource, built when a span is first sent or written (a run with nothing to send builds none). */
export const lazyResourceOf = (settings: Settings): (() => Resource) =>
  lazyResource(resourceSettingsOf(settings));

/** The resource's attributes, as the resource would carry them. */
export const resourceAttributesOf = (settings: Settings): Record<string, string> =>
  resourceAttributes(resourceSettingsOf(settings));

/**
 * Claude Code's schema marks what ccotel sends (telemetry.source), so a team
 * that also runs Claude Code's own telemetry can tell the two apart.
 */
function resourceSettingsOf(settings: Settings) {
  const attributes =
    settings.schema === 'claude-code'
      ? { ...settings.resource, 'telemetry.source': 'ccotel' }
      : settings.resource;
  return { serviceName: settings.serviceName, attributes };
}

/** What export and watch both start from: the effective settings, prices and resource. */
export async function exportContext(
  values: Values,
  env: NodeJS.ProcessEnv,
): Promise<{ settings: Settings; prices: PriceTable; resource: Resource }> {
  const { settings, prices } = await exportSettings(values, env);
  return { settings, prices, resource: resourceOf(settings) };
}
