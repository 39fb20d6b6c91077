// What `ccotel watch` is started with, and what it hands back (daemon.ts).
import type { Resource } from '@opentelemetry/resources';
import type { Clock } from '../../core/clock.js';
import type { PriceTable } from '../../core/cost/pricing.js';
import type { Settings } from '../../core/settings.js';
import type { Logger } from '../../adapters/logger.js';
import type { RetryPolicy, SpanSink } from '../deliver/span-sink.js';

export interface WatchOptions {
  settings: Settings;
  prices: PriceTable;
  resource: Resource;
  log: Logger;
  /** Send history from before the first start too (everything not in export-state). */
  backfill: boolean;
  /** Process what is there, send what is complete, and stop. */
  once: boolean;
  /** Batching of new lines before a rebuild (default 10 ms). */
  recomputeDelayMs?: number;
  /** Linger before a send, to batch spans completing together (default 5 ms). */
  lingerMs?: number;
  /** Time given to delivery when stopping (default 3000 ms). */
  stopFlushMs?: number;
  /** Where spans go; default OTLP/HTTP to settings.endpoint. */
  makeSink?: (policy: RetryPolicy) => SpanSink;
  /** Time and timers (default: the system clock). */
  clock?: Clock;
}

export interface WatchDaemon {
  /** Startup scan done and the sessions that needed it (re)loaded. */
  readonly ready: Promise<void>;
  /** Exit code, once stopped (or, with --once, finished). */
  readonly done: Promise<number>;
  stop(reason?: string): Promise<number>;
  /** Resolves when no line is waiting to be processed and no span to be sent (tests, --once). */
  settled(): Promise<void>;
}
