// The state-dir lock on real files: stale takeover by two newcomers at once,
// release only of one's own lock, and a garbled lock treated as stale.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../../../src/core/user-error.js';
import { lockPath, lockStateDir } from '../../../../src/adapters/state/state-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-lock-unit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const deadPid = (): number =>
  Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout);

describe('state dir lock', () => {
  it('two newcomers at a stale lock: exactly one takes it, the other is refused naming it', async () => {
    await writeFile(
      lockPath(dir),
      JSON.stringify({ pid: deadPid(), command: 'watch', startedAt: 'then', token: 'old' }),
    );
    const results = await Promise.allSettled([
      lockStateDir(dir, 'watch'),
      lockStateDir(dir, 'watch'),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const reason = (lost[0] as PromiseRejectedResult).reason as UserError;
    expect(reason).toBeInstanceOf(UserError);
    expect(reason.message).toMatch(new RegExp(`in use by ccotel watch \\(pid ${process.pid},`));
    const holder = JSON.parse(await readFile(lockPath(dir), 'utf8')) as { pid: number };
    expect(holder.pid).toBe(process.pid);
    await (won[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
    expect(existsSync(lockPath(dir))).toBe(false);
  });

  it('release leaves a lock that is not its own', async () => {
    const mine = await lockStateDir(dir, 'export');
    const other = JSON.stringify({ pid: 1, command: 'watch', startedAt: 'x', token: 'theirs' });
    await writeFile(lockPath(dir), other);
    await mine.release();
    expect(await readFile(lockPath(dir), 'utf8')).toBe(other);
  });

  it('a garbled lock is taken over; a waiting export gets the lock once the first releases it', async () => {
    await writeFile(lockPath(dir), '{"pid":');
    const first = await lockStateDir(dir, 'export');
    let told = 0;
    const second = lockStateDir(dir, 'export', { pollMs: 20, onWait: () => (told += 1) });
    await new Promise((r) => setTimeout(r, 100));
    await first.release();
    const got = await second;
    expect(told).toBe(1);
    await got.release();
    expect(existsSync(lockPath(dir))).toBe(false);
  });
});
