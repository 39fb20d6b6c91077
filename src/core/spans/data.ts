// A finished span as ccotel builds it, before any OTLP encoding. Plain data so
// the builder stays pure and golden tests can compare it directly.

export type AttributeValue = string | number | boolean | string[];

export interface SpanLink {
  traceId: string;
  spanId: string;
  attributes: Record<string, AttributeValue>;
}

export interface SpanData {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: 'INTERNAL' | 'CLIENT';
  /** Unix milliseconds. */
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  status: { code: 'UNSET' | 'OK' | 'ERROR'; message?: string };
  links: SpanLink[];
  /** False when the work had not finished; the span then ends at a cut-off. */
  complete: boolean;
  /** uuid of the prompt that opened the span's turn (the trace's key). */
  turnKey: string;
}

export type ContentMode = 'none' | 'labels' | 'full';

/**
 * The span names and keys a turn is built in: the OpenTelemetry GenAI
 * conventions, or Claude Code's own beta tracing (docs/native-telemetry.md).
 */
export type SpanSchema = 'genai' | 'claude-code';

export interface SpanOptions {
  content: ContentMode;
  /** GenAI when not given. */
  schema?: SpanSchema;
  /** Cap for content attributes in `full` mode (Tempo truncates at 2048 by default). */
  maxAttributeBytes: number;
}
