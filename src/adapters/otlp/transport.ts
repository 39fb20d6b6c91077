// How an OTLP request travels, composed as the OpenTelemetry JS exporters
// compose it: a transport makes one attempt (otlp-http-sender.ts), a retrying
// transport wraps it with the retry policy (otlp-retry.ts), and a gzipping one
// compresses the body once, before any attempt.
import type { PartialSuccess } from './response.js';

export interface AttemptFailure {
  retryable: boolean;
  /** HTTP status, or 0 for network errors and timeouts. */
  status: number;
  message: string;
  retryAfterMs: null | number;
}

/**
 * The verdict on one request. success: the collector answered 2xx; `partial`
 * is its partial_success when it rejected spans of the request (or warned):
 * per the OTLP spec such a request is not retried, and the caller must not
 * count its spans as delivered. retryable: no answer worth keeping yet, a
 * later attempt may succeed (what a retrying transport gave up on comes back
 * so); failure: another attempt would be answered the same.
 */
export type ExportResponse =
  | { status: 'success'; attempts: number; partial: PartialSuccess | null }
  | { status: 'failure' | 'retryable'; attempts: number; failure: AttemptFailure };

export interface OtlpTransport {
  /** Sends one request body; `attempts` counts the HTTP attempts it took. */
  send(body: Uint8Array): Promise<ExportResponse>;
}
