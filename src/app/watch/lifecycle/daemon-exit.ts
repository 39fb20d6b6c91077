// The daemon's exit code, resolved once it stopped or (--once) finished. The
// state dir's lock is released then, so another ccotel may use the dir.
import type { StateLock } from '../../../adapters/state/state-lock.js';

export interface DaemonExit {
  readonly done: Promise<number>;
  resolve(code: number): void;
}

export function daemonExit(lock: StateLock): DaemonExit {
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => {
    resolveDone = r;
  });
  // Never rejects (release is synchronous underneath, adapters/state-lock.ts).
  void done.then(() => lock.release());
  return { done, resolve: (code) => resolveDone(code) };
}
