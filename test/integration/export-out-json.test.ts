// `export --out` with nothing to compare encodes each turn's spans as
// OTLP/JSON as they are built and puts each line together from the turns'
// byte ranges (a sink of form 'json'); a sink of built spans (form 'spans')
// encodes whole batches of them. Both must write the same file, byte for byte, over
// every fixture, whatever the batch size cuts turns into.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPriceTable } from '../../src/adapters/config/price-file.js';
import { openPrivateFile } from '../../src/adapters/files/private-file.js';
import { buildResource } from '../../src/adapters/otlp/resource.js';
import { runExport } from '../../src/app/export/export.js';
import { fileSink, type SinkOf, type SpanSink } from '../../src/app/deliver/span-sink.js';
import { jsonLineView } from '../../src/adapters/otlp/json.js';
import type { PriceTable } from '../../src/core/cost/pricing.js';
import { DEFAULTS } from '../../src/core/settings.js';
import type { ContentMode } from '../../src/core/spans/data.js';

const ROOTS = ['fixtures/hand', 'fixtures/real-layout', 'fixtures/real'];
const resource = buildResource({ serviceName: 'claude-code', attributes: { 'host.name': 'test' } });

let dir: string;
let prices: PriceTable;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccotel-out-json-'));
  prices = await loadPriceTable();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One export into `name`; `fromSpans`: a sink of built spans, each batch encoded whole. */
async function exportTo(
  name: string,
  content: ContentMode,
  maxBatchSpans: number,
  fromSpans: boolean,
): Promise<{ file: Buffer; spans: number }> {
  const path = join(dir, name);
  const out = fileSink(await openPrivateFile(path, '--out'), resource);
  const sink: SpanSink = fromSpans ? spansFileSink(out, path) : out;
  const summary = await runExport({
    paths: ROOTS,
    settings: { ...DEFAULTS, content, maxBatchSpans, stateDir: join(dir, `state-${name}`) },
    prices,
    sink,
    since: null,
    force: true,
    deliveryKey: 'test',
    readOnlyState: true,
  });
  await sink.close?.();
  expect(summary.failure).toBeNull();
  return { file: await readFile(path), spans: summary.spansSent };
}

/** The file sink's requests written from batches of built spans (jsonLineView). */
function spansFileSink(out: SinkOf<'json'>, path: string): SinkOf<'spans'> {
  let lines: Buffer[] = [];
  return {
    description: out.description,
    form: 'spans',
    send(batch) {
      lines.push(Buffer.from(jsonLineView(batch.spans, resource)));
      const to = batch.spans.length;
      return Promise.resolve({
        ok: true,
        attempts: 1,
        bytes: 0,
        parts: to === 0 ? [] : [{ from: 0, to, outcome: 'accepted' as const }],
        failure: null,
      });
    },
    async close() {
      await out.close?.();
      await writeFile(path, Buffer.concat(lines));
      lines = [];
    },
  };
}

describe('export --out: turns encoded apart = batches of built spans', () => {
  for (const [content, batch] of [
    ['labels', 512],
    ['none', 7],
    ['full', 1],
    ['labels', 33],
  ] as const) {
    it(`the same file (content ${content}, batches of ${batch})`, async () => {
      const json = await exportTo(`json-${content}-${batch}.jsonl`, content, batch, false);
      const spans = await exportTo(`spans-${content}-${batch}.jsonl`, content, batch, true);
      expect(json.spans).toBeGreaterThan(200);
      expect(json.spans).toBe(spans.spans);
      const lines = json.file.toString('utf8').split('\n').length - 1;
      expect(lines).toBe(Math.ceil(json.spans / batch));
      expect(json.file.equals(spans.file)).toBe(true);
    }, 60_000);
  }
});
