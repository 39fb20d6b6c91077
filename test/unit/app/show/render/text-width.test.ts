// Display width and the folded session axis: the measures both views stand on.
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import {
  displayWidth,
  fitWidth,
  NARROW_ONLY,
  padWidth,
} from '../../../../../src/app/show/render/text-width.js';
import { foldedAxis, FOLD_GAP_MS } from '../../../../../src/app/show/render/waterfall-view.js';

describe('display width', () => {
  it('takes the fast path only for characters string-width counts as one column', () => {
    const fast = [];
    for (let cp = 0; cp < 0x3000; cp++) {
      const ch = String.fromCodePoint(cp);
      if (NARROW_ONLY.test(ch)) fast.push(ch);
    }
    expect(fast.length).toBeGreaterThan(95);
    for (const ch of fast) expect(stringWidth(ch), `U+${ch.codePointAt(0)!.toString(16)}`).toBe(1);
  });

  it.each([
    ['abc', 3],
    ['日本語', 6],
    ['👍🏽', 2],
    ['👨‍👩‍👧', 2],
    ['e\u0301', 1],
    ['한국어', 6],
    ['\u001b[31mred\u001b[0m', 3],
  ])('%s is %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });

  it('cuts by width, never through a wide character or a cluster', () => {
    expect(fitWidth('日本語のテキスト', 7)).toBe('日本語…');
    expect(fitWidth('ab👍🏽cd', 4)).toBe('ab…');
    expect(fitWidth('cafe\u0301 au lait', 5)).toBe('cafe\u0301…');
    expect(padWidth('日本', 5)).toBe('日本 ');
  });

  it('fits any text within the width and agrees with string-width', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.integer({ min: 1, max: 30 }),
        (text, w) => {
          expect(displayWidth(text)).toBe(stringWidth(text));
          expect(displayWidth(fitWidth(text, w))).toBeLessThanOrEqual(w);
          expect(displayWidth(padWidth(text, w))).toBe(w);
        },
      ),
    );
  });
});

describe('folded axis', () => {
  const H = 3_600_000;
  const turn = (start: number, ms: number) => ({ start, end: start + ms, span: ms });

  it('cuts idle gaps to breaks so turns keep their scale', () => {
    const a = foldedAxis([turn(0, 10 * 60_000), turn(20 * H, 10 * 60_000)]);
    expect(a.breaks).toHaveLength(1);
    expect(a.breaks[0]!.idleMs).toBe(20 * H - 10 * 60_000);
    // Two 10-minute turns share the axis nearly evenly, 20 idle hours in between.
    expect(a.fraction(10 * 60_000)).toBeGreaterThan(0.45);
    expect(a.fraction(20 * H)).toBeLessThan(0.55);
    expect(a.fraction(20 * H + 10 * 60_000)).toBe(1);
    // A time inside the gap sits at the break.
    expect(a.fraction(10 * H)).toBeCloseTo(a.fraction(10 * 60_000), 5);
  });

  it('keeps short gaps to scale and is monotonic', () => {
    const a = foldedAxis([turn(0, 60_000), turn(60_000 + FOLD_GAP_MS / 2, 60_000)]);
    expect(a.breaks).toEqual([]);
    let last = -1;
    for (let t = 0; t <= 3 * 60_000; t += 5_000) {
      expect(a.fraction(t)).toBeGreaterThanOrEqual(last);
      last = a.fraction(t);
    }
  });

  it('gives the breaks together at most a quarter of the axis', () => {
    const turns = Array.from({ length: 100 }, (_, i) => turn(i * H, 60_000));
    const a = foldedAxis(turns);
    expect(a.breaks).toHaveLength(99);
    expect(a.fraction(60_000)).toBeGreaterThan(0.75 / 100 - 1e-9);
  });
});
