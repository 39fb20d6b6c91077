// Short human labels for tool calls: "Bash: npm test", "Read: src/auth.ts".
// A label always starts with the tool name, so it still says something when
// content capture is off and only the name survives. Cuts fall on token
// boundaries (clip.ts) so a label never ends in half a secret.
//
// A label shows what tells calls apart: a Bash label drops the set-up
// prefixes Claude Code puts before most commands (`cd <dir> &&`, `export X=…
// &&`, `set -e;`), and a file path is relative to the session's cwd when
// inside it, otherwise shortened from the left (`…/src/auth.ts`). The full
// command and path stay in the call's input.
import { clipAtBoundary } from './clip.js';

export const MAX_LABEL_LENGTH = 120;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/** Paths longer than this are shortened from the left. */
export const MAX_PATH_LENGTH = 40;

/**
 * Inside the cwd: the relative path. Elsewhere: the last two segments, since
 * the absolute prefix is the same noise on every row. Either way no longer than
 * MAX_PATH_LENGTH when whole trailing segments allow it (the file name is always kept).
 */
export function shortPath(path: string, cwd: string | null): string {
  // Windows sessions (cwd D:\work\app) name files with backslashes, either case of drive letter.
  const windows = WINDOWS_PATH.test(path);
  const sep = windows ? '\\' : '/';
  const trailing = windows ? /[\\/]+$/ : /\/+$/;
  const base = cwd === null ? '' : cwd.replace(trailing, '');
  const slashes = (p: string): string => (windows ? p.replace(/\//g, '\\').toLowerCase() : p);
  const inside = base !== '' && slashes(path).startsWith(slashes(base) + sep);
  const shown = inside ? path.slice(base.length + 1) : path;
  const segments = shown.split(windows ? /[\\/]/ : '/');
  // A short absolute path (`/etc/hosts`, `C:\hosts`) says more whole than shortened.
  const named = segments.filter((x) => x !== '' && !/^[A-Za-z]:$/.test(x)).length;
  const keepAtMost = inside || named <= 3 ? segments.length : 2;
  let kept = segments.slice(-Math.min(keepAtMost, segments.length)).join(sep);
  let cut = keepAtMost < segments.length;
  while (kept.length > MAX_PATH_LENGTH && kept.includes(sep)) {
    kept = kept.slice(kept.indexOf(sep) + 1);
    cut = true;
  }
  return cut ? `…${sep}${kept}` : shown;
}

/** A drive-letter or UNC path. */
const WINDOWS_PATH = /^(?:[A-Za-z]:[\\/]|\\\\)/;

// One set-up step and the `&&`, `;` or line break after it: `cd dir`, `pushd dir`,
// `export A=1 B="x y"`, `set -euo pipefail`. Arguments may be quoted. Within a
// step only blanks separate words, so a line break always ends it.
const ARG = String.raw`(?:"[^"]*"|'[^']*'|[^\s;&|'"])+`;
const SETUP_STEP = new RegExp(
  String.raw`^\s*(?:(?:cd|pushd)[ \t]+${ARG}|export(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*=${ARG}?)+|set[ \t]+[-+][A-Za-z]+(?:[ \t]+[a-z]+)?)[ \t]*(?:&&|;|\r?\n)\s*`,
);

/** A command without its leading set-up steps; the whole command when nothing else is left. */
export function distinctiveCommand(command: string): string {
  let rest = command;
  // Each pass removes one step; a command has few, the bound only guards odd input.
  for (let i = 0; i < 20; i++) {
    const m = SETUP_STEP.exec(rest);
    if (m === null) break;
    rest = rest.slice(m[0].length);
  }
  return rest.trim() === '' ? command : rest;
}

/** Whitespace other than a space, two spaces in a row, or a space at either end. */
const NOT_ONE_LINE = /[^\S ]| {2}|^ | $/;

function oneLine(text: string): string {
  // Most subjects are one line already: the replace and trim would return them as they are.
  if (!NOT_ONE_LINE.test(text)) return text;
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * oneLine(text) as far as a label cut at MAX_LABEL_LENGTH can see it: the
 * same string when it is short, else a string that agrees with it on its
 * first MAX_LABEL_LENGTH + 1 characters and is as long or longer, which
 * clipAtBoundary cuts the same way. A multi-kilobyte command (a heredoc)
 * is then collapsed over its first few hundred characters only.
 */
function oneLineHead(text: string): string {
  const n = MAX_LABEL_LENGTH;
  if (text.length <= 4 * n) return oneLine(text);
  // Collapsing a prefix gives a prefix of the collapsed whole (a run cut at
  // the end still becomes one space), and the same leading trim.
  const head = text
    .slice(0, 4 * n)
    .replace(/\s+/g, ' ')
    .trimStart();
  let last = head.length - 1;
  while (last >= 0 && head.charCodeAt(last) === 32) last -= 1;
  // A non-space character past n: the whole is at least that long, whatever its end.
  return last >= n ? head.slice(0, last + 1) : oneLine(text);
}

const WORKFLOW_NAME = /^\s*export const meta\s*=\s*\{[^}]*?\bname:\s*['"]([^'"]+)['"]/;

/** The most telling argument of a call, by tool. */
function subject(name: string, input: Record<string, unknown>, cwd: string | null): string | null {
  const path = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path);
  switch (name) {
    case 'Bash': {
      const command = str(input.command);
      return command === null ? str(input.description) : distinctiveCommand(command);
    }
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return path === null ? null : shortPath(path, cwd);
    case 'Glob':
    case 'Grep':
      return str(input.pattern);
    case 'WebFetch':
      return str(input.url);
    case 'WebSearch':
      return str(input.query);
    case 'Task':
    case 'Agent':
      return str(input.description) ?? str(input.subagent_type);
    case 'TodoWrite':
      return Array.isArray(input.todos) ? `${input.todos.length} todos` : null;
    case 'Skill':
      return str(input.skill) ?? str(input.command);
    case 'Workflow':
      // A script opens with `export const meta = { name: '…', … }`; a predefined workflow has input.name.
      return (
        str(input.name) ?? WORKFLOW_NAME.exec(str(input.script) ?? '')?.[1] ?? str(input.scriptPath)
      );
    default: {
      for (const value of Object.values(input)) {
        const s = str(value);
        if (s !== null) return s;
      }
      return null;
    }
  }
}

export function toolLabel(
  name: string,
  input: Record<string, unknown>,
  cwd: string | null,
): string {
  const s = subject(name, input, cwd);
  const label = s === null ? name : `${name}: ${oneLineHead(s)}`;
  return clipAtBoundary(label, MAX_LABEL_LENGTH - 1);
}

/** A call's label, made on first use and kept (ToolCall.label). */
export function callLabel(call: {
  name: string;
  input: Record<string, unknown>;
  cwd: string | null;
  label: string | null;
}): string {
  return (call.label ??= toolLabel(call.name, call.input, call.cwd));
}

/** A prompt's label: its first line, trimmed. */
export function promptLabel(text: string | null): string {
  if (text === null) return '(no prompt text)';
  const command = /<command-name>([^<]*)<\/command-name>/.exec(text);
  const base = command?.[1] !== undefined ? command[1] : oneLineHead(text);
  return clipAtBoundary(base, MAX_LABEL_LENGTH - 1);
}
