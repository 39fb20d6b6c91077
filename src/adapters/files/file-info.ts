// What the use cases ask of files besides their lines: identity, size and last
// write, small files read whole, a file's head, dir listings, a page written.
// Null (or []) when the file is gone or unreadable: callers decide what that means.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';

export interface FileInfo {
  ino: number;
  size: number;
  mtimeMs: number;
}

export async function fileInfo(path: string): Promise<FileInfo | null> {
  const info = await stat(path).catch(() => null);
  return info === null || !info.isFile()
    ? null
    : { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs };
}

/**
 * A small file read whole with the identity it had (a meta sidecar); null if
 * unreadable. Synchronous: a few hundred bytes, read by the thousand at a start-up.
 */
export function readWholeSync(path: string): { ino: number; size: number; text: string } | null {
  const info = fileStampSync(path);
  if (info === null) return null;
  const text = readSmallFileSync(path);
  return text === null ? null : { ino: info.ino, size: info.size, text };
}

/** A sidecar's text read synchronously (a few hundred bytes: cheaper than an async round trip); null if unreadable. */
export function readSmallFileSync(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

/** Names in a dir, sorted; [] when it cannot be listed. */
export async function listNames(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).sort();
}

/**
 * The first of a file's complete lines, within its first `maxBytes`, for which
 * `pick` gives a value (however long the lines: a sub-agent's prompt can be
 * large); null if none, or if the file cannot be read.
 */
export function firstLineValue<T>(
  path: string,
  pick: (line: string) => T | null,
  chunkBytes: number,
  maxBytes: number,
): T | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    let head = Buffer.alloc(0);
    for (let position = 0; position < maxBytes;) {
      const chunk = Buffer.allocUnsafe(chunkBytes);
      const read = readSync(fd, chunk, 0, chunkBytes, position);
      if (read === 0) return null;
      position += read;
      head = Buffer.concat([head, chunk.subarray(0, read)]);
      let from = 0;
      for (let nl = head.indexOf(10); nl >= 0; nl = head.indexOf(10, from)) {
        const value = pick(head.toString('utf8', from, nl));
        if (value !== null) return value;
        from = nl + 1;
      }
      head = head.subarray(from);
    }
    return null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * What tells a file unchanged without reading it: a write moves mtime and
 * ctime (ctime cannot be set back), a replacement changes the inode, a copy
 * elsewhere the device.
 */
export interface FileStamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * A file's stamp as a session's record keeps it, the path relative to the
 * session's project dir: compact, since a history has thousands of files.
 */
export type StampedFile = [
  path: string,
  dev: number,
  ino: number,
  size: number,
  mtimeMs: number,
  ctimeMs: number,
];

/** The stamp of a regular file; null when it is missing or not one. */
export function fileStampSync(path: string): FileStamp | null {
  let info;
  try {
    info = statSync(path, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (info === undefined || !info.isFile()) return null;
  const { dev, ino, size, mtimeMs, ctimeMs } = info;
  return { dev, ino, size, mtimeMs, ctimeMs };
}
