// Durable JSON state: written to a temp file and renamed over the old one, so
// a crash leaves either the old or the new state, never half of one. Files are
// 0600 in a 0700 dir: they name sessions and projects. A corrupt file is moved
// aside (never silently overwritten) and reported.
import { chmod, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

export type StateRead<T> =
  | { kind: 'missing' }
  | { kind: 'ok'; value: T }
  | { kind: 'corrupt'; reason: string; movedTo: string | null };

export async function readStateFile<T>(
  path: string,
  validate: (value: unknown) => T | null,
): Promise<StateRead<T>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw err;
  }
  let reason: string;
  try {
    const value = validate(JSON.parse(text));
    if (value !== null) return { kind: 'ok', value };
    reason = 'unexpected shape';
  } catch (err) {
    reason = `invalid JSON (${(err as Error).message})`;
  }
  const movedTo = `${path}.corrupt-${Date.now()}`;
  const moved = await rename(path, movedTo).then(
    () => true,
    () => false,
  );
  return { kind: 'corrupt', reason, movedTo: moved ? movedTo : null };
}

export async function writeStateFile(path: string, value: unknown): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.tmp-${process.pid}`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(value));
    // fsync before rename: after a power cut the rename must not point at an empty file.
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
