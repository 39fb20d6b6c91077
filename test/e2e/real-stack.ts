// Starting the real backends for test/e2e/real-backends.test.ts: Jaeger v2 and the Collector as
// plain processes on free loopback ports, with the settings of stack-config.ts, and reading
// traces back through Jaeger's api_v3.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BackendBinaries, RunningProcess } from '../support/backend-binaries.js';
import { startProcess, waitForHttpOk } from '../support/backend-binaries.js';
import type { DecodedSpan } from '../support/otlp-decode.js';
import { startOtlpGrpcReceiver, type OtlpGrpcReceiver } from '../support/otlp-grpc-receiver.js';
import { getJsonDocuments, pollUntil } from './container-runtime.js';
import {
  portOf,
  runnableCollector,
  runnableJaeger,
  toYaml,
  type RelocatedConfig,
} from './stack-config.js';
import { spansFromOtlpJson, type AttributeValue, type FlatSpan } from './trace-tree.js';

const READY_TIMEOUT_MS = 90_000;

export interface RealJaeger {
  /** Base URL for `ccotel export --endpoint` (OTLP/HTTP). */
  readonly otlpHttp: string;
  /** host:port of the OTLP gRPC receiver, for the Collector's exporter. */
  readonly otlpGrpc: string;
  readonly queryBase: string;
  readonly process: RunningProcess;
  /** Stops the process cleanly and starts it again with the same settings and data dir. */
  restart(): Promise<void>;
  /** How long the last clean stop took (ms), for the test log. */
  readonly lastStopMs: number;
  stop(): Promise<void>;
}

/**
 * A port picked free can be taken by another process on this shared machine before the backend
 * binds it; then the backend exits at once saying so, and a second try picks new ports.
 */
async function retryOnPortClash<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      const clash = error instanceof Error && error.message.includes('address already in use');
      if (!clash || attempt >= attempts) throw error;
    }
  }
}

/** `environment`: what compose sets for the service (its settings may read ${env:NAME}). */
export function startJaeger(
  binaries: BackendBinaries,
  settings: Record<string, unknown>,
  workDir: string,
  name: string,
  environment: Readonly<Record<string, string>> = {},
): Promise<RealJaeger> {
  return retryOnPortClash(() => startJaegerOnce(binaries, settings, workDir, name, environment));
}

async function startJaegerOnce(
  binaries: BackendBinaries,
  settings: Record<string, unknown>,
  workDir: string,
  name: string,
  environment: Readonly<Record<string, string>>,
): Promise<RealJaeger> {
  const relocated = await runnableJaeger(settings, join(workDir, 'data'));
  await mkdir(workDir, { recursive: true });
  const configFile = join(workDir, 'jaeger.yaml');
  await writeFile(configFile, toYaml(relocated.config));
  const health = `http://127.0.0.1:${portOf(relocated, 'extensions.healthcheckv2.http')}/status`;
  const grpcPort = portOf(relocated, 'receivers.otlp.protocols.grpc');
  const launch = async (): Promise<RunningProcess> => {
    // Jaeger traces its own query API to OTEL_EXPORTER_OTLP_ENDPOINT, by default localhost:4317,
    // which in the all-in-one image is itself: keep it so (its own receiver, not whatever else
    // listens on 4317 here). Its receiver stops before its tracer flushes, so a stop waited out
    // the exporter's 10 s timeout; export sooner and give up sooner. Jaeger's own telemetry only.
    const proc = startProcess(name, binaries.jaeger, [`--config=${configFile}`], {
      ...environment,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${grpcPort}`,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
    });
    await waitForHttpOk(proc, health, READY_TIMEOUT_MS);
    return proc;
  };
  let proc = await launch();
  let stopMs = 0;
  return {
    otlpHttp: `http://127.0.0.1:${portOf(relocated, 'receivers.otlp.protocols.http')}`,
    otlpGrpc: `127.0.0.1:${grpcPort}`,
    queryBase: `http://127.0.0.1:${portOf(relocated, 'extensions.jaeger_query.http')}`,
    get process() {
      return proc;
    },
    async restart() {
      // A clean shutdown first: a restart after SIGKILL would test Badger's crash recovery.
      const started = Date.now();
      const exit = await proc.stop(30_000);
      if (exit !== 0) throw new Error(`${name} exited ${exit} on SIGTERM:\n${proc.output()}`);
      stopMs = Date.now() - started;
      proc = await launch();
    },
    get lastStopMs() {
      return stopMs;
    },
    async stop() {
      await proc.stop();
    },
  };
}

export interface RealCollector {
  readonly otlpHttp: string;
  readonly process: RunningProcess;
  /** The stand-in for Tempo: the Collector's `otlp_grpc/tempo` exporter sends here. */
  readonly tempo: OtlpGrpcReceiver;
  readonly relocated: RelocatedConfig;
  stop(): Promise<void>;
}

/** docker/otel-collector.yaml with `jaeger` pointed at a real Jaeger and `tempo` at a receiver. */
/** Another collector config than docker/otel-collector.yaml, and targets for its exporters. */
export interface CollectorChoice {
  config: Record<string, unknown>;
  /** By the exporter's name after the slash; over `jaeger` and `tempo` (the stand-in). */
  targets: Record<string, string>;
}

export function startCollector(
  binaries: BackendBinaries,
  jaeger: RealJaeger,
  workDir: string,
  choice?: CollectorChoice,
): Promise<RealCollector> {
  return retryOnPortClash(() => startCollectorOnce(binaries, jaeger, workDir, choice));
}

async function startCollectorOnce(
  binaries: BackendBinaries,
  jaeger: RealJaeger,
  workDir: string,
  choice: CollectorChoice | undefined,
): Promise<RealCollector> {
  const tempo = await startOtlpGrpcReceiver();
  const relocated = await runnableCollector(
    { jaeger: jaeger.otlpGrpc, tempo: tempo.endpoint, ...choice?.targets },
    choice?.config,
  );
  await mkdir(workDir, { recursive: true });
  const configFile = join(workDir, 'otel-collector.yaml');
  await writeFile(configFile, toYaml(relocated.config));
  const proc = startProcess('otelcol', binaries.otelcol, [`--config=${configFile}`]);
  const httpPort = portOf(relocated, 'receivers.otlp.protocols.http');
  // The Collector has no health endpoint in this config; its own metrics endpoint answers once
  // the service runs, and it starts the receivers before that.
  const metrics = `http://127.0.0.1:${portOf(relocated, 'service.telemetry.metrics')}/metrics`;
  try {
    await waitForHttpOk(proc, metrics, READY_TIMEOUT_MS);
  } catch (error) {
    await proc.stop();
    await tempo.stop();
    throw error;
  }
  return {
    otlpHttp: `http://127.0.0.1:${httpPort}`,
    process: proc,
    tempo,
    relocated,
    async stop() {
      await proc.stop();
      await tempo.stop();
    },
  };
}

/** One trace as Jaeger's api_v3 returns it, raw (no query-time adjusters). */
export async function jaegerTrace(
  jaeger: RealJaeger,
  traceId: string,
): Promise<FlatSpan[] | undefined> {
  const documents = await getJsonDocuments(
    `${jaeger.queryBase}/api/v3/traces/${traceId}?rawTraces=true`,
  );
  return documents?.flatMap(spansFromOtlpJson).filter((span) => span.traceId === traceId);
}

/**
 * Copies of one span that are byte-for-byte the same collapse to one (a live sender may resend);
 * copies that differ are kept, so the comparison shows them.
 */
export function withoutExactRepeats(spans: readonly FlatSpan[]): FlatSpan[] {
  const seen = new Set<string>();
  return spans.filter((span) => {
    const key = JSON.stringify(span);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Waits until Jaeger holds at least `count` distinct spans of the trace; returns them. */
export function readTraceBack(
  jaeger: RealJaeger,
  traceId: string,
  count: number,
  timeoutMs = 60_000,
): Promise<FlatSpan[]> {
  return pollUntil(
    `${count} spans of trace ${traceId} in Jaeger`,
    async () => {
      const spans = withoutExactRepeats((await jaegerTrace(jaeger, traceId)) ?? []);
      return spans.length >= count ? spans : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

/** The receiver's decoded spans in the shape trace-tree.ts compares. */
export function flatFromDecoded(span: DecodedSpan): FlatSpan {
  const values = (attributes: Record<string, unknown>): Record<string, AttributeValue> =>
    attributes as Record<string, AttributeValue>;
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    status: span.status.code,
    statusMessage: span.status.message,
    startTimeUnixNano: span.startTimeUnixNano.toString(),
    endTimeUnixNano: span.endTimeUnixNano.toString(),
    attributes: values(span.attributes),
    links: span.links.map((link) => ({ ...link, attributes: values(link.attributes) })),
    events: span.events.map((event) => ({
      name: event.name,
      timeUnixNano: event.timeUnixNano.toString(),
      attributes: values(event.attributes),
    })),
    resource: values(span.resource),
  };
}
