// The settings the real-backend tests start Jaeger and the Collector with, derived from the files
// the compose stack uses (docker/compose.yaml, docker/otel-collector.yaml, and Jaeger's own
// built-in all-in-one config when compose gives Jaeger none), never from a hand-kept copy. Only
// what must differ for a test on a shared machine is changed: every listening address becomes
// 127.0.0.1 on a free port, the exporters point at the test's own processes, and storage
// directories move into the test's temp dir.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { freePort } from '../support/backend-binaries.js';
import { repoRoot } from './container-runtime.js';

type Yaml = Record<string, unknown>;

function isRecord(value: unknown): value is Yaml {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function child(parent: Yaml, key: string): Yaml {
  const value = parent[key];
  if (isRecord(value)) return value;
  const created: Yaml = {};
  parent[key] = created;
  return created;
}

export const composeFile = join(repoRoot, 'docker/compose.yaml');
export const collectorConfigFile = join(repoRoot, 'docker/otel-collector.yaml');

export function readYaml(path: string): Yaml {
  const doc: unknown = parse(readFileSync(path, 'utf8'));
  if (!isRecord(doc)) throw new Error(`${path} is not a YAML mapping`);
  return doc;
}

/** Listening addresses moved to free loopback ports, by dotted config path. */
export type Ports = Map<string, number>;

/** Keys under which a receiver or extension takes a server block (`{endpoint: host:port}`). */
const SERVER_KEYS = new Set(['grpc', 'http', 'thrift_http', 'thrift_binary', 'thrift_compact']);

/**
 * Moves every listening endpoint under `receivers` and `extensions` to 127.0.0.1:<free port>.
 * A server block left empty (`grpc:` with no value) means "on the default port", so it gets an
 * endpoint too; otherwise two instances would fight over the defaults.
 */
async function relocateListeners(section: Yaml, path: string, ports: Ports): Promise<void> {
  for (const [key, value] of Object.entries(section)) {
    const here = `${path}.${key}`;
    if (key === 'endpoint' && typeof value === 'string') {
      const port = await freePort();
      section[key] = `127.0.0.1:${port}`;
      ports.set(path, port);
    } else if (isRecord(value)) {
      await relocateListeners(value, here, ports);
    } else if (value === null && SERVER_KEYS.has(key)) {
      const port = await freePort();
      section[key] = { endpoint: `127.0.0.1:${port}` };
      ports.set(here, port);
    }
  }
}

/** The Collector's own metrics endpoint (8888 by default) moved to a free loopback port. */
async function relocateTelemetry(config: Yaml, ports: Ports): Promise<void> {
  const metrics = child(child(config, 'service'), 'telemetry');
  const section = child(metrics, 'metrics');
  const port = await freePort();
  const readers = Array.isArray(section.readers) ? (section.readers as unknown[]) : [];
  const prometheus = readers
    .map((reader) =>
      isRecord(reader) ? rec(rec(rec(reader).pull).exporter).prometheus : undefined,
    )
    .find(isRecord);
  if (prometheus !== undefined) {
    prometheus.host = '127.0.0.1';
    prometheus.port = port;
  } else {
    section.readers = [{ pull: { exporter: { prometheus: { host: '127.0.0.1', port } } } }];
  }
  ports.set('service.telemetry.metrics', port);
}
function rec(value: unknown): Yaml {
  return isRecord(value) ? value : {};
}

export interface RelocatedConfig {
  readonly config: Yaml;
  readonly ports: Ports;
}

async function relocate(config: Yaml): Promise<RelocatedConfig> {
  const ports: Ports = new Map();
  await relocateListeners(child(config, 'receivers'), 'receivers', ports);
  await relocateListeners(child(config, 'extensions'), 'extensions', ports);
  await relocateTelemetry(config, ports);
  return { config, ports };
}

export function portOf(relocated: RelocatedConfig, path: string): number {
  const port = relocated.ports.get(path);
  if (port === undefined) {
    throw new Error(`no listener at ${path}; have ${[...relocated.ports.keys()].join(', ')}`);
  }
  return port;
}

export function toYaml(config: Yaml): string {
  return stringify(config);
}

// ---- Jaeger ----

export interface ComposeJaeger {
  /** Where the settings come from, for test names and messages. */
  readonly source: string;
  /** The file itself: the one compose mounts, or the copy of the built-in config. */
  readonly file: string;
  /** The service's `environment`, which the settings may refer to as ${env:NAME}. */
  readonly environment: Record<string, string>;
  readonly config: Yaml;
  /** The storage backend the compose settings give Jaeger's query (memory, badger, ...). */
  readonly storageKind: string;
}

/**
 * The Jaeger settings compose gives the `jaeger` service: the file its `--config` names (found on
 * the host through the service's bind mounts), or, with no `--config`, Jaeger's built-in
 * all-in-one config, which build.sh copied from the pinned module.
 */
export function composeJaegerSettings(allInOnePath: string): ComposeJaeger {
  const service = rec(rec(readYaml(composeFile).services).jaeger);
  const args = [service.command, service.entrypoint].flatMap((value) =>
    Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(/\s+/) : [],
  );
  const flag = args.findIndex((arg) => arg === '--config' || arg.startsWith('--config='));
  const inContainer =
    flag < 0 ? undefined : (args[flag]?.split('=')[1] ?? args[flag + 1] ?? undefined);
  const hostFile = inContainer === undefined ? undefined : hostPathOf(service, inContainer);
  const file = hostFile ?? allInOnePath;
  const config = readYaml(file);
  return {
    source: hostFile === undefined ? "Jaeger's built-in all-in-one config" : hostFile,
    file,
    environment: environmentOf(service),
    config,
    storageKind: storageKindOf(config),
  };
}

function environmentOf(service: Yaml): Record<string, string> {
  const environment = service.environment;
  const result: Record<string, string> = {};
  if (Array.isArray(environment)) {
    for (const entry of environment.map(String)) {
      const [name = '', ...value] = entry.split('=');
      result[name] = value.join('=');
    }
  } else if (isRecord(environment)) {
    for (const [name, value] of Object.entries(environment)) result[name] = String(value);
  }
  return result;
}

function hostPathOf(service: Yaml, containerPath: string): string {
  const volumes = Array.isArray(service.volumes) ? (service.volumes as unknown[]) : [];
  for (const volume of volumes) {
    const [source = '', target = ''] =
      typeof volume === 'string'
        ? volume.split(':')
        : [String(rec(volume).source), String(rec(volume).target)];
    if (target === containerPath && (source.startsWith('./') || source.startsWith('../'))) {
      return join(repoRoot, 'docker', source);
    }
  }
  throw new Error(`docker/compose.yaml: jaeger's --config ${containerPath} is not a bind mount`);
}

function primaryBackend(config: Yaml): Yaml {
  const extensions = rec(config.extensions);
  const name = String(rec(rec(extensions.jaeger_query).storage).traces);
  const backend = rec(rec(extensions.jaeger_storage).backends)[name];
  if (!isRecord(backend)) throw new Error(`jaeger_storage has no backend "${name}"`);
  return backend;
}

function storageKindOf(config: Yaml): string {
  return Object.keys(primaryBackend(config))[0] ?? 'unknown';
}

/**
 * Jaeger's settings made runnable here: listeners on free loopback ports, the query API too
 * (its defaults, 16686/16685, are implicit), and every Badger directory under `dataDir`.
 */
export async function runnableJaeger(config: Yaml, dataDir: string): Promise<RelocatedConfig> {
  const copy = structuredClone(config);
  const query = child(child(copy, 'extensions'), 'jaeger_query');
  child(query, 'http').endpoint = 'localhost:16686';
  child(query, 'grpc').endpoint = 'localhost:16685';
  const backends = rec(rec(rec(copy.extensions).jaeger_storage).backends);
  for (const [name, backend] of Object.entries(backends)) {
    const badger = rec(backend).badger;
    if (!isRecord(badger)) continue;
    badger.directories = {
      keys: join(dataDir, name, 'keys'),
      values: join(dataDir, name, 'values'),
    };
  }
  return relocate(copy);
}

/**
 * The persistent variant when compose gives Jaeger memory storage: the same settings with the
 * primary store swapped for Badger on disk (Jaeger's own config-badger.yaml keys).
 */
export function withBadgerStorage(config: Yaml): Yaml {
  const copy = structuredClone(config);
  const backend = primaryBackend(copy);
  for (const key of Object.keys(backend)) delete backend[key];
  backend.badger = { ephemeral: false, ttl: { spans: '48h' }, directories: {} };
  return copy;
}

// ---- Collector ----

/**
 * docker/otel-collector.yaml made runnable here: receivers on free loopback ports, and each
 * exporter's endpoint (a compose service name such as `jaeger:4317`) replaced by the address
 * `targets` gives for that exporter's name after the slash (`otlp_grpc/jaeger` -> `jaeger`).
 */
export async function runnableCollector(
  targets: Readonly<Record<string, string>>,
  config: Yaml = readYaml(collectorConfigFile),
): Promise<RelocatedConfig> {
  const copy = structuredClone(config);
  for (const [id, exporter] of Object.entries(rec(copy.exporters))) {
    const target = targets[id.split('/')[1] ?? id];
    if (target === undefined) throw new Error(`no test target for exporter ${id}`);
    rec(exporter).endpoint = target;
  }
  return relocate(copy);
}

/** Component ids a collector config uses, by kind, for comparing with what a build holds. */
export function componentTypesUsed(config: Yaml): Record<string, string[]> {
  const used: Record<string, string[]> = {};
  for (const kind of ['receivers', 'processors', 'exporters', 'connectors', 'extensions']) {
    const types = Object.keys(rec(config[kind])).map((id) => id.split('/')[0] ?? id);
    used[kind] = [...new Set(types)].sort();
  }
  return used;
}
