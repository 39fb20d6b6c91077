// Output files that hold session content (`show --html`, `export --out`):
// mode 0600 whatever the umask, written to a new temp file in the same dir
// (O_EXCL, so never through a link planted there) and renamed over the target
// at the end. rename() replaces a symlink at the target rather than writing
// where it points, and a reader never sees half a file.
import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CliError } from './cli-error.js';

export interface PrivateFile {
  readonly path: string;
  append(text: string): Promise<void>;
  /** Renames the temp file into place. */
  commit(): Promise<void>;
  /** Removes the temp file (the target is left as it was). */
  discard(): Promise<void>;
}

/** Checks where `path` would go, naming `flag` in the one-line error (exit 2). */
async function checkTarget(path: string, flag: string): Promise<void> {
  const dir = dirname(path);
  const info = await stat(dir).catch((err: NodeJS.ErrnoException) => err);
  if (info instanceof Error)
    throw new CliError(
      `${flag} ${path}: ${info.code === 'ENOENT' ? `directory ${dir} does not exist` : `cannot use directory ${dir} (${info.code ?? info.message})`}`,
      2,
    );
  if (!info.isDirectory()) throw new CliError(`${flag} ${path}: ${dir} is not a directory`, 2);
  const target = await stat(path).catch(() => null);
  if (target?.isDirectory() === true) throw new CliError(`${flag} ${path}: is a directory`, 2);
}

export async function openPrivateFile(path: string, flag: string): Promise<PrivateFile> {
  await checkTarget(path, flag);
  const tmp = join(
    dirname(path),
    `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  let handle: FileHandle;
  try {
    handle = await open(tmp, 'wx', 0o600);
  } catch (err) {
    throw new CliError(
      `${flag} ${path}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      2,
    );
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return {
    path,
    append: async (text) => {
      await handle.writeFile(text);
    },
    async commit() {
      try {
        await handle.chmod(0o600);
        await close();
        await rename(tmp, path);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw new CliError(
          `${flag} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
          1,
        );
      }
    },
    async discard() {
      await close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    },
  };
}

/** The whole file at once: temp, 0600, rename. */
export async function writePrivateFile(path: string, text: string, flag: string): Promise<void> {
  const file = await openPrivateFile(path, flag);
  try {
    await file.append(text);
  } catch (err) {
    await file.discard();
    throw err;
  }
  await file.commit();
}
