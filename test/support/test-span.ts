// A minimal finished span for tests of delivery (batching, retries, answers),
// where only its id matters: one trace, no attributes, no links.
import type { SpanData } from '../../src/core/spans/data.js';

export const testSpan = (id: string): SpanData => ({
  traceId: '0'.repeat(31) + '1',
  spanId: id.padStart(16, '0'),
  parentSpanId: null,
  name: 'x',
  kind: 'INTERNAL',
  startMs: 0,
  endMs: 1,
  attributes: {},
  status: { code: 'UNSET' },
  links: [],
  complete: true,
  turnKey: 't',
});
