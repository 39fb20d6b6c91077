// The team set-up in config/examples/team/: the Collector gateway configs hang together (every
// component a pipeline names is defined, of a type the contrib distribution has, auth wired to a
// listed extension, memory_limiter first, trace-id load balancing where replicas must see whole
// traces), and the tempo-distributed values use only keys verified in the pinned chart's
// values.yaml. The real Collector's `validate` over these files is run elsewhere (issue 15);
// these checks say *why* a file is wrong, and each is proven to fail on a broken copy.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const teamDir = join(
  resolve(dirname(fileURLToPath(import.meta.url)), '../..'),
  'config/examples/team',
);
const GATEWAYS = ['gateway.yaml', 'gateway-loadbalanced.yaml'] as const;

const read = (name: string): unknown =>
  parseYaml(readFileSync(join(teamDir, name), 'utf8')) as unknown;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** Component types these files may use, each in otelcol-contrib (by its exact config name). */
const CONTRIB_TYPES = {
  receivers: new Set(['otlp']),
  processors: new Set(['memory_limiter', 'batch', 'tail_sampling']),
  exporters: new Set(['otlp_grpc', 'otlp_http', 'load_balancing']),
  extensions: new Set(['bearertokenauth', 'health_check']),
} as const;
type Kind = keyof typeof CONTRIB_TYPES;

const typeOf = (id: string): string => id.split('/')[0] ?? '';

/** Every `authenticator:` value anywhere under a node. */
function authenticators(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(authenticators);
  if (!isRecord(node)) return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === 'authenticator' && typeof v === 'string' ? [v] : authenticators(v),
  );
}

function collectorProblems(name: string, config: unknown): string[] {
  const problems: string[] = [];
  const root = rec(config);
  for (const kind of Object.keys(CONTRIB_TYPES) as Kind[])
    for (const id of Object.keys(rec(root[kind])))
      if (!CONTRIB_TYPES[kind].has(typeOf(id)))
        problems.push(`${name}: ${kind} ${id} is not a contrib component this set-up uses`);
  const service = rec(root.service);
  const listedExtensions = strings(service.extensions);
  for (const ext of listedExtensions)
    if (rec(root.extensions)[ext] === undefined)
      problems.push(`${name}: service lists extension ${ext}, which is not defined`);
  for (const auth of authenticators([root.receivers, root.exporters]))
    if (!listedExtensions.includes(auth))
      problems.push(`${name}: authenticator ${auth} is not a listed extension`);
  if (authenticators(root.receivers).length === 0)
    problems.push(`${name}: no receiver checks a token`);
  const pipelines = Object.entries(rec(service.pipelines));
  if (pipelines.length === 0) problems.push(`${name}: no pipelines`);
  for (const [pipeline, body] of pipelines) {
    for (const kind of ['receivers', 'processors', 'exporters'] as const)
      for (const id of strings(rec(body)[kind]))
        if (rec(root[kind])[id] === undefined)
          problems.push(`${name}: pipeline ${pipeline} uses undefined ${kind} ${id}`);
    if (strings(rec(body).processors)[0] !== 'memory_limiter')
      problems.push(`${name}: pipeline ${pipeline} does not start with memory_limiter`);
  }
  const batched = pipelines.some(([, body]) => strings(rec(body).processors).includes('batch'));
  if (!batched) problems.push(`${name}: nothing batches before Tempo`);
  return problems;
}

function loadBalancingProblems(config: unknown): string[] {
  const lb = rec(rec(rec(config).exporters).load_balancing);
  const problems: string[] = [];
  if (lb.routing_key !== 'traceID') problems.push('load_balancing does not route by traceID');
  const dns = rec(rec(lb.resolver).dns);
  const peerPort = (
    rec(rec(rec(rec(rec(config).receivers)['otlp/peers']).protocols).grpc).endpoint as
      string | undefined
  )?.split(':')[1];
  if (String(dns.port) !== peerPort)
    problems.push(
      `load_balancing sends to port ${String(dns.port)}, peers listen on ${peerPort ?? '?'}`,
    );
  return problems;
}

/**
 * Key paths read in charts/tempo-distributed/values.yaml of chart 2.14.4 (commit
 * 1dc897ef0eb777c9f63710228121d2063b1518cb). `storage.trace.s3.*` and `tempo.structuredConfig.*`
 * hold free-form Tempo config (the chart's `config` template passes them through).
 */
const VERIFIED_KEYS = new Set([
  'fullnameOverride',
  'reportingEnabled',
  'multitenancyEnabled',
  'traces.otlp.grpc.enabled',
  'distributor.replicas',
  'ingester.replicas',
  'ingester.persistence.enabled',
  'ingester.persistence.size',
  'ingester.config.replication_factor',
  'querier.replicas',
  'queryFrontend.replicas',
  'queryFrontend.config.metrics.max_duration',
  'compactor.replicas',
  'compactor.config.compaction.block_retention',
  'storage.trace.backend',
]);
const FREE_FORM = ['storage.trace.s3.', 'tempo.structuredConfig.'];

function leafPaths(node: unknown, prefix = ''): string[] {
  if (!isRecord(node)) return [prefix];
  return Object.entries(node).flatMap(([k, v]) =>
    leafPaths(v, prefix === '' ? k : `${prefix}.${k}`),
  );
}

function helmValuesProblems(values: unknown): string[] {
  const problems = leafPaths(values)
    .filter((p) => !VERIFIED_KEYS.has(p) && !FREE_FORM.some((f) => p.startsWith(f)))
    .map(
      (p) => `tempo-distributed-values.yaml: ${p} is not a key of the pinned chart's values.yaml`,
    );
  const retention = String(rec(rec(rec(rec(values).compactor).config).compaction).block_retention);
  if (!/^\d+h$/.test(retention) || Number.parseInt(retention, 10) < 30 * 24)
    problems.push(`retention ${retention} is shorter than Claude Code's 30 days`);
  return problems;
}

describe('team gateway configs', () => {
  it.each(GATEWAYS)(
    '%s names only defined contrib components, auth and memory_limiter first',
    (name) => {
      expect(collectorProblems(name, read(name))).toEqual([]);
    },
  );

  it('the replicated gateway load-balances by trace id to its peers port', () => {
    expect(loadBalancingProblems(read('gateway-loadbalanced.yaml'))).toEqual([]);
  });

  it('the Helm values use only keys of the pinned chart and keep a year', () => {
    expect(helmValuesProblems(read('tempo-distributed-values.yaml'))).toEqual([]);
  });
});

describe('the team checks fail on broken copies', () => {
  const broken = (name: string, edit: (c: Record<string, unknown>) => void): unknown => {
    const copy = rec(structuredClone(read(name)));
    edit(copy);
    return copy;
  };
  const pipeline = (c: Record<string, unknown>, p: string): Record<string, unknown> =>
    rec(rec(rec(c.service).pipelines)[p]);

  it('a component that is not in contrib (or misspelt)', () => {
    const c = broken('gateway.yaml', (c) => {
      rec(c.exporters)['otlphttpx/tempo'] = {};
    });
    expect(collectorProblems('gateway.yaml', c).join('\n')).toContain('otlphttpx/tempo is not');
  });
  it('an authenticator not listed under service.extensions', () => {
    const c = broken('gateway.yaml', (c) => {
      rec(c.service).extensions = ['health_check'];
    });
    expect(collectorProblems('gateway.yaml', c).join('\n')).toContain(
      'bearertokenauth/clients is not a listed',
    );
  });
  it('memory_limiter after batch', () => {
    const c = broken('gateway.yaml', (c) => {
      pipeline(c, 'traces').processors = ['batch', 'memory_limiter'];
    });
    expect(collectorProblems('gateway.yaml', c).join('\n')).toContain(
      'does not start with memory_limiter',
    );
  });
  it('a pipeline exporter that is not defined', () => {
    const c = broken('gateway-loadbalanced.yaml', (c) => {
      pipeline(c, 'traces/out').exporters = ['otlp_grpc/jaeger'];
    });
    expect(collectorProblems('x', c).join('\n')).toContain('undefined exporters otlp_grpc/jaeger');
  });
  it('load balancing by service, or to the wrong port', () => {
    const c = broken('gateway-loadbalanced.yaml', (c) => {
      const lb = rec(rec(c.exporters).load_balancing);
      lb.routing_key = 'service';
      rec(rec(lb.resolver).dns).port = 4317;
    });
    const problems = loadBalancingProblems(c).join('\n');
    expect(problems).toContain('does not route by traceID');
    expect(problems).toContain('port 4317, peers listen on 4319');
  });
  it('a Helm key the chart does not have, and a short retention', () => {
    const v = broken('tempo-distributed-values.yaml', (v) => {
      rec(v.ingester).replicaCount = 3;
      rec(rec(rec(v.compactor).config).compaction).block_retention = '336h';
    });
    const problems = helmValuesProblems(v).join('\n');
    expect(problems).toContain('ingester.replicaCount is not a key');
    expect(problems).toContain('retention 336h is shorter');
  });
});
