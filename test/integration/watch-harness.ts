// Shared by the watch integration tests: temp projects dirs, transcripts
// written line by line, the daemon run in-process against the real OTLP
// receiver, and the spans `ccotel export` would build for the same files.
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterEach, beforeEach } from 'vitest';
import { dirname, join } from 'node:path';
import { DEFAULTS, type Settings } from '../../src/core/settings.js';
import type { SpanData } from '../../src/core/spans/data.js';
import { buildResource } from '../../src/adapters/otlp/resource.js';
import { loadPriceTable } from '../../src/adapters/config/price-file.js';
import { createJsonLogger } from '../../src/adapters/logger.js';
import { findSessions } from '../../src/adapters/files/session-files.js';
import { sessionSpans } from '../support/whole-session.js';
import { runExport, type ExportSummary } from '../../src/app/export/export.js';
import { countingSink } from '../../src/app/deliver/counting-sink.js';
import { startWatch, type WatchDaemon, type WatchOptions } from '../../src/app/watch/daemon.js';
import type { DecodedSpan } from '../support/otlp-decode.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { captureLogs, type LogCapture } from '../support/log-capture.js';

export const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
export const TOOL_HEAVY = join(
  FIXTURES,
  'real',
  'marot_spotter__test_fixtures_transcripts__tool_heavy.jsonl',
);
export const SUBAGENT = join(
  FIXTURES,
  'real',
  'marot_spotter__test_fixtures_transcripts__subagent.jsonl',
);
export const V21_META = join(FIXTURES, 'hand', 'v21-subagents-meta');
export const V21_META_SID = 'bd8ec9a1-f803-45ed-9d7c-9ec7081ab44d';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Dirs {
  base: string;
  projects: string;
  project: string;
  state: string;
  cleanup(): Promise<void>;
}

export async function tempDirs(): Promise<Dirs> {
  const base = await mkdtemp(join(tmpdir(), 'ccotel-watch-'));
  const projects = join(base, 'projects');
  const project = join(projects, '-home-dev-app');
  const state = join(base, 'state');
  await mkdir(project, { recursive: true });
  return {
    base,
    projects,
    project,
    state,
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** What one test works with; `running` is the daemon it started, if any. */
export interface Scene {
  dirs: Dirs;
  receiver: OtlpReceiver;
  running: RunningDaemon | null;
}

/**
 * Registers a suite's per-test set-up: fresh temp dirs and a receiver before
 * each test; after it, the daemon the test left in `running` is stopped first
 * (it may still send), then the receiver and the dirs. Filled in by beforeEach.
 */
export function sceneForEachTest(): Scene {
  const scene = { running: null } as Scene;
  beforeEach(async () => {
    scene.dirs = await tempDirs();
    scene.receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    if (scene.running !== null) await scene.running.daemon.stop('test end');
    scene.running = null;
    await scene.receiver.stop();
    await scene.dirs.cleanup();
  });
  return scene;
}

export function settingsFor(
  receiver: OtlpReceiver,
  dirs: Dirs,
  extra: Partial<Settings> = {},
): Settings {
  return {
    ...DEFAULTS,
    endpoint: `${receiver.url}/v1/traces`,
    projectsDirs: [dirs.projects],
    stateDir: dirs.state,
    timeoutMs: 2000,
    ...extra,
  };
}

export async function fixtureLines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
}

/** Appends lines one by one, as Claude Code does, with a small pause between. */
export async function writeLines(file: string, lines: string[], delayMs = 3): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  for (const line of lines) {
    await appendFile(file, `${line}\n`);
    if (delayMs > 0) await sleep(delayMs);
  }
}

export interface RunningDaemon {
  daemon: WatchDaemon;
  logs: LogCapture;
}

export async function runDaemon(
  settings: Settings,
  opts: Partial<WatchOptions> = {},
): Promise<RunningDaemon> {
  const logs = captureLogs();
  const log = createJsonLogger((line) => logs.write(line), 'debug');
  const daemon = await startWatch({
    settings,
    prices: await loadPriceTable(),
    resource: buildResource({ serviceName: 'claude-code', attributes: {} }),
    log,
    backfill: false,
    once: false,
    stopFlushMs: 2000,
    ...opts,
  });
  return { daemon, logs };
}

/**
 * What `ccotel export` would do after the daemon, without sending or recording
 * anything (read-only state, a counting sink): the summary says what is left.
 */
export async function exportReadOnly(settings: Settings): Promise<ExportSummary> {
  return runExport({
    paths: [],
    settings,
    prices: await loadPriceTable(),
    sink: countingSink(),
    since: null,
    force: false,
    deliveryKey: 'test',
    readOnlyState: true,
  });
}

/** The spans `ccotel export` builds for every session under a dir, by span id. */
export async function exportSpans(dir: string, settings: Settings): Promise<Map<string, SpanData>> {
  const prices = await loadPriceTable();
  const out = new Map<string, SpanData>();
  for (const files of await findSessions(dir)) {
    const s = await sessionSpans(files, prices, {
      content: settings.content,
      maxAttributeBytes: settings.maxAttributeBytes,
    });
    for (const turn of s.turns) for (const span of turn.spans) out.set(span.spanId, span);
  }
  return out;
}

const canonical = (span: DecodedSpan): string =>
  JSON.stringify(span, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/** Span ids received more than once whose decoded content differs between copies. */
export function differingRepeats(spans: DecodedSpan[]): string[] {
  const seen = new Map<string, string>();
  const bad = new Set<string>();
  for (const s of spans) {
    const c = canonical(s);
    const before = seen.get(s.spanId);
    if (before !== undefined && before !== c) bad.add(s.spanId);
    seen.set(s.spanId, c);
  }
  return [...bad];
}

export const idsOf = (spans: DecodedSpan[]): Set<string> => new Set(spans.map((s) => s.spanId));

/** Waits until every id in `ids` has been received. */
export async function waitForIds(
  receiver: OtlpReceiver,
  ids: Iterable<string> | Map<string, SpanData>,
  timeoutMs = 15_000,
): Promise<DecodedSpan[]> {
  const names = ids instanceof Map ? ids : null;
  const want = new Set(ids instanceof Map ? ids.keys() : ids);
  const have = (): boolean => {
    const got = idsOf(receiver.spans());
    for (const id of want) if (!got.has(id)) return false;
    return true;
  };
  if (have()) return receiver.spans();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      const got = idsOf(receiver.spans());
      const missing = [...want].filter((id) => !got.has(id));
      const named =
        names === null ? '' : `: ${missing.map((id) => names.get(id)?.name ?? id).join(', ')}`;
      reject(
        new Error(
          `waitForIds: ${missing.length}/${want.size} span ids missing after ${timeoutMs} ms${named}`,
        ),
      );
    }, timeoutMs);
    const off = receiver.onSpans(() => {
      if (!have()) return;
      clearTimeout(timer);
      off();
      resolve(receiver.spans());
    });
  });
}
