// Every fixture session (real transcripts, 2.1.x layouts, hand-written edge
// cases) through `ccotel watch --once --backfill`: what the daemon delivers is
// exactly what `ccotel export` would send, so an export afterwards sends
// nothing but the open turns --once leaves for its next run.
import { cp, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FIXTURES,
  differingRepeats,
  exportReadOnly,
  exportSpans,
  runDaemon,
  settingsFor,
  sceneForEachTest,
} from './watch-harness.js';
import { ON_WINDOWS } from '../support/platform.js';

const scene = sceneForEachTest();

describe.skipIf(ON_WINDOWS)(
  'watch, every fixture (skipped on Windows: fs.watch reports and holds dirs differently there, and watch is not yet checked on Windows)',
  () => {
    describe('ccotel watch over every fixture', () => {
      it('--once --backfill delivers exactly the spans export builds', async () => {
        for (const group of ['hand', 'real-layout']) {
          for (const name of await readdir(join(FIXTURES, group))) {
            await cp(join(FIXTURES, group, name), join(scene.dirs.projects, `${group}-${name}`), {
              recursive: true,
              filter: (src) => !src.endsWith('.txt') && !src.endsWith('.md'),
            });
          }
        }
        // fixtures/real also holds flattened copies of the real-layout sessions (same
        // prompt uuids, so same trace ids): leave those out, export counts them as duplicates.
        const skip =
          /v2\.1\.29__(clear-command|compact-command|edit-permission-dialog|hook-stop)|sessions-index|\.md$|\.meta\.json$/;
        await cp(join(FIXTURES, 'real'), join(scene.dirs.projects, 'real'), {
          recursive: true,
          filter: (src) => !skip.test(src),
        });

        const settings = settingsFor(scene.receiver, scene.dirs);
        const run = await runDaemon(settings, { once: true, backfill: true });
        expect(await run.daemon.done).toBe(0);

        const all = await exportSpans(scene.dirs.projects, settings);
        // --once leaves open turns for the next run; everything else must have gone out.
        const openTraces = new Set(
          [...all.values()]
            .filter((s) => s.parentSpanId === null && !s.complete)
            .map((s) => s.traceId),
        );
        const expected = [...all.values()].filter((s) => !openTraces.has(s.traceId));
        const got = scene.receiver.spans();
        expect(differingRepeats(got)).toEqual([]);
        const received = new Set(got.map((s) => s.spanId));
        expect(
          expected.filter((s) => !received.has(s.spanId)).map((s) => `${s.name} ${s.traceId}`),
        ).toEqual([]);
        expect(got.filter((s) => !all.has(s.spanId)).map((s) => s.name)).toEqual([]);

        const summary = await exportReadOnly(settings);
        expect(summary.turnsDuplicate).toBe(0);
        expect(summary.turns - summary.turnsUnchanged).toBe(openTraces.size);
        expect(summary.spansSent).toBe(all.size - expected.length);
      });
    });
  },
);
