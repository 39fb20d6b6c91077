// What content a span may carry, by mode. Everything that could hold user text
// is scrubbed of secrets first, in every mode; `none` keeps tool names only.
import { callLabel, promptLabel } from './labels.js';
import type { ToolCall } from '../model/session-model.js';
import { scrubText, scrubValue } from './scrub.js';
import type { AttributeValue, ContentMode, SpanOptions } from './data.js';

/** Cut a string to at most `bytes` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, bytes: number): string {
  if (text.length * 3 <= bytes || Buffer.byteLength(text, 'utf8') <= bytes) return text;
  const marker = '…';
  let out = Buffer.from(text, 'utf8')
    .subarray(0, Math.max(0, bytes - 3))
    .toString('utf8');
  // A cut inside a multi-byte character decodes to U+FFFD: drop it.
  if (out.endsWith('\uFFFD')) out = out.slice(0, -1);
  return out + marker;
}

/** A call's label attribute: only its tool's name in none mode, else its label, scrubbed. */
export function toolLabelFor(mode: ContentMode, call: ToolCall): string {
  return mode === 'none' ? call.name : scrubText(callLabel(call));
}

type Attrs = Record<string, AttributeValue>;

/** Sets a content attribute unless it is empty (an empty string is never exported). */
function putText(attrs: Attrs, key: string, value: string): void {
  if (value !== '') attrs[key] = value;
}

/** The turn's prompt label (and, in `full` mode, the prompt itself) into `attrs`. */
export function putPrompt(attrs: Attrs, options: SpanOptions, text: string | null): void {
  if (options.content === 'none' || text === null) return;
  // Scrub before the label cuts the text, so no secret is split by the cut.
  const scrubbed = scrubText(text);
  putText(attrs, 'claude_code.turn.label', promptLabel(scrubbed));
  if (options.content === 'labels') return;
  putText(attrs, 'claude_code.turn.prompt', truncateUtf8(scrubbed, options.maxAttributeBytes));
}

/** A call's arguments and result, in `full` mode only. */
export function putToolContent(
  attrs: Attrs,
  options: SpanOptions,
  input: Record<string, unknown>,
  output: string | null,
): void {
  if (options.content !== 'full') return;
  putText(
    attrs,
    'gen_ai.tool.call.arguments',
    truncateUtf8(JSON.stringify(scrubValue(input)), options.maxAttributeBytes),
  );
  if (output !== null)
    putText(
      attrs,
      'gen_ai.tool.call.result',
      truncateUtf8(JSON.stringify(scrubText(output)), options.maxAttributeBytes),
    );
}

export function putAgentDescription(
  attrs: Attrs,
  options: SpanOptions,
  description: string | null,
): void {
  if (options.content === 'none' || description === null) return;
  putText(attrs, 'gen_ai.agent.description', truncateUtf8(scrubText(description), 240));
}
