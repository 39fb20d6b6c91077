// The real backends the e2e tests run as plain processes (Jaeger v2 and an OpenTelemetry
// Collector; a second Collector validates the team gateway configs), built by
// test/backends/build.sh into a cache outside the clone. This module finds them, says why they
// are missing, and starts and stops them on loopback ports.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const buildScript = join(repoRoot, 'test/backends/build.sh');

export interface BackendBinaries {
  readonly jaeger: string;
  readonly otelcol: string;
  /** Jaeger's own built-in all-in-one config, copied by build.sh from the pinned module. */
  readonly jaegerAllInOne: string;
}

export type BinariesProbe =
  | { readonly available: true; readonly binaries: BackendBinaries; readonly reason: string }
  | { readonly available: false; readonly reason: string };

function goOnPath(): boolean {
  const fallback = process.env.CCOTEL_GO_BIN_DIR ?? '/usr/local/go/bin'; // as build.sh
  for (const dir of [...(process.env.PATH ?? '').split(':'), fallback]) {
    if (dir !== '' && existsSync(join(dir, 'go'))) return true;
  }
  return false;
}

/** The directories build.sh builds into: it prints them itself, so their hash is computed once. */
function buildDirs(): { jaeger: string; otelcol: string; gateway: string } | { error: string } {
  try {
    const [jaeger = '', otelcol = '', gateway = ''] = execFileSync(
      'bash',
      [buildScript, '--print-dirs'],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n');
    return { jaeger, otelcol, gateway };
  } catch (error) {
    return { error: `${buildScript} --print-dirs failed: ${String(error)}` };
  }
}

function whyMissing(missing: readonly string[], what: string): string {
  return goOnPath()
    ? `not built yet (missing ${missing.join(', ')}): run test/backends/build.sh`
    : `no Go toolchain on PATH to build ${what} (test/backends/build.sh)`;
}

/** build.sh is a bash script for Linux and macOS; `bash` on a Windows runner may not be Git's. */
const NOT_ON_WINDOWS =
  'not on Windows: test/backends/build.sh is a bash script for Linux and macOS';

/** Where build.sh puts (or put) Jaeger and the Collector the stack tests run. */
export function probeBackendBinaries(): BinariesProbe {
  if (process.platform === 'win32') return { available: false, reason: NOT_ON_WINDOWS };
  const dirs = buildDirs();
  if ('error' in dirs) return { available: false, reason: dirs.error };
  const binaries: BackendBinaries = {
    jaeger: join(dirs.jaeger, 'jaeger'),
    otelcol: join(dirs.otelcol, 'otelcol-ccotel'),
    jaegerAllInOne: join(dirs.jaeger, 'all-in-one.yaml'),
  };
  const missing = Object.values(binaries).filter((path) => !existsSync(path));
  if (missing.length === 0) {
    return { available: true, binaries, reason: `binaries in ${dirname(dirs.jaeger)}` };
  }
  return { available: false, reason: whyMissing(missing, 'Jaeger and the Collector') };
}

export type GatewayCollectorProbe =
  | { readonly available: true; readonly binary: string; readonly reason: string }
  | { readonly available: false; readonly reason: string };

/**
 * Where build.sh puts (or put) otelcol-gateway, the Collector holding the team gateway configs'
 * components (contrib's loadbalancing exporter among them). Only `validate` runs it, so it is
 * probed apart: the stack tests do not wait for, nor skip without, its longer build.
 */
export function probeGatewayCollector(): GatewayCollectorProbe {
  if (process.platform === 'win32') return { available: false, reason: NOT_ON_WINDOWS };
  const dirs = buildDirs();
  if ('error' in dirs) return { available: false, reason: dirs.error };
  const binary = join(dirs.gateway, 'otelcol-gateway');
  if (existsSync(binary)) return { available: true, binary, reason: `binary in ${dirs.gateway}` };
  return { available: false, reason: whyMissing([binary], 'the gateway Collector') };
}

/** Ports handed out by freePort in this process: the OS may offer a just-closed one again. */
const handedOut = new Set<number>();

/** A TCP port on 127.0.0.1 that was free a moment ago and that this process has not handed out. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = await askForPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no fresh free port after 100 attempts');
}

function askForPort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePromise(port));
    });
  });
}

export interface RunningProcess {
  readonly name: string;
  /** Everything the process printed so far (both streams), for failure messages. */
  output(): string;
  /** Resolves with the exit code, or the signal name. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code once it is gone. */
  stop(graceMs?: number): Promise<number | string>;
}

const OUTPUT_LIMIT = 200_000;

export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): RunningProcess {
  const child: ChildProcess = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolvePromise) => {
    child.once('exit', (code, signal) => resolvePromise(code ?? signal ?? 'unknown'));
    child.once('error', (error) => {
      output += `\nspawn error: ${error.message}`;
      resolvePromise('spawn-error');
    });
  });
  return {
    name,
    output: () => output,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

/** Runs a binary to completion (e.g. `otelcol validate`), never rejects. */
export async function runToExit(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): Promise<{ code: number | string; output: string }> {
  const proc = startProcess(command, command, args, env);
  const timer = setTimeout(() => void proc.stop(1_000), timeoutMs);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, output: proc.output() };
}

/**
 * Polls `url` until it answers 200, failing early when the process exits, with its output.
 * Bounded by `timeoutMs`.
 */
export async function waitForHttpOk(
  proc: RunningProcess,
  url: string,
  timeoutMs = 60_000,
): Promise<void> {
  let exit: number | string | undefined;
  void proc.exited.then((code) => {
    exit = code;
  });
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (exit !== undefined) {
      throw new Error(`${proc.name} exited (${exit}) before ${url} answered:\n${proc.output()}`);
    }
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(200);
  }
  throw new Error(
    `${proc.name} not ready: ${url} did not answer 200 in ${timeoutMs} ms (${last}):\n${proc.output()}`,
  );
}
