// timestampMs against Date.parse: the digit reader must return exactly what
// Date.parse does, for the canonical form, its near misses, and anything else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timestampMs } from '../../../../src/core/transcript/timestamp.js';
import { fuzz } from '../../../support/fuzz-config.js';

const same = (s: string): void => {
  expect(Object.is(timestampMs(s), Date.parse(s)), s).toBe(true);
};

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

describe('timestampMs', () => {
  it('equals Date.parse on hand-picked edges', () => {
    for (const s of [
      '2026-02-02T05:38:24.663Z',
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '0099-01-01T00:00:00.000Z',
      '2024-02-29T23:59:59.999Z',
      '2026-02-30T00:00:00.000Z',
      '2026-04-31T10:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01T23:60:00.000Z',
      '2026-01-01T23:59:60.000Z',
      '2026-13-01T00:00:00.000Z',
      '2026-00-01T00:00:00.000Z',
      '2026-01-00T00:00:00.000Z',
      '2026-01-32T00:00:00.000Z',
      '2026-01-01T10:00:00Z',
      '2026-01-01T10:00:00.1Z',
      '2026-01-01T10:00:00.123456Z',
      '2026-01-01t10:00:00.000Z',
      '2026-01-01T10:00:00.000z',
      '2026-01-01T10:00:00.000+02:00',
      '2026-01-01 10:00:00.000Z',
      '+002026-01-01T00:00:00.000Z',
      '2026-01-01T1a:00:00.000Z',
      '2026-01-01T10:00:00.0a0Z',
      '9999-12-31T23:59:59.999Z',
      '２026-01-01T10:00:00.000Z',
      '',
      'not a time',
    ])
      same(s);
  });

  it('equals Date.parse on generated canonical-looking strings', () => {
    const part = (max: number, width: number) =>
      fc.integer({ min: 0, max }).map((n) => pad(n, width));
    fc.assert(
      fc.property(
        part(9999, 4),
        part(14, 2),
        part(33, 2),
        part(25, 2),
        part(61, 2),
        part(61, 2),
        part(999, 3),
        (y, mo, d, h, mi, s, ms) => same(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`),
      ),
      fuzz(5000),
    );
  });

  it('equals Date.parse when one character of a timestamp is changed', () => {
    const base = '2026-03-15T12:34:56.789Z';
    fc.assert(
      fc.property(
        fc.nat(base.length - 1),
        fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
        (at, c) => same(base.slice(0, at) + c + base.slice(at + 1)),
      ),
      fuzz(2000),
    );
  });
});
