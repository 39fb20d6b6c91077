// What every ccotel request says about its producer, and the SDK's time split,
// shared by the SDK path (otlp-encode.ts) and the direct writer (otlp-protobuf.ts).
import type { HrTime } from '@opentelemetry/api';

export const SCOPE = {
  name: 'ccotel',
  version: '0.1.0',
  schemaUrl: 'https://opentelemetry.io/schemas/gen-ai/1.42.0',
};

/** Unix milliseconds as the SDK's [seconds, nanos]. */
export const hr = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];
