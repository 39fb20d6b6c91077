// Terminal text by display width, not string length: East Asian wide
// characters take two columns, combining marks none, an emoji sequence two.
// string-width (the terminal ecosystem's measure, as used by ink and
// cli-truncate) decides the width of each grapheme cluster; these helpers sum,
// cut and pad by it. The cut is ours rather than cli-truncate's: cli-truncate
// 5 overshot by a column when a wide character straddled the limit, and it
// measured the whole string again for each step, which dominated printing a
// 5,000-call session.
import { createRequire } from 'node:module';

type StringWidth = typeof import('string-width').default;
const requireModule = createRequire(import.meta.url);
let loadedWidth: StringWidth | null = null;

/**
 * string-width, loaded the first time a text is not narrow-only: importing it
 * is a large share of a `ccotel show` of the demo session (its Unicode
 * property regexes and a segmenter), whose cells are all narrow
 * (docs/benchmarks.md). `require` of an ES module is synchronous
 * since Node 20.19, so the measuring functions stay synchronous.
 */
function stringWidth(text: string): number {
  loadedWidth ??= (requireModule('string-width') as { default: StringWidth }).default;
  return loadedWidth(text);
}

/**
 * Characters one column wide whatever the terminal: printable ASCII and the
 * glyphs the views draw (box drawing, blocks, `…`, `·`, `✓`, `✗`). Text made
 * of these only is measured by its length: most cells are.
 */
export const NARROW_ONLY = /^[\u0020-\u007e\u00b7\u2026\u2500-\u259f\u2713\u2717]*$/;

/** Made on first use, like stringWidth: an ICU segmenter is slow to create. */
let segmenter: Intl.Segmenter | null = null;
const graphemesOf = (text: string): Intl.Segments =>
  (segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' })).segment(text);
/** Width per grapheme: prompts repeat the same few hundred characters. */
const widthCache = new Map<string, number>();
const WIDTH_CACHE_MAX = 20_000;

function graphemeWidth(g: string): number {
  let w = widthCache.get(g);
  if (w === undefined) {
    w = stringWidth(g);
    if (widthCache.size < WIDTH_CACHE_MAX) widthCache.set(g, w);
  }
  return w;
}

/** Columns `text` takes on a terminal (ANSI escapes count as none). */
export function displayWidth(text: string): number {
  if (NARROW_ONLY.test(text)) return text.length;
  // Escapes span several graphemes: string-width strips them as a whole.
  if (text.includes('\u001b')) return stringWidth(text);
  let width = 0;
  for (const { segment } of graphemesOf(text)) width += graphemeWidth(segment);
  return width;
}

/** Cuts `text` to at most `width` columns, ending in `…` when something was cut. */
export function fitWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (NARROW_ONLY.test(text)) return text.length <= width ? text : text.slice(0, width - 1) + '…';
  if (displayWidth(text) <= width) return text;
  // Whole graphemes up to width - 1 columns, then the ellipsis (never half a wide character).
  let kept = '';
  let used = 0;
  for (const { segment } of graphemesOf(text)) {
    const w = graphemeWidth(segment);
    if (used + w > width - 1) break;
    kept += segment;
    used += w;
  }
  return kept + '…';
}

/** Pads `text` on the right to exactly `width` columns (after cutting it to fit). */
export function padWidth(text: string, width: number, fill = ' '): string {
  const fitted = fitWidth(text, width);
  const missing = width - displayWidth(fitted);
  return missing > 0 ? fitted + fill.repeat(missing) : fitted;
}

/** Pads `text` on the left to exactly `width` columns (after cutting it to fit). */
export function padStartWidth(text: string, width: number): string {
  const fitted = fitWidth(text, width);
  const missing = width - displayWidth(fitted);
  return missing > 0 ? ' '.repeat(missing) + fitted : fitted;
}
