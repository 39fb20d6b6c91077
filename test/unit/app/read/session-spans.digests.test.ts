// One protobuf encoding per turn gives both digests watch keeps: the turn's
// (digestOf, what the export state records) and each span's, which changes
// with that span's content alone.
import { describe, expect, it } from 'vitest';
import { encodeSpanFields } from '../../../../src/adapters/otlp/encode.js';
import { sha256Hex } from '../../../../src/core/spans/ids.js';
import { digestOf, turnDigests } from '../../../../src/app/read/session-spans.js';
import { testSpan as span } from '../../../support/test-span.js';

describe('turnDigests', () => {
  const spans = [span('1'), span('2'), span('3')];

  it("gives digestOf for the turn, and for each span the hash of that span's own fields", () => {
    const { digest, spanDigests } = turnDigests(spans);
    expect(digest).toBe(digestOf(spans));
    expect(spanDigests).toEqual(
      spans.map((s) => sha256Hex(encodeSpanFields([s]).bytes).slice(0, 16)),
    );
    expect(new Set(spanDigests).size).toBe(3);
  });

  it('a changed span changes its own digest and the turn digest, no other span digest', () => {
    const before = turnDigests(spans);
    const changed = [spans[0], { ...span('2'), endMs: 5 }, spans[2]].map((s) => s ?? span('0'));
    const after = turnDigests(changed);
    expect(after.digest).not.toBe(before.digest);
    expect(after.spanDigests[0]).toBe(before.spanDigests[0]);
    expect(after.spanDigests[1]).not.toBe(before.spanDigests[1]);
    expect(after.spanDigests[2]).toBe(before.spanDigests[2]);
  });

  it('an empty turn has no span digests', () => {
    expect(turnDigests([]).spanDigests).toEqual([]);
  });
});
