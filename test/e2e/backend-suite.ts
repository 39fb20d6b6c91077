// The end-to-end scenario both backends share: learn what ccotel will send (`export --out`),
// send it for real to a backend in a container, read each trace back by id and compare.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeCliFailure,
  pollUntil,
  requireBuiltCli,
  runCli,
  skipNotice,
  subagentFixture,
  type RuntimeProbe,
} from './container-runtime.js';
import {
  SUBAGENT_TOOL_SPAN_NAMES,
  TURN_ROOT_NAME,
  expectSameSpans,
  expectTurnTrace,
  groupByTrace,
  readExportFile,
  spansFromOtlpJson,
  subagentSpans,
  treeShape,
  type FlatSpan,
  type SpanComparison,
} from './trace-tree.js';

export interface StartedBackend {
  /** Base URL for `ccotel export --endpoint` (OTLP/HTTP; the CLI adds /v1/traces). */
  readonly otlpEndpoint: string;
  /** Base URL of the backend's query API. */
  readonly apiBase: string;
  /** The backend's documents for one trace id (hex), or undefined while it has none. */
  fetchTrace(traceId: string): Promise<unknown[] | undefined>;
  stop(): Promise<void>;
}

export interface BackendSuiteOptions {
  readonly name: string;
  /** Starts the container; includes the image pull on a first run. */
  start(): Promise<StartedBackend>;
  /**
   * How this backend may alter stored spans (see SpanComparison); the real-backend suite
   * (real-backends.test.ts) compares Jaeger with the same expectSameSpans and no allowance.
   */
  readonly comparison?: SpanComparison;
  /** Backend-specific tests, run after the shared ones against the same container. */
  extraTests?(backend: () => StartedBackend): void;
}

/** Image pulls on a cold machine dominate; the scenario itself takes seconds. */
const SETUP_TIMEOUT_MS = 300_000;
const READ_BACK_TIMEOUT_MS = 120_000;

export function defineBackendSuite(runtime: RuntimeProbe, options: BackendSuiteOptions): void {
  if (!runtime.available) console.warn(skipNotice(options.name, runtime));

  describe.skipIf(!runtime.available)(`${options.name} end to end (${runtime.reason})`, () => {
    let backend: StartedBackend | undefined;
    let work = '';
    let expected = new Map<string, FlatSpan[]>();
    const stored = new Map<string, FlatSpan[]>();

    beforeAll(async () => {
      requireBuiltCli();
      work = await mkdtemp(join(tmpdir(), 'ccotel-e2e-'));

      // Separate state dirs: the dry run must not mark the transcript as already exported.
      const outFile = join(work, 'requests.jsonl');
      const dryRun = await runCli([
        'export',
        '--out',
        outFile,
        '--state-dir',
        join(work, 'state-dry-run'),
        subagentFixture,
      ]);
      if (dryRun.code !== 0) throw new Error(describeCliFailure('ccotel export --out', dryRun));
      expected = groupByTrace(await readExportFile(outFile));
      if (expected.size === 0)
        throw new Error(`ccotel export --out wrote no spans for ${subagentFixture}`);

      backend = await options.start();
      const live = await runCli([
        'export',
        '--endpoint',
        backend.otlpEndpoint,
        '--protocol',
        'http/protobuf',
        '--state-dir',
        join(work, 'state-live'),
        '--quiet',
        subagentFixture,
      ]);
      if (live.code !== 0)
        throw new Error(describeCliFailure(`ccotel export to ${options.name}`, live));
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await backend?.stop();
      if (work !== '') await rm(work, { recursive: true, force: true });
    }, 60_000);

    it(
      'stores every span exactly as `export --out` wrote it (ids, tree, times, status, attributes, links, resource)',
      async () => {
        const started = backend;
        if (started === undefined) throw new Error('the backend did not start');
        for (const [traceId, spans] of expected) {
          const got = await pollUntil(
            `${spans.length} spans of trace ${traceId} in ${options.name}`,
            async () => {
              const documents = await started.fetchTrace(traceId);
              const found = (documents ?? [])
                .flatMap(spansFromOtlpJson)
                .filter((s) => s.traceId === traceId);
              return found.length >= spans.length ? found : undefined;
            },
            { timeoutMs: READ_BACK_TIMEOUT_MS },
          );
          stored.set(traceId, got);
          expect(treeShape(got), `tree of trace ${traceId}`).toEqual(treeShape(spans));
          expectSameSpans(`${options.name}, trace ${traceId}`, got, spans, options.comparison);
        }
      },
      READ_BACK_TIMEOUT_MS * 2,
    );

    it(`roots every turn at "${TURN_ROOT_NAME}" with execute_tool children`, () => {
      expect(stored.size, 'traces read back by the previous test').toBe(expected.size);
      for (const [traceId, spans] of stored) expectTurnTrace(traceId, spans);

      const all = [...stored.values()].flat();
      const roots = new Set(all.filter((s) => s.parentSpanId === '').map((s) => s.spanId));
      const toolCallsOfRoots = all.filter(
        (s) => s.name.startsWith('execute_tool ') && roots.has(s.parentSpanId),
      );
      expect(
        toolCallsOfRoots.length,
        'execute_tool spans directly under a turn root',
      ).toBeGreaterThan(0);
      for (const tool of all.filter((s) => s.name.startsWith('execute_tool '))) {
        expect(tool.name).toBe(`execute_tool ${String(tool.attributes['gen_ai.tool.name'])}`);
        expect(tool.attributes['gen_ai.operation.name']).toBe('execute_tool');
      }
    });

    it('nests the sub-agent invoke_agent span under its execute_tool Task/Agent span', () => {
      const subagents = [...stored.values()].flatMap(subagentSpans);
      expect(subagents.length, 'sub-agent invoke_agent spans').toBeGreaterThan(0);
      for (const { span, parent } of subagents) {
        expect(SUBAGENT_TOOL_SPAN_NAMES, `parent of ${span.name}`).toContain(parent?.name);
        expect(span.name).toBe(`invoke_agent ${String(span.attributes['gen_ai.agent.name'])}`);
      }
      // The fixture's Task call asks for subagent_type "Plan".
      expect(subagents.map(({ span }) => span.attributes['gen_ai.agent.name'])).toContain('Plan');
    });

    options.extraTests?.(() => {
      if (backend === undefined) throw new Error('the backend did not start');
      return backend;
    });
  });
}
