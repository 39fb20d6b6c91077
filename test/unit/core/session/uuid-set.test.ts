// UuidSet against a plain Set<string> on the same operations: exact (no false
// duplicates), through growth, for the nil uuid, upper case and other strings.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UuidSet } from '../../../../src/core/session/uuid-set.js';

describe('UuidSet', () => {
  it('agrees with Set<string> over 50,000 uuids and their near misses', () => {
    const set = new UuidSet();
    const plain = new Set<string>();
    const ids = Array.from({ length: 50_000 }, () => randomUUID());
    ids.forEach((id, i) => {
      if (i % 3 !== 0) {
        set.add(id);
        plain.add(id);
      }
    });
    for (const id of ids) {
      expect(set.has(id)).toBe(plain.has(id));
      // One hex digit off, in each of the four words: never taken for the original.
      for (const at of [0, 10, 20, 35]) {
        const c = id[at] === 'a' ? 'b' : 'a';
        const near = id.slice(0, at) + c + id.slice(at + 1);
        expect(set.has(near)).toBe(plain.has(near));
      }
    }
    expect(set.size).toBe(plain.size);
  });

  it('keeps the nil uuid, upper-case uuids and other strings apart, exactly', () => {
    const set = new UuidSet();
    const nil = '00000000-0000-0000-0000-000000000000';
    expect(set.has(nil)).toBe(false);
    set.add(nil).add('ABCDEF01-2345-4678-89AB-CDEF01234567').add('not-a-uuid').add('');
    expect(set.has(nil)).toBe(true);
    expect(set.has('ABCDEF01-2345-4678-89AB-CDEF01234567')).toBe(true);
    expect(set.has('abcdef01-2345-4678-89ab-cdef01234567')).toBe(false);
    expect(set.has('not-a-uuid')).toBe(true);
    expect(set.has('')).toBe(true);
    expect(set.size).toBe(4);
  });

  it('any sequence of adds and lookups answers as a Set does', () => {
    const hex = fc.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Few distinct values, so repeats and collisions in the table are common.
    const value = fc.oneof(hex, fc.constantFrom('00000000-0000-0000-0000-000000000000', 'x', ''));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), value), { maxLength: 300 }), (ops) => {
        const set = new UuidSet();
        const plain = new Set<string>();
        for (const [add, v] of ops) {
          expect(set.has(v)).toBe(plain.has(v));
          if (add) {
            set.add(v);
            plain.add(v);
          }
        }
        expect(set.size).toBe(plain.size);
      }),
      { numRuns: 200 },
    );
  });
});
