// A real OTLP/gRPC trace receiver on 127.0.0.1: the gRPC twin of ./otlp-receiver.ts, for the
// Collector's `otlp_grpc` exporters, which speak only gRPC (HTTP/2 without TLS, "h2c"). It serves
// the one unary method TraceService/Export, accepts every request, and decodes the bodies with
// the same vendored schema as the HTTP receiver (./otlp-decode.ts).
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeProtobufTraces, encodeExportResponse, type DecodedSpan } from './otlp-decode.js';

const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export interface OtlpGrpcReceiver {
  /** host:port, as a gRPC exporter's `endpoint` wants it. */
  readonly endpoint: string;
  spans(): DecodedSpan[];
  requestCount(): number;
  stop(): Promise<void>;
}

/** The messages of a gRPC body: each is a 1-byte compressed flag, a 4-byte length, the bytes. */
function grpcMessages(body: Buffer, encoding: string): Buffer[] {
  const messages: Buffer[] = [];
  let offset = 0;
  while (offset + 5 <= body.length) {
    const compressed = body.readUInt8(offset) === 1;
    const length = body.readUInt32BE(offset + 1);
    const message = body.subarray(offset + 5, offset + 5 + length);
    if (message.length !== length) throw new Error('truncated gRPC message');
    if (compressed && encoding !== 'gzip') throw new Error(`unsupported grpc-encoding ${encoding}`);
    messages.push(compressed ? gunzipSync(message) : message);
    offset += 5 + length;
  }
  if (offset !== body.length) throw new Error('trailing bytes after the last gRPC message');
  return messages;
}

function frame(message: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

export async function startOtlpGrpcReceiver(): Promise<OtlpGrpcReceiver> {
  const accepted: DecodedSpan[] = [];
  let requests = 0;
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const answer = (status: number, message: string, body?: Buffer): void => {
        if (stream.destroyed) return;
        stream.respond(
          { ':status': 200, 'content-type': 'application/grpc' },
          { waitForTrailers: true },
        );
        stream.on('wantTrailers', () =>
          stream.sendTrailers({ 'grpc-status': String(status), 'grpc-message': message }),
        );
        stream.end(body);
      };
      if (headers[':path'] !== EXPORT_PATH) return answer(12, `unimplemented ${headers[':path']}`);
      requests += 1;
      try {
        const encoding = String(headers['grpc-encoding'] ?? 'identity');
        for (const message of grpcMessages(Buffer.concat(chunks), encoding)) {
          accepted.push(...decodeProtobufTraces(message));
        }
      } catch (error) {
        return answer(3, encodeURIComponent(String(error)));
      }
      answer(0, '', frame(encodeExportResponse('protobuf')));
    });
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolvePromise());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `127.0.0.1:${port}`,
    spans: () => [...accepted],
    requestCount: () => requests,
    async stop() {
      const closed = new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}
