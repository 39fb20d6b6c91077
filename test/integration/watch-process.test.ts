// The built CLI as a real process: SIGTERM flushes and exits 0 within 5 s;
// kill -9 mid-stream and a restart lose nothing and repeat only byte-identical
// spans. Builds dist/ first if it is older than the sources (shared, locked build).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toolSpanIdFor, turnSpanIdFor } from '../../src/core/spans/ids.js';
import { cliEnv, spawnCli, watchFlags, type CliProcess } from '../support/cli-process.js';
import { ensureBuilt, watchArgv } from '../support/fault-harness.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import {
  SUBAGENT,
  TOOL_HEAVY,
  differingRepeats,
  exportSpans,
  fixtureLines,
  settingsFor,
  tempDirs,
  waitForIds,
  writeLines,
  type Dirs,
} from './watch-harness.js';
import { ON_WINDOWS } from '../support/platform.js';

/** `ccotel watch` from dist/ as a process of its own, logging at debug. */
function startWatchProcess(dirs: Dirs, receiver: OtlpReceiver): CliProcess {
  const flags = watchFlags(receiver.url, dirs, { logLevel: 'debug', idleTimeout: '2s' });
  return spawnCli(watchArgv(flags), cliEnv(dirs.base));
}

const sessionIdOf = (lines: string[]): string =>
  (JSON.parse(lines[1] ?? '{}') as { sessionId: string }).sessionId;
const indexOf = (lines: string[], needle: string): number =>
  lines.findIndex((l) => l.includes(needle));

let dirs: Dirs;
let receiver: OtlpReceiver;
let procs: CliProcess[] = [];

describe.skipIf(ON_WINDOWS)(
  'watch as a process (skipped on Windows: SIGTERM must flush, which Windows cannot deliver)',
  () => {
    beforeAll(() => ensureBuilt(), 120_000);

    beforeEach(async () => {
      dirs = await tempDirs();
      receiver = await startOtlpReceiver();
      procs = [];
    });

    afterEach(async () => {
      await Promise.all(procs.map((p) => p.stop('SIGKILL')));
      await receiver.stop();
      await dirs.cleanup();
    });

    describe('ccotel watch as a process', () => {
      it('on SIGTERM flushes what is complete, saves its state and exits 0 within 5 s', async () => {
        const proc = startWatchProcess(dirs, receiver);
        procs.push(proc);
        await proc.logs.waitFor((l) => l.msg === 'watching');
        const heavy = await fixtureLines(TOOL_HEAVY);
        const file = join(dirs.project, `${sessionIdOf(heavy)}.jsonl`);
        const first = indexOf(heavy, '"tool_result"');
        const bashId = toolSpanIdFor(/"tool_use_id":"([^"]+)"/.exec(heavy[first] ?? '')?.[1] ?? '');
        // The result, then the next response: the call's own response is over.
        await writeLines(file, heavy.slice(0, first + 2));
        await waitForIds(receiver, [bashId]);
        // The first turn ends (interrupt marker); its root would wait to settle, but we stop now.
        const end = indexOf(heavy, '[Request interrupted by user]');
        await writeLines(file, heavy.slice(first + 2, end + 1), 0);
        const signalledAt = Date.now();
        proc.child.kill('SIGTERM');
        const { code } = await proc.exited;
        const tookMs = Date.now() - signalledAt;
        expect(code).toBe(0);
        expect(tookMs).toBeLessThan(5000);
        const rootId = turnSpanIdFor(
          (
            JSON.parse(heavy[indexOf(heavy, 'start phoenix in background')] ?? '{}') as {
              uuid: string;
            }
          ).uuid,
        );
        expect(receiver.spans().map((s) => s.spanId)).toContain(rootId);
        expect(proc.logs.lines.some((l) => l.msg === 'stopped')).toBe(true);
        const info = await stat(join(dirs.state, 'watch-state.json'));
        expect(info.mode & 0o777).toBe(0o600);
      });

      it('after kill -9 and a restart, nothing is lost and repeats are byte-identical', async () => {
        const settings = settingsFor(receiver, dirs);
        const heavy = await fixtureLines(TOOL_HEAVY);
        const sub = await fixtureLines(SUBAGENT);
        const heavyFile = join(dirs.project, `${sessionIdOf(heavy)}.jsonl`);
        const subFile = join(dirs.project, `${sessionIdOf(sub)}.jsonl`);

        const first = startWatchProcess(dirs, receiver);
        procs.push(first);
        await first.logs.waitFor((l) => l.msg === 'watching');
        // Two sessions written at once; the daemon is killed while they are being written.
        const writing = Promise.all([writeLines(heavyFile, heavy, 8), writeLines(subFile, sub, 4)]);
        await receiver.waitForSpans(12, 15_000);
        first.child.kill('SIGKILL');
        expect((await first.exited).signal).toBe('SIGKILL');
        const beforeRestart = receiver.spans().length;
        await writing;

        const second = startWatchProcess(dirs, receiver);
        procs.push(second);
        const expected = await exportSpans(dirs.projects, settings);
        const got = await waitForIds(receiver, expected, 20_000);
        expect(beforeRestart).toBeGreaterThan(0);
        expect(differingRepeats(got)).toEqual([]);
        for (const s of got) expect(expected.has(s.spanId), s.name).toBe(true);
        second.child.kill('SIGTERM');
        expect((await second.exited).code).toBe(0);
      });
    });
  },
);
