// Shared plumbing for the Docker-backed end-to-end tests: finding out whether a container
// runtime is there at all, running the built ccotel CLI, and polling a backend's HTTP API.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { getContainerRuntimeClient } from 'testcontainers';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const cliPath = join(repoRoot, 'dist/cli/main.js');

/** A real Claude Code 2.1.38 session with a Task (Plan) sub-agent seen through agent_progress. */
export const subagentFixture = join(
  repoRoot,
  'fixtures/real/marot_spotter__test_fixtures_transcripts__subagent.jsonl',
);

export interface RuntimeProbe {
  readonly available: boolean;
  /** Why the suite runs or is skipped, for the test log. */
  readonly reason: string;
}

/**
 * Asks testcontainers for a container runtime. Without an engine this rejects within
 * milliseconds ("Could not find a working container runtime strategy"); the timeout only guards
 * against a DOCKER_HOST that accepts the connection and never answers.
 */
export async function probeContainerRuntime(timeoutMs = 15_000): Promise<RuntimeProbe> {
  if (process.env.CCOTEL_SKIP_E2E === '1') {
    return { available: false, reason: 'CCOTEL_SKIP_E2E=1 is set' };
  }
  const attempt = getContainerRuntimeClient().then(
    (client): RuntimeProbe =>
      // Docker on a Windows runner runs Windows containers: the pinned images are Linux ones.
      client.info.containerRuntime.operatingSystemType === 'windows'
        ? { available: false, reason: 'the container runtime runs Windows containers only' }
        : {
            available: true,
            reason: `container runtime at ${client.info.containerRuntime.host} (${client.info.containerRuntime.operatingSystem})`,
          },
    (error: unknown): RuntimeProbe => ({
      available: false,
      reason: `no container runtime: ${errorMessage(error)}`,
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<RuntimeProbe>((resolvePromise) => {
    timer = setTimeout(
      () =>
        resolvePromise({
          available: false,
          reason: `no answer from the container runtime within ${timeoutMs} ms`,
        }),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The line printed when a suite is skipped, so a skipped run says why in the test output. */
export function skipNotice(suite: string, probe: RuntimeProbe): string {
  return `[e2e] ${suite}: SKIPPED, ${probe.reason}. These tests need a Docker engine (run them with \`npm run test:e2e\`).`;
}

/**
 * The image a compose service uses, so the end-to-end tests run exactly the versions the local
 * stack pins in docker/compose.yaml.
 */
export function composeImage(repository: string): string {
  const compose = readFileSync(join(repoRoot, 'docker/compose.yaml'), 'utf8');
  const escaped = repository.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`^\\s*image:\\s*["']?(${escaped}:[^\\s"']+)`, 'm').exec(compose);
  if (match?.[1] === undefined)
    throw new Error(`docker/compose.yaml has no image ${repository}:<tag>`);
  return match[1];
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Fails with a pointer to the build step: the e2e tests exercise the built CLI, not the sources. */
export function requireBuiltCli(): void {
  if (!existsSync(cliPath)) {
    throw new Error(
      `${cliPath} is missing: run \`npm run build\` first (\`npm run test:e2e\` does).`,
    );
  }
}

/** Runs `node dist/cli/main.js ...args` and resolves with its exit code and output, never rejects. */
export function runCli(args: readonly string[], timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [cliPath, ...args],
      {
        cwd: repoRoot,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, NO_COLOR: '1' },
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

export function describeCliFailure(what: string, result: CliResult): string {
  return `${what} exited ${result.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}

/**
 * Calls `attempt` until it returns a value or the time is up. Backends answer 404 until the
 * spans are indexed, and may first return part of a trace, so the caller decides what "done" is.
 */
export async function pollUntil<T>(
  what: string,
  attempt: () => Promise<T | undefined>,
  { timeoutMs = 90_000, intervalMs = 1_000 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      // Connection resets while a backend finishes starting are expected; keep the last one
      // for the timeout message.
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError === undefined ? '' : ` (last error: ${errorMessage(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(intervalMs);
  }
}

/**
 * GET JSON from a backend: undefined for 404 (not stored yet), an error for other failures.
 * Returns a list because a streaming endpoint may answer with one JSON document per line.
 */
export async function getJsonDocuments(url: string): Promise<unknown[] | undefined> {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  const body = await response.text();
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status} ${body}`);
  try {
    return [JSON.parse(body) as unknown];
  } catch {
    return body
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as unknown);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
