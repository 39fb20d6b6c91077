// The 2xx answer's partial_success, read from bytes made by an independent
// encoder (protobufjs over the vendored OTLP schema) and from hand-written JSON.
import { describe, expect, it } from 'vitest';
import { readPartialSuccess } from '../../../../src/adapters/otlp/response.js';
import { encodeExportResponse } from '../../../support/otlp-decode.js';

const PB = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

describe('partial_success in an export response', () => {
  it('protobuf: count and message', () => {
    const body = encodeExportResponse('protobuf', { rejectedSpans: 102, errorMessage: 'quota' });
    expect(readPartialSuccess(body, PB)).toEqual({ rejectedSpans: 102, errorMessage: 'quota' });
  });
  it('JSON: lowerCamelCase with int64 as a string, proto names, and a plain number', () => {
    const body = encodeExportResponse('json', { rejectedSpans: 7, errorMessage: 'too old' });
    expect(readPartialSuccess(body, JSON_TYPE)).toEqual({
      rejectedSpans: 7,
      errorMessage: 'too old',
    });
    const snake = Buffer.from('{"partial_success":{"rejected_spans":3,"error_message":"x"}}');
    expect(readPartialSuccess(snake, JSON_TYPE)).toEqual({ rejectedSpans: 3, errorMessage: 'x' });
  });
  it('a full success (empty body, {}, an empty message) reports nothing', () => {
    expect(readPartialSuccess(new Uint8Array(0), PB)).toBeNull();
    expect(readPartialSuccess(encodeExportResponse('protobuf'), PB)).toBeNull();
    expect(readPartialSuccess(Buffer.from('{}'), JSON_TYPE)).toBeNull();
    expect(readPartialSuccess(Buffer.from('{"partialSuccess":{}}'), JSON_TYPE)).toBeNull();
  });
  it('a warning without rejected spans is kept as such (count 0)', () => {
    const body = encodeExportResponse('protobuf', { rejectedSpans: 0, errorMessage: 'slow down' });
    expect(readPartialSuccess(body, PB)).toEqual({ rejectedSpans: 0, errorMessage: 'slow down' });
  });
  it('an unreadable body reports nothing rather than throwing', () => {
    expect(readPartialSuccess(Buffer.from([0x0a, 0xff]), PB)).toBeNull();
    expect(readPartialSuccess(Buffer.from('{not json'), JSON_TYPE)).toBeNull();
    expect(readPartialSuccess(Buffer.from('ok'), 'text/plain')).toBeNull();
  });
});
