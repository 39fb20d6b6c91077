// What the delivery queue does with a batch after a failed request. Pure, so
// the order of the checks is tested without a sink or a clock.
import type { AttemptFailure } from '../../../adapters/otlp/http-sender.js';

export type FailureAction =
  /** Stopping: the spans go back to their sessions. */
  | 'return'
  /** 400: the collector will never take them. */
  | 'refuse'
  /** Still retryable after the sink's retries: its budget (--once) is used up. */
  | 'give-up'
  /** Wait, then send the same batch again. */
  | 'back-off';

export function failureAction(failure: AttemptFailure, aborted: boolean): FailureAction {
  if (aborted) return 'return';
  if (failure.status === 400) return 'refuse';
  // The sink retries retryable failures itself; one coming back means its budget ran out.
  if (failure.retryable) return 'give-up';
  // 401, 403, 404…: a configuration problem someone may fix; keep trying, slowly.
  return 'back-off';
}

/** The wait after a non-retryable failure doubles each time, up to maxBackoffMs. */
export const nextBackoffMs = (backoffMs: number, maxBackoffMs: number): number =>
  Math.min(backoffMs * 2, maxBackoffMs);
