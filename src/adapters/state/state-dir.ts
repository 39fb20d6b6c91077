// The state dir, made ready before anything is written there: every missing
// component created one at a time (mode 0700), so that a path that cannot
// exist fails once with a line naming it. Node's recursive mkdir loops
// forever on some of them (`/proc/nope`: ENOENT for a parent that exists).
// An existing dir open to group or others is tightened to 0700: its files name
// sessions and projects.
import { chmod, mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UserError } from '../../core/user-error.js';

const codeOf = (err: unknown): string =>
  (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** Missing dirs from `dir` up to the first that exists (deepest first). */
async function missingDirs(dir: string, label: string): Promise<string[]> {
  const missing: string[] = [];
  for (let path = resolve(dir); ; path = dirname(path)) {
    const info = await stat(path).catch((err: unknown) => codeOf(err));
    if (typeof info !== 'string') {
      if (!info.isDirectory())
        throw new UserError(`${label} ${dir}: ${path} is not a directory`, 'usage');
      return missing;
    }
    // ENOTDIR: some component above is a file; going up finds and names it.
    if (info !== 'ENOENT' && info !== 'ENOTDIR')
      throw new UserError(`${label} ${dir}: cannot use ${path} (${info})`, 'usage');
    missing.push(path);
    if (dirname(path) === path) return missing;
  }
}

/** Fails (one line naming `label`) when `dir` cannot be a directory; creates nothing. */
export async function checkStateDir(dir: string, label: string): Promise<void> {
  await missingDirs(dir, label);
}

/**
 * Creates `dir` (0700) if need be and tightens an existing one to 0700.
 * `label` names where the dir came from (`--state-dir`), for the error line.
 */
export async function prepareStateDir(
  dir: string,
  label: string,
  warn: (message: string) => void,
): Promise<void> {
  const missing = await missingDirs(dir, label);
  for (const path of missing.reverse()) {
    try {
      await mkdir(path, { mode: 0o700 });
    } catch (err) {
      if (codeOf(err) !== 'EEXIST')
        throw new UserError(`${label} ${dir}: cannot create ${path} (${codeOf(err)})`, 'usage');
    }
  }
  if (missing.length > 0) return;
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  try {
    await chmod(dir, 0o700);
    warn(
      `state dir ${dir} was mode 0${mode.toString(8)}; tightened to 0700 (its files name your sessions and projects)`,
    );
  } catch (err) {
    warn(
      `state dir ${dir} is mode 0${mode.toString(8)} and could not be tightened to 0700 (${codeOf(err)})`,
    );
  }
}
