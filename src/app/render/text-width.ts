// Terminal text by display width, not string length: East Asian wide
// characters take two columns, combining marks none, an emoji sequence two.
// string-width and cli-truncate (the terminal ecosystem's own measures, as
// used by ink and listr2) do the counting; these helpers only pad and cut.
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/** Columns `text` takes on a terminal (ANSI escapes count as none). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** Cuts `text` to at most `width` columns, ending in `…` when something was cut. */
export function fitWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (stringWidth(text) <= width) return text;
  let cut = cliTruncate(text, width, { position: 'end' });
  // cli-truncate 5 can overshoot by one column when a wide character straddles
  // the cut; asking for one column less then lands inside the limit.
  for (let w = width - 1; stringWidth(cut) > width && w > 0; w--) {
    cut = cliTruncate(text, w, { position: 'end' });
  }
  return stringWidth(cut) > width ? '' : cut;
}

/** Pads `text` on the right to exactly `width` columns (after cutting it to fit). */
export function padWidth(text: string, width: number, fill = ' '): string {
  const fitted = fitWidth(text, width);
  const missing = width - stringWidth(fitted);
  return missing > 0 ? fitted + fill.repeat(missing) : fitted;
}

/** Pads `text` on the left to exactly `width` columns (after cutting it to fit). */
export function padStartWidth(text: string, width: number): string {
  const fitted = fitWidth(text, width);
  const missing = width - stringWidth(fitted);
  return missing > 0 ? ' '.repeat(missing) + fitted : fitted;
}
