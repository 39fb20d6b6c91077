// What content a span may carry, by mode. Everything that could hold user text
// is scrubbed of secrets first, in every mode; `none` keeps tool names only.
import { promptLabel } from './labels.js';
import { scrubText, scrubValue } from './scrub.js';
import type { ContentMode, SpanOptions } from './span-data.js';

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

export function toolLabelFor(mode: ContentMode, toolName: string, label: string): string {
  return mode === 'none' ? toolName : scrubText(label);
}

export function promptAttrs(options: SpanOptions, text: string | null): Record<string, string> {
  if (options.content === 'none' || text === null) return {};
  // Scrub before the label cuts the text, so no secret is split by the cut.
  const label = promptLabel(scrubText(text));
  if (options.content === 'labels') return { 'claude_code.turn.label': label };
  return {
    'claude_code.turn.label': label,
    'claude_code.turn.prompt': truncateUtf8(scrubText(text), options.maxAttributeBytes),
  };
}

export function toolContentAttrs(
  options: SpanOptions,
  input: Record<string, unknown>,
  output: string | null,
): Record<string, string> {
  if (options.content !== 'full') return {};
  const attrs: Record<string, string> = {
    'gen_ai.tool.call.arguments': truncateUtf8(
      JSON.stringify(scrubValue(input)),
      options.maxAttributeBytes,
    ),
  };
  if (output !== null)
    attrs['gen_ai.tool.call.result'] = truncateUtf8(
      JSON.stringify(scrubText(output)),
      options.maxAttributeBytes,
    );
  return attrs;
}

export function agentDescriptionAttrs(
  options: SpanOptions,
  description: string | null,
): Record<string, string> {
  if (options.content === 'none' || description === null) return {};
  return { 'gen_ai.agent.description': truncateUtf8(scrubText(description), 240) };
}
