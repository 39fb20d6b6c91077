// What ccotel reads of Claude Code's own settings.json: cleanupPeriodDays, the
// age after which Claude Code deletes a transcript at start-up (30 days when
// unset, per its settings documentation).
import { readFileSync } from 'node:fs';

export const DEFAULT_CLEANUP_PERIOD_DAYS = 30;

export interface CleanupPeriod {
  days: number;
  /** Where the value came from: the file, or the default. */
  from: string;
  /** A settings.json that exists but could not be used. */
  problem: string | null;
}

export function readCleanupPeriod(settingsFile: string): CleanupPeriod {
  const fallback = (problem: string | null): CleanupPeriod => ({
    days: DEFAULT_CLEANUP_PERIOD_DAYS,
    from: 'default',
    problem,
  });
  let text: string;
  try {
    text = readFileSync(settingsFile, 'utf8');
  } catch {
    return fallback(null);
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return fallback(`${settingsFile}: not valid JSON; cleanupPeriodDays taken as 30`);
  }
  const days = (value as { cleanupPeriodDays?: unknown } | null)?.cleanupPeriodDays;
  if (days === undefined) return fallback(null);
  if (typeof days !== 'number' || !Number.isFinite(days) || days < 0)
    return fallback(`${settingsFile}: cleanupPeriodDays is not a number of days; taken as 30`);
  return { days, from: settingsFile, problem: null };
}
