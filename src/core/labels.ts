// Short human labels for tool calls: "Bash: npm test", "Read: src/auth.ts".
// A label always starts with the tool name, so it still says something when
// content capture is off and only the name survives. Cuts fall on token
// boundaries (clip.ts) so a label never ends in half a secret.
import { clipAtBoundary } from './clip.js';

export const MAX_LABEL_LENGTH = 120;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

function relativeTo(cwd: string | null, path: string): string {
  if (cwd !== null && cwd !== '' && path.startsWith(cwd + '/')) return path.slice(cwd.length + 1);
  return path;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The most telling argument of a call, by tool. */
function subject(name: string, input: Record<string, unknown>, cwd: string | null): string | null {
  const path = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path);
  switch (name) {
    case 'Bash':
      return str(input.description) !== null && str(input.command) === null
        ? str(input.description)
        : str(input.command);
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return path === null ? null : relativeTo(cwd, path);
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
  const label = s === null ? name : `${name}: ${oneLine(s)}`;
  return clipAtBoundary(label, MAX_LABEL_LENGTH - 1);
}

/** A prompt's label: its first line, trimmed. */
export function promptLabel(text: string | null): string {
  if (text === null) return '(no prompt text)';
  const command = /<command-name>([^<]*)<\/command-name>/.exec(text);
  const base = command?.[1] !== undefined ? command[1] : oneLine(text);
  return clipAtBoundary(base, MAX_LABEL_LENGTH - 1);
}
