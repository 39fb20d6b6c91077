// The e2e helpers in test/e2e/trace-tree.ts only run where Docker is; this pins their parsing of
// the three OTLP/JSON dialects (ccotel's --out file, Jaeger api_v3, Tempo) so CI covers them.
import { describe, expect, it } from 'vitest';
import {
  expectTurnTrace,
  normaliseId,
  spansFromOtlpJson,
  subagentSpans,
  treeShape,
} from './trace-tree.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const ROOT = 'b7ad6b7169203331';
const TOOL = '00f067aa0ba902b7';
const AGENT = '53995c3f42cd8ad8';

const b64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
const str = (value: string) => ({ stringValue: value });

/** The same three-span turn, written the way ccotel/Jaeger (hex, numbers) and Tempo (base64, enum names) write it. */
function turn(dialect: 'hex' | 'tempo'): unknown {
  const id = (hex: string) => (dialect === 'hex' ? hex : b64(hex));
  const kind = dialect === 'hex' ? 1 : 'SPAN_KIND_INTERNAL';
  const spans = [
    {
      traceId: id(TRACE),
      spanId: id(ROOT),
      name: 'invoke_agent Claude Code',
      kind,
      status: {},
      attributes: [
        { key: 'gen_ai.operation.name', value: str('invoke_agent') },
        { key: 'claude_code.turn.index', value: { intValue: dialect === 'hex' ? 3 : '3' } },
      ],
    },
    {
      traceId: id(TRACE),
      spanId: id(TOOL),
      parentSpanId: id(ROOT),
      name: 'execute_tool Task',
      kind,
      status: { code: dialect === 'hex' ? 2 : 'STATUS_CODE_ERROR' },
      attributes: [{ key: 'gen_ai.tool.name', value: str('Task') }],
    },
    {
      traceId: id(TRACE),
      spanId: id(AGENT),
      parentSpanId: id(TOOL),
      name: 'invoke_agent Plan',
      kind,
      attributes: [
        { key: 'gen_ai.agent.name', value: str('Plan') },
        { key: 'claude_code.cost.usd', value: { doubleValue: 0.25 } },
      ],
    },
  ];
  const resourceSpans = [
    {
      resource: { attributes: [{ key: 'service.name', value: str('claude-code') }] },
      scopeSpans: [{ spans }],
    },
  ];
  return dialect === 'hex' ? { result: { resourceSpans } } : { trace: { resourceSpans } };
}

describe('e2e trace-tree helpers', () => {
  it('normalises hex and base64 ids and treats all-zero ids as absent', () => {
    expect(normaliseId(TRACE.toUpperCase(), 16)).toBe(TRACE);
    expect(normaliseId(b64(TRACE), 16)).toBe(TRACE);
    expect(normaliseId(b64(ROOT), 8)).toBe(ROOT);
    expect(normaliseId('0000000000000000', 8)).toBe('');
    expect(normaliseId(undefined, 8)).toBe('');
    expect(() => normaliseId('abc', 8)).toThrow('8-byte');
  });

  it('reads ccotel/Jaeger and Tempo JSON into the same spans', () => {
    const fromHex = spansFromOtlpJson(turn('hex'));
    const fromTempo = spansFromOtlpJson(turn('tempo'));
    expect(fromTempo).toEqual(fromHex);
    expect(fromHex.map((s) => [s.name, s.kind, s.status])).toEqual([
      ['invoke_agent Claude Code', 'INTERNAL', 'UNSET'],
      ['execute_tool Task', 'INTERNAL', 'ERROR'],
      ['invoke_agent Plan', 'INTERNAL', 'UNSET'],
    ]);
    expect(fromHex[0]?.attributes['claude_code.turn.index']).toBe(3);
    expect(fromHex[2]?.attributes['claude_code.cost.usd']).toBe(0.25);
    expect(fromHex[0]?.resource['service.name']).toBe('claude-code');
  });

  it('reads the older Tempo shape (batches, instrumentationLibrarySpans)', () => {
    const spans = spansFromOtlpJson({
      batches: [
        {
          instrumentationLibrarySpans: [
            { spans: [{ traceId: b64(TRACE), spanId: b64(ROOT), name: 'x' }] },
          ],
        },
      ],
    });
    expect(spans.map((s) => [s.traceId, s.spanId, s.parentSpanId])).toEqual([[TRACE, ROOT, '']]);
  });

  it('describes the tree by parent names and finds the sub-agent under its Task span', () => {
    const spans = spansFromOtlpJson(turn('tempo'));
    expect(treeShape(spans)).toEqual(treeShape(spansFromOtlpJson(turn('hex'))));
    expect(treeShape(spans)).toContain(
      `${AGENT} execute_tool Task > invoke_agent Plan [INTERNAL, UNSET]`,
    );
    expect(subagentSpans(spans).map(({ span, parent }) => [span.name, parent?.name])).toEqual([
      ['invoke_agent Plan', 'execute_tool Task'],
    ]);
    expectTurnTrace(TRACE, spans);
  });

  it('rejects a trace whose spans lost their parent', () => {
    const spans = spansFromOtlpJson(turn('hex')).filter((s) => s.spanId !== TOOL);
    expect(() => expectTurnTrace(TRACE, spans)).toThrow('whose parent is missing');
  });
});
