// Follows one growing transcript from a byte offset. Each read() hands over the
// lines completed since the last one; an unterminated last line stays in the
// splitter until its newline lands (Claude Code 2.1.x flushes as it writes, so
// half-written lines are normal). A file that shrank, was replaced (new inode)
// or was rewritten under us (the byte before our offset is no longer a
// newline) is reported as a reset: the caller re-reads the session from 0 and
// relies on span bookkeeping to avoid duplicates.
import type { Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import {
  createLineSplitter,
  type Line,
  type LineSplitter,
} from '../../core/transcript/line-splitter.js';

export type ResetReason = 'shrunk' | 'replaced' | 'rewritten';

export type TailRead =
  { kind: 'lines'; count: number } | { kind: 'reset'; reason: ResetReason } | { kind: 'missing' };

export interface FileTailer {
  readonly path: string;
  /** Inode of the file last read (null before the first read). */
  readonly ino: number | null;
  /** Bytes read so far, the unterminated tail included. */
  readonly readOffset: number;
  /** Offset just past the last complete line. */
  readonly consumed: number;
  /**
   * Reads what was appended since the last call and passes complete lines to
   * onLines, chunk by chunk (a large file is never held whole). `limit` stops
   * at that byte offset (used to replay a file only up to a baseline).
   */
  read(onLines: (lines: Line[]) => void, limit?: number): Promise<TailRead>;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

async function openOrNull(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

export function createFileTailer(path: string): FileTailer {
  return new Tailer(path);
}

class Tailer implements FileTailer {
  private splitter: LineSplitter = createLineSplitter(0, 1);
  private offset = 0;
  private inode: number | null = null;

  constructor(readonly path: string) {}

  get ino(): number | null {
    return this.inode;
  }

  get readOffset(): number {
    return this.offset;
  }

  get consumed(): number {
    return this.splitter.consumed;
  }

  async read(onLines: (lines: Line[]) => void, limit = Infinity): Promise<TailRead> {
    const handle = await openOrNull(this.path);
    if (handle === null) return { kind: 'missing' };
    try {
      const info = await handle.stat();
      const reason = await this.resetReason(handle, info);
      if (reason !== null) return this.reset(reason);
      this.inode = info.ino;
      const count = await this.readAppended(handle, Math.min(info.size, limit), onLines);
      return { kind: 'lines', count };
    } finally {
      await handle.close();
    }
  }

  /** Why what was read no longer stands (the file replaced, shrunk or rewritten), or null. */
  private async resetReason(handle: FileHandle, info: Stats): Promise<ResetReason | null> {
    if (this.inode !== null && info.ino !== this.inode) return 'replaced';
    if (info.size < this.offset) return 'shrunk';
    const consumed = this.splitter.consumed;
    if (consumed > 0) {
      // Cheap guard against an in-place rewrite of the same or greater length.
      const probe = Buffer.alloc(1);
      const { bytesRead } = await handle.read(probe, 0, 1, consumed - 1);
      if (bytesRead !== 1 || probe[0] !== NEWLINE) return 'rewritten';
    }
    return null;
  }

  /** Reads from the offset up to end, handing on complete lines chunk by chunk; returns their count. */
  private async readAppended(
    handle: FileHandle,
    end: number,
    onLines: (lines: Line[]) => void,
  ): Promise<number> {
    let count = 0;
    // Sized to the append: a 200-byte line does not need a megabyte.
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, end - this.offset)));
    while (this.offset < end) {
      const want = Math.min(buffer.length, end - this.offset);
      const { bytesRead } = await handle.read(buffer, 0, want, this.offset);
      if (bytesRead === 0) break;
      this.offset += bytesRead;
      const lines = this.splitter.push(buffer.subarray(0, bytesRead));
      if (lines.length > 0) {
        count += lines.length;
        onLines(lines);
      }
    }
    return count;
  }

  private reset(reason: ResetReason): TailRead {
    this.splitter = createLineSplitter(0, 1);
    this.offset = 0;
    this.inode = null;
    return { kind: 'reset', reason };
  }
}
