// The daemon's JSON log lines, parsed as they arrive, with event-driven
// waiting: shared by the in-process daemon (test/integration/watch-harness.ts)
// and the daemon as a real process (test/support/cli-process.ts).

export interface LogLine {
  time: string;
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** Daemon logs, parsed, with event-driven waiting. */
export interface LogCapture {
  lines: LogLine[];
  write(line: string): void;
  waitFor(match: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

export function captureLogs(): LogCapture {
  const lines: LogLine[] = [];
  const waiters = new Set<(l: LogLine) => void>();
  return {
    lines,
    write(text) {
      for (const raw of text.split('\n')) {
        if (raw.trim() === '') continue;
        let line: LogLine;
        try {
          line = JSON.parse(raw) as LogLine;
        } catch {
          // A crash trace or a warning from node itself: keep it visible.
          line = { time: new Date().toISOString(), level: 'raw', msg: raw };
        }
        lines.push(line);
        for (const w of [...waiters]) w(line);
      }
    },
    waitFor(match, timeoutMs = 15_000) {
      const found = lines.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waitFor: no matching log line after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = (l: LogLine): void => {
          if (!match(l)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(l);
        };
        waiters.add(check);
      });
    },
  };
}
