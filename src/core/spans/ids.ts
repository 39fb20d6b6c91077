// Deterministic ids: the same transcript always yields the same trace and span
// ids, so a re-export or a live daemon after a backfill produces byte-identical
// spans, and history copied into a fork maps to the same ids. Keys are the
// transcript's own stable ids (prompt uuid, tool_use id, message.id, agentId).
import { createRequire } from 'node:module';

/**
 * node:crypto is loaded by the first hash: a dry run with nothing to compare
 * hashes nothing (it counts spans and tells turns apart by prompt uuid), and
 * importing crypto is a measurable part of one over small sessions.
 */
const require = createRequire(import.meta.url);
let hash: typeof import('node:crypto').hash | null = null;

/** SHA-256 of the data, in hex. */
export function sha256Hex(data: string | Uint8Array): string {
  hash ??= (require('node:crypto') as typeof import('node:crypto')).hash;
  return hash('sha256', data);
}

const ZERO = 48; // '0'

function hexOf(input: string, length: 32 | 16): string {
  // One-shot hash(): a createHash() object per id was a visible share of a conversion.
  const hex = sha256Hex(input).slice(0, length);
  // An all-zero id is invalid in W3C trace context; vanishingly rare, but guard it.
  return hex.charCodeAt(0) === ZERO && /^0+$/.test(hex) ? `${'0'.repeat(length - 1)}1` : hex;
}

/**
 * A turn's trace and root ids are asked for several times in a row (its own
 * spans, the caller's TurnSpans, the next turn's link to it): the last two
 * keys of each are remembered, so each is hashed once.
 */
function memoOfTwo(idOf: (key: string) => string): (key: string) => string {
  let key1 = '';
  let id1 = '';
  let key2 = '';
  let id2 = '';
  return (key) => {
    if (key === key1 && id1 !== '') return id1;
    if (key === key2 && id2 !== '') return id2;
    key2 = key1;
    id2 = id1;
    key1 = key;
    id1 = idOf(key);
    return id1;
  };
}

export const traceIdFor = memoOfTwo((promptUuid) => hexOf(`trace:${promptUuid}`, 32));
export const turnSpanIdFor = memoOfTwo((promptUuid) => hexOf(`turn:${promptUuid}`, 16));
export const chatSpanIdFor = (responseKey: string): string => hexOf(`chat:${responseKey}`, 16);
export const toolSpanIdFor = (toolUseId: string): string => hexOf(`tool:${toolUseId}`, 16);
export const agentSpanIdFor = (agentKey: string): string => hexOf(`agent:${agentKey}`, 16);

/**
 * Ids of Claude Code's own schema (--schema claude-code): keyed apart from the
 * GenAI ones, so that both exports of a turn sent to one backend stay two traces.
 */
export const nativeTraceIdFor = memoOfTwo((promptUuid) => hexOf(`cc-trace:${promptUuid}`, 32));
export const nativeSpanIdFor = (kind: string, key: string): string =>
  hexOf(`cc-${kind}:${key}`, 16);
/** log.record.uid of an event: the same event always has the same one. */
export const eventUidFor = (name: string, key: string): string =>
  hexOf(`cc-event:${name}:${key}`, 32);
