// Span ids of Claude Code's schema, one key each: spans and the events that
// point at them (native-events.ts) must agree on them.
import { nativeSpanIdFor } from '../ids.js';

export const interactionSpanIdFor = (promptUuid: string): string =>
  nativeSpanIdFor('interaction', promptUuid);
export const requestSpanIdFor = (responseKey: string): string =>
  nativeSpanIdFor('llm_request', responseKey);
export const toolCallSpanIdFor = (toolUseId: string): string => nativeSpanIdFor('tool', toolUseId);
