// One ccotel at a time per state dir. Two daemons on one dir each send every
// span (nothing tells them apart), and two exports both send what neither has
// recorded yet. The lock is a file, <stateDir>/ccotel.lock, naming its holder;
// it is created whole (written aside, then hard-linked into place, which fails
// if one exists), so a reader never sees half of one. A lock whose process is
// gone (kill -9, a crash, a reboot) is stale and taken over, under a mkdir
// mutex so that two newcomers cannot both take it.
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, readFile, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../../core/user-error.js';
import { prepareStateDir } from './state-dir.js';

export type LockCommand = 'watch' | 'export';

export interface LockHolder {
  pid: number;
  command: LockCommand;
  startedAt: string;
  token: string;
}

export interface StateLock {
  readonly path: string;
  release(): Promise<void>;
}

export interface LockOptions {
  /** For the error lines: where the dir was named (default `--state-dir`). */
  label?: string;
  warn?: (message: string) => void;
  /** Told once when this export waits for another export. */
  onWait?: (holder: LockHolder) => void;
  /** Longest wait for another export (default 1 h); then refuse. */
  maxWaitMs?: number;
  pollMs?: number;
}

export const lockPath = (stateDir: string): string => join(stateDir, 'ccotel.lock');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return codeOf(err) === 'EPERM';
  }
}

/** The holder named in the lock; 'gone' if it vanished, 'garbled' if unreadable. */
async function readHolder(path: string): Promise<LockHolder | 'gone' | 'garbled'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return 'gone';
    throw err;
  }
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && (v.command === 'watch' || v.command === 'export'))
      return {
        pid: v.pid,
        command: v.command,
        startedAt: String(v.startedAt),
        token: String(v.token),
      };
  } catch {
    // fall through
  }
  return 'garbled';
}

/** Creates the lock whole; false if one exists. */
async function tryCreate(path: string, holder: LockHolder): Promise<boolean> {
  const aside = `${path}.${holder.token}`;
  await writeFile(aside, JSON.stringify(holder), { mode: 0o600, flag: 'wx' });
  try {
    await link(aside, path);
    return true;
  } catch (err) {
    if (codeOf(err) === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

/** Removes a stale lock, if it is still the one judged stale. */
async function takeOver(path: string, stale: LockHolder | 'garbled'): Promise<void> {
  const mutex = `${path}.takeover`;
  try {
    await mkdir(mutex, { mode: 0o700 });
  } catch (err) {
    if (codeOf(err) !== 'EEXIST') throw err;
    // Another newcomer is taking over; a mutex left by a killed one is cleared after 10 s.
    const info = await stat(mutex).catch(() => null);
    if (info !== null && Date.now() - info.mtimeMs > 10_000)
      await rmdir(mutex).catch(() => undefined);
    await sleep(50);
    return;
  }
  try {
    const now = await readHolder(path);
    const same =
      now === stale ||
      (typeof now === 'object' && typeof stale === 'object' && now.token === stale.token);
    if (same) await unlink(path).catch(() => undefined);
  } finally {
    await rmdir(mutex).catch(() => undefined);
  }
}

const describe = (h: LockHolder): string =>
  `ccotel ${h.command} (pid ${h.pid}, since ${h.startedAt})`;

/**
 * Takes the state dir's lock for `command`. A running watch refuses every
 * other ccotel; a running export makes another export wait and a watch refuse.
 */
export async function lockStateDir(
  stateDir: string,
  command: LockCommand,
  options: LockOptions = {},
): Promise<StateLock> {
  const label = options.label ?? '--state-dir';
  await prepareStateDir(stateDir, label, options.warn ?? (() => undefined));
  const path = lockPath(stateDir);
  const me: LockHolder = {
    pid: process.pid,
    command,
    startedAt: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const deadline = Date.now() + (options.maxWaitMs ?? 3_600_000);
  let told = false;
  for (let round = 0; ; round += 1) {
    if (await tryCreate(path, me)) return held(path, me);
    const holder = await readHolder(path);
    if (holder === 'gone') continue;
    if (holder === 'garbled' || !isAlive(holder.pid)) {
      if (round > 1000)
        throw new UserError(`cannot take the stale lock ${path}; remove it`, 'failed');
      await takeOver(path, holder);
      continue;
    }
    const waits = command === 'export' && holder.command === 'export';
    if (!waits || Date.now() > deadline)
      throw new UserError(
        `state dir ${stateDir} is in use by ${describe(holder)}${holder.command === 'watch' ? ', which already exports these sessions' : ''}; stop it or use another ${label} (lock: ${path})`,
        'failed',
      );
    if (!told) options.onWait?.(holder);
    told = true;
    await sleep(options.pollMs ?? 200);
  }
}

/** Ours: released on release() or, failing that, when the process exits (process.exit included). */
function held(path: string, me: LockHolder): StateLock {
  const ours = (text: string): boolean => text.includes(`"token":"${me.token}"`);
  const atExit = (): void => {
    try {
      if (ours(readFileSync(path, 'utf8'))) unlinkSync(path);
    } catch {
      // gone already, or the dir with it
    }
  };
  process.once('exit', atExit);
  return {
    path,
    // Synchronous: the daemon's process.exit() may follow at once.
    release() {
      process.removeListener('exit', atExit);
      atExit();
      return Promise.resolve();
    },
  };
}
