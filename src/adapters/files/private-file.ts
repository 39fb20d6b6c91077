// Output files that hold session content (`show --html`, `export --out`):
// mode 0600 whatever the umask, written to a new temp file in the same dir
// (O_EXCL, so never through a link planted there) and renamed over the target
// at the end, so a reader never sees half a file. A symlink at the target is
// refused, not followed and not replaced; a device or FIFO (/dev/null, a pipe)
// is written in place: renaming over it would replace the node itself.
import { randomBytes } from 'node:crypto';
import { lstat, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../../core/user-error.js';

export interface PrivateFile {
  readonly path: string;
  /** Text is written as UTF-8; bytes as they are. */
  append(data: string | Uint8Array): Promise<void>;
  /** Renames the temp file into place. */
  commit(): Promise<void>;
  /** Removes the temp file (the target is left as it was). */
  discard(): Promise<void>;
}

/**
 * Checks where `path` would go, naming `flag` in the one-line error (exit 2).
 * True when it is a device or FIFO, to be written in place.
 */
async function checkTarget(path: string, flag: string): Promise<boolean> {
  const dir = dirname(path);
  const info = await stat(dir).catch((err: NodeJS.ErrnoException) => err);
  if (info instanceof Error)
    throw new UserError(
      `${flag} ${path}: ${info.code === 'ENOENT' ? `directory ${dir} does not exist` : `cannot use directory ${dir} (${info.code ?? info.message})`}`,
      'usage',
    );
  if (!info.isDirectory())
    throw new UserError(`${flag} ${path}: ${dir} is not a directory`, 'usage');
  const target = await lstat(path).catch(() => null);
  if (target === null || target.isFile()) return false;
  if (target.isSymbolicLink())
    throw new UserError(
      `${flag} ${path}: is a symbolic link; not followed (name the file itself, or remove the link)`,
      'usage',
    );
  if (target.isDirectory()) throw new UserError(`${flag} ${path}: is a directory`, 'usage');
  return true;
}

/** A device or FIFO: written in place, nothing to rename. */
async function openInPlace(path: string, flag: string): Promise<PrivateFile> {
  const failed = (err: unknown): UserError =>
    new UserError(
      `${flag} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      'failed',
    );
  const handle = await open(path, 'w').catch((err: unknown) => {
    throw failed(err);
  });
  return {
    path,
    append: (text) =>
      handle.writeFile(text).catch((err: unknown) => {
        throw failed(err);
      }),
    commit: () => handle.close(),
    discard: () => handle.close().catch(() => undefined),
  };
}

export async function openPrivateFile(path: string, flag: string): Promise<PrivateFile> {
  if (await checkTarget(path, flag)) return openInPlace(path, flag);
  const tmp = join(
    dirname(path),
    `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  let handle: FileHandle;
  try {
    handle = await open(tmp, 'wx', 0o600);
  } catch (err) {
    throw new UserError(
      `${flag} ${path}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      'usage',
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
      try {
        await handle.writeFile(text);
      } catch (err) {
        throw new UserError(
          `${flag} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
          'failed',
        );
      }
    },
    async commit() {
      try {
        await handle.chmod(0o600);
        await close();
        await rename(tmp, path);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw new UserError(
          `${flag} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
          'failed',
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
