// Worker-thread side of session-spans-pool.ts: converts the sessions it is
// sent, one message each, and answers with what the caller needs of them:
// spans, or spans already encoded as OTLP protobuf (handed over, not copied).
import { parentPort, workerData } from 'node:worker_threads';
import type { PriceTable } from '../core/pricing.js';
import type { SpanOptions } from '../core/span-data.js';
import { sessionSpans } from './session-spans.js';
import {
  encodeSession,
  slimSessionSpans,
  type PoolRequest,
  type PoolResponse,
} from './session-spans-pool.js';

const { prices, options, encode } = workerData as {
  prices: PriceTable;
  options: SpanOptions;
  encode: boolean;
};

// Loaded and listening: the pool starts sending sessions.
parentPort?.postMessage('ready');

parentPort?.on('message', (request: PoolRequest) => {
  sessionSpans(request.files, prices, options).then(
    (session) => {
      if (encode) {
        const encoded = encodeSession(session);
        const response: PoolResponse = { id: request.id, encoded };
        parentPort?.postMessage(response, [
          encoded.encoded.bytes.buffer as ArrayBuffer,
          encoded.encoded.ends.buffer as ArrayBuffer,
        ]);
      } else {
        const response: PoolResponse = { id: request.id, session: slimSessionSpans(session) };
        parentPort?.postMessage(response);
      }
    },
    (err: unknown) => {
      const e = err instanceof Error ? err : new Error(String(err));
      const response: PoolResponse = {
        id: request.id,
        error: {
          name: e.name,
          message: e.message,
          exitCode: (e as { exitCode?: unknown }).exitCode,
        },
      };
      parentPort?.postMessage(response);
    },
  );
});
