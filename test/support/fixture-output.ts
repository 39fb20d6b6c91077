// What the hand-fixture suites read of one session: `show --json` from the
// real binary, and its spans as export builds them (labels only).
import { expect } from 'vitest';
import { runCcotel } from './run-cli.js';
import { sessionSpans } from './whole-session.js';
import { findSessions } from '../../src/adapters/files/session-files.js';
import { loadPriceTable } from '../../src/adapters/config/price-file.js';
import type { SpanData } from '../../src/core/spans/data.js';

/** `ccotel show <path> --json`, which must exit 0, parsed. */
export async function showJson<T>(path: string): Promise<T> {
  const run = await runCcotel(['show', path, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/** Every span of the session at `path`, content mode labels. */
export async function spansOf(path: string): Promise<SpanData[]> {
  const [files] = await findSessions(path);
  if (files === undefined) throw new Error(`no session at ${path}`);
  const spans = await sessionSpans(files, await loadPriceTable(), {
    content: 'labels',
    maxAttributeBytes: 2048,
  });
  return spans.turns.flatMap((t) => t.spans);
}
