// Deterministic ids: the same transcript always yields the same trace and span
// ids, so a re-export or a live daemon after a backfill produces byte-identical
// spans, and history copied into a fork maps to the same ids. Keys are the
// transcript's own stable ids (prompt uuid, tool_use id, message.id, agentId).
import { hash } from 'node:crypto';

function hexOf(input: string, length: 32 | 16): string {
  // One-shot hash(): a createHash() object per id cost 4% of a conversion's CPU.
  const hex = hash('sha256', input).slice(0, length);
  // An all-zero id is invalid in W3C trace context; vanishingly rare, but guard it.
  return /^0+$/.test(hex) ? `${'0'.repeat(length - 1)}1` : hex;
}

export const traceIdFor = (promptUuid: string): string => hexOf(`trace:${promptUuid}`, 32);
export const turnSpanIdFor = (promptUuid: string): string => hexOf(`turn:${promptUuid}`, 16);
export const chatSpanIdFor = (responseKey: string): string => hexOf(`chat:${responseKey}`, 16);
export const toolSpanIdFor = (toolUseId: string): string => hexOf(`tool:${toolUseId}`, 16);
export const agentSpanIdFor = (agentKey: string): string => hexOf(`agent:${agentKey}`, 16);
