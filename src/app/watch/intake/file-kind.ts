// Which paths the daemon's directory watcher reports; what a path is, is
// core/transcript-paths.ts's to say.
import { basename, sep } from 'node:path';
import { classifyPath } from '../../../core/transcript/paths.js';

/** Directories never holding transcripts (large tool outputs spilled to disk). */
const SKIPPED_DIRS = new Set(['tool-results', 'node_modules', '.git']);

/**
 * Filter for the directory watcher: every directory up to a few levels below a
 * root (project, session, subagents, workflows/wf_*), and only transcript and
 * sidecar files.
 */
export function isWatchedPath(path: string, isDir: boolean | undefined, root: string): boolean {
  const depth = path
    .slice(root.length)
    .split(sep)
    .filter((p) => p !== '').length;
  const name = basename(path);
  if (isDir === true) return depth <= 5 && !SKIPPED_DIRS.has(name);
  if (isDir === false) return classifyPath(path, root) !== null;
  // Unknown (the dir watcher always knows; a caller that cannot tell): let it
  // through unless it clearly is neither.
  return !SKIPPED_DIRS.has(name) && depth <= 6;
}
