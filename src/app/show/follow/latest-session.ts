// Which session `show --follow` follows without a target: the most recently
// written one of the project dir Claude Code keeps for the current directory,
// else the most recently written one anywhere.
import { join } from 'node:path';
import { UserError } from '../../../core/user-error.js';
import { projectDirNameOf } from '../../../core/transcript/project-dir-name.js';
import {
  findSessionsSync,
  statOrNull,
  type SessionFiles,
} from '../../../adapters/files/session-files.js';

function newest(sessions: SessionFiles[]): SessionFiles | null {
  let best: SessionFiles | null = null;
  let bestTime = -Infinity;
  for (const s of sessions) {
    const time = statOrNull(s.mainFile)?.mtimeMs ?? -Infinity;
    if (time > bestTime) [best, bestTime] = [s, time];
  }
  return best;
}

const sessionsUnder = (dir: string): SessionFiles[] => {
  try {
    return findSessionsSync(dir);
  } catch {
    return [];
  }
};

export function latestSession(cwd: string, projectsDirs: string[]): SessionFiles {
  const here = projectsDirs.flatMap((root) => sessionsUnder(join(root, projectDirNameOf(cwd))));
  const found = newest(here) ?? newest(projectsDirs.flatMap(sessionsUnder));
  if (found === null)
    throw new UserError(
      `no Claude Code sessions under ${projectsDirs.join(', ')} to follow`,
      'not-found',
    );
  return found;
}
