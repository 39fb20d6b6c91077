// `ccotel watch --schema claude-code` in-process against the real OTLP
// receiver, a real transcript written line by line: spans go to /v1/traces and
// events to /v1/logs as the work they tell of ends, and together they equal
// what `ccotel export --schema claude-code --out` writes of the same files; a
// later export finds nothing left to send.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeJsonTraces, decodeOtlpLogsRequest } from '../support/otlp-decode.js';
import type { DecodedLogRecord, DecodedSpan } from '../support/otlp-decode.js';
import { runCcotel } from '../support/run-cli.js';
import { resourceOf } from '../../src/cli/settings-flags.js';
import { waitUntil } from '../support/wait-until.js';
import { ON_WINDOWS } from '../support/platform.js';
import {
  SUBAGENT,
  differingRepeats,
  fixtureLines,
  runDaemon,
  sceneForEachTest,
  settingsFor,
  waitForIds,
  writeLines,
} from './watch-harness.js';

const scene = sceneForEachTest();

function readOut(path: string): { spans: DecodedSpan[]; logs: DecodedLogRecord[] } {
  const spans: DecodedSpan[] = [];
  const logs: DecodedLogRecord[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n'))
    if (line.startsWith('{"resourceLogs"'))
      logs.push(...decodeOtlpLogsRequest(Buffer.from(line), 'json'));
    else if (line !== '') spans.push(...decodeJsonTraces(line));
  return { spans, logs };
}

const uidOf = (l: DecodedLogRecord): string => String(l.attributes['log.record.uid']);

describe.skipIf(ON_WINDOWS)(
  'watch --schema claude-code (skipped on Windows: watch is not yet checked there)',
  () => {
    it('sends spans and events live, equal to export --out, each event once', async () => {
      const settings = settingsFor(scene.receiver, scene.dirs, {
        idleTimeoutMs: 5000,
        schema: 'claude-code',
      });
      // The resource the command builds (telemetry.source=ccotel in this schema).
      scene.running = await runDaemon(settings, { resource: resourceOf(settings) });
      await scene.running.daemon.ready;
      const lines = await fixtureLines(SUBAGENT);
      const sessionId = (
        JSON.parse(lines.find((l) => l.includes('"sessionId"')) ?? '{}') as {
          sessionId: string;
        }
      ).sessionId;
      const file = join(scene.dirs.project, `${sessionId}.jsonl`);
      const firstResult = lines.findIndex((l) => l.includes('"tool_result"'));
      // The next response begins: the calls' response has written its last line.
      const next = lines.findIndex((l, i) => i > firstResult && l.includes('"type":"assistant"'));
      await writeLines(file, lines.slice(0, next + 1));
      // A call that ended sends its result event while its turn is still at work.
      await waitUntil(
        () => scene.receiver.logs().some((l) => l.body === 'claude_code.tool_result'),
        10_000,
        'a tool_result event',
      );
      const result = scene.receiver.logs().find((l) => l.body === 'claude_code.tool_result');
      const roots = scene.receiver.spans().filter((s) => s.name === 'claude_code.interaction');
      expect(roots.map((s) => s.traceId)).not.toContain(result?.traceId);

      await writeLines(file, lines.slice(next + 1));
      const out = join(scene.dirs.base, 'out.jsonl');
      const run = await runCcotel([
        'export',
        scene.dirs.projects,
        '--schema',
        'claude-code',
        '--out',
        out,
        '--state-dir',
        join(scene.dirs.base, 'other-state'),
      ]);
      expect(run.code, run.stderr).toBe(0);
      const expected = readOut(out);
      const got = await waitForIds(
        scene.receiver,
        expected.spans.map((s) => s.spanId),
      );
      await waitUntil(
        () => scene.receiver.logs().length >= expected.logs.length,
        10_000,
        'every event',
      );
      expect(differingRepeats(got)).toEqual([]);
      const byId = new Map(got.map((s) => [s.spanId, s]));
      for (const span of expected.spans) expect(byId.get(span.spanId)).toEqual(span);
      const logs = scene.receiver.logs();
      expect(logs.map(uidOf).sort()).toEqual(expected.logs.map(uidOf).sort());
      const byUid = new Map(logs.map((l) => [uidOf(l), l]));
      for (const l of expected.logs) expect(byUid.get(uidOf(l))).toEqual(l);

      await scene.running.daemon.stop('test end');
      scene.running = null;
      // The daemon recorded every turn as export would: nothing left to send.
      const again = await runCcotel([
        'export',
        '--schema',
        'claude-code',
        '--dry-run',
        '--state-dir',
        scene.dirs.state,
        scene.dirs.projects,
      ]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/ 0 spans would be sent/);
    });
  },
);
