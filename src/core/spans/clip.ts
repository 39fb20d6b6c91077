// Cutting text without leaving half a secret behind. The scrubber recognises a
// token by its whole shape (ghp_ + 36 chars, a JWT's three segments…); a cut
// through the middle of one leaves a stub too short to match, yet still part of
// the secret. So every cut falls on a token boundary: the partial token at the
// end is dropped whole.

/** Characters that end a token in code, shell, URLs, JSON and prose. */
const BOUNDARY = new Set([
  ' ',
  '\n',
  '\t',
  '\r',
  '"',
  "'",
  '`',
  ',',
  ';',
  ':',
  '=',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '<',
  '>',
  '|',
  '&',
]);

export const CLIP_MARKER = '…';

/** At most `max` characters (plus the marker when cut), ending on a token boundary. */
export function clipAtBoundary(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  // The character just past the cut may itself be a boundary: then nothing was split.
  if (!BOUNDARY.has(text[end] ?? ' ')) {
    while (end > 0 && !BOUNDARY.has(text[end - 1] ?? ' ')) end -= 1;
  }
  return `${text.slice(0, end)}${CLIP_MARKER}`;
}
