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

export function createLineSplitter(startOffset = 0, startLine = 1): LineSplitter {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let consumed = startOffset;
  let lineNumber = startLine;

  return {
    get consumed() {
      return consumed;
    },
    get pendingBytes() {
      return pendingLength;
    },
    push(chunk: Buffer): Line[] {
      const lines: Line[] = [];
      let from = 0;
      let nl = chunk.indexOf(NEWLINE, from);
      while (nl !== -1) {
        let bytes = chunk.subarray(from, nl);
        if (pendingLength > 0) {
          bytes = Buffer.concat([...pending, bytes], pendingLength + bytes.length);
          pending = [];
          pendingLength = 0;
        }
        // Tolerate CRLF writers: the \r is not part of the JSON.
        const end =
          bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
        const length = bytes.length + 1;
        lines.push({
          number: lineNumber,
          offset: consumed,
          end: consumed + length,
          text: bytes.toString('utf8', 0, end),
        });
        consumed += length;
        lineNumber += 1;
        from = nl + 1;
        nl = chunk.indexOf(NEWLINE, from);
      }
      if (from < chunk.length) {
        // Copy: the caller may reuse its read buffer.
        const rest = Buffer.from(chunk.subarray(from));
        pending.push(rest);
        pendingLength += rest.length;
      }
      return lines;
    },
  };
}
