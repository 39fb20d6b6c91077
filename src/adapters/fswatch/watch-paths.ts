// Path questions the directory watcher and its root anchors both ask.
import { sep } from 'node:path';
import { statOrNull } from '../files/session-files.js';

/** Whether path is root or lies under it. */
export const isUnder = (path: string, root: string): boolean =>
  path === root || path.startsWith(root + sep);

/** What is at a path now, symlinks followed. */
export function kindOf(path: string): 'dir' | 'file' | null {
  const info = statOrNull(path);
  if (info === null) return null;
  return info.isDirectory() ? 'dir' : 'file';
}
