/**
 * End-to-end against real backends run as plain processes, no container engine: Jaeger v2 and an
 * OpenTelemetry Collector built from their Go modules by test/backends/build.sh.
 *
 * - `ccotel export` of the real fixtures straight to Jaeger (its built-in all-in-one settings,
 *   memory storage), and through the Collector (docker/otel-collector.yaml) to another Jaeger,
 *   with the Collector's Tempo exporter pointed at a stand-in gRPC receiver;
 * - `ccotel watch` on a transcript written line by line, through a Collector into a Jaeger with
 *   persistent Badger storage, read again after that Jaeger restarts;
 * - every trace read back through /api/v3/traces/{id} (raw) must equal `ccotel export --out` for
 *   the same input, span for span; /api/v3/services and /api/v3/operations must list them;
 * - the Collector's own `validate` accepts every collector config the repo ships and refuses
 *   a misspelt exporter and a bad key; Jaeger's `validate` accepts the settings compose gives it;
 * - `ccotel export --schema claude-code` through the Collector set up for the Claude Code Stats
 *   app (config/examples/claude-code-stats/otel-collector.yaml): spans into Jaeger (standing in
 *   for Tempo) and log records into a receiver standing in for Loki's OTLP endpoint, both equal
 *   to `export --out`;
 * - a second Collector build holding the team gateway configs' components (contrib's among them)
 *   validates config/examples/team/gateway*.yaml and refuses wrong settings in them.
 *
 * Without the binaries (no Go) each suite is skipped with the reason; with
 * CCOTEL_REQUIRE_BACKENDS=1 (set by .ci/run when Go is there) a missing binary fails instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decodeOtlpLogsRequest, type DecodedLogRecord } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import {
  probeBackendBinaries,
  probeGatewayCollector,
  runToExit,
  startProcess,
} from '../support/backend-binaries.js';
import type { BackendBinaries, RunningProcess } from '../support/backend-binaries.js';
import {
  describeCliFailure,
  getJsonDocuments,
  pollUntil,
  repoRoot,
  requireBuiltCli,
  runCli,
} from './container-runtime.js';
import {
  flatFromDecoded,
  readTraceBack,
  startCollector,
  startJaeger,
  withoutExactRepeats,
  type RealCollector,
  type RealJaeger,
} from './real-stack.js';
import {
  collectorConfigFile,
  componentTypesUsed,
  composeJaegerSettings,
  readYaml,
  toYaml,
  withBadgerStorage,
} from './stack-config.js';
import {
  expectSameSpans,
  expectTurnTrace,
  groupByTrace,
  readExportFile,
  subagentSpans,
  type FlatSpan,
  type SpanComparison,
} from './trace-tree.js';

const probe = probeBackendBinaries();
const gateway = probeGatewayCollector();
const required = process.env.CCOTEL_REQUIRE_BACKENDS === '1';
if (!probe.available) {
  console.warn(`[e2e] real backends: ${required ? 'FAILING' : 'SKIPPED'}, ${probe.reason}.`);
}
if (!gateway.available) {
  console.warn(`[e2e] gateway Collector: ${required ? 'FAILING' : 'SKIPPED'}, ${gateway.reason}.`);
}

const SETUP_TIMEOUT_MS = 240_000;
const REAL_FIXTURES = join(repoRoot, 'fixtures/real');
const REAL_LAYOUT = join(repoRoot, 'fixtures/real-layout');
/** Jaeger v2's memory store keeps OTLP as is, after its write-time sanitizers. */
const MEMORY_STORE: SpanComparison = { jaegerDurationSanitizer: true };
/** Badger (a v1 store) also turns links into v1 references (see SpanComparison). */
const V1_STORE: SpanComparison = { jaegerDurationSanitizer: true, linksAsJaegerReferences: true };

/** A real 2.1.38 session with a Task (Plan) sub-agent, replayed line by line for `watch`. */
const WATCHED_FIXTURE = join(
  REAL_FIXTURES,
  'marot_spotter__test_fixtures_transcripts__subagent.jsonl',
);

// Defined only where it applies, so a machine without Go counts no extra skipped test.
if (!probe.available && required) {
  describe('real backends (required here)', () => {
    it('has the binaries test/backends/build.sh builds', () => {
      expect.fail(`CCOTEL_REQUIRE_BACKENDS=1 but ${probe.reason}`);
    });
  });
}
if (!gateway.available && required) {
  describe('gateway Collector (required here)', () => {
    it('has the otelcol-gateway binary test/backends/build.sh builds', () => {
      expect.fail(`CCOTEL_REQUIRE_BACKENDS=1 but ${gateway.reason}`);
    });
  });
}

/**
 * The real transcripts, each session once: the on-disk layout captures (with their sub-agent
 * files), then the flat files of fixtures/real that are neither a sub-agent file nor a session
 * already in the layout captures (the same session twice would be the same trace ids twice).
 */
async function realInputs(): Promise<string[]> {
  const layoutFiles = (await readdir(REAL_LAYOUT, { recursive: true })).map(String);
  const layoutSessions = new Set(
    layoutFiles.filter((f) => f.endsWith('.jsonl')).map((f) => basename(f, '.jsonl')),
  );
  const flat = (await readdir(REAL_FIXTURES))
    .filter((f) => f.endsWith('.jsonl') && !f.includes('__subagents__'))
    .filter((f) => ![...layoutSessions].some((id) => f.endsWith(`${id}.jsonl`)))
    .map((f) => join(REAL_FIXTURES, f));
  return [REAL_LAYOUT, ...flat];
}

/** What `ccotel export --out` writes for these inputs, by trace id. */
async function exportOut(
  work: string,
  name: string,
  inputs: string[],
): Promise<Map<string, FlatSpan[]>> {
  const outFile = join(work, `${name}.jsonl`);
  const run = await runCli([
    'export',
    '--out',
    outFile,
    '--state-dir',
    join(work, `state-${name}`),
    ...inputs,
  ]);
  if (run.code !== 0) throw new Error(describeCliFailure(`ccotel export --out (${name})`, run));
  const traces = groupByTrace(await readExportFile(outFile));
  if (traces.size === 0)
    throw new Error(`ccotel export --out wrote no spans for ${inputs.join(' ')}`);
  return traces;
}

async function exportLive(
  work: string,
  name: string,
  endpoint: string,
  inputs: string[],
): Promise<void> {
  const run = await runCli([
    'export',
    '--endpoint',
    endpoint,
    '--state-dir',
    join(work, `state-${name}`),
    '--quiet',
    ...inputs,
  ]);
  if (run.code !== 0) throw new Error(describeCliFailure(`ccotel export to ${name}`, run));
}

/** Every expected trace read back from Jaeger and compared span for span. */
async function expectJaegerHolds(
  jaeger: RealJaeger,
  expected: Map<string, FlatSpan[]>,
  label: string,
  comparison: SpanComparison = MEMORY_STORE,
): Promise<void> {
  for (const [traceId, spans] of expected) {
    const got = await readTraceBack(jaeger, traceId, spans.length);
    expectSameSpans(`${label}, trace ${traceId}`, got, spans, comparison);
  }
}

function sortedNames(spans: Iterable<FlatSpan>): string[] {
  return [...new Set([...spans].map((s) => s.name))].sort();
}

/** The Collector set-up for the Claude Code Stats app (docs/native-telemetry.md). */
const STATS_COLLECTOR = join(repoRoot, 'config/examples/claude-code-stats/otel-collector.yaml');

/**
 * Collector-shaped configs the repo ships (YAML with receivers, exporters and a service) under
 * docker/ and config/examples/, split into Jaeger's (they use Jaeger's own `jaeger_*` components,
 * such as docker/jaeger.yaml), the Collector's (only components docker/otel-collector.yaml uses,
 * which otelcol-ccotel holds) and the gateway Collector's (the rest: the team gateways). Read
 * when the tests are collected, so each file is its own test.
 */
function collectorShapedConfigs(): { collector: string[]; gateway: string[]; jaeger: string[] } {
  const found = { collector: [] as string[], gateway: [] as string[], jaeger: [] as string[] };
  const inStackCollector = stackCollectorComponents();
  for (const dir of ['docker', 'config/examples']) {
    for (const file of readdirSync(join(repoRoot, dir), { recursive: true }).map(String).sort()) {
      if (!/\.ya?ml$/.test(file)) continue;
      const doc: unknown = parse(readFileSync(join(repoRoot, dir, file), 'utf8'));
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) continue;
      const config = doc as Record<string, unknown>;
      if (!['receivers', 'exporters', 'service'].every((k) => k in config)) continue;
      const used = componentTypesUsed(config);
      const types = Object.values(used).flat();
      const fitsStackCollector = Object.entries(used).every(([kind, ofKind]) =>
        ofKind.every((type) => inStackCollector[kind]?.includes(type) === true),
      );
      const group = types.some((type) => type.startsWith('jaeger_'))
        ? found.jaeger
        : fitsStackCollector
          ? found.collector
          : found.gateway;
      group.push(join(dir, file));
    }
  }
  return found;
}
const shippedConfigs = collectorShapedConfigs();

/**
 * What otelcol-ccotel holds: the components docker/otel-collector.yaml and the Claude Code
 * Stats set-up use, by kind.
 */
function stackCollectorComponents(): Record<string, string[]> {
  const stack = componentTypesUsed(readYaml(collectorConfigFile));
  const stats = componentTypesUsed(readYaml(STATS_COLLECTOR));
  const union: Record<string, string[]> = {};
  for (const kind of Object.keys(stack))
    union[kind] = [...new Set([...(stack[kind] ?? []), ...(stats[kind] ?? [])])].sort();
  return union;
}

type Yaml = Record<string, unknown>;

/** The version test/backends/<module>/go.mod pins for a module path. */
async function pinned(module: string, path: string): Promise<string> {
  const goMod = await readFile(join(repoRoot, 'test/backends', module, 'go.mod'), 'utf8');
  const escaped = path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod);
  if (match?.[1] === undefined) throw new Error(`test/backends/${module}/go.mod pins no ${path}`);
  return match[1];
}

/** Every module path and version a test/backends/<module>/go.mod requires. */
async function requiredModules(module: string): Promise<Map<string, string>> {
  const goMod = await readFile(join(repoRoot, 'test/backends', module, 'go.mod'), 'utf8');
  const found = new Map<string, string>();
  for (const match of goMod.matchAll(/^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+\/\S+)\s+(v\S+)/gm)) {
    if (match[1] !== undefined && match[2] !== undefined) found.set(match[1], match[2]);
  }
  return found;
}

/** `<binary> components`, by kind: the component types the build holds, sorted. */
async function componentsBuilt(binary: string): Promise<Record<string, string[]>> {
  const result = await runToExit(binary, ['components']);
  if (result.code !== 0)
    throw new Error(`${binary} components (${result.code}):\n${result.output}`);
  const listed = parse(result.output) as Record<string, { name: string }[] | undefined>;
  const built: Record<string, string[]> = {};
  for (const kind of ['receivers', 'processors', 'exporters', 'connectors', 'extensions']) {
    built[kind] = (listed[kind] ?? []).map((c) => c.name).sort();
  }
  return built;
}

describe.skipIf(!probe.available)(`real backends, no containers (${probe.reason})`, () => {
  const binaries = (probe.available ? probe.binaries : undefined) as BackendBinaries;
  let work = '';
  let inputs: string[] = [];
  let expected = new Map<string, FlatSpan[]>();
  const running: { stop(): Promise<unknown> }[] = [];

  beforeAll(async () => {
    requireBuiltCli();
    work = await mkdtemp(join(tmpdir(), 'ccotel-real-backends-'));
    inputs = await realInputs();
    expected = await exportOut(work, 'expected', inputs);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const proc of running.reverse()) await proc.stop();
    if (work !== '') await rm(work, { recursive: true, force: true });
  }, 60_000);

  it('exports real fixtures with sub-agents (the traces the tests below read back)', () => {
    const all = [...expected.values()];
    const withSubagents = all.filter((spans) => subagentSpans(spans).length > 0);
    expect(withSubagents.length, 'traces with a sub-agent span').toBeGreaterThanOrEqual(2);
    console.info(
      `[e2e] real backends: ${inputs.length} inputs, ${expected.size} traces, ` +
        `${all.flat().length} spans, ${withSubagents.length} traces with sub-agents`,
    );
    for (const [traceId, spans] of expected) expectTurnTrace(traceId, spans);
    const links = all.flat().flatMap((s) => s.links);
    expect(links.length, 'turn-to-turn links').toBeGreaterThan(0);
  });

  describe('straight to Jaeger (its built-in all-in-one settings, memory storage)', () => {
    let jaeger: RealJaeger | undefined;

    beforeAll(async () => {
      const settings = readYaml(binaries.jaegerAllInOne);
      jaeger = await startJaeger(
        binaries,
        settings,
        join(work, 'jaeger-direct'),
        'jaeger (memory)',
      );
      running.push(jaeger);
      await exportLive(work, 'direct', jaeger.otlpHttp, inputs);
    }, SETUP_TIMEOUT_MS);

    it(
      'stores every trace exactly as `export --out` wrote it',
      async () => {
        if (jaeger === undefined) throw new Error('Jaeger did not start');
        await expectJaegerHolds(jaeger, expected, 'Jaeger direct');
      },
      SETUP_TIMEOUT_MS,
    );

    it('lists the service and every span name through /api/v3/services and /api/v3/operations', async () => {
      if (jaeger === undefined) throw new Error('Jaeger did not start');
      const services = await getJsonDocuments(`${jaeger.queryBase}/api/v3/services`);
      // "jaeger" is Jaeger tracing its own query API into itself, as in the compose stack.
      const listed = (services?.[0] as { services?: string[] }).services ?? [];
      expect(listed).toContain('claude-code');
      expect(listed.filter((name) => name !== 'jaeger')).toEqual(['claude-code']);
      const operations = await getJsonDocuments(
        `${jaeger.queryBase}/api/v3/operations?service=claude-code`,
      );
      const operationsListed = (
        operations?.[0] as { operations?: { name: string; spanKind: string }[] }
      ).operations;
      const spans = [...expected.values()].flat();
      expect([...new Set(operationsListed?.map((op) => op.name))].sort()).toEqual(
        sortedNames(spans),
      );
      const kinds = (name: string): string[] =>
        [...new Set(spans.filter((s) => s.name === name).map((s) => s.kind.toLowerCase()))].sort();
      for (const op of operationsListed ?? []) {
        expect(kinds(op.name), `span kind of ${op.name}`).toContain(op.spanKind.toLowerCase());
      }
    });
  });

  describe('through the Collector (docker/otel-collector.yaml) to Jaeger and the Tempo stand-in', () => {
    let jaeger: RealJaeger | undefined;
    let collector: RealCollector | undefined;

    beforeAll(async () => {
      const settings = readYaml(binaries.jaegerAllInOne);
      jaeger = await startJaeger(
        binaries,
        settings,
        join(work, 'jaeger-collector'),
        'jaeger (behind the Collector)',
      );
      running.push(jaeger);
      collector = await startCollector(binaries, jaeger, join(work, 'collector'));
      running.push(collector);
      await exportLive(work, 'collector', collector.otlpHttp, inputs);
    }, SETUP_TIMEOUT_MS);

    it(
      'Jaeger stores every trace exactly as `export --out` wrote it',
      async () => {
        if (jaeger === undefined) throw new Error('Jaeger did not start');
        await expectJaegerHolds(jaeger, expected, 'Collector -> Jaeger');
      },
      SETUP_TIMEOUT_MS,
    );

    it(
      'the Tempo exporter sends the same spans',
      async () => {
        const tempo = collector?.tempo;
        if (tempo === undefined) throw new Error('the Collector did not start');
        const count = [...expected.values()].reduce((n, spans) => n + spans.length, 0);
        const got = await pollUntil(
          `${count} spans at the Tempo stand-in`,
          async () => {
            const spans = withoutExactRepeats(tempo.spans().map(flatFromDecoded));
            return spans.length >= count ? spans : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 250 },
        );
        const byTrace = groupByTrace(got);
        expect([...byTrace.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [traceId, spans] of expected) {
          expectSameSpans(
            `Collector -> Tempo stand-in, trace ${traceId}`,
            byTrace.get(traceId) ?? [],
            spans,
          );
        }
      },
      SETUP_TIMEOUT_MS,
    );
  });

  describe('`export --schema claude-code` through the Claude Code Stats Collector set-up to Jaeger and a Loki stand-in', () => {
    let jaeger: RealJaeger | undefined;
    let loki: OtlpReceiver | undefined;
    let expectedSpans = new Map<string, FlatSpan[]>();
    let expectedLogs: DecodedLogRecord[] = [];

    beforeAll(async () => {
      jaeger = await startJaeger(
        binaries,
        readYaml(binaries.jaegerAllInOne),
        join(work, 'jaeger-claude-code'),
        'jaeger (claude-code schema)',
      );
      running.push(jaeger);
      loki = await startOtlpReceiver();
      running.push(loki);
      const collector = await startCollector(binaries, jaeger, join(work, 'collector-cc'), {
        config: readYaml(STATS_COLLECTOR),
        targets: { tempo: jaeger.otlpGrpc, loki: loki.url },
      });
      running.push(collector);
      const outFile = join(work, 'claude-code.jsonl');
      const schema = ['--schema', 'claude-code'];
      const out = await runCli([
        'export',
        ...schema,
        '--out',
        outFile,
        '--state-dir',
        join(work, 'state-cc-out'),
        WATCHED_FIXTURE,
      ]);
      if (out.code !== 0)
        throw new Error(describeCliFailure('ccotel export --out (claude-code)', out));
      expectedSpans = groupByTrace(await readExportFile(outFile));
      expectedLogs = (await readFile(outFile, 'utf8'))
        .split('\n')
        .filter((line) => line.startsWith('{"resourceLogs"'))
        .flatMap((line) => decodeOtlpLogsRequest(Buffer.from(line), 'json'));
      const sent = await runCli([
        'export',
        ...schema,
        '--endpoint',
        collector.otlpHttp,
        '--state-dir',
        join(work, 'state-cc'),
        '--quiet',
        WATCHED_FIXTURE,
      ]);
      if (sent.code !== 0) throw new Error(describeCliFailure('ccotel export (claude-code)', sent));
    }, SETUP_TIMEOUT_MS);

    it(
      "Jaeger holds Claude Code's span tree exactly as `export --out` wrote it",
      async () => {
        if (jaeger === undefined) throw new Error('Jaeger did not start');
        await expectJaegerHolds(jaeger, expectedSpans, 'claude-code schema -> Jaeger');
        const all = [...expectedSpans.values()].flat();
        const roots = all.filter((s) => s.parentSpanId === '');
        expect(new Set(roots.map((s) => s.name))).toEqual(new Set(['claude_code.interaction']));
        expect(roots.length).toBe(expectedSpans.size);
        // The sub-agent's requests hang under the call that spawned it.
        const byId = new Map(all.map((s) => [s.spanId, s]));
        const nested = all.filter((s) => s.attributes['llm_request.context'] === 'tool');
        expect(nested.length).toBeGreaterThan(0);
        for (const s of nested) expect(byId.get(s.parentSpanId)?.name).toBe('claude_code.tool');
      },
      SETUP_TIMEOUT_MS,
    );

    it(
      "the events reach Loki's OTLP endpoint as `export --out` wrote them",
      async () => {
        const receiver = loki;
        if (receiver === undefined) throw new Error('the Loki stand-in did not start');
        expect(expectedLogs.length).toBeGreaterThan(10);
        const got = await pollUntil(
          `${expectedLogs.length} log records at the Loki stand-in`,
          () =>
            Promise.resolve(
              receiver.logs().length >= expectedLogs.length ? receiver.logs() : undefined,
            ),
          { timeoutMs: 60_000, intervalMs: 250 },
        );
        const uid = (l: DecodedLogRecord): string => String(l.attributes['log.record.uid']);
        const byUid = (logs: DecodedLogRecord[]) =>
          [...logs].sort((a, b) => (uid(a) < uid(b) ? -1 : 1));
        expect(byUid(got)).toEqual(byUid(expectedLogs));
      },
      SETUP_TIMEOUT_MS,
    );
  });

  describe('`ccotel watch` through the Collector into Jaeger with persistent Badger storage', () => {
    let jaeger: RealJaeger | undefined;
    let collector: RealCollector | undefined;
    let watched = new Map<string, FlatSpan[]>();
    let storage = '';
    let watcher: RunningProcess | undefined;

    beforeAll(async () => {
      const compose = composeJaegerSettings(binaries.jaegerAllInOne);
      // The compose stack's own settings when they already keep traces on disk; otherwise the
      // same settings with the primary store swapped for Badger.
      const settings =
        compose.storageKind === 'badger' ? compose.config : withBadgerStorage(compose.config);
      storage =
        compose.storageKind === 'badger'
          ? compose.source
          : `${compose.source}, storage swapped for Badger`;
      jaeger = await startJaeger(
        binaries,
        settings,
        join(work, 'jaeger-badger'),
        'jaeger (badger)',
        compose.environment,
      );
      running.push(jaeger);
      collector = await startCollector(binaries, jaeger, join(work, 'collector-watch'));
      running.push(collector);

      const projects = join(work, 'watch-projects');
      const project = join(projects, '-home-dev-spotter');
      await mkdir(project, { recursive: true });
      const watch = startProcess(
        'ccotel watch',
        process.execPath,
        [
          join(repoRoot, 'dist/cli/main.js'),
          'watch',
          '--projects-dir',
          projects,
          '--state-dir',
          join(work, 'state-watch'),
          '--endpoint',
          collector.otlpHttp,
          '--log-level',
          'debug',
          // The fixture's last turn has no turn_duration: its root leaves once the
          // session is quiet this long (docs/spans.md, When a span is final).
          '--idle-timeout',
          '2s',
        ],
        { NO_COLOR: '1' },
      );
      running.push(watch);
      watcher = watch;
      await pollUntil(
        'ccotel watch to log its start',
        async () => (watch.output().includes('"watching"') ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 100 },
      );

      const lines = (await readFile(WATCHED_FIXTURE, 'utf8')).split('\n').filter((l) => l !== '');
      const sessionId =
        (JSON.parse(lines[1] ?? '{}') as { sessionId?: string }).sessionId ?? 'session';
      const file = join(project, `${sessionId}.jsonl`);
      await writeFile(file, '');
      for (const line of lines) {
        await appendFile(file, `${line}\n`);
        await sleep(5);
      }
      watched = await exportOut(work, 'watched', [projects]);
      for (const [traceId, spans] of watched)
        await readTraceBack(jaeger, traceId, spans.length, 90_000);
    }, SETUP_TIMEOUT_MS);

    it(
      'Jaeger holds what `export --out` writes for the same transcript',
      async () => {
        if (jaeger === undefined) throw new Error('Jaeger did not start');
        expect(subagentSpans([...watched.values()].flat()).length).toBeGreaterThan(0);
        await expectJaegerHolds(
          jaeger,
          watched,
          `watch -> Collector -> Jaeger (${storage})`,
          V1_STORE,
        );
      },
      SETUP_TIMEOUT_MS,
    );

    it('`ccotel watch` stops cleanly on SIGTERM with nothing left undelivered', async () => {
      if (watcher === undefined) throw new Error('ccotel watch did not start');
      const exit = await watcher.stop();
      expect(exit, watcher.output()).toBe(0);
      expect(watcher.output()).toMatch(/"stopped".*"undeliveredSpans":0/);
    });

    it('the Tempo exporter sent the same spans', async () => {
      const tempo = collector?.tempo;
      if (tempo === undefined) throw new Error('the Collector did not start');
      const byTrace = groupByTrace(withoutExactRepeats(tempo.spans().map(flatFromDecoded)));
      for (const [traceId, spans] of watched) {
        expectSameSpans(
          `watch -> Tempo stand-in, trace ${traceId}`,
          byTrace.get(traceId) ?? [],
          spans,
        );
      }
    });

    it(
      'keeps every trace through a restart of Jaeger',
      async () => {
        if (jaeger === undefined) throw new Error('Jaeger did not start');
        // Nothing sends any more: the Collector's open gRPC connection would hold up Jaeger's
        // graceful shutdown.
        await collector?.stop();
        await jaeger.restart();
        console.info(
          `[e2e] Jaeger (Badger) stopped cleanly in ${jaeger.lastStopMs} ms and started again`,
        );
        await expectJaegerHolds(jaeger, watched, `after a restart (${storage})`, V1_STORE);
      },
      SETUP_TIMEOUT_MS,
    );
  });

  describe('settings checked by the real binaries', () => {
    async function validate(config: string): Promise<{ code: number | string; output: string }> {
      return runToExit(binaries.otelcol, ['validate', `--config=${config}`]);
    }

    async function mutated(
      name: string,
      change: (config: Record<string, unknown>) => void,
    ): Promise<string> {
      const config = readYaml(collectorConfigFile);
      change(config);
      const file = join(work, `${name}.yaml`);
      await writeFile(file, toYaml(config));
      return file;
    }

    it('the binaries are the pinned releases, the Collector the one compose runs', async () => {
      const jaegerVersion = await runToExit(binaries.jaeger, ['version']);
      expect(jaegerVersion.output).toContain(
        `"gitVersion":"${await pinned('jaeger', 'github.com/jaegertracing/jaeger')}"`,
      );
      const collectorPin = await pinned('otelcol', 'go.opentelemetry.io/collector/otelcol');
      const collectorVersion = await runToExit(binaries.otelcol, ['--version']);
      expect(collectorVersion.output.trim()).toBe(
        `otelcol-ccotel version ${collectorPin.slice(1)}`,
      );
      const compose = await readFile(join(repoRoot, 'docker/compose.yaml'), 'utf8');
      expect(compose).toContain(`otel/opentelemetry-collector-contrib:${collectorPin.slice(1)}`);
    });

    it('finds docker/otel-collector.yaml among the collector configs it validates', () => {
      expect(shippedConfigs.collector).toContain('docker/otel-collector.yaml');
    });

    // Configs with components beyond docker/otel-collector.yaml's (the team gateways) are the
    // gateway Collector's, below.
    for (const config of shippedConfigs.collector) {
      it(`the Collector validates ${config}`, async () => {
        const result = await validate(join(repoRoot, config));
        expect(result.code, `otelcol validate ${config}:\n${result.output}`).toBe(0);
      });
    }

    for (const config of shippedConfigs.jaeger) {
      it(`Jaeger validates ${config}`, async () => {
        const { environment } = composeJaegerSettings(binaries.jaegerAllInOne);
        const file = join(repoRoot, config);
        const result = await runToExit(
          binaries.jaeger,
          ['validate', `--config=${file}`],
          environment,
        );
        expect(result.code, `jaeger validate ${config}:\n${result.output}`).toBe(0);
      });
    }

    it('the Collector build holds exactly the components docker/otel-collector.yaml and the Claude Code Stats set-up use', async () => {
      expect(await componentsBuilt(binaries.otelcol)).toEqual(stackCollectorComponents());
    });

    it('the Collector refuses a misspelt exporter in the pipeline', async () => {
      const file = await mutated('misspelt-exporter', (config) => {
        const traces = (config.service as { pipelines: { traces: { exporters: string[] } } })
          .pipelines.traces;
        traces.exporters = traces.exporters.map((id) => id.replace('jaeger', 'jaegre'));
      });
      const result = await validate(file);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('otlp_grpc/jaegre');
    });

    it('the Collector refuses an unknown exporter type', async () => {
      const file = await mutated('unknown-exporter-type', (config) => {
        const exporters = config.exporters as Record<string, unknown>;
        exporters['otlp_grcp/jaeger'] = exporters['otlp_grpc/jaeger'];
        delete exporters['otlp_grpc/jaeger'];
        const traces = (config.service as { pipelines: { traces: { exporters: string[] } } })
          .pipelines.traces;
        traces.exporters = traces.exporters.map((id) =>
          id.replace('otlp_grpc/jaeger', 'otlp_grcp/jaeger'),
        );
      });
      const result = await validate(file);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('otlp_grcp');
    });

    it('the Collector refuses a bad key in an exporter', async () => {
      const file = await mutated('bad-key', (config) => {
        const jaeger = (config.exporters as Record<string, Record<string, unknown>>)[
          'otlp_grpc/jaeger'
        ];
        if (jaeger === undefined)
          throw new Error('docker/otel-collector.yaml has no otlp_grpc/jaeger');
        jaeger.endpont = jaeger.endpoint;
        delete jaeger.endpoint;
      });
      const result = await validate(file);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('endpont');
    });

    it('Jaeger validates the settings compose gives it', async () => {
      const compose = composeJaegerSettings(binaries.jaegerAllInOne);
      const result = await runToExit(
        binaries.jaeger,
        ['validate', `--config=${compose.file}`],
        compose.environment,
      );
      expect(result.code, `jaeger validate (${compose.source}):\n${result.output}`).toBe(0);
    });

    it('Jaeger refuses a bad key in its storage settings', async () => {
      const compose = composeJaegerSettings(binaries.jaegerAllInOne);
      const config = structuredClone(compose.config);
      const storage = (config.extensions as Record<string, Record<string, unknown>>).jaeger_storage;
      const backends = storage?.backends as Record<string, Record<string, unknown>> | undefined;
      const primary = Object.values(backends ?? {})[0];
      if (primary === undefined) throw new Error(`${compose.source} has no storage backend`);
      primary.max_tracez = 1;
      const file = join(work, 'jaeger-bad-key.yaml');
      await writeFile(file, toYaml(config));
      const result = await runToExit(
        binaries.jaeger,
        ['validate', `--config=${file}`],
        compose.environment,
      );
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('max_tracez');
    });
  });
});

describe.skipIf(!gateway.available)(
  `team gateway configs checked by the real Collector (${gateway.reason})`,
  () => {
    const binary = gateway.available ? gateway.binary : '';
    const PLAIN = 'config/examples/team/gateway.yaml';
    const LOADBALANCED = 'config/examples/team/gateway-loadbalanced.yaml';
    let work = '';

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'ccotel-gateway-validate-'));
    });

    afterAll(async () => {
      if (work !== '') await rm(work, { recursive: true, force: true });
    });

    async function validate(file: string): Promise<{ code: number | string; output: string }> {
      return runToExit(binary, ['validate', `--config=${file}`]);
    }

    /** A shipped gateway config with one change, written to the temp dir. */
    async function mutated(
      source: string,
      name: string,
      change: (config: Record<string, unknown>) => void,
    ): Promise<string> {
      const config = readYaml(join(repoRoot, source));
      change(config);
      const file = join(work, `${name}.yaml`);
      await writeFile(file, toYaml(config));
      return file;
    }

    function section(config: Record<string, unknown>, kind: string, id: string): Yaml {
      const found = (config[kind] as Record<string, Yaml | undefined> | undefined)?.[id];
      if (found === undefined) throw new Error(`no ${kind}.${id} in the gateway config`);
      return found;
    }

    it('finds both team gateway configs among the configs the repo ships', () => {
      expect(shippedConfigs.gateway).toEqual([LOADBALANCED, PLAIN]);
    });

    it('is the release the other Collector is, every collector and contrib module at it', async () => {
      const release = await pinned('otelcol', 'go.opentelemetry.io/collector/otelcol');
      const stable = await pinned('otelcol', 'go.opentelemetry.io/collector/component');
      const version = await runToExit(binary, ['--version']);
      expect(version.output.trim()).toBe(`otelcol-gateway version ${release.slice(1)}`);
      const stack = await requiredModules('otelcol');
      const own = await requiredModules('otelcol-gateway');
      const contrib = [...own].filter(([path]) =>
        path.startsWith('github.com/open-telemetry/opentelemetry-collector-contrib/'),
      );
      expect(contrib.length, 'contrib modules').toBeGreaterThan(0);
      for (const [path, pin] of contrib) expect(pin, path).toBe(release);
      for (const [path, pin] of own) {
        if (!path.startsWith('go.opentelemetry.io/collector')) continue;
        const inStack = stack.get(path);
        if (inStack === undefined) expect([release, stable], path).toContain(pin);
        else expect(pin, path).toBe(inStack);
      }
    });

    it('holds exactly the components the team gateway configs use', async () => {
      const used: Record<string, string[]> = {};
      for (const config of shippedConfigs.gateway) {
        for (const [kind, types] of Object.entries(
          componentTypesUsed(readYaml(join(repoRoot, config))),
        )) {
          used[kind] = [...new Set([...(used[kind] ?? []), ...types])].sort();
        }
      }
      expect(await componentsBuilt(binary)).toEqual(used);
    });

    for (const config of shippedConfigs.gateway) {
      it(`the gateway Collector validates ${config}`, async () => {
        const result = await validate(join(repoRoot, config));
        expect(result.code, `otelcol-gateway validate ${config}:\n${result.output}`).toBe(0);
      });
    }

    it('refuses a misspelt key in the bearer token extension', async () => {
      const file = await mutated(PLAIN, 'bearer-bad-key', (config) => {
        const auth = section(config, 'extensions', 'bearertokenauth/clients');
        auth.filenmae = auth.filename;
        delete auth.filename;
      });
      const result = await validate(file);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('filenmae');
    });

    it('refuses a spike limit at the memory limit', async () => {
      const file = await mutated(PLAIN, 'memory-spike', (config) => {
        const limiter = section(config, 'processors', 'memory_limiter');
        limiter.spike_limit_percentage = limiter.limit_percentage;
      });
      const result = await validate(file);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('spike_limit_percentage');
    });

    it('refuses a misspelt key in the load_balancing resolver', async () => {
      const file = await mutated(LOADBALANCED, 'load-balancing-bad-key', (config) => {
        const exporter = section(config, 'exporters', 'load_balancing');
        const dns = (exporter.resolver as { dns: Yaml }).dns;
        dns.hostnme = dns.hostname;
        delete dns.hostname;
      });
      const result = await validate(file);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('hostnme');
    });

    it('refuses routing attributes beside routing by trace id', async () => {
      const file = await mutated(LOADBALANCED, 'load-balancing-routing', (config) => {
        section(config, 'exporters', 'load_balancing').routing_attributes = ['host.name'];
      });
      const result = await validate(file);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('routing_attributes can only be used');
    });

    it('refuses a pipeline that names an exporter the config does not define', async () => {
      const file = await mutated(LOADBALANCED, 'misspelt-pipeline-exporter', (config) => {
        const pipelines = (config.service as { pipelines: Record<string, { exporters: string[] }> })
          .pipelines;
        const incoming = pipelines['traces/in'];
        if (incoming === undefined) throw new Error(`${LOADBALANCED} has no traces/in pipeline`);
        incoming.exporters = ['loadbalancer'];
      });
      const result = await validate(file);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('loadbalancer');
    });
  },
);
