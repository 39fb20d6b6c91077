// Reads a file as batches of complete lines, pulled one chunk at a time: a
// transcript of gigabytes is never held whole, and a reader that stops early (or
// waits while a segment is sent) simply stops pulling. An unterminated last
// line is "not yet written": it is not handed over, and its byte count is
// reported so a tailer can resume before it.
//
// Reads are synchronous, into one reused buffer (a read stream per file cost
// thread-pool round trips and a fresh buffer each: docs/benchmarks.md); the
// caller gives the event loop its turn through yieldIfHeld(), across files, so
// a backfill of thousands of small files does not starve timers and sockets.
import { closeSync, openSync, readSync } from 'node:fs';
import {
  createLineSplitter,
  type Line,
  type LineSplitter,
} from '../../core/transcript/line-splitter.js';

export interface ReadLinesResult {
  /** Offset just past the last complete line. */
  consumed: number;
  /** Number of the next line to be read. */
  nextLine: number;
  /** Bytes after the last newline (an unfinished write). */
  pendingBytes: number;
}

const CHUNK = 1 << 20;
/** Other work (timers, HTTP) gets the event loop at least this often, in ms. */
const YIELD_AFTER_MS = 20;
let heldSince = performance.now();

/**
 * Shared by every file open: each chunk is read and fully split into strings
 * (the splitter copies any unterminated tail) before next() returns, so no
 * file can see another's bytes.
 */
let shared: Buffer | null = null;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A promise to await when reading has held the event loop long enough,
 * else undefined (no microtask for the common case).
 */
export function yieldIfHeld(): Promise<void> | undefined {
  if (performance.now() - heldSince < YIELD_AFTER_MS) return undefined;
  return yieldToLoop().then(() => {
    heldSince = performance.now();
  });
}

/** An open file read as line batches; close() it when done, also when stopping early. */
export interface LineFile {
  /** The next chunk's complete lines (maybe none), or null at the end of the file. */
  next(): Line[] | null;
  /** Where reading stands: after next() gave null, the whole file's. */
  result(): ReadLinesResult;
  close(): void;
}

class OpenLines implements LineFile {
  private readonly splitter: LineSplitter;
  private fd: number | null;
  private position: number;
  private nextLine: number;

  constructor(file: string, start: number, startLine: number) {
    this.fd = openSync(file, 'r');
    this.splitter = createLineSplitter(start, startLine);
    this.position = start;
    this.nextLine = startLine;
  }

  next(): Line[] | null {
    if (this.fd === null) return null;
    const buffer = (shared ??= Buffer.allocUnsafe(CHUNK));
    const read = readSync(this.fd, buffer, 0, CHUNK, this.position);
    if (read === 0) return null;
    this.position += read;
    const lines = this.splitter.push(buffer.subarray(0, read));
    const last = lines[lines.length - 1];
    if (last !== undefined) this.nextLine = last.number + 1;
    return lines;
  }

  result(): ReadLinesResult {
    const { splitter } = this;
    return {
      consumed: splitter.consumed,
      nextLine: this.nextLine,
      pendingBytes: splitter.pendingBytes,
    };
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** Opens `file` to be read from `start` (byte offset), numbering lines from `startLine`. */
export function openLines(file: string, start = 0, startLine = 1): LineFile {
  return new OpenLines(file, start, startLine);
}
