// The delivery queue as the daemon uses it: batches taken round robin from
// the sessions' outboxes, and each answer handed back to the session that
// queued the span (which may unload then). What was accepted or refused is
// saved before the queue sends more: a delivered turn must stay recorded
// across kill -9.
import type { Resource } from '@opentelemetry/resources';
import type { Clock } from '../../../core/clock.js';
import type { Settings } from '../../../core/settings.js';
import type { Logger } from '../../../adapters/logger.js';
import type { SpanData } from '../../../core/spans/data.js';
import type { LogRecordData } from '../../../core/events/log-record.js';
import { otlpSink, type RetryPolicy, type SpanSink } from '../../deliver/span-sink.js';
import type { Batch } from './answers.js';
import { createDeliveryQueue, type DeliveryQueue } from './delivery-queue.js';
import { byTracker, takeRoundRobin, type Sent as OutboxItem } from './outbox-routing.js';
import type { RunState } from '../lifecycle/run-state.js';
import type { SessionEntry, SessionRegistry } from '../sessions/session-registry.js';
import type { Outgoing, SessionTracker } from '../sessions/session-tracker.js';
import type { SessionUnloader } from '../sessions/session-unloader.js';

type Sent = OutboxItem<SessionEntry>;

export interface SessionDeliveryOptions {
  settings: Settings;
  resource: Resource;
  /** Where spans go; default OTLP/HTTP to settings.endpoint. */
  makeSink?: (policy: RetryPolicy) => SpanSink;
  /** Linger before a send (default 5 ms). */
  lingerMs?: number;
  run: RunState;
  log: Logger;
  clock: Clock;
  registry: SessionRegistry;
  unloader: SessionUnloader;
  /** Saves the state now; resolves once written (or failed). */
  persist(): Promise<void>;
}

export function createSessionDelivery(options: SessionDeliveryOptions): DeliveryQueue {
  const { settings, run, log, registry, unloader, persist } = options;
  let rotation = 0;
  /** Hands each session its spans' verdict; a session left with nothing to send may unload. */
  const answer = (items: Sent[], verdict: (t: SessionTracker, outs: Outgoing[]) => void): void => {
    for (const [tracker, { entry, outs }] of byTracker(items)) {
      verdict(tracker, outs);
      // On the session's chain (which logs its failures), after whatever it is doing now.
      if (entry.tracker === tracker) void entry.schedule.run(() => unloader.maybeDemote(entry));
    }
  };
  return createDeliveryQueue<Sent>({
    makeSink: options.makeSink ?? ((policy) => otlpSink(settings, options.resource, policy)),
    log,
    clock: options.clock,
    maxRetries: run.once ? 5 : Infinity,
    maxBackoffMs: run.once ? 5000 : 30_000,
    lingerMs: options.lingerMs ?? 5,
    maxBatchSpans: settings.maxBatchSpans,
    pull(max): Batch<Sent> {
      const taken = takeRoundRobin(registry.values(), rotation, max);
      rotation += 1;
      // One resource variant per batch (Claude Code's schema): the others go back for the next.
      const variant = taken[0]?.out.variant;
      const kept: Sent[] = [];
      const other: Sent[] = [];
      for (const i of taken) (i.out.variant?.key === variant?.key ? kept : other).push(i);
      for (const [tracker, { outs }] of byTracker(other)) tracker.requeue(outs);
      // Spans first, then events, as a Batch lines its items up.
      const items: Sent[] = [];
      const spans: SpanData[] = [];
      const events: LogRecordData[] = [];
      for (const i of kept)
        if (i.out.span !== undefined) {
          items.push(i);
          spans.push(i.out.span);
        }
      for (const i of kept)
        if (i.out.event !== undefined) {
          items.push(i);
          events.push(i.out.event);
        }
      return { items, spans, events, ...(variant === undefined ? {} : { variant }) };
    },
    async onAccepted(items) {
      answer(items, (tracker, outs) => tracker.ack(outs));
      log.debug('spans delivered', { spans: items.length });
      await persist();
    },
    async onRefused(items) {
      answer(items, (tracker, outs) => tracker.reject(outs));
      await persist();
    },
    onReturned(items) {
      for (const [tracker, { outs }] of byTracker(items)) tracker.requeue(outs);
    },
  });
}
