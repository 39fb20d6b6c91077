// Splits a byte stream into complete lines, keeping the unterminated tail.
// Pure and incremental: the one-shot reader and the live tailer feed it chunks.
// A line's byte offset is where it starts, so a consumer can resume after the
// last complete line it has handled (the tail is "not yet written").

export interface Line {
  /** 1-based line number within the file. */
  number: number;
  /** Byte offset of the first byte of the line. */
  offset: number;
  /** Byte offset just past the newline. */
  end: number;
  text: string;
}

export interface LineSplitter {
  /** Feed the next chunk; returns the lines it completed. */
  push(chunk: Buffer): Line[];
  /** Byte offset just past the last complete line. */
  readonly consumed: number;
  /** Bytes held back because no newline has arrived yet. */
  readonly pendingBytes: number;
}

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * A class rather than a closure with getters: a reader of thousands of small
 * files makes a splitter per file, and an object literal with accessors and
 * fresh closures is far dearer to make (docs/benchmarks.md).
 */
class ChunkSplitter implements LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;

  constructor(
    private consumedBytes: number,
    private lineNumber: number,
  ) {}

  get consumed(): number {
    return this.consumedBytes;
  }

  get pendingBytes(): number {
    return this.pendingLength;
  }

  push(chunk: Buffer): Line[] {
    const lines: Line[] = [];
    let from = 0;
    let nl = chunk.indexOf(NEWLINE, from);
    while (nl !== -1) {
      lines.push(this.pendingLength > 0 ? this.joined(chunk, nl) : this.line(chunk, from, nl));
      from = nl + 1;
      nl = chunk.indexOf(NEWLINE, from);
    }
    if (from < chunk.length) {
      // Copy: the caller may reuse its read buffer.
      const rest = Buffer.from(chunk.subarray(from));
      this.pending.push(rest);
      this.pendingLength += rest.length;
    }
    return lines;
  }

  /** The line at [from, nl) of the chunk, decoded in place (no Buffer view per line). */
  private line(chunk: Buffer, from: number, nl: number): Line {
    // Tolerate CRLF writers: the \r is not part of the JSON.
    const end = nl > from && chunk[nl - 1] === CR ? nl - 1 : nl;
    const length = nl - from + 1;
    const line: Line = {
      number: this.lineNumber,
      offset: this.consumedBytes,
      end: this.consumedBytes + length,
      text: chunk.toString('utf8', from, end),
    };
    this.consumedBytes += length;
    this.lineNumber += 1;
    return line;
  }

  /** The held-back tail and the chunk's first line, as one line. */
  private joined(chunk: Buffer, nl: number): Line {
    const bytes = Buffer.concat([...this.pending, chunk.subarray(0, nl)], this.pendingLength + nl);
    this.pending = [];
    this.pendingLength = 0;
    return this.line(bytes, 0, bytes.length);
  }
}

export function createLineSplitter(startOffset = 0, startLine = 1): LineSplitter {
  return new ChunkSplitter(startOffset, startLine);
}
