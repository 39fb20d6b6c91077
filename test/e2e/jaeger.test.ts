/**
 * End-to-end: ccotel → Jaeger v2 (all-in-one image, in-memory storage) → read back by trace id.
 *
 * How to run: `npm run test:e2e` (builds dist/ first, then runs every file in test/e2e).
 * Needs a Docker-compatible engine that testcontainers can reach (DOCKER_HOST or the default
 * socket) and registry access for the Jaeger image pinned in docker/compose.yaml and for
 * testcontainers' ryuk image (or TESTCONTAINERS_RYUK_DISABLED=true).
 * Without a reachable container runtime the suite is skipped and the reason is printed; it is
 * never reported as passed. CCOTEL_SKIP_E2E=1 skips it on purpose.
 *
 * The trace is read with Jaeger's stable api_v3 (`GET /api/v3/traces/{id}`, OTLP/JSON with hex
 * ids). rawTraces=true turns off Jaeger's query-time adjusters, so what comes back is what was
 * stored.
 */
import { GenericContainer, Wait } from 'testcontainers';
import { defineBackendSuite } from './backend-suite.js';
import { composeImage, getJsonDocuments, probeContainerRuntime } from './container-runtime.js';

const OTLP_HTTP_PORT = 4318;
const QUERY_PORT = 16686;
const HEALTH_PORT = 13133;

const runtime = await probeContainerRuntime();

defineBackendSuite(runtime, {
  name: 'Jaeger v2',
  // The memory store keeps OTLP as is, after Jaeger's write-time sanitizers.
  comparison: { jaegerDurationSanitizer: true },
  async start() {
    const container = await new GenericContainer(composeImage('jaegertracing/jaeger'))
      .withExposedPorts(OTLP_HTTP_PORT, QUERY_PORT, HEALTH_PORT)
      .withWaitStrategy(Wait.forHttp('/status', HEALTH_PORT).forStatusCode(200))
      .withStartupTimeout(120_000)
      .start();
    const host = container.getHost();
    const queryBase = `http://${host}:${container.getMappedPort(QUERY_PORT)}`;
    return {
      otlpEndpoint: `http://${host}:${container.getMappedPort(OTLP_HTTP_PORT)}`,
      apiBase: queryBase,
      fetchTrace: (traceId) =>
        getJsonDocuments(`${queryBase}/api/v3/traces/${traceId}?rawTraces=true`),
      async stop() {
        await container.stop();
      },
    };
  },
});
