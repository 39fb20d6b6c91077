// One session, read from disk, as spans grouped by turn. Shared by export,
// the benchmarks and (per turn) the daemon.
import { createHash } from 'node:crypto';
import { finish } from '../core/assemble.js';
import type { PriceTable } from '../core/pricing.js';
import { costSession } from '../core/session-cost.js';
import type { SessionModel } from '../core/session-model.js';
import type { SpanData, SpanOptions } from '../core/span-data.js';
import { buildTurnSpans } from '../core/spans.js';
import { traceIdFor } from '../core/span-ids.js';
import type { SessionFiles } from '../adapters/session-files.js';
import { loadSession } from './load-session.js';

export interface TurnSpans {
  traceId: string;
  startTime: number;
  spans: SpanData[];
  /** Hash of the spans' content: a changed turn (it grew, it finished) hashes anew. */
  digest: string;
}

export interface SessionSpans {
  model: SessionModel;
  turns: TurnSpans[];
  unknownModels: string[];
  unterminated: string[];
}

/** Text kept per field while parsing: enough for labels, or for full content capture. */
export function textLimitFor(options: SpanOptions): number {
  return options.content === 'full' ? Math.max(1024, options.maxAttributeBytes) : 1024;
}

export function digestOf(spans: SpanData[]): string {
  return createHash('sha256').update(JSON.stringify(spans)).digest('hex').slice(0, 32);
}

export function spansOfModel(
  model: SessionModel,
  prices: PriceTable,
  options: SpanOptions,
): { turns: TurnSpans[]; unknownModels: string[] } {
  const costs = costSession(model, prices);
  const turns = model.turns.map((turn) => {
    const spans = buildTurnSpans(model, turn.index, costs, options);
    return {
      traceId: traceIdFor(turn.promptUuid),
      startTime: turn.startTime,
      spans,
      digest: digestOf(spans),
    };
  });
  return { turns, unknownModels: costs.unknownModels };
}

export async function sessionSpans(
  files: SessionFiles,
  prices: PriceTable,
  options: SpanOptions,
): Promise<SessionSpans> {
  const loaded = await loadSession(files, { textLimit: textLimitFor(options) });
  const model = finish(loaded.state);
  const { turns, unknownModels } = spansOfModel(model, prices, options);
  return { model, turns, unknownModels, unterminated: loaded.unterminated };
}
