// What the daemon asks of a file besides its lines: identity, size and last
// write, and a sidecar read whole. Null when the file is gone or not a file.
import { readFile, stat } from 'node:fs/promises';

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

/** A small file read whole with the identity it had (a meta sidecar); null if unreadable. */
export async function readWhole(
  path: string,
): Promise<{ ino: number; size: number; text: string } | null> {
  const info = await fileInfo(path);
  if (info === null) return null;
  const text = await readFile(path, 'utf8').catch(() => null);
  return text === null ? null : { ino: info.ino, size: info.size, text };
}
