// The --dry-run sink: every span "accepted", nothing sent. Its own module so
// that a dry run does not load span-sink.ts, whose HTTP sender and JSON writer
// (node:http, node:https, node:zlib) cost ~10 ms of CPU to import.
import type { SpanSink } from './span-sink.js';

export function countingSink(): SpanSink {
  return {
    description: 'dry run',
    countsOnly: true,
    send: (spans) =>
      Promise.resolve({
        ok: true,
        attempts: 0,
        bytes: 0,
        parts: spans.length === 0 ? [] : [{ from: 0, to: spans.length, outcome: 'accepted' }],
        failure: null,
      }),
  };
}
