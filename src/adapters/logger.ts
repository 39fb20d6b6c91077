// JSON-lines logging for the daemon: one object per line on stderr
// ({"time","level","msg",...fields}), so journald, launchd logs and `jq` all
// read it. Deliberately tiny: no transports, no child loggers.
import { terminalJson } from '../core/view/terminal-text.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Errors do not survive JSON.stringify; keep their message. */
function plain(value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

export function createJsonLogger(
  write: (line: string) => void,
  level: LogLevel,
  now: () => Date = () => new Date(),
): Logger {
  const emit = (at: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[at] < RANK[level]) return;
    const record: Record<string, unknown> = { time: now().toISOString(), level: at, msg };
    // Fields never overwrite the three fixed keys: every line stays parseable the same way.
    for (const [key, value] of Object.entries(fields ?? {}))
      if (!(key in record) && value !== undefined) record[key] = plain(value);
    // Paths and names in the fields come from transcripts; the log is read on terminals.
    write(`${terminalJson(JSON.stringify(record))}\n`);
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
