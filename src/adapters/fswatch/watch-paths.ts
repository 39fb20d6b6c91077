// What is at a path, as the directory watcher and its root anchors both ask.
import { statOrNull } from '../files/session-files.js';

/** What is at a path now, symlinks followed. */
export function kindOf(path: string): 'dir' | 'file' | null {
  const info = statOrNull(path);
  if (info === null) return null;
  return info.isDirectory() ? 'dir' : 'file';
}
