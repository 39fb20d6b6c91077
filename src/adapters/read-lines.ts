// Streams a file as complete lines: a 1 GB transcript is never held whole.
// An unterminated last line is "not yet written": it is not yielded, and its
// byte count is reported so a tailer can resume before it.
import { createReadStream } from 'node:fs';
import { createLineSplitter, type Line } from '../core/line-splitter.js';

export interface ReadLinesResult {
  /** Offset just past the last complete line. */
  consumed: number;
  /** Number of the next line to be read. */
  nextLine: number;
  /** Bytes after the last newline (an unfinished write). */
  pendingBytes: number;
}

const CHUNK = 1 << 20;

/** Calls onLines for each batch of complete lines, from `start` (byte offset) on. */
export async function readLines(
  file: string,
  onLines: (lines: Line[]) => void,
  start = 0,
  startLine = 1,
): Promise<ReadLinesResult> {
  const splitter = createLineSplitter(start, startLine);
  let nextLine = startLine;
  const stream = createReadStream(file, { start, highWaterMark: CHUNK });
  for await (const chunk of stream) {
    const lines = splitter.push(chunk as Buffer);
    if (lines.length > 0) {
      nextLine = (lines[lines.length - 1]?.number ?? nextLine) + 1;
      onLines(lines);
    }
  }
  return { consumed: splitter.consumed, nextLine, pendingBytes: splitter.pendingBytes };
}
