// Random Claude Code sessions for property tests: real record shapes (the
// fields parse-record.ts reads), wired together the way real files wire them —
// prompts, multi-line responses, tool calls and results, sub-agents in their
// own files, agent_progress copies, meta sidecars, 1.0.x inline sidechains —
// but with the links drawn at random, so results point at unknown or later
// calls, agents claim calls of other agents or their own, uuids repeat,
// timestamps go backwards or are missing.
import fc from 'fast-check';
import type { AgentMeta } from '../../src/core/session/state.js';
import type { MemFile } from './model-checks.js';

type G = fc.GeneratorValue;
type Json = Record<string, unknown>;

export interface GeneratedSession {
  files: MemFile[];
  metas: AgentMeta[];
}

const TOOL_NAMES = [
  'Bash',
  'Read',
  'Edit',
  'Write',
  'Grep',
  'Task',
  'Agent',
  'WebFetch',
  'TodoWrite',
  'mcp__db__query',
  'Skill',
];
const MODELS = [
  'claude-opus-4-6',
  'claude-sonnet-4-5-20250929',
  'claude-haiku-4-5',
  '<synthetic>',
  'unknown-model',
];
const BASE = Date.parse('2026-03-01T10:00:00.000Z');

export function generateSession(
  g: G,
  options: { timeRange?: 'sane' | 'any' } = {},
): GeneratedSession {
  const sessionId = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
  const uuidPool = g(fc.integer, { min: 8, max: 400 });
  let uuidCounter = 0;
  const uuid = (): string | null => {
    const r = g(fc.integer, { min: 0, max: 19 });
    if (r === 0) return null; // no uuid at all
    // Mostly fresh; sometimes a repeat from the pool (duplicates, copied history).
    const n = r === 1 ? g(fc.integer, { min: 0, max: uuidPool }) : (uuidCounter += 1);
    return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  };
  let clock = BASE;
  const timestamp = (): unknown => {
    const r = g(fc.integer, { min: 0, max: 29 });
    if (r === 0) return undefined;
    if (r === 1) return g(fc.constantFrom, 'not a date', '', 12345, null);
    if (r === 2 && options.timeRange === 'any')
      return g(
        fc.constantFrom,
        '1969-12-31T23:59:59.000Z',
        '0001-01-01T00:00:00.000Z',
        '+275760-09-13T00:00:00.000Z',
        '2600-01-01T00:00:00Z',
      );
    clock += g(fc.integer, { min: -3000, max: 60_000 }); // sometimes backwards
    return new Date(clock).toISOString();
  };
  const toolIds: string[] = [];
  const agentIds = g(
    fc.uniqueArray,
    fc.constantFrom<string>(
      'a1b2c3d',
      'a9f8e7d6c5b4a3f21',
      'acompact-1a2b3c',
      'aprompt_suggestion-9f9f9f',
      'b00b00b',
      'c0ffee1',
    ),
    { maxLength: 4 },
  ) as string[];
  const pickTool = (): string => {
    if (toolIds.length === 0 || g(fc.integer, { min: 0, max: 9 }) === 0)
      return `toolu_unknown_${g(fc.integer, { min: 0, max: 5 })}`;
    return toolIds[g(fc.integer, { min: 0, max: toolIds.length - 1 })] as string;
  };
  const pickAgent = (): string | null =>
    agentIds.length === 0
      ? null
      : (agentIds[g(fc.integer, { min: 0, max: agentIds.length - 1 })] as string);
  const inlinePrompts: string[] = [];

  let last: string | null = null;
  const envelope = (extra: Json, sidechain: { agentId: string | null } | null): Json => {
    const id = uuid();
    const rec: Json = {
      parentUuid: g(fc.integer, { min: 0, max: 9 }) === 0 ? uuid() : last,
      isSidechain: sidechain !== null,
      ...(sidechain?.agentId ? { agentId: sidechain.agentId } : {}),
      userType: 'external',
      cwd: '/home/dev/project',
      sessionId,
      version: g(fc.constantFrom, '1.0.98', '2.0.14', '2.1.38', '2.1.212'),
      gitBranch: 'main',
      uuid: id,
      timestamp: timestamp(),
      ...extra,
    };
    if (rec.timestamp === undefined) delete rec.timestamp;
    if (id !== null) last = id;
    return rec;
  };

  const toolInput = (name: string): Json => {
    switch (name) {
      case 'Bash':
        return {
          command: g(fc.constantFrom, 'npm test', 'ls -la', 'git status', ''),
          description: 'run it',
        };
      case 'Task':
      case 'Agent': {
        const prompt = g(
          fc.constantFrom,
          'Investigate the failing test',
          'Plan the refactor',
          'Warmup',
          inlinePrompts[0] ?? 'Look around',
        );
        if (g(fc.boolean)) inlinePrompts.push(prompt);
        return {
          description: g(fc.constantFrom, 'Explore code', 'Plan'),
          prompt,
          subagent_type: g(fc.constantFrom, 'Explore', 'Plan', 'general-purpose'),
        };
      }
      case 'Read':
      case 'Edit':
      case 'Write':
        return {
          file_path: '/home/dev/project/src/a.ts',
          content: 'x',
          old_string: 'a',
          new_string: 'b',
        };
      default:
        return g(fc.dictionary, fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: 3,
        }) as Json;
    }
  };

  /** One API response written over 1-3 lines, each repeating usage. */
  const response = (sidechain: { agentId: string | null } | null): Json[] => {
    const messageId = `msg_${g(fc.integer, { min: 0, max: 60 })}`;
    const requestId = g(fc.boolean) ? `req_${g(fc.integer, { min: 0, max: 60 })}` : undefined;
    const model = g(fc.constantFrom, ...MODELS);
    const lines: Json[] = [];
    const n = g(fc.integer, { min: 1, max: 3 });
    for (let i = 0; i < n; i += 1) {
      const content: Json[] = [];
      const blocks = g(fc.integer, { min: 0, max: 3 });
      for (let b = 0; b < blocks; b += 1) {
        if (g(fc.integer, { min: 0, max: 2 }) === 0)
          content.push({
            type: 'text',
            text: g(fc.constantFrom, 'Done.', 'Looking…', 'All tests pass'),
          });
        else {
          const id =
            g(fc.integer, { min: 0, max: 7 }) === 0 && toolIds.length > 0
              ? (toolIds[0] as string)
              : `toolu_${toolIds.length}_${g(fc.integer, { min: 0, max: 9 })}`;
          toolIds.push(id);
          const name = g(fc.constantFrom, ...TOOL_NAMES);
          content.push({ type: 'tool_use', id, name, input: toolInput(name) });
        }
      }
      const apiError = g(fc.integer, { min: 0, max: 15 }) === 0;
      lines.push(
        envelope(
          {
            type: 'assistant',
            requestId,
            ...(apiError
              ? {
                  isApiErrorMessage: true,
                  error: g(fc.constantFrom, 'rate_limit', 'overloaded', 'invalid_request'),
                }
              : {}),
            message: {
              id: messageId,
              model: apiError ? '<synthetic>' : model,
              role: 'assistant',
              stop_reason: g(fc.constantFrom, null, 'tool_use', 'end_turn', 'max_tokens'),
              content,
              usage: {
                input_tokens: g(fc.integer, { min: 0, max: 50 }),
                output_tokens: g(fc.integer, { min: 0, max: 2000 }),
                cache_read_input_tokens: g(fc.integer, { min: 0, max: 300_000 }),
                cache_creation_input_tokens: g(fc.integer, { min: 0, max: 5000 }),
                cache_creation: { ephemeral_1h_input_tokens: g(fc.integer, { min: 0, max: 100 }) },
              },
            },
          },
          sidechain,
        ),
      );
    }
    return lines;
  };

  const toolResult = (sidechain: { agentId: string | null } | null): Json => {
    const id = pickTool();
    const agentId = g(fc.integer, { min: 0, max: 3 }) === 0 ? pickAgent() : null;
    const text = g(
      fc.constantFrom,
      'ok',
      'Error: exit 1',
      "The user doesn't want to proceed with this tool use.",
      '',
    );
    return envelope(
      {
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: id,
              is_error: g(fc.boolean),
              content: g(fc.boolean)
                ? text
                : [
                    { type: 'text', text },
                    { type: 'image' },
                    { type: 'tool_reference', tool_name: 'Read' },
                  ],
            },
          ],
        },
        toolUseResult:
          agentId === null
            ? g(fc.constantFrom, 'User rejected tool use', { stdout: 'x' }, undefined)
            : { agentId, status: g(fc.constantFrom, 'completed', 'async_launched') },
      },
      sidechain,
    );
  };

  const prompt = (sidechain: { agentId: string | null } | null): Json => {
    const kind = g(fc.integer, { min: 0, max: 9 });
    const text =
      sidechain !== null && sidechain.agentId === null && inlinePrompts.length > 0
        ? (inlinePrompts[g(fc.integer, { min: 0, max: inlinePrompts.length - 1 })] as string)
        : kind === 0
          ? '[Request interrupted by user]'
          : kind === 1
            ? '<task-notification><task-id>x</task-id></task-notification>'
            : g(
                fc.constantFrom,
                'Fix the bug',
                'Warmup',
                '<command-name>/compact</command-name>',
                'Run the tests please',
              );
    return envelope(
      {
        type: 'user',
        ...(kind === 2 ? { isMeta: true } : {}),
        ...(kind === 3 ? { isCompactSummary: true } : {}),
        message: { role: 'user', content: g(fc.boolean) ? text : [{ type: 'text', text }] },
      },
      sidechain,
    );
  };

  const system = (): Json =>
    envelope(
      {
        type: 'system',
        subtype: g(
          fc.constantFrom,
          'turn_duration',
          'stop_hook_summary',
          'compact_boundary',
          'api_error',
        ),
        durationMs: g(fc.integer, { min: 0, max: 90_000 }),
      },
      null,
    );

  /** A run of activity: prompt, then responses, results and markers in random order. */
  const activity = (sidechain: { agentId: string | null } | null, steps: number): Json[] => {
    const lines: Json[] = [prompt(sidechain)];
    for (let s = 0; s < steps; s += 1) {
      const k = g(fc.integer, { min: 0, max: 9 });
      if (k < 4) lines.push(...response(sidechain));
      else if (k < 7) lines.push(toolResult(sidechain));
      else if (k === 7) lines.push(prompt(sidechain));
      else if (k === 8 && sidechain === null) lines.push(system());
      else if (k === 9 && sidechain === null && agentIds.length > 0) {
        // 2.1.x agent_progress: a copy of one sub-agent record, linked to the spawning call.
        const agentId = pickAgent();
        const inner = g(fc.boolean) ? response({ agentId })[0] : toolResult({ agentId });
        lines.push(
          envelope(
            {
              type: 'progress',
              parentToolUseID: pickTool(),
              data: { type: 'agent_progress', agentId, message: { ...inner, type: inner?.type } },
            },
            null,
          ),
        );
      }
    }
    return lines;
  };

  const main: Json[] = [];
  const turns = g(fc.integer, { min: 1, max: 4 });
  for (let t = 0; t < turns; t += 1) {
    main.push(...activity(null, g(fc.integer, { min: 0, max: 8 })));
    // 1.0.x inline sidechains: isSidechain records in the main file, no agentId.
    if (g(fc.integer, { min: 0, max: 3 }) === 0)
      main.push(...activity({ agentId: null }, g(fc.integer, { min: 0, max: 4 })));
    // 2.0.x inline copies with an agentId.
    if (agentIds.length > 0 && g(fc.integer, { min: 0, max: 5 }) === 0)
      main.push(...activity({ agentId: pickAgent() }, 2));
  }
  const files: MemFile[] = [{ file: `/p/${sessionId}.jsonl`, agentId: null, bytes: toBytes(main) }];
  const metas: AgentMeta[] = [];
  for (const agentId of agentIds) {
    if (g(fc.integer, { min: 0, max: 4 }) !== 0) {
      const lines = activity({ agentId }, g(fc.integer, { min: 0, max: 6 }));
      files.push({
        file: `/p/${sessionId}/subagents/agent-${agentId}.jsonl`,
        agentId,
        bytes: toBytes(lines),
      });
    }
    if (g(fc.boolean)) {
      metas.push({
        agentId,
        agentType: g(fc.constantFrom, 'Explore', 'Plan', null),
        description: g(fc.constantFrom, 'Find the config', null),
        toolUseId: g(fc.boolean) ? pickTool() : null,
        parentAgentId: pickAgent(),
      });
    }
  }
  return { files, metas };
}

function toBytes(lines: Json[]): Buffer {
  return Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}
