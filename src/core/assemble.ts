// finish(): derive the session model from folded state. Pure, and cheap enough
// to re-run as a live session grows (one pass per index it builds). The steps
// live in the assemble-*.ts files beside this one; finishSegment runs them in
// an order that matters: agents are linked before they are placed in turns,
// calls close before turns take their end times, and turns end last.
import type { TranscriptRecord } from './records.js';
import type { SessionState } from './session-state.js';
import type { ReadWarning } from './waterfall-row.js';
import type { ApiResponse, SessionModel, SubAgent, ToolCall, Turn } from './session-model.js';
import { isRealPrompt } from './prompts.js';
import {
  createLocalCommandTracker,
  localCommandRole,
  type LocalCommandTracker,
} from './local-command.js';
import {
  DEFAULT_CONTEXT_WINDOW,
  LARGE_CONTEXT_WINDOW,
  assignContextWindows,
  NO_TABLE,
  type WindowOf,
} from './context-window.js';
import { emptyTotals, totalInput } from './assemble-tokens.js';
import {
  collectRecords,
  type ForkMarker,
  type ResultInfo,
  type SegmentRecords,
} from './assemble-records.js';
import { assignTurnInfo, buildTurns, classifyTurnEnds } from './assemble-turns.js';
import { rollUpWork } from './assemble-rollup.js';
import { closeTools, isClosed } from './assemble-tools.js';

const SPAWN_TOOLS = new Set(['Task', 'Agent']);
const INTERNAL_AGENT_PREFIXES = ['acompact', 'aprompt_suggestion'];

export { DEFAULT_CONTEXT_WINDOW, LARGE_CONTEXT_WINDOW, emptyTotals, totalInput };
/**
 * What the segments of a session already finished leave to the next one. A
 * session too large to hold whole is read as segments of whole turns, cut
 * before a prompt (src/app/session-segments.ts); each segment is finished on
 * its own, with this carry, so that its turns come out as they would from the
 * whole session: indices continue, the previous turn is linked, the 1M window
 * and the local-command block state run on.
 */
export interface SegmentCarry {
  /** Turns of earlier segments (their key lists emptied: they were exported). */
  priorTurns: Turn[];
  commands: LocalCommandTracker;
  /**
   * Start of the prompt that follows these entries (their last turn is then
   * closed), or null when the session ends with them.
   */
  nextTurnStart: number | null;
  largeWindow: boolean;
  lastTimestamp: number | null;
  /** The main thread's last timestamp so far. */
  prevMainTime: number | null;
  /** The session id once resolved (it may come from the first segment's records). */
  sessionId: string | null;
  /** Agents whose records were in earlier segments: exported there, not linked again. */
  doneAgents: Set<string>;
  /** Context windows from the model table (context-window.ts); absent: the observed rule only. */
  windowOf?: WindowOf;
}

export const wholeSession = (windowOf: WindowOf = NO_TABLE): SegmentCarry => ({
  windowOf,
  priorTurns: [],
  commands: createLocalCommandTracker(),
  nextTurnStart: null,
  largeWindow: false,
  lastTimestamp: null,
  prevMainTime: null,
  sessionId: null,
  doneAgents: new Set(),
});

export interface FinishedSegment {
  model: SessionModel;
  /** The carry for the segment that follows this one. */
  next: SegmentCarry;
  /**
   * Whether nothing in the segment waits for a later line: every call has its
   * result, every background agent its <task-notification>, and every agent
   * placed by time started before the next turn. Only then do later lines
   * leave it unchanged.
   */
  closed: boolean;
  /**
   * Agents that belonged to an earlier segment's turns (their lines came
   * late, or they also had lines there): put in this segment's first turn
   * rather than lost. Always 0 for a session read whole.
   */
  lateAgents: number;
}

export function finish(state: SessionState, windowOf: WindowOf = NO_TABLE): SessionModel {
  return finishSegment(state, wholeSession(windowOf)).model;
}

/** Whether a main-thread record, read after the carry's segments, opens a turn. */
export function opensTurn(carry: SegmentCarry, rec: TranscriptRecord): boolean {
  const commands = { ...carry.commands };
  return localCommandRole(commands, rec) === null && isRealPrompt(rec);
}

export function finishSegment(state: SessionState, carry: SegmentCarry): FinishedSegment {
  const { entries } = state;
  const base = carry.priorTurns.length;
  const commands = { ...carry.commands };
  const { turnOf, turns } = buildTurns(entries, carry.priorTurns, commands);
  const records = collectRecords(entries, turnOf, state.uuidTime, carry);
  const { responses, tools, results, notifications } = records;
  // An agent exported with an earlier segment is not linked again (a resumed
  // agent's later call would claim it); one with records here again is late.
  let lateAgents = 0;
  for (const key of records.firstLine.keys()) if (carry.doneAgents.has(key)) lateAgents += 1;
  const { agents, warnings } = linkAgents(
    state,
    tools,
    records.agentLinks,
    records.agentSpan,
    records.firstUserText,
    carry.doneAgents,
  );
  const forksOwing = placeForks(agents, records.forkMarkers, records.taskNotified, warnings);
  const placement = assignAgentTurns(agents, tools, responses, turns, base);
  lateAgents += placement.late;
  closeTools(tools, results, agents, notifications);
  rollUpWork({ turns, base, responses, tools, agents });
  assignTurnInfo(turns, base, entries, turnOf, state);
  warnUnlinked(agents, tools, records.firstLine, warnings);
  markMissingTranscripts(tools, results, agents, warnings);
  classifyTurnEnds(turns, base, entries, turnOf, tools, carry.nextTurnStart === null);
  const { largeWindow, sessionWindow } = assignContextWindows(
    turns,
    responses.values(),
    base,
    carry.largeWindow,
    carry.windowOf ?? NO_TABLE,
  );
  const sessionId = carry.sessionId ?? sessionIdOf(state);
  const found = { turns, agents, warnings, sessionId, contextWindow: sessionWindow };
  const model = modelOf(state, carry, records, found);
  const next = nextCarry(carry, records, { turns, commands, largeWindow, sessionId });
  const closed =
    isClosed(tools, results, notifications) &&
    forksOwing === 0 &&
    startedBefore(placement.byTime, agents, carry.nextTurnStart);
  return { model, next, closed, lateAgents };
}

/** What finishSegment found beyond the walk's records, for the model it returns. */
interface SegmentFindings {
  turns: Turn[];
  agents: Map<string, SubAgent>;
  warnings: ReadWarning[];
  sessionId: string;
  contextWindow: number;
}

function modelOf(
  state: SessionState,
  carry: SegmentCarry,
  records: SegmentRecords,
  found: SegmentFindings,
): SessionModel {
  const { warnings } = found;
  return {
    sessionId: found.sessionId,
    file: state.file,
    turns: found.turns,
    responses: records.responses,
    tools: records.tools,
    agents: found.agents,
    contextWindow: found.contextWindow,
    lastTimestamp: records.lastTimestamp,
    moreTurnsFollow: carry.nextTurnStart !== null,
    // Derived here, so a live session finished again and again never repeats them in its state.
    warnings: warnings.length === 0 ? state.warnings : [...state.warnings, ...warnings],
    ignoredLines: state.ignoredLines,
    sessionInfo: state.sessionInfo,
    derivedWarnings: warnings,
    unknownRecordTypes: Object.fromEntries(
      [...state.unknownTypes].map(([type, { count }]) => [type, count]),
    ),
  };
}

function nextCarry(
  carry: SegmentCarry,
  records: SegmentRecords,
  ran: { turns: Turn[]; commands: LocalCommandTracker; largeWindow: boolean; sessionId: string },
): SegmentCarry {
  return {
    // Only what later turns read of earlier ones: index, prompt uuid, start time.
    priorTurns: carry.priorTurns.concat(ran.turns.slice(carry.priorTurns.length).map(priorTurn)),
    commands: ran.commands,
    nextTurnStart: carry.nextTurnStart,
    largeWindow: ran.largeWindow,
    lastTimestamp: records.lastTimestamp,
    prevMainTime: records.prevTime.get(null) ?? null,
    sessionId: ran.sessionId,
    // firstLine's keys are the agents with records in this segment.
    doneAgents: new Set([...carry.doneAgents, ...records.firstLine.keys()]),
    windowOf: carry.windowOf,
  };
}

/** A finished turn as later segments see it: what they read of it, nothing more. */
function priorTurn(t: Turn): Turn {
  return {
    ...t,
    promptText: null,
    cwd: null,
    gitBranch: null,
    version: null,
    responseKeys: [],
    toolIds: [],
    agentKeys: [],
    tokens: emptyTotals(),
  };
}

/** Whether every agent placed by its start time started before the next turn (FinishedSegment.closed). */
function startedBefore(
  placedByTime: string[],
  agents: Map<string, SubAgent>,
  nextTurnStart: number | null,
): boolean {
  return placedByTime.every(
    (key) => (agents.get(key)?.startTime ?? 0) < (nextTurnStart ?? Number.POSITIVE_INFINITY),
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The file name is the session's id (the research doc: the file is the unit).
 * A file renamed away from its id (test fixtures, copies) falls back to the
 * sessionId its main-thread records carry.
 */
function sessionIdOf(state: SessionState): string {
  if (UUID.test(state.sessionId)) return state.sessionId;
  const fromRecords = state.entries.find((e) => e.agentKey === null && e.rec.sessionId !== null)
    ?.rec.sessionId;
  return fromRecords ?? state.sessionId;
}

function linkAgents(
  state: SessionState,
  tools: Map<string, ToolCall>,
  agentLinks: Map<string, string>,
  agentSpan: Map<string, { start: number; end: number }>,
  firstUserText: Map<string, string | null>,
  done: Set<string>,
): { agents: Map<string, SubAgent>; warnings: ReadWarning[] } {
  const keys = new Set<string>(
    [...agentSpan.keys(), ...state.agentFiles.keys(), ...state.metas.keys()].filter(
      (k) => !done.has(k) || agentSpan.has(k),
    ),
  );
  const agents = new Map<string, SubAgent>();
  const linkedCalls = new Set<string>();
  /** agent key → the call that spawned it, as linked so far. */
  const agentOfCall = new Map<string, string>();
  // Inline sidechains are matched last, by prompt text, against calls still free.
  const ordered = [...keys].sort(
    (a, b) => Number(a.startsWith('sidechain:')) - Number(b.startsWith('sidechain:')),
  );
  const spawnCalls = [...tools.values()]
    .filter((t) => SPAWN_TOOLS.has(t.name))
    .sort((a, b) => a.startTime - b.startTime);

  for (const key of ordered) {
    const inline = key.startsWith('sidechain:');
    const agentId = inline ? null : key;
    const meta = agentId === null ? undefined : state.metas.get(agentId);
    const firstText = firstUserText.get(key) ?? null;
    const internal =
      (agentId !== null && INTERNAL_AGENT_PREFIXES.some((p) => agentId.startsWith(p))) ||
      firstText?.trim() === 'Warmup';
    let toolUseId: string | null = null;
    if (!internal) {
      if (agentId !== null) {
        toolUseId =
          meta?.toolUseId ?? agentLinks.get(agentId) ?? state.progressLinks.get(agentId) ?? null;
      } else {
        const prompt = state.chainPrompt.get(key);
        const call = spawnCalls.find((t) => !linkedCalls.has(t.id) && t.input.prompt === prompt);
        toolUseId = call?.id ?? null;
      }
      if (toolUseId !== null && (linkedCalls.has(toolUseId) || !tools.has(toolUseId))) {
        toolUseId = tools.has(toolUseId) ? null : toolUseId;
      }
    }
    let call = toolUseId === null ? undefined : tools.get(toolUseId);
    // Inconsistent links (an agent spawned by one of its own calls, directly or
    // through its descendants) would make a parent loop: such a link is dropped.
    if (call !== undefined && spawnsItself(key, call, tools, agentOfCall)) {
      call = undefined;
      toolUseId = null;
    }
    if (call !== undefined) {
      linkedCalls.add(call.id);
      call.spawnedAgentKey = key;
      agentOfCall.set(key, call.id);
    }
    const span = agentSpan.get(key);
    const subagentType = call?.input.subagent_type;
    agents.set(key, {
      key,
      agentId,
      agentType:
        typeof subagentType === 'string'
          ? subagentType
          : (meta?.agentType ?? (internal ? internalType(key, firstText) : 'general-purpose')),
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
  return { agents, warnings: [] };
}

/** Fork agent ids are `a<name>-<16 hex>`. */
const FORK_ID = /^a(.+)-[0-9a-f]{16}$/;

/**
 * Forks have no spawning call: each hangs under the turn of its `⑂ forked`
 * line (matched by the last 4 hex digits of its id, and its name), from that
 * line to its last <task-notification>. An agent id of the fork shape whose
 * meta is missing is recognised by its marker. Returns how many forks worked
 * after their last notification: they owe one, so the segment is not closed
 * (a later line would still change them).
 */
function placeForks(
  agents: Map<string, SubAgent>,
  markers: ForkMarker[],
  notified: Map<string, number>,
  warnings: ReadWarning[],
): number {
  let owing = 0;
  const used = new Set<ForkMarker>();
  for (const agent of agents.values()) {
    if (agent.toolUseId !== null || agent.internal || agent.agentId === null) continue;
    const id = agent.agentId;
    const idName = FORK_ID.exec(id)?.[1] ?? null;
    const name = agent.name ?? idName;
    const free = markers.filter((m) => !used.has(m));
    const byName = free.filter((m) => m.name === name);
    const marker =
      free.find((m) => id.endsWith(m.idSuffix) && m.name === name) ??
      free.find((m) => id.endsWith(m.idSuffix) && idName !== null) ??
      // A known fork whose id no marker ends with (a copy with rewritten ids): its name, if unique.
      (agent.fork && byName.length === 1 ? byName[0] : undefined);
    if (!agent.fork && marker === undefined) continue;
    agent.fork = true;
    agent.agentType = 'fork';
    agent.name = name ?? marker?.name ?? null;
    if (marker === undefined) {
      warnings.push({
        file: agent.file,
        line: 1,
        reason: `fork ${id} has no "⑂ forked" line in the main transcript: shown under the turn of its first line`,
      });
    } else {
      used.add(marker);
      if (marker.turnIndex >= 0) agent.forkTurnIndex = marker.turnIndex;
      if (marker.time !== null)
        agent.startTime = Math.min(agent.startTime ?? marker.time, marker.time);
    }
    const last = notified.get(id);
    if (last === undefined || (agent.endTime !== null && agent.endTime > last)) owing += 1;
    if (last !== undefined) agent.endTime = Math.max(agent.endTime ?? last, last);
  }
  return owing;
}

/**
 * A Task/Agent call whose result reports a run (tokens, tool calls) but whose
 * sub-agent left no records here: its transcript is missing. The call keeps the
 * report, and a warning says how many calls are not shown.
 */
function markMissingTranscripts(
  tools: Map<string, ToolCall>,
  results: Map<string, ResultInfo>,
  agents: Map<string, SubAgent>,
  warnings: ReadWarning[],
): void {
  for (const tool of tools.values()) {
    const result = results.get(tool.id);
    if (result?.agentReport === null || result?.agentReport === undefined) continue;
    tool.agentReport = result.agentReport;
    const agent = tool.spawnedAgentKey === null ? undefined : agents.get(tool.spawnedAgentKey);
    const worked =
      agent !== undefined && (agent.startTime !== null || agent.responseKeys.length > 0);
    if (worked) continue;
    tool.transcriptMissing = true;
    const id = result.agentReport.agentId;
    const calls = result.agentReport.toolUseCount;
    warnings.push({
      file: result.file,
      line: result.line,
      reason:
        `transcript of sub-agent ${id ?? `of call ${tool.id}`} is missing: ` +
        (calls === null ? 'its calls are not shown' : `${calls} of its calls are not shown`),
    });
  }
}

/** Whether an agent without a spawning call did work that must be shown (waterfall.ts gives it a row). */
export function needsOwnRow(agent: SubAgent, tools: Map<string, ToolCall>): boolean {
  if (agent.internal) return false;
  const call = agent.toolUseId === null ? undefined : tools.get(agent.toolUseId);
  if (call !== undefined && call.turnIndex >= 0) return false;
  if (agent.fork || agent.responseKeys.length > 0) return true;
  return agentsWithCalls(tools).has(agent.key);
}

/** Agents that made calls, once per tools map: asked per agent, a scan each would be quadratic. */
const callersOf = new WeakMap<Map<string, ToolCall>, Set<string>>();
function agentsWithCalls(tools: Map<string, ToolCall>): Set<string> {
  let callers = callersOf.get(tools);
  if (callers === undefined) {
    callers = new Set();
    for (const t of tools.values()) if (t.agentKey !== null) callers.add(t.agentKey);
    callersOf.set(tools, callers);
  }
  return callers;
}

/** A sub-agent that is no fork, no side call and has no spawning call is shown, with a warning. */
function warnUnlinked(
  agents: Map<string, SubAgent>,
  tools: Map<string, ToolCall>,
  firstLine: Map<string, number>,
  warnings: ReadWarning[],
): void {
  for (const agent of agents.values()) {
    if (agent.fork || !needsOwnRow(agent, tools)) continue;
    // A 1.0.x inline sidechain is named by its root line in the main file; an agent file by itself.
    const inline = agent.agentId === null;
    warnings.push({
      file: agent.file,
      line: inline ? (firstLine.get(agent.key) ?? 0) : 1,
      reason: inline
        ? 'inline sidechain matches no Task call by its prompt: shown under the turn of its first line'
        : `sub-agent ${agent.agentId} has no spawning call: shown under the turn of its first line`,
    });
  }
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

function internalType(key: string, firstText: string | null): string {
  if (key.startsWith('acompact')) return 'compact';
  if (key.startsWith('aprompt_suggestion')) return 'prompt_suggestion';
  return firstText?.trim() === 'Warmup' ? 'warmup' : 'internal';
}

/**
 * Sub-agent work belongs to the turn of the call that spawned it, at any depth.
 * Returns the agents placed by their start time instead (unlinked, internal),
 * and how many landed in a turn before `base` (an earlier segment's, already
 * exported): those go to the segment's first turn instead.
 */
function assignAgentTurns(
  agents: Map<string, SubAgent>,
  tools: Map<string, ToolCall>,
  responses: Map<string, ApiResponse>,
  turns: Turn[],
  base: number,
): { byTime: string[]; late: number } {
  const placedByTime: string[] = [];
  let late = 0;
  const resolving = new Set<string>();
  const turnOfAgent = (key: string): number | null => {
    const agent = agents.get(key);
    if (agent === undefined) return null;
    if (agent.turnIndex !== null) return agent.turnIndex;
    if (resolving.has(key)) return null;
    resolving.add(key);
    let index: number | null = null;
    const call = agent.toolUseId === null ? undefined : tools.get(agent.toolUseId);
    if (call !== undefined)
      index = call.agentKey === null ? call.turnIndex : turnOfAgent(call.agentKey);
    if (index === null && agent.forkTurnIndex !== null) index = agent.forkTurnIndex;
    // Unlinked and internal agents: the turn running when they started.
    if ((index === null || index < 0) && agent.startTime !== null) {
      index = turnAt(turns, agent.startTime);
      placedByTime.push(key);
    }
    agent.turnIndex = index;
    return index;
  };
  for (const key of agents.keys()) turnOfAgent(key);
  if (base > 0 && base < turns.length) {
    for (const agent of agents.values()) {
      if (agent.turnIndex !== null && agent.turnIndex >= 0 && agent.turnIndex < base) {
        agent.turnIndex = base;
        late += 1;
      }
    }
  }
  for (const t of tools.values())
    if (t.agentKey !== null) t.turnIndex = agents.get(t.agentKey)?.turnIndex ?? -1;
  for (const r of responses.values())
    if (r.agentKey !== null) r.turnIndex = agents.get(r.agentKey)?.turnIndex ?? -1;
  return { byTime: placedByTime, late };
}

/**
 * The turn running at `time`, reading turns in file order: the last one
 * before the first that starts later. (Not the last of all that start
 * earlier: with a clock that stepped back, that could be a turn far later in
 * the file, and a session read in segments could not know it yet.)
 */
function turnAt(turns: Turn[], time: number): number | null {
  let found: number | null = null;
  for (const turn of turns) {
    if (turn.startTime > time) break;
    found = turn.index;
  }
  return found ?? (turns.length > 0 ? 0 : null);
}
