/**
 * End-to-end: ccotel → Grafana Tempo 3 (monolithic, started with docker/tempo.yaml itself) →
 * read back by trace id; then every TraceQL query of the Grafana dashboard is sent to the same
 * Tempo, which must accept it.
 *
 * How to run: `npm run test:e2e` (builds dist/ first, then runs every file in test/e2e).
 * Needs a Docker-compatible engine that testcontainers can reach (DOCKER_HOST or the default
 * socket) and registry access for the Tempo image pinned in docker/compose.yaml and for
 * testcontainers' ryuk image (or TESTCONTAINERS_RYUK_DISABLED=true).
 * Without a reachable container runtime the suite is skipped and the reason is printed; it is
 * never reported as passed. CCOTEL_SKIP_E2E=1 skips it on purpose.
 *
 * The trace is read with `GET /api/v2/traces/{id}` and no start/end: the fixture's spans are
 * months old, and Tempo files blocks under their ingestion time, so a time-bounded lookup or a
 * search over the spans' own time window can miss them. Trace-by-id over all blocks cannot.
 * Search also ignores the last 30 s (query_end_cutoff), which is why this test does not search
 * for the fixture.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GenericContainer, Wait } from 'testcontainers';
import { expect, it } from 'vitest';
import { defineBackendSuite } from './backend-suite.js';
import {
  composeImage,
  getJsonDocuments,
  probeContainerRuntime,
  repoRoot,
} from './container-runtime.js';

const HTTP_API_PORT = 3200;
const OTLP_HTTP_PORT = 4318;
const DASHBOARD = join(repoRoot, 'docker/grafana/dashboards/ccotel.json');
/** A TraceQL query with one of these after a pipe goes to the metrics API, others to search. */
const METRICS_FUNCTION =
  /\|\s*(rate|count_over_time|sum_over_time|min_over_time|max_over_time|avg_over_time|quantile_over_time|histogram_over_time|compare)\s*\(/;

const runtime = await probeContainerRuntime();

defineBackendSuite(runtime, {
  name: 'Tempo 3',
  // Tempo truncates string values above max_attribute_bytes (2048 by default).
  comparison: { stringPrefix: 1_024 },
  async start() {
    const container = await new GenericContainer(composeImage('grafana/tempo'))
      // The compose stack's own config, so this test also proves that file starts Tempo
      // (receivers on 0.0.0.0, no keys Tempo 3 rejects).
      .withCopyFilesToContainer([
        { source: join(repoRoot, 'docker/tempo.yaml'), target: '/etc/tempo.yaml' },
      ])
      .withCommand(['-target=all', '-config.file=/etc/tempo.yaml', '-config.expand-env=true'])
      .withExposedPorts(HTTP_API_PORT, OTLP_HTTP_PORT)
      .withWaitStrategy(Wait.forHttp('/ready', HTTP_API_PORT).forStatusCode(200))
      .withStartupTimeout(180_000)
      .start();
    const host = container.getHost();
    const apiBase = `http://${host}:${container.getMappedPort(HTTP_API_PORT)}`;
    return {
      otlpEndpoint: `http://${host}:${container.getMappedPort(OTLP_HTTP_PORT)}`,
      apiBase,
      fetchTrace: (traceId) => getJsonDocuments(`${apiBase}/api/v2/traces/${traceId}`),
      async stop() {
        await container.stop();
      },
    };
  },

  extraTests(backend) {
    // The unit test can only check the dashboard's TraceQL by pattern; Tempo's own parser is the
    // real judge. Results are not checked: the fixture's spans are too old for the metrics and
    // search windows (see above), so an accepted query with empty results is the expected outcome.
    it('accepts every TraceQL query of the Grafana dashboard', async () => {
      const queries = dashboardQueries();
      expect(queries.length).toBeGreaterThan(0);
      const end = Math.floor(Date.now() / 1000);
      const start = end - 3600;
      for (const query of queries) {
        const q = encodeURIComponent(query);
        const url = METRICS_FUNCTION.test(query)
          ? `${backend().apiBase}/api/metrics/query_range?q=${q}&start=${start}&end=${end}&step=60s`
          : `${backend().apiBase}/api/search?q=${q}&start=${start}&end=${end}&limit=5`;
        const response = await fetch(url);
        const body = await response.text();
        expect(response.status, `${query}\n→ ${body}`).toBe(200);
      }
    }, 60_000);
  },
});

/** The dashboard's Tempo queries, with its variables set to their defaults. */
function dashboardQueries(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels?: { targets?: { query?: unknown }[] }[];
    templating?: { list?: { name?: unknown; query?: unknown }[] };
  };
  const variables = new Map<string, string>();
  for (const variable of dashboard.templating?.list ?? []) {
    if (typeof variable.name === 'string' && typeof variable.query === 'string')
      variables.set(variable.name, variable.query);
  }
  return (dashboard.panels ?? [])
    .flatMap((panel) => panel.targets ?? [])
    .map((target) => target.query)
    .filter((query): query is string => typeof query === 'string' && query.trim() !== '')
    .map((query) =>
      query.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => variables.get(name) ?? whole),
    );
}
