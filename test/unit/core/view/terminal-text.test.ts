// terminalText: what every terminal view passes transcript text through.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalJson, terminalText } from '../../../../src/core/view/terminal-text.js';
import { displayWidth } from '../../../../src/app/show/render/text-width.js';
import { createJsonLogger } from '../../../../src/adapters/logger.js';
import { TERMINAL_PAYLOAD, UNSAFE_FOR_TERMINAL } from '../../../support/hostile-session.js';

// Everything a terminal acts on or reorders by, newline included.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminalText', () => {
  it.each([
    ['\u001b]0;pwned\u0007', '\\x1b]0;pwned\\x07'],
    ['\u001b[2J', '\\x1b[2J'],
    ['a\u0008b', 'a\\x08b'],
    ['\u009b31m', '\\x9b31m'],
    ['\u0085', '\\x85'],
    ['del\u007f', 'del\\x7f'],
    ['nul\u0000', 'nul\\x00'],
    ['one\ntwo\tthree\r', 'one\\x0atwo\\x09three\\x0d'],
    ['\u202aa\u202bb\u202cc\u202dd\u202ee', '\\u202aa\\u202bb\\u202cc\\u202dd\\u202ee'],
    ['\u2066a\u2067b\u2068c\u2069', '\\u2066a\\u2067b\\u2068c\\u2069'],
  ])('shows %j as %s', (text, shown) => {
    expect(terminalText(text)).toBe(shown);
  });

  it.each([
    'plain /home/dev/project',
    '日本語',
    'e\u0301',
    '👨‍👩‍👧',
    '한국어 ✓ … ─',
    'C:\\Users\\dev',
    '\u00a0\u200f',
  ])('leaves %j as it is, display width kept', (text) => {
    expect(terminalText(text)).toBe(text);
    expect(displayWidth(terminalText(text))).toBe(displayWidth(text));
  });

  it('never lets a control or bidi override through, and changes nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const shown = terminalText(text);
        expect(shown).not.toMatch(UNSAFE);
        // Removing the escapes of what was unsafe gives back the safe rest.
        const safeRest = [...text].filter((ch) => !UNSAFE.test(ch)).join('');
        expect(shown.replace(/\\x[0-9a-f]{2}|\\u20[26][0-9a-f]/g, '')).toBe(
          safeRest.replace(/\\x[0-9a-f]{2}|\\u20[26][0-9a-f]/g, ''),
        );
      }),
    );
  });
});

describe('terminalJson', () => {
  it('escapes what JSON.stringify leaves raw, and the line parses to the same value', () => {
    const value = { cwd: `/home/${TERMINAL_PAYLOAD}` };
    const line = terminalJson(JSON.stringify(value));
    expect(line).not.toMatch(UNSAFE_FOR_TERMINAL);
    expect(JSON.parse(line)).toEqual(value);
  });

  it('keeps the daemon log lines free of controls', () => {
    let out = '';
    const log = createJsonLogger((l) => (out += l), 'info');
    log.warn(`skipped ${TERMINAL_PAYLOAD}`, { file: `/p/${TERMINAL_PAYLOAD}/s.jsonl` });
    expect(out).not.toMatch(UNSAFE_FOR_TERMINAL);
    const parsed = JSON.parse(out) as { msg: string; file: string };
    expect(parsed.msg).toBe(`skipped ${TERMINAL_PAYLOAD}`);
    expect(parsed.file).toBe(`/p/${TERMINAL_PAYLOAD}/s.jsonl`);
  });
});
