// The span items of what a session tracker hands out: in the GenAI schema
// every item is a span; Claude Code's adds event items beside them.
import type { SpanData } from '../../src/core/spans/data.js';
import type { Outgoing } from '../../src/app/watch/sessions/session-tracker.js';

export type SpanOut = Outgoing & { span: SpanData };

export const spanOuts = (outs: Outgoing[]): SpanOut[] =>
  outs.filter((o): o is SpanOut => o.span !== undefined);
