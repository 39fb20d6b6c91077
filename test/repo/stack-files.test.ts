// Cross-checks the files of the local trace stack in docker/ (compose, collector, Tempo, Grafana
// provisioning, dashboard JSON). No container runs here, so the only protection against a stack
// that cannot start or a dashboard that queries nothing is that the files agree with each other:
// names, ports, paths, datasource uids and the span attributes the dashboard queries.
//
// Every check is a function returning a list of problems, so the second half of the file can
// break copies of the real files in memory and prove that each check actually fails.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dockerDir = join(repoRoot, 'docker');

// ---------------------------------------------------------------------------------------------
// Loose accessors for parsed YAML/JSON: the files are data, not typed objects.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function rec(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
function at(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof key === 'number') current = list(current)[key];
    else current = rec(current)[key];
  }
  return current;
}

// ---------------------------------------------------------------------------------------------
// The stack as loaded from disk.

interface Stack {
  compose: unknown;
  collector: unknown;
  jaeger: unknown;
  tempo: unknown;
  datasources: unknown;
  dashboardProviders: unknown;
  /** Dashboard JSON files found in docker/grafana/dashboards, by file name. */
  dashboards: Record<string, unknown>;
}

function readYaml(relativePath: string): unknown {
  return parseYaml(readFileSync(join(dockerDir, relativePath), 'utf8')) as unknown;
}

function loadStack(): Stack {
  const dashboardsDir = join(dockerDir, 'grafana/dashboards');
  const dashboards: Record<string, unknown> = {};
  for (const name of readdirSync(dashboardsDir).filter((n) => n.endsWith('.json'))) {
    dashboards[name] = JSON.parse(readFileSync(join(dashboardsDir, name), 'utf8')) as unknown;
  }
  return {
    compose: readYaml('compose.yaml'),
    collector: readYaml('otel-collector.yaml'),
    jaeger: readYaml('jaeger.yaml'),
    tempo: readYaml('tempo.yaml'),
    datasources: readYaml('grafana/provisioning/datasources/datasources.yaml'),
    dashboardProviders: readYaml('grafana/provisioning/dashboards/dashboards.yaml'),
    dashboards,
  };
}

// ---------------------------------------------------------------------------------------------
// Compose model helpers.

/** The image repositories each role is recognised by; the service names are read from compose. */
const ROLE_IMAGES = {
  collector: 'otel/opentelemetry-collector-contrib',
  jaeger: 'jaegertracing/jaeger',
  tempo: 'grafana/tempo',
  grafana: 'grafana/grafana',
} as const;
type Role = keyof typeof ROLE_IMAGES;

/**
 * Jaeger's query port is not in jaeger.yaml: jaeger_query listens on the image's default 16686.
 */
const JAEGER_QUERY_PORT = 16686;

/** The port of `host:port` where host may be an env reference such as ${env:X:-localhost}. */
function portOf(value: string | undefined): number | undefined {
  const match = /:(\d+)$/.exec(value ?? '');
  return match === null ? undefined : Number(match[1]);
}

/** Host ports users need; anything else published is a port nobody asked for. */
const EXPECTED_HOST_PORTS: Record<number, Role> = {
  4317: 'collector',
  4318: 'collector',
  16686: 'jaeger',
  3000: 'grafana',
};

interface ImageRef {
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
}

function parseImage(image: string): ImageRef {
  const [withoutDigest = '', digest] = image.split('@');
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  // A colon before the last slash belongs to a registry host:port, not to a tag.
  if (colon > slash) {
    return {
      repository: withoutDigest.slice(0, colon),
      tag: withoutDigest.slice(colon + 1),
      digest,
    };
  }
  return { repository: withoutDigest, tag: undefined, digest };
}

function services(stack: Stack): Record<string, Record<string, unknown>> {
  const result: Record<string, Record<string, unknown>> = {};
  for (const [name, service] of Object.entries(rec(at(stack.compose, 'services')))) {
    result[name] = rec(service);
  }
  return result;
}

function serviceFor(stack: Stack, role: Role): [string, Record<string, unknown>] | undefined {
  for (const [name, service] of Object.entries(services(stack))) {
    const image = text(service.image);
    if (image !== undefined && parseImage(image).repository === ROLE_IMAGES[role]) {
      return [name, service];
    }
  }
  return undefined;
}

interface Mount {
  source: string;
  target: string;
  /** A named volume (declared under top-level volumes) rather than a bind mount. */
  named: boolean;
}

function mounts(service: Record<string, unknown>): Mount[] {
  return list(service.volumes).flatMap((entry): Mount[] => {
    if (typeof entry === 'string') {
      const [source = '', target = ''] = entry.split(':');
      return [{ source, target, named: !/^[./~]/.test(source) }];
    }
    if (isRecord(entry)) {
      const source = text(entry.source) ?? '';
      return [{ source, target: text(entry.target) ?? '', named: entry.type === 'volume' }];
    }
    return [];
  });
}

interface PublishedPort {
  hostIp: string | undefined;
  host: number | undefined;
  container: number;
}

function publishedPorts(service: Record<string, unknown>): PublishedPort[] {
  return list(service.ports).flatMap((entry): PublishedPort[] => {
    if (typeof entry === 'string' || typeof entry === 'number') {
      const parts = String(entry)
        .replace(/\/(tcp|udp)$/, '')
        .split(':');
      const container = Number(parts[parts.length - 1]);
      const host = parts.length >= 2 ? Number(parts[parts.length - 2]) : undefined;
      const hostIp = parts.length >= 3 ? parts[0] : undefined;
      return [{ hostIp, host, container }];
    }
    if (isRecord(entry)) {
      const published = entry.published === undefined ? undefined : Number(entry.published);
      return [{ hostIp: text(entry.host_ip), host: published, container: Number(entry.target) }];
    }
    return [];
  });
}

function commandArgs(service: Record<string, unknown>): string[] {
  const command = service.command;
  if (typeof command === 'string') return command.split(/\s+/).filter((s) => s !== '');
  return list(command).map(String);
}

/** Value of `--flag=value`, `-flag=value` or `--flag value` in a command line. */
function flagValue(args: string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const bare = arg.replace(/^-+/, '');
    if (bare.startsWith(`${flag}=`)) return bare.slice(flag.length + 1);
    if (bare === flag && arg.startsWith('-')) return args[i + 1];
  }
  return undefined;
}

interface Endpoint {
  host: string;
  port: number;
}

function parseEndpoint(value: string | undefined): Endpoint | undefined {
  if (value === undefined) return undefined;
  const match = /^(?:[a-z]+:\/\/)?([^:/]+):(\d+)(?:\/.*)?$/.exec(value);
  if (match === null) return undefined;
  return { host: match[1] ?? '', port: Number(match[2]) };
}

function bindSourceExists(source: string): boolean {
  return existsSync(resolve(dockerDir, source));
}

// ---------------------------------------------------------------------------------------------
// Checks. Each returns human-readable problems; an empty list means the check passed.

function checkServicesPresent(stack: Stack): string[] {
  return (Object.keys(ROLE_IMAGES) as Role[])
    .filter((role) => serviceFor(stack, role) === undefined)
    .map((role) => `compose has no ${role} service (image ${ROLE_IMAGES[role]})`);
}

function checkImagesPinned(stack: Stack): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(services(stack))) {
    const image = text(service.image);
    if (image === undefined) {
      problems.push(`service ${name} has no image`);
      continue;
    }
    const { tag, digest } = parseImage(image);
    if (digest === undefined && (tag === undefined || tag === '')) {
      problems.push(`service ${name}: image ${image} has no tag`);
    } else if (tag === 'latest' || (tag ?? '').includes('$')) {
      problems.push(`service ${name}: image ${image} is not pinned to a version`);
    }
  }
  return problems;
}

function checkPublishedPorts(stack: Stack): string[] {
  const problems: string[] = [];
  const seen = new Set<number>();
  for (const [name, service] of Object.entries(services(stack))) {
    for (const port of publishedPorts(service)) {
      if (port.host === undefined) {
        problems.push(
          `service ${name} publishes container port ${port.container} on a random host port`,
        );
        continue;
      }
      seen.add(port.host);
      const role = EXPECTED_HOST_PORTS[port.host];
      const owner = role === undefined ? undefined : serviceFor(stack, role)?.[0];
      if (owner !== name) {
        problems.push(
          `service ${name} publishes host port ${port.host}, which is not one users need`,
        );
      }
      if (port.host !== port.container) {
        problems.push(
          `service ${name} maps host port ${port.host} to container port ${port.container}`,
        );
      }
      // Grafana runs with anonymous admin access, so nothing is published beyond this machine.
      if (port.hostIp !== '127.0.0.1') {
        problems.push(
          `service ${name} publishes port ${port.host} on ${port.hostIp ?? 'all interfaces'}, not 127.0.0.1`,
        );
      }
    }
  }
  for (const port of Object.keys(EXPECTED_HOST_PORTS).map(Number)) {
    if (!seen.has(port)) problems.push(`host port ${port} is not published`);
  }
  return problems;
}

/**
 * The collector is exempt: its image is built FROM scratch, so Docker has no command to run in
 * it (compose.yaml says so next to the service).
 */
const ROLES_WITHOUT_HEALTHCHECK: readonly Role[] = ['collector'];

function checkHealthchecks(stack: Stack): string[] {
  const problems: string[] = [];
  for (const role of Object.keys(ROLE_IMAGES) as Role[]) {
    if (ROLES_WITHOUT_HEALTHCHECK.includes(role)) continue;
    const found = serviceFor(stack, role);
    if (found === undefined) continue;
    const [name, service] = found;
    const test = list(at(service, 'healthcheck', 'test'));
    if (test.length < 2 || !['CMD', 'CMD-SHELL'].includes(String(test[0]))) {
      problems.push(`service ${name} has no healthcheck`);
    }
  }
  return problems;
}

function checkVolumes(stack: Stack): string[] {
  const problems: string[] = [];
  const declared = new Set(Object.keys(rec(at(stack.compose, 'volumes'))));
  for (const [name, service] of Object.entries(services(stack))) {
    for (const mount of mounts(service)) {
      if (mount.named && !declared.has(mount.source)) {
        problems.push(
          `service ${name} mounts volume ${mount.source}, which is not declared under volumes`,
        );
      }
      if (!mount.named && !bindSourceExists(mount.source)) {
        problems.push(
          `service ${name} bind-mounts ${mount.source}, which does not exist in docker/`,
        );
      }
    }
  }
  const grafana = serviceFor(stack, 'grafana');
  if (
    grafana !== undefined &&
    !mounts(grafana[1]).some((m) => m.named && m.target === '/var/lib/grafana')
  ) {
    problems.push(`service ${grafana[0]} keeps /var/lib/grafana outside a named volume`);
  }
  return problems;
}

function backendPorts(stack: Stack, role: 'jaeger' | 'tempo'): { grpc?: number; http?: number } {
  if (role === 'jaeger') {
    const otlp = at(stack.jaeger, 'receivers', 'otlp', 'protocols');
    return {
      grpc: portOf(text(at(otlp, 'grpc', 'endpoint'))),
      http: portOf(text(at(otlp, 'http', 'endpoint'))),
    };
  }
  const protocols = at(stack.tempo, 'distributor', 'receivers', 'otlp', 'protocols');
  return {
    grpc: parseEndpoint(text(at(protocols, 'grpc', 'endpoint')))?.port,
    http: parseEndpoint(text(at(protocols, 'http', 'endpoint')))?.port,
  };
}

const GRPC_EXPORTERS = new Set(['otlp_grpc', 'otlp']);
const HTTP_EXPORTERS = new Set(['otlp_http', 'otlphttp']);

function checkCollector(stack: Stack): string[] {
  const problems: string[] = [];
  const collector = serviceFor(stack, 'collector');
  if (collector === undefined) return problems;
  const [collectorName, collectorService] = collector;

  // The config file compose mounts is the one the command line loads.
  const configMount = mounts(collectorService).find((m) => m.source === './otel-collector.yaml');
  const configArg = flagValue(commandArgs(collectorService), 'config');
  if (configMount === undefined) {
    problems.push(`service ${collectorName} does not mount ./otel-collector.yaml`);
  } else if (configArg !== configMount.target) {
    problems.push(
      `service ${collectorName} loads --config=${configArg ?? '(none)'} but otel-collector.yaml is mounted at ${configMount.target}`,
    );
  }

  // Receivers listen on all interfaces, on the container ports compose publishes.
  const published = new Set(publishedPorts(collectorService).map((p) => p.container));
  for (const protocol of ['grpc', 'http'] as const) {
    const endpoint = parseEndpoint(
      text(at(stack.collector, 'receivers', 'otlp', 'protocols', protocol, 'endpoint')),
    );
    if (endpoint === undefined) {
      problems.push(`collector OTLP ${protocol} receiver has no host:port endpoint`);
      continue;
    }
    if (endpoint.host !== '0.0.0.0') {
      problems.push(
        `collector OTLP ${protocol} receiver binds ${endpoint.host}, unreachable through published ports`,
      );
    }
    if (!published.has(endpoint.port)) {
      problems.push(
        `collector OTLP ${protocol} receiver listens on ${endpoint.port}, which compose does not publish`,
      );
    }
  }

  // Every pipeline component is defined, and the exporters reach both backends on the ports
  // those backends really listen on.
  const pipeline = at(stack.collector, 'service', 'pipelines', 'traces');
  for (const receiver of list(at(pipeline, 'receivers')).map(String)) {
    if (at(stack.collector, 'receivers', receiver) === undefined) {
      problems.push(`traces pipeline uses undefined receiver ${receiver}`);
    }
  }
  const reached = new Set<string>();
  for (const exporterName of list(at(pipeline, 'exporters')).map(String)) {
    const exporter = at(stack.collector, 'exporters', exporterName);
    if (exporter === undefined) {
      problems.push(`traces pipeline uses undefined exporter ${exporterName}`);
      continue;
    }
    const type = exporterName.split('/')[0] ?? '';
    const protocol = GRPC_EXPORTERS.has(type)
      ? 'grpc'
      : HTTP_EXPORTERS.has(type)
        ? 'http'
        : undefined;
    if (protocol === undefined) {
      problems.push(`exporter ${exporterName} is not an OTLP exporter`);
      continue;
    }
    const endpoint = parseEndpoint(text(at(exporter, 'endpoint')));
    if (endpoint === undefined) {
      problems.push(`exporter ${exporterName} has no host:port endpoint`);
      continue;
    }
    const backend = (['jaeger', 'tempo'] as const).find(
      (role) => serviceFor(stack, role)?.[0] === endpoint.host,
    );
    if (backend === undefined) {
      problems.push(
        `exporter ${exporterName} sends to ${endpoint.host}, which is not the Jaeger or Tempo service`,
      );
      continue;
    }
    const listening = backendPorts(stack, backend)[protocol];
    if (endpoint.port !== listening) {
      problems.push(
        `exporter ${exporterName} sends OTLP/${protocol} to ${endpoint.host}:${endpoint.port}, but ${backend} listens on ${listening ?? 'no port'}`,
      );
    }
    if (protocol === 'grpc' && at(exporter, 'tls', 'insecure') !== true) {
      problems.push(
        `exporter ${exporterName} would use TLS against a plaintext receiver (tls.insecure is not true)`,
      );
    }
    reached.add(backend);
  }
  for (const backend of ['jaeger', 'tempo'] as const) {
    if (!reached.has(backend)) problems.push(`the traces pipeline exports nothing to ${backend}`);
  }
  return problems;
}

/** Tempo 2.x blocks that Tempo 3.0 removed; its strict config parser refuses to start on them. */
const TEMPO_REMOVED_BLOCKS = [
  'ingester',
  'ingester_client',
  'compactor',
  'metrics_generator_client',
];

function checkTempo(stack: Stack): string[] {
  const problems: string[] = [];
  const tempo = serviceFor(stack, 'tempo');
  if (tempo === undefined) return problems;
  const [tempoName, tempoService] = tempo;

  for (const protocol of ['grpc', 'http'] as const) {
    const value = text(
      at(stack.tempo, 'distributor', 'receivers', 'otlp', 'protocols', protocol, 'endpoint'),
    );
    const endpoint = parseEndpoint(value);
    // Tempo's receivers default to localhost since 2.7: other containers then get "connection refused".
    if (endpoint?.host !== '0.0.0.0') {
      problems.push(
        `Tempo OTLP ${protocol} receiver binds ${value ?? 'the default (localhost)'}, not 0.0.0.0`,
      );
    }
  }
  if (typeof at(stack.tempo, 'server', 'http_listen_port') !== 'number') {
    problems.push('Tempo server.http_listen_port is not set');
  }
  for (const block of TEMPO_REMOVED_BLOCKS) {
    if (rec(stack.tempo)[block] !== undefined)
      problems.push(`tempo.yaml has the ${block} block that Tempo 3.0 removed`);
  }
  if (/local[-_]blocks/.test(JSON.stringify(stack.tempo))) {
    problems.push('tempo.yaml configures the local-blocks processor that Tempo 3.0 removed');
  }

  const configMount = mounts(tempoService).find((m) => m.source === './tempo.yaml');
  const configArg = flagValue(commandArgs(tempoService), 'config.file');
  if (configMount === undefined || configArg !== configMount.target) {
    problems.push(
      `service ${tempoName} loads -config.file=${configArg ?? '(none)'} but tempo.yaml is mounted at ${configMount?.target ?? '(nowhere)'}`,
    );
  }

  // WAL and blocks live on the named volume, or a restart loses the traces.
  const volumeTargets = mounts(tempoService)
    .filter((m) => m.named)
    .map((m) => m.target);
  for (const key of ['wal', 'local'] as const) {
    const path = text(at(stack.tempo, 'storage', 'trace', key, 'path'));
    if (
      path === undefined ||
      !volumeTargets.some((target) => path === target || path.startsWith(`${target}/`))
    ) {
      problems.push(
        `Tempo storage.trace.${key}.path ${path ?? '(unset)'} is not on a named volume`,
      );
    }
  }
  return problems;
}

/** Hours in a Go duration such as 8760h, 744h0m0s or 30m; undefined when it is not one. */
function hoursOf(duration: string | undefined): number | undefined {
  if (duration === undefined || !/^(\d+(\.\d+)?(h|m|s|ms))+$/.test(duration)) return undefined;
  const factor: Record<string, number> = { h: 1, m: 1 / 60, s: 1 / 3600, ms: 1 / 3_600_000 };
  let hours = 0;
  for (const m of duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g))
    hours += Number(m[1]) * (factor[m[2] ?? ''] ?? 0);
  return hours;
}

/** Claude Code deletes transcripts after 30 days by default: the backends must keep longer. */
const MIN_RETENTION_HOURS = 30 * 24;

/**
 * A retention value as the container sees it: a literal duration, or ${VAR:-default} /
 * ${env:VAR:-default} with VAR passed by compose. Returns the effective duration's hours and
 * a problem when it cannot be worked out.
 */
function retentionHours(
  service: Record<string, unknown> | undefined,
  value: string | undefined,
): { hours: number | undefined; problem: string | null } {
  const ref = /^\$\{(?:env:)?([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}$/.exec(value ?? '');
  if (ref === null) return { hours: hoursOf(value), problem: null };
  const [, name = '', fileDefault] = ref;
  const passed = text(at(service, 'environment', name));
  if (passed === undefined)
    return { hours: hoursOf(fileDefault), problem: `compose does not pass ${name} to the service` };
  // compose.yaml sets it from ${TRACE_RETENTION:-8760h}: the default is what runs.
  const composeDefault = /^\$\{[A-Z_][A-Z0-9_]*:-([^}]*)\}$/.exec(passed)?.[1] ?? passed;
  if (fileDefault !== undefined && hoursOf(fileDefault) !== hoursOf(composeDefault))
    return {
      hours: hoursOf(composeDefault),
      problem: `${name} defaults to ${composeDefault} in compose but ${fileDefault} in the config file`,
    };
  return { hours: hoursOf(composeDefault), problem: null };
}

function checkJaegerStore(stack: Stack): string[] {
  const problems: string[] = [];
  const jaeger = serviceFor(stack, 'jaeger');
  if (jaeger === undefined) return problems;
  const [name, service] = jaeger;
  const configMount = mounts(service).find((m) => m.source === './jaeger.yaml');
  const configArg = flagValue(commandArgs(service), 'config');
  if (configMount === undefined || configArg !== configMount.target)
    problems.push(
      `service ${name} loads --config=${configArg ?? '(none)'} but jaeger.yaml is mounted at ${configMount?.target ?? '(nowhere)'}`,
    );
  const backends = rec(at(stack.jaeger, 'extensions', 'jaeger_storage', 'backends'));
  const used = [
    text(at(stack.jaeger, 'extensions', 'jaeger_query', 'storage', 'traces')),
    text(at(stack.jaeger, 'exporters', 'jaeger_storage_exporter', 'trace_storage')),
  ];
  const volumeTargets = mounts(service)
    .filter((m) => m.named)
    .map((m) => m.target);
  for (const backendName of new Set(used)) {
    const backend = backends[backendName ?? ''];
    if (backend === undefined) {
      problems.push(`Jaeger uses trace storage ${backendName ?? '(none)'}, which is not defined`);
      continue;
    }
    const badger = at(backend, 'badger');
    if (!isRecord(badger)) {
      problems.push(`Jaeger trace storage ${backendName ?? ''} is not a persistent Badger store`);
      continue;
    }
    if (badger.ephemeral !== false)
      problems.push(`Jaeger's Badger store is ephemeral (ephemeral is not false)`);
    for (const dir of ['keys', 'values'] as const) {
      const path = text(at(badger, 'directories', dir));
      if (path === undefined || !volumeTargets.some((t) => path.startsWith(`${t}/`)))
        problems.push(
          `Jaeger Badger directories.${dir} ${path ?? '(unset)'} is not on a named volume`,
        );
    }
    const ttl = text(at(badger, 'ttl', 'spans'));
    const { hours, problem } = retentionHours(service, ttl);
    if (problem !== null) problems.push(`Jaeger Badger ttl.spans: ${problem}`);
    if (hours === undefined || hours < MIN_RETENTION_HOURS)
      problems.push(
        `Jaeger Badger ttl.spans ${ttl ?? '(unset: 72h)'} is shorter than Claude Code's 30-day cleanup`,
      );
  }
  return problems;
}

/** Where Tempo 3.0 reads retention (docs/sources/tempo/configuration/manifest.md, grafana/tempo). */
const TEMPO_RETENTION_KEYS = [
  ['backend_scheduler', 'provider', 'compaction', 'compaction', 'block_retention'],
  ['backend_worker', 'compaction', 'block_retention'],
] as const;

function checkTempoRetention(stack: Stack): string[] {
  const problems: string[] = [];
  const service = serviceFor(stack, 'tempo')?.[1];
  const values = TEMPO_RETENTION_KEYS.map((path) => text(at(stack.tempo, ...path)));
  TEMPO_RETENTION_KEYS.forEach((path, i) => {
    const value = values[i];
    const { hours, problem } = retentionHours(service, value);
    if (problem !== null) problems.push(`Tempo ${path.join('.')}: ${problem}`);
    if (hours === undefined || hours < MIN_RETENTION_HOURS)
      problems.push(
        `Tempo ${path.join('.')} ${value ?? '(unset: 336h)'} is shorter than Claude Code's 30-day cleanup`,
      );
  });
  if (values[0] !== values[1])
    problems.push('Tempo block_retention differs between scheduler and worker');
  const expands = flagValue(commandArgs(service ?? {}), 'config.expand-env') === 'true';
  if (JSON.stringify(stack.tempo).includes('${') && !expands)
    problems.push('tempo.yaml uses ${...} but Tempo is not started with -config.expand-env=true');
  return problems;
}

/** The dashboard offers 7- and 30-day ranges; Tempo refuses longer queries than these allow. */
function checkTempoQueryRange(stack: Stack): string[] {
  const problems: string[] = [];
  for (const kind of ['metrics', 'search'] as const) {
    const value = text(at(stack.tempo, 'query_frontend', kind, 'max_duration'));
    const hours = hoursOf(value);
    if (hours === undefined || hours < MIN_RETENTION_HOURS)
      problems.push(
        `Tempo query_frontend.${kind}.max_duration ${value ?? '(unset)'} is below 30 days: the dashboard's 30-day view fails`,
      );
  }
  return problems;
}

interface ProvisionedDatasource {
  uid: string;
  type: string;
  url: string | undefined;
  jsonData: Record<string, unknown>;
}

function provisionedDatasources(stack: Stack): ProvisionedDatasource[] {
  return list(at(stack.datasources, 'datasources')).map((entry) => ({
    uid: text(at(entry, 'uid')) ?? '',
    type: text(at(entry, 'type')) ?? '',
    url: text(at(entry, 'url')),
    jsonData: rec(at(entry, 'jsonData')),
  }));
}

function checkDatasources(stack: Stack): string[] {
  const problems: string[] = [];
  const datasources = provisionedDatasources(stack);
  const uids = datasources.map((d) => d.uid);
  if (uids.some((uid) => uid === '')) problems.push('a provisioned datasource has no uid');
  if (new Set(uids).size !== uids.length)
    problems.push('provisioned datasource uids are not unique');

  const expected: { type: string; role: 'tempo' | 'jaeger'; port: number | undefined }[] = [
    { type: 'tempo', role: 'tempo', port: Number(at(stack.tempo, 'server', 'http_listen_port')) },
    { type: 'jaeger', role: 'jaeger', port: JAEGER_QUERY_PORT },
  ];
  for (const { type, role, port } of expected) {
    const datasource = datasources.find((d) => d.type === type);
    if (datasource === undefined) {
      problems.push(`no ${type} datasource is provisioned`);
      continue;
    }
    const endpoint = parseEndpoint(datasource.url);
    const serviceName = serviceFor(stack, role)?.[0];
    if (endpoint?.host !== serviceName || endpoint?.port !== port) {
      problems.push(
        `${type} datasource url ${datasource.url ?? '(none)'} is not http://${serviceName ?? role}:${port ?? '?'}`,
      );
    }
  }

  const tempoSource = datasources.find((d) => d.type === 'tempo');
  // Grafana's Tempo plugin does not read it (it is a Prometheus/Loki datasource setting).
  if (tempoSource?.jsonData.httpMethod !== undefined)
    problems.push('the Tempo datasource sets jsonData.httpMethod, which the Tempo plugin ignores');
  const streaming = Object.values(rec(tempoSource?.jsonData.streamingEnabled)).some(
    (v) => v === true,
  );
  if (streaming && at(stack.tempo, 'stream_over_http_enabled') !== true) {
    problems.push(
      'the Tempo datasource streams results but tempo.yaml lacks stream_over_http_enabled: true',
    );
  }
  return problems;
}

const PROVISIONING_ROOT = '/etc/grafana/provisioning';

function checkGrafanaMounts(stack: Stack): string[] {
  const problems: string[] = [];
  const grafana = serviceFor(stack, 'grafana');
  if (grafana === undefined) return problems;
  const [grafanaName, grafanaService] = grafana;
  const grafanaMounts = mounts(grafanaService);

  // The provisioning files are where Grafana looks for them.
  for (const kind of ['datasources', 'dashboards'] as const) {
    const expectedSource = `./grafana/provisioning/${kind}`;
    const mount = grafanaMounts.find((m) => m.source === expectedSource);
    if (mount?.target !== `${PROVISIONING_ROOT}/${kind}`) {
      problems.push(
        `service ${grafanaName} does not mount ${expectedSource} at ${PROVISIONING_ROOT}/${kind}`,
      );
    }
  }

  // Each dashboard provider reads a folder that compose mounts from a folder holding dashboards.
  const providers = list(at(stack.dashboardProviders, 'providers'));
  if (providers.length === 0) problems.push('no dashboard provider is provisioned');
  for (const provider of providers) {
    const path = text(at(provider, 'options', 'path'));
    const mount = grafanaMounts.find((m) => !m.named && m.target === path);
    if (mount === undefined) {
      problems.push(
        `dashboard provider path ${path ?? '(none)'} is not a folder mounted into ${grafanaName}`,
      );
      continue;
    }
    const source = resolve(dockerDir, mount.source);
    const hasDashboards =
      existsSync(source) &&
      statSync(source).isDirectory() &&
      readdirSync(source).some((n) => n.endsWith('.json'));
    if (!hasDashboards)
      problems.push(
        `dashboard provider path ${path ?? ''} is mounted from ${mount.source}, which holds no dashboard JSON`,
      );
  }

  // The home dashboard path, if set, names a file inside a mounted folder.
  const home = text(at(grafanaService, 'environment', 'GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH'));
  if (home !== undefined) {
    const mount = grafanaMounts.find((m) => !m.named && home.startsWith(`${m.target}/`));
    const file =
      mount === undefined
        ? undefined
        : join(dockerDir, mount.source, posix.relative(mount.target, home));
    if (file === undefined || !existsSync(file)) {
      problems.push(
        `GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH ${home} is not a mounted dashboard file`,
      );
    }
  }
  return problems;
}

/** TraceQL pipeline functions Tempo 3.0 documents (metrics functions, topk/bottomk, select). */
const TRACEQL_PIPELINE_FUNCTIONS = new Set([
  'rate',
  'count_over_time',
  'sum_over_time',
  'min_over_time',
  'max_over_time',
  'avg_over_time',
  'quantile_over_time',
  'histogram_over_time',
  'compare',
  'topk',
  'bottomk',
  'select',
]);

/**
 * Span attributes ccotel emits (the span contract), plus the resource's service.name. A dashboard
 * query on any other name is a typo or a contract change that must be made on both sides.
 */
const SPAN_CONTRACT_ATTRIBUTES = new Set([
  'gen_ai.operation.name',
  'gen_ai.agent.name',
  'gen_ai.agent.description',
  'gen_ai.provider.name',
  'gen_ai.conversation.id',
  'session.id',
  'claude_code.turn.index',
  'claude_code.turn.end_state',
  'claude_code.turn.input_tokens',
  'claude_code.turn.output_tokens',
  'claude_code.turn.cache_read_tokens',
  'claude_code.turn.cache_write_tokens',
  'claude_code.cost.usd',
  'claude_code.cwd',
  'vcs.repository.ref.name',
  'claude_code.version',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.response.id',
  'gen_ai.response.finish_reasons',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_write.input_tokens',
  'claude_code.agent.type',
  'claude_code.agent.id',
  'claude_code.agent.input_tokens',
  'claude_code.agent.output_tokens',
  'error.type',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
  'gen_ai.tool.type',
  'claude_code.tool.label',
  'claude_code.tokens.input',
  'claude_code.tokens.output',
  'claude_code.context.fill_percent',
]);
const RESOURCE_ATTRIBUTES = new Set(['service.name']);

/**
 * Query shapes the dashboard must contain (the panels the team asked for). Whitespace is
 * normalised before matching.
 */
const REQUIRED_QUERY_FRAGMENTS = [
  'span.session.id =~ "$session"',
  '| rate() by (span.gen_ai.tool.name)',
  'status = error } | rate() by (span.gen_ai.tool.name)',
  '| quantile_over_time(duration, .5, .9) by (span.gen_ai.tool.name)',
  'status = error } | select(span.gen_ai.tool.name, span.error.type',
  '| sum_over_time(span.gen_ai.usage.input_tokens) by (span.gen_ai.response.model)',
  '| sum_over_time(span.gen_ai.usage.output_tokens) by (span.gen_ai.response.model)',
  '| sum_over_time(span.gen_ai.usage.cache_read.input_tokens) by (span.gen_ai.response.model)',
  '| sum_over_time(span.gen_ai.usage.cache_write.input_tokens) by (span.gen_ai.response.model)',
  '| sum_over_time(span.claude_code.cost.usd) by (span.gen_ai.response.model)',
  '| sum_over_time(span.claude_code.cost.usd) by (span.claude_code.agent.type)',
];

/** Grafana-internal datasources that are never provisioned. */
const BUILTIN_DATASOURCE_UIDS = new Set([
  '-- Grafana --',
  '-- Mixed --',
  '-- Dashboard --',
  '__expr__',
]);

const normalise = (query: string): string => query.replace(/\s+/g, ' ').trim();

function traceqlProblems(where: string, query: string): string[] {
  const problems: string[] = [];
  const withoutStrings = query.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  if ((query.match(/(?<!\\)"/g) ?? []).length % 2 !== 0)
    problems.push(`${where}: unbalanced quotes in ${query}`);
  for (const [open, close] of [
    ['{', '}'],
    ['(', ')'],
  ] as const) {
    if (withoutStrings.split(open).length !== withoutStrings.split(close).length) {
      problems.push(`${where}: unbalanced ${open}${close} in ${query}`);
    }
  }
  for (const match of withoutStrings.matchAll(/\|\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    const fn = match[1] ?? '';
    if (!TRACEQL_PIPELINE_FUNCTIONS.has(fn))
      problems.push(`${where}: ${fn}() is not a Tempo 3 TraceQL function`);
  }
  for (const match of withoutStrings.matchAll(/\b(span|resource)\.([A-Za-z0-9_.]*[A-Za-z0-9_])/g)) {
    const [, scope, name = ''] = match;
    const known = scope === 'span' ? SPAN_CONTRACT_ATTRIBUTES : RESOURCE_ATTRIBUTES;
    if (!known.has(name))
      problems.push(`${where}: ${scope}.${name} is not an attribute ccotel emits`);
  }
  // claude_code.cost.usd and gen_ai.usage.* sit on chat spans and are rolled up onto turn and
  // sub-agent spans, so summing them over anything but chat spans double counts.
  if (
    /sum_over_time\(\s*span\.(claude_code\.cost\.usd|gen_ai\.usage\.)/.test(query) &&
    !/span\.gen_ai\.operation\.name = "chat"/.test(query)
  ) {
    problems.push(`${where}: sums cost or tokens over spans other than chat spans`);
  }
  return problems;
}

interface DatasourceRef {
  type: string | undefined;
  uid: string | undefined;
}

function datasourceRefProblems(
  where: string,
  ref: unknown,
  provisioned: ProvisionedDatasource[],
): string[] {
  if (ref === undefined || ref === null) return [];
  // Grafana also accepts a bare datasource name; this stack always references by uid.
  if (!isRecord(ref))
    return [`${where}: datasource is referenced by name (${String(ref)}), not by uid`];
  const { type, uid }: DatasourceRef = { type: text(ref.type), uid: text(ref.uid) };
  if (uid !== undefined && BUILTIN_DATASOURCE_UIDS.has(uid)) return [];
  const match = provisioned.find((d) => d.uid === uid);
  if (match === undefined)
    return [`${where}: datasource uid ${uid ?? '(none)'} is not provisioned`];
  if (type !== undefined && type !== match.type)
    return [`${where}: datasource ${uid ?? ''} has type ${match.type}, not ${type}`];
  return [];
}

function checkDashboards(stack: Stack): string[] {
  const problems: string[] = [];
  const provisioned = provisionedDatasources(stack);
  const entries = Object.entries(stack.dashboards);
  if (entries.length === 0) problems.push('docker/grafana/dashboards holds no dashboard');

  for (const [file, dashboard] of entries) {
    const schemaVersion = at(dashboard, 'schemaVersion');
    if (typeof schemaVersion !== 'number' || schemaVersion < 39)
      problems.push(`${file}: schemaVersion ${String(schemaVersion)} is below 39`);
    if ((text(at(dashboard, 'uid')) ?? '') === '') problems.push(`${file}: no uid`);
    if ((text(at(dashboard, 'title')) ?? '') === '') problems.push(`${file}: no title`);

    const variables = new Set(
      list(at(dashboard, 'templating', 'list')).map((v) => text(at(v, 'name'))),
    );
    const panels = list(at(dashboard, 'panels')).flatMap((p) => [p, ...list(at(p, 'panels'))]);
    const ids = panels.map((p) => at(p, 'id'));
    if (new Set(ids).size !== ids.length) problems.push(`${file}: panel ids are not unique`);
    const allQueries: string[] = [];

    for (const panel of panels) {
      const type = text(at(panel, 'type'));
      const where = `${file} panel "${text(at(panel, 'title')) ?? String(at(panel, 'id'))}"`;
      const grid = rec(at(panel, 'gridPos'));
      if (
        typeof grid.w !== 'number' ||
        typeof grid.h !== 'number' ||
        typeof grid.x !== 'number' ||
        grid.x + grid.w > 24
      ) {
        problems.push(`${where}: gridPos is missing or wider than 24 columns`);
      }
      if (type === 'row' || type === 'text') continue;
      problems.push(...datasourceRefProblems(where, at(panel, 'datasource'), provisioned));
      const targets = list(at(panel, 'targets'));
      if (targets.length === 0) problems.push(`${where}: no queries`);
      const refIds = targets.map((t) => text(at(t, 'refId')));
      if (new Set(refIds).size !== refIds.length) problems.push(`${where}: duplicate refIds`);

      for (const target of targets) {
        const ref = at(target, 'datasource') ?? at(panel, 'datasource');
        problems.push(...datasourceRefProblems(where, ref, provisioned));
        const dsType = provisioned.find((d) => d.uid === text(at(ref, 'uid')))?.type;
        if (dsType !== 'tempo') continue;
        const query = text(at(target, 'query')) ?? '';
        if (query.trim() === '') {
          problems.push(`${where}: empty Tempo query`);
          continue;
        }
        if (at(target, 'queryType') !== 'traceql')
          problems.push(`${where}: Tempo query is not queryType traceql`);
        allQueries.push(normalise(query));
        problems.push(...traceqlProblems(where, query));
        for (const match of query.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
          const name = match[1] ?? '';
          if (!variables.has(name) && !name.startsWith('__'))
            problems.push(`${where}: uses undefined variable $${name}`);
        }
      }
    }

    for (const fragment of REQUIRED_QUERY_FRAGMENTS) {
      if (!allQueries.some((q) => q.includes(normalise(fragment))))
        problems.push(`${file}: no panel queries ${fragment}`);
    }
  }
  return problems;
}

const CHECKS = {
  'services present': checkServicesPresent,
  'images pinned': checkImagesPinned,
  'published ports': checkPublishedPorts,
  healthchecks: checkHealthchecks,
  volumes: checkVolumes,
  'collector wiring': checkCollector,
  'tempo config': checkTempo,
  'jaeger persistent store': checkJaegerStore,
  'tempo retention': checkTempoRetention,
  'tempo query range': checkTempoQueryRange,
  datasources: checkDatasources,
  'grafana mounts and dashboard provisioning': checkGrafanaMounts,
  dashboards: checkDashboards,
} as const;

function allProblems(stack: Stack): string[] {
  return Object.values(CHECKS).flatMap((check) => check(stack));
}

// ---------------------------------------------------------------------------------------------

describe('docker stack files agree with each other', () => {
  const stack = loadStack();

  it.each(Object.entries(CHECKS))('%s', (_name, check) => {
    expect(check(stack)).toEqual([]);
  });
});

describe('the stack checks fail on broken copies', () => {
  // Each case breaks one thing in an in-memory copy and names a fragment of the problem it must
  // produce, so a check that silently stopped checking would turn this red.
  const cases: [string, (s: Stack) => void, string][] = [
    [
      'collector sends gRPC to the OTLP HTTP port',
      (s) => setAt(s.collector, ['exporters', 'otlp_grpc/tempo', 'endpoint'], 'tempo:4318'),
      'but tempo listens on 4317',
    ],
    [
      'collector sends to a host that is not a service',
      (s) =>
        setAt(s.collector, ['exporters', 'otlp_grpc/jaeger', 'endpoint'], 'jaeger-all-in-one:4317'),
      'not the Jaeger or Tempo service',
    ],
    [
      'collector drops the Jaeger exporter',
      (s) =>
        setAt(s.collector, ['service', 'pipelines', 'traces', 'exporters'], ['otlp_grpc/tempo']),
      'exports nothing to jaeger',
    ],
    [
      'collector receiver bound to localhost',
      (s) =>
        setAt(
          s.collector,
          ['receivers', 'otlp', 'protocols', 'grpc', 'endpoint'],
          'localhost:4317',
        ),
      'binds localhost',
    ],
    [
      'collector loads another config path',
      (s) =>
        setAt(
          s.compose,
          ['services', 'otel-collector', 'command'],
          ['--config=/etc/otelcol/config.yaml'],
        ),
      'but otel-collector.yaml is mounted',
    ],
    [
      'Tempo receiver left on its localhost default',
      (s) => setAt(s.tempo, ['distributor', 'receivers', 'otlp', 'protocols', 'grpc'], {}),
      'not 0.0.0.0',
    ],
    [
      'Tempo 2.x ingester block',
      (s) => setAt(s.tempo, ['ingester'], { max_block_duration: '5m' }),
      'ingester block',
    ],
    [
      'Tempo 2.x local-blocks processor',
      (s) =>
        setAt(s.tempo, ['overrides'], {
          defaults: { metrics_generator: { processors: ['local-blocks'] } },
        }),
      'local-blocks',
    ],
    [
      'Tempo WAL outside the volume',
      (s) => setAt(s.tempo, ['storage', 'trace', 'wal', 'path'], '/tmp/tempo/wal'),
      'not on a named volume',
    ],
    [
      'image on latest',
      (s) => setAt(s.compose, ['services', 'jaeger', 'image'], 'jaegertracing/jaeger:latest'),
      'not pinned',
    ],
    [
      'image without tag',
      (s) => setAt(s.compose, ['services', 'grafana', 'image'], 'grafana/grafana'),
      'has no tag',
    ],
    [
      'Tempo API published',
      (s) => setAt(s.compose, ['services', 'tempo', 'ports'], ['127.0.0.1:3200:3200']),
      'host port 3200',
    ],
    [
      'Grafana published on all interfaces',
      (s) => setAt(s.compose, ['services', 'grafana', 'ports'], ['3000:3000']),
      'not 127.0.0.1',
    ],
    [
      'Tempo healthcheck removed',
      (s) => setAt(s.compose, ['services', 'tempo', 'healthcheck'], undefined),
      'has no healthcheck',
    ],
    [
      'undeclared named volume',
      (s) => setAt(s.compose, ['volumes'], { 'grafana-data': {} }),
      'tempo-data, which is not declared',
    ],
    [
      'datasource on the wrong Tempo port',
      (s) => setAt(s.datasources, ['datasources', 0, 'url'], 'http://tempo:3100'),
      'is not http://tempo:3200',
    ],
    [
      'streaming without stream_over_http_enabled',
      (s) => setAt(s.tempo, ['stream_over_http_enabled'], false),
      'stream_over_http_enabled',
    ],
    [
      'dashboard provider path not mounted',
      (s) =>
        setAt(
          s.dashboardProviders,
          ['providers', 0, 'options', 'path'],
          '/var/lib/grafana/dashboards',
        ),
      'is not a folder mounted',
    ],
    [
      'panel datasource uid not provisioned',
      (s) => setAt(firstDashboard(s), ['panels', 1, 'datasource', 'uid'], 'prometheus'),
      'uid prometheus is not provisioned',
    ],
    [
      'target datasource type mismatch',
      (s) => setAt(firstDashboard(s), ['panels', 1, 'targets', 0, 'datasource', 'type'], 'jaeger'),
      'has type tempo, not jaeger',
    ],
    [
      'undefined dashboard variable',
      (s) => editQuery(s, 'span.session.id =~ "$session"', 'span.session.id =~ "$sess"'),
      'undefined variable $sess',
    ],
    [
      'metrics function Tempo does not have',
      (s) =>
        editQuery(
          s,
          'rate() by (span.gen_ai.tool.name)',
          'p99_over_time(duration) by (span.gen_ai.tool.name)',
        ),
      'p99_over_time() is not',
    ],
    [
      'attribute ccotel does not emit',
      (s) =>
        editQuery(s, 'by (span.claude_code.agent.type)', 'by (span.claude_code.subagent_type)'),
      'claude_code.subagent_type is not an attribute',
    ],
    [
      'cost summed over every span',
      (s) =>
        editQuery(
          s,
          'span.gen_ai.operation.name = "chat" } | sum_over_time(span.claude_code.cost.usd) by (span.gen_ai.response.model)',
          'span.gen_ai.operation.name =~ ".*" } | sum_over_time(span.claude_code.cost.usd) by (span.gen_ai.response.model)',
        ),
      'other than chat spans',
    ],
    [
      'unbalanced TraceQL',
      (s) =>
        editQuery(s, '| rate() by (span.gen_ai.tool.name)', '| rate() by (span.gen_ai.tool.name'),
      'unbalanced ()',
    ],
    ['schema version too old', (s) => setAt(firstDashboard(s), ['schemaVersion'], 27), 'below 39'],
    [
      'Jaeger back on the in-memory store',
      (s) =>
        setAt(s.jaeger, ['extensions', 'jaeger_storage', 'backends', 'badger_store'], {
          memory: { max_traces: 100000 },
        }),
      'is not a persistent Badger store',
    ],
    [
      'Jaeger Badger ephemeral',
      (s) =>
        setAt(
          s.jaeger,
          ['extensions', 'jaeger_storage', 'backends', 'badger_store', 'badger', 'ephemeral'],
          true,
        ),
      'is ephemeral',
    ],
    [
      'Jaeger data volume not mounted',
      (s) =>
        setAt(
          s.compose,
          ['services', 'jaeger', 'volumes'],
          ['./jaeger.yaml:/etc/jaeger/config.yaml:ro'],
        ),
      'directories.keys /tmp/badger/keys is not on a named volume',
    ],
    [
      'Jaeger data volume not declared',
      (s) => setAt(s.compose, ['volumes'], { 'tempo-data': {}, 'grafana-data': {} }),
      'jaeger-data, which is not declared',
    ],
    [
      'Jaeger Badger default TTL (72h)',
      (s) =>
        setAt(
          s.jaeger,
          ['extensions', 'jaeger_storage', 'backends', 'badger_store', 'badger', 'ttl'],
          undefined,
        ),
      "ttl.spans (unset: 72h) is shorter than Claude Code's 30-day cleanup",
    ],
    [
      'Jaeger exporter writes to an undefined store',
      (s) => setAt(s.jaeger, ['exporters', 'jaeger_storage_exporter', 'trace_storage'], 'memstore'),
      'trace storage memstore, which is not defined',
    ],
    [
      'Tempo worker retention left at its default',
      (s) => setAt(s.tempo, ['backend_worker'], undefined),
      'backend_worker.compaction.block_retention (unset: 336h)',
    ],
    [
      'Tempo retention of a week',
      (s) =>
        setAt(
          s.tempo,
          ['backend_scheduler', 'provider', 'compaction', 'compaction', 'block_retention'],
          '168h',
        ),
      'differs between scheduler and worker',
    ],
    [
      'compose retention default too short',
      (s) => {
        setAt(
          s.compose,
          ['services', 'tempo', 'environment', 'TRACE_RETENTION'],
          '${TRACE_RETENTION:-72h}',
        );
      },
      'defaults to 72h in compose but 8760h in the config file',
    ],
    [
      'retention variable not passed to Tempo',
      (s) => setAt(s.compose, ['services', 'tempo', 'environment'], undefined),
      'compose does not pass TRACE_RETENTION',
    ],
    [
      'Tempo not expanding env',
      (s) =>
        setAt(
          s.compose,
          ['services', 'tempo', 'command'],
          ['-target=all', '-config.file=/etc/tempo/tempo.yaml'],
        ),
      'not started with -config.expand-env=true',
    ],
    [
      'metrics max_duration at its 24h default',
      (s) => setAt(s.tempo, ['query_frontend', 'metrics', 'max_duration'], '24h'),
      'query_frontend.metrics.max_duration 24h is below 30 days',
    ],
    [
      'Tempo datasource httpMethod back',
      (s) => setAt(s.datasources, ['datasources', 0, 'jsonData', 'httpMethod'], 'GET'),
      'jsonData.httpMethod',
    ],
  ];

  it.each(cases)('%s', (_name, breakIt, expected) => {
    const broken = structuredClone(loadStack());
    breakIt(broken);
    const problems = allProblems(broken);
    expect(problems.join('\n')).toContain(expected);
  });
});

function firstDashboard(stack: Stack): unknown {
  const first = Object.values(stack.dashboards)[0];
  if (first === undefined) throw new Error('no dashboard loaded');
  return first;
}

/** Sets a nested value in a parsed document, failing loudly if the path does not exist. */
function setAt(root: unknown, path: (string | number)[], value: unknown): void {
  const parentPath = path.slice(0, -1);
  const key = path[path.length - 1];
  const parent = at(root, ...parentPath);
  if (typeof parent !== 'object' || parent === null || key === undefined) {
    throw new Error(`cannot set ${path.join('.')}: parent missing`);
  }
  if (value === undefined) {
    delete (parent as Record<string | number, unknown>)[key];
  } else {
    (parent as Record<string | number, unknown>)[key] = value;
  }
}

/** Replaces text in the first dashboard query containing it, failing loudly if none does. */
function editQuery(stack: Stack, from: string, to: string): void {
  for (const panel of list(at(firstDashboard(stack), 'panels'))) {
    for (const target of list(at(panel, 'targets'))) {
      const query = text(at(target, 'query'));
      if (query?.includes(from) === true) {
        rec(target).query = query.replace(from, to);
        return;
      }
    }
  }
  throw new Error(`no dashboard query contains ${from}`);
}
