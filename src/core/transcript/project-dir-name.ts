// Claude Code names a project dir after its cwd with every character other
// than a letter or digit replaced by '-': /home/jane/app → -home-jane-app,
// C:\Users\jane\app → C--Users-jane-app. The encoding loses which '-' was a
// separator and which a '-', '.', '_' or space, so the decoded path is the
// likeliest reading, used only when the transcript itself names no cwd.

/** A Windows drive-letter name: C--Users-jane-app (C: then a backslash). */
const DRIVE_LETTER = /^([A-Za-z])--(.*)$/;

/** The cwd a Windows-side project dir name encodes; null for any other name. */
export function cwdFromProjectDirName(name: string): string | null {
  const match = DRIVE_LETTER.exec(name);
  if (match === null) return null;
  const [, drive = '', rest = ''] = match;
  const path = rest.replace(/-/g, '\\');
  return `${drive.toUpperCase()}:\\${path}`;
}

/** The project dir name Claude Code gives a cwd: every character but a letter or digit becomes '-'. */
export const projectDirNameOf = (cwd: string): string => cwd.replace(/[^A-Za-z0-9]/g, '-');
