// Sub-agents of a segment: one per agent with records, a file or a meta of
// its own, each linked to the Task/Agent call that spawned it where one is
// found (meta, result, agent_progress, or for 1.0.x inline sidechains the
// prompt), and typed, named and described from the call and its meta.
import type { SessionState, AgentMeta } from '../../session/state.js';
import type { SubAgent, ToolCall } from '../session-model.js';
import type { SegmentRecords } from './records.js';
import { emptyTotals } from './tokens.js';

const SPAWN_TOOLS = new Set(['Task', 'Agent']);
const INTERNAL_AGENT_PREFIXES = ['acompact', 'aprompt_suggestion'];

/** What linking reads, and the links made so far. */
interface Linking {
  state: SessionState;
  tools: Map<string, ToolCall>;
  /** agentId → the tool_use id whose result names it. */
  agentLinks: Map<string, string>;
  /** Task/Agent calls by start time, for inline sidechains to match by prompt. */
  spawnCalls: ToolCall[];
  linkedCalls: Set<string>;
  /** agent key → the call that spawned it, as linked so far. */
  agentOfCall: Map<string, string>;
}

export function linkAgents(
  state: SessionState,
  records: Pick<SegmentRecords, 'tools' | 'agentLinks' | 'agentSpan' | 'firstUserText'>,
  done: Set<string>,
): Map<string, SubAgent> {
  const { tools } = records;
  const linking: Linking = {
    state,
    tools,
    agentLinks: records.agentLinks,
    spawnCalls: [...tools.values()]
      .filter((t) => SPAWN_TOOLS.has(t.name))
      .sort((a, b) => a.startTime - b.startTime),
    linkedCalls: new Set(),
    agentOfCall: new Map(),
  };
  const agents = new Map<string, SubAgent>();
  for (const key of keysToLink(state, records, done)) {
    const agentId = key.startsWith('sidechain:') ? null : key;
    const meta = agentId === null ? undefined : state.metas.get(agentId);
    const firstText = records.firstUserText.get(key) ?? null;
    const internal = isInternalAgent(agentId, firstText);
    const toolUseId = internal ? null : linkSpawningCall(linking, key, agentId, meta);
    const call = toolUseId === null ? undefined : tools.get(toolUseId);
    const span = records.agentSpan.get(key);
    agents.set(key, {
      key,
      agentId,
      agentType: agentTypeOf(key, call, meta, internal, firstText),
      description:
        typeof call?.input.description === 'string'
          ? call.input.description
          : (meta?.description ?? null),
      toolUseId,
      internal,
      fork: call === undefined && meta?.isFork === true,
      name: meta?.name ?? null,
      forkTurnIndex: null,
      turnIndex: null,
      startTime: span?.start ?? null,
      endTime: span?.end ?? null,
      tokens: emptyTotals(),
      responseKeys: [],
      file: state.agentFiles.get(key) ?? state.file,
    });
  }
  return agents;
}

/**
 * The agents to link: those with records here, and those with a file or a
 * meta that this segment can place: tied to a call read here, or to no call
 * at all (a fork, an unlinked file). One tied to a call of another segment
 * would come out in no turn, with no row and no warning: it is left out, so
 * that a segment costs what its entries hold, not what the whole session has
 * registered. An agent exported with an earlier segment only if it has
 * records here again.
 */
function keysToLink(
  state: SessionState,
  records: Pick<SegmentRecords, 'tools' | 'agentLinks' | 'agentSpan'>,
  done: Set<string>,
): string[] {
  const { agentSpan, tools, agentLinks } = records;
  const index = state.agentIndex;
  const keys = new Set<string>(agentSpan.keys());
  const tied = new Set<string>();
  const consider = (key: string): void => {
    if (keys.has(key) || tied.has(key) || done.has(key) || !index.order.has(key)) return;
    // The link linkSpawningCall takes.
    const link =
      state.metas.get(key)?.toolUseId ?? agentLinks.get(key) ?? state.progressLinks.get(key);
    if (link === undefined || link === null || tools.has(link)) tied.add(key);
  };
  for (const id of tools.keys()) {
    for (const key of index.byMeta.get(id) ?? []) consider(key);
    for (const key of index.byProgress.get(id) ?? []) consider(key);
  }
  for (const key of agentLinks.keys()) consider(key);
  for (const key of index.unlinked) consider(key);
  // In the order of their files, then of their metas, as when all were linked.
  const order = (key: string): number => index.order.get(key) ?? 0;
  for (const key of [...tied].sort((a, b) => order(a) - order(b))) keys.add(key);
  // Inline sidechains are matched last, by prompt text, against calls still free.
  return [...keys].sort(
    (a, b) => Number(a.startsWith('sidechain:')) - Number(b.startsWith('sidechain:')),
  );
}

/** Claude Code's side calls (compaction, prompt suggestions, warm-up). */
function isInternalAgent(agentId: string | null, firstText: string | null): boolean {
  return (
    (agentId !== null && INTERNAL_AGENT_PREFIXES.some((p) => agentId.startsWith(p))) ||
    firstText?.trim() === 'Warmup'
  );
}

/**
 * The tool_use id that spawned agent `key`, linking that call to it. An id
 * naming no call read here is kept, with no call to link; a call already
 * linked to another agent is not taken twice.
 */
function linkSpawningCall(
  linking: Linking,
  key: string,
  agentId: string | null,
  meta: AgentMeta | undefined,
): string | null {
  const { state, tools, linkedCalls } = linking;
  let toolUseId: string | null;
  if (agentId !== null) {
    toolUseId =
      meta?.toolUseId ??
      linking.agentLinks.get(agentId) ??
      state.progressLinks.get(agentId) ??
      null;
  } else {
    const prompt = state.chainPrompt.get(key);
    const call = linking.spawnCalls.find(
      (t) => !linkedCalls.has(t.id) && t.input.prompt === prompt,
    );
    toolUseId = call?.id ?? null;
  }
  if (toolUseId === null) return null;
  const call = tools.get(toolUseId);
  if (call === undefined) return toolUseId;
  if (linkedCalls.has(toolUseId)) return null;
  // Inconsistent links (an agent spawned by one of its own calls, directly or
  // through its descendants) would make a parent loop: such a link is dropped.
  if (spawnsItself(key, call, tools, linking.agentOfCall)) return null;
  linkedCalls.add(call.id);
  call.spawnedAgentKey = key;
  linking.agentOfCall.set(key, call.id);
  return toolUseId;
}

/** Whether `call` runs inside agent `key` itself, at any depth of the links made so far. */
function spawnsItself(
  key: string,
  call: ToolCall,
  tools: Map<string, ToolCall>,
  agentOfCall: Map<string, string>,
): boolean {
  const seen = new Set<string>();
  let owner = call.agentKey;
  while (owner !== null && !seen.has(owner)) {
    if (owner === key) return true;
    seen.add(owner);
    const spawner = agentOfCall.get(owner);
    owner = spawner === undefined ? null : (tools.get(spawner)?.agentKey ?? null);
  }
  return false;
}

function agentTypeOf(
  key: string,
  call: ToolCall | undefined,
  meta: AgentMeta | undefined,
  internal: boolean,
  firstText: string | null,
): string {
  const subagentType = call?.input.subagent_type;
  if (typeof subagentType === 'string') return subagentType;
  return meta?.agentType ?? (internal ? internalType(key, firstText) : 'general-purpose');
}

function internalType(key: string, firstText: string | null): string {
  if (key.startsWith('acompact')) return 'compact';
  if (key.startsWith('aprompt_suggestion')) return 'prompt_suggestion';
  return firstText?.trim() === 'Warmup' ? 'warmup' : 'internal';
}
