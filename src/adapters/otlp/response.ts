// Reads the body of a 2xx answer to an OTLP trace export: an
// ExportTraceServiceResponse, protobuf or JSON. Its only field is
// `partial_success { int64 rejected_spans = 1; string error_message = 2; }`:
// a collector that accepted the request but dropped some spans (quota,
// validation, an ingester limit) says so here, with status 200. Ignoring it
// loses those spans silently, so the sender reads every 2xx body.
// An empty body (allowed for a full success) and an unreadable one both count
// as "no rejection": the OTLP spec defines only this message as the answer, and
// a body we cannot read tells us nothing about rejected spans.

export interface PartialSuccess {
  /** Spans (or, answering a logs request, records) the collector accepted the request for but did not keep. */
  rejectedSpans: number;
  /** Its explanation, or '' when it gave none. */
  errorMessage: string;
}

/** The partial_success of a response body; null when the answer reports none. */
export function readPartialSuccess(body: Uint8Array, contentType: string): PartialSuccess | null {
  if (body.byteLength === 0) return null;
  const json = /json/i.test(contentType) || body[0] === 0x7b; // '{'
  const found = json ? fromJson(body) : fromProtobuf(body);
  if (found === null) return null;
  return found.rejectedSpans > 0 || found.errorMessage !== '' ? found : null;
}

function fromJson(body: Uint8Array): PartialSuccess | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const root = value as Record<string, unknown>;
  // OTLP/JSON uses lowerCamelCase; receivers also accept the proto field names.
  const partial = root.partialSuccess ?? root.partial_success;
  if (typeof partial !== 'object' || partial === null) return null;
  const p = partial as Record<string, unknown>;
  // int64 is a decimal string in OTLP/JSON; some servers send a number.
  // A logs answer names the same field rejectedLogRecords.
  const rejected = Number(
    p.rejectedSpans ?? p.rejected_spans ?? p.rejectedLogRecords ?? p.rejected_log_records ?? 0,
  );
  const message = p.errorMessage ?? p.error_message ?? '';
  return {
    rejectedSpans: Number.isFinite(rejected) && rejected > 0 ? Math.floor(rejected) : 0,
    errorMessage: typeof message === 'string' ? message : '',
  };
}

/** A minimal protobuf walk: field 1 (message) of the response, then its fields 1 and 2. */
function fromProtobuf(body: Uint8Array): PartialSuccess | null {
  try {
    const partial = fields(body).get(1);
    if (partial === undefined || typeof partial === 'number') return null;
    const inner = fields(partial);
    const rejected = inner.get(1);
    const message = inner.get(2);
    return {
      rejectedSpans: typeof rejected === 'number' && rejected > 0 ? rejected : 0,
      errorMessage:
        message !== undefined && typeof message !== 'number'
          ? Buffer.from(message).toString('utf8')
          : '',
    };
  } catch {
    return null;
  }
}

/** Last value of each field: varints as numbers, length-delimited as bytes; others skipped. */
function fields(bytes: Uint8Array): Map<number, number | Uint8Array> {
  const out = new Map<number, number | Uint8Array>();
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i += 1) {
      const b = bytes[at++];
      if (b === undefined) throw new Error('truncated varint');
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw new Error('varint too long');
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) out.set(field, varint());
    else if (wire === 2) {
      const length = varint();
      if (at + length > bytes.length) throw new Error('truncated field');
      out.set(field, bytes.subarray(at, at + length));
      at += length;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}
