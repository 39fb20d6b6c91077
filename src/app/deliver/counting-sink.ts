// The --dry-run sink: every span "accepted", nothing sent. Its own module so
// that a dry run does not load span-sink.ts, whose HTTP sender and JSON writer
// (node:http, node:https, node:zlib) are a visible share of start-up to import.
import type { SinkOf } from './span-sink.js';
import { spanCountOfBatch } from './span-batch.js';

export function countingSink(): SinkOf<'count'> {
  return {
    description: 'dry run',
    form: 'count',
    send: (batch) => {
      const count = spanCountOfBatch(batch);
      return Promise.resolve({
        ok: true,
        attempts: 0,
        bytes: 0,
        parts: count === 0 ? [] : [{ from: 0, to: count, outcome: 'accepted' }],
        failure: null,
      });
    },
  };
}
