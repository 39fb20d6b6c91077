// What `ccotel watch` remembers between runs (<stateDir>/watch-state.json,
// written atomically, mode 0600). Transcripts are the source of truth: a
// session that was being followed is simply re-read from byte 0 on restart
// (cheap) and its spans re-derived; this file only says
//   - which sessions were live (re-read them) and, for the others, the inode and
//     size of each file when last read (re-read a session only if one changed);
//   - which span ids of unfinished turns were already delivered, and the digest
//     of what was sent, so nothing is sent twice with different content;
//   - where history ended on the first start (turns before it are not sent
//     unless --backfill).
// Turns delivered in full are not here: they are recorded, by digest, in the
// export state file that `ccotel export` reads, so a later backfill skips them.
import { join } from 'node:path';
import {
  readStateFile,
  writeStateFile,
  type StateRead,
} from '../../../adapters/state/state-file.js';

/** [digest of the span as sent, 1 if it was complete, 0 if sent as incomplete]. */
export type SpanMark = [string, 0 | 1];

export interface FileRecord {
  ino: number;
  /** Bytes read when the session was last followed. */
  size: number;
}

export interface SessionRecord {
  files: Record<string, FileRecord>;
  /** Turns with an index below this are history from before the first start. */
  skip: number;
  /** First start without --backfill: the main file's size then, until `skip` is worked out. */
  baseline: number | null;
  /** Followed (loaded) when saved, or with spans still to deliver: re-read on start. */
  live: boolean;
  /** traceId → spanId → mark, for turns not yet recorded as delivered in full. */
  turns: Record<string, Record<string, SpanMark>>;
}

export interface WatchState {
  version: 1;
  /** When the daemon first ran against this state dir. */
  createdAt: string;
  sessions: Record<string, SessionRecord>;
}

export const watchStatePath = (stateDir: string): string => join(stateDir, 'watch-state.json');

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function validSession(v: unknown): boolean {
  if (!isObject(v) || !isObject(v.files) || !isObject(v.turns)) return false;
  if (typeof v.skip !== 'number' || typeof v.live !== 'boolean') return false;
  if (v.baseline !== null && typeof v.baseline !== 'number') return false;
  for (const f of Object.values(v.files))
    if (!isObject(f) || typeof f.ino !== 'number' || typeof f.size !== 'number') return false;
  for (const spans of Object.values(v.turns)) {
    if (!isObject(spans)) return false;
    for (const m of Object.values(spans))
      if (!Array.isArray(m) || typeof m[0] !== 'string' || (m[1] !== 0 && m[1] !== 1)) return false;
  }
  return true;
}

function validate(value: unknown): WatchState | null {
  if (
    !isObject(value) ||
    value.version !== 1 ||
    typeof value.createdAt !== 'string' ||
    !isObject(value.sessions)
  )
    return null;
  return Object.values(value.sessions).every(validSession)
    ? (value as unknown as WatchState)
    : null;
}

export const loadWatchState = (stateDir: string): Promise<StateRead<WatchState>> =>
  readStateFile(watchStatePath(stateDir), validate);

export const saveWatchState = (stateDir: string, state: WatchState): Promise<void> =>
  writeStateFile(watchStatePath(stateDir), state);
