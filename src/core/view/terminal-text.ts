// Transcript text is written by whoever made the session (a shared file, a
// backup, a repository that committed its ~/.claude): a directory name or a
// prompt may hold ESC, BEL or a C1 CSI that a terminal would act on, or a
// bidirectional override that makes a line read differently from what it
// holds. Every terminal view passes such text through terminalText, which
// shows those characters escaped instead of sending them. Everything else
// (wide, combining, emoji) is kept as it is, so display widths do not change.

// C0 controls, DEL, C1 controls, and the bidi embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const HAS_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function escaped(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with controls and bidi overrides written as `\x1b` / `\u202e`; safe to print. */
export function terminalText(text: string): string {
  return HAS_UNSAFE.test(text) ? text.replace(UNSAFE, escaped) : text;
}

// What JSON.stringify leaves as it is but a terminal may act on (it escapes C0 itself).
const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text meant for a terminal (the daemon's log lines): DEL, C1 controls and
 * bidi overrides written as `\u009b` escapes, so the line parses to the same value.
 */
export function terminalJson(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
