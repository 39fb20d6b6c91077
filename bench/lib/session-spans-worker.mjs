// Worker side of bench/lib/session-spans-pool.mjs (see there why it lives in bench/).
// Worker-thread side of session-spans-pool.ts: converts the sessions it is
// sent, one message each, and answers with what the caller needs of them:
// spans, or spans already encoded as OTLP protobuf (handed over, not copied).
import { parentPort, workerData } from 'node:worker_threads';
import { sessionSpans } from './whole-session.mjs';
import { encodeSession, slimSessionSpans } from './session-spans-pool.mjs';
const { prices, options, encode } = workerData;
// Loaded and listening: the pool starts sending sessions.
parentPort?.postMessage('ready');
parentPort?.on('message', (request) => {
  sessionSpans(request.files, prices, options).then(
    (session) => {
      if (encode) {
        const encoded = encodeSession(session);
        const response = { id: request.id, encoded };
        parentPort?.postMessage(response, [
          encoded.encoded.bytes.buffer,
          encoded.encoded.ends.buffer,
        ]);
      } else {
        const response = { id: request.id, session: slimSessionSpans(session) };
        parentPort?.postMessage(response);
      }
    },
    (err) => {
      const e = err instanceof Error ? err : new Error(String(err));
      const response = {
        id: request.id,
        error: {
          name: e.name,
          message: e.message,
          kind: e.kind,
        },
      };
      parentPort?.postMessage(response);
    },
  );
});
