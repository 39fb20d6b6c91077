// finish(): derive the session model from folded state. Pure, and cheap enough
// to re-run as a live session grows (one pass per index it builds).
// The walk over the entries is in assemble-records.ts, the token sums in
// assemble-tokens.ts.
import type { TranscriptRecord, UserRecord } from './records.js';
import type { Entry, SessionState } from './session-state.js';
import type { ReadWarning } from './waterfall-row.js';
import type {
  AgentKey,
  ApiResponse,
  SessionModel,
  SubAgent,
  ToolCall,
  Turn,
} from './session-model.js';
import { classifyTurnEnd } from './turn-end.js';
import { isTurnWorkSystem } from './turn-lifecycle.js';
import { isInterruptMarker, isRealPrompt } from './prompts.js';
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

import { addUsage, emptyTotals, totalInput } from './assemble-tokens.js';
import { collectRecords, type ForkMarker, type ResultInfo } from './assemble-records.js';

export { DEFAULT_CONTEXT_WINDOW, LARGE_CONTEXT_WINDOW, emptyTotals, totalInput };

const SPAWN_TOOLS = new Set(['Task', 'Agent']);
const INTERNAL_AGENT_PREFIXES = ['acompact', 'aprompt_suggestion'];

/** Records that are the turn's own work (or mark its end), as opposed to bookkeeping. */
function isTurnWork(rec: TranscriptRecord): boolean {
  if (rec.type === 'assistant') return true;
  if (rec.type === 'system') return isTurnWorkSystem(rec);
  if (rec.type !== 'user' || rec.isCompactSummary) return false;
  return (
    rec.toolResults.length > 0 ||
    rec.notifiesToolUseId !== null ||
    isInterruptMarker(rec) ||
    isRealPrompt(rec)
  );
}

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

/** Assign main-thread entries to turns, in file order. */
function buildTurns(
  entries: Entry[],
  priorTurns: Turn[],
  commands: LocalCommandTracker,
): { turnOf: Int32Array; turns: Turn[] } {
  const turnOf = new Int32Array(entries.length).fill(-1);
  const turns: Turn[] = [...priorTurns];
  // Local slash commands (/exit, /clear, /model …) run in the client: their echo
  // and output look like prompts but open no turn.
  let current: Turn | null = null;
  entries.forEach((entry, i) => {
    if (entry.agentKey !== null) return;
    const rec = entry.rec;
    const local = localCommandRole(commands, rec) !== null;
    const prompt = !local && isRealPrompt(rec);
    const activity =
      rec.type === 'assistant' || (rec.type === 'user' && rec.toolResults.length > 0);
    if (prompt || (current === null && activity && rec.timestamp !== null)) {
      current = {
        index: turns.length,
        ...originOf(prompt ? rec : null),
        promptUuid: rec.uuid ?? `${entry.file}:${entry.line}`,
        promptText: prompt ? rec.text : null,
        contextWindow: DEFAULT_CONTEXT_WINDOW,
        startTime: rec.timestamp ?? 0,
        endTime: rec.timestamp ?? 0,
        endState: 'open',
        errorType: null,
        cwd: rec.cwd,
        gitBranch: rec.gitBranch,
        version: rec.version,
        responseKeys: [],
        toolIds: [],
        agentKeys: [],
        tokens: emptyTotals(),
      };
      turns.push(current);
    }
    if (current === null) return;
    turnOf[i] = current.index;
    // A turn ends with its own work: a /exit typed or a compaction run minutes
    // later belongs to no turn and must not stretch this one.
    if (rec.timestamp !== null && rec.timestamp > current.endTime && !local && isTurnWork(rec))
      current.endTime = rec.timestamp;
    current.cwd ??= rec.cwd;
    current.gitBranch ??= rec.gitBranch;
    current.version ??= rec.version;
  });
  return { turnOf, turns };
}

/**
 * Each turn of this segment carries the session info as it stood before the
 * next turn's first record (the last turn: all of it read so far).
 */
function assignTurnInfo(
  turns: Turn[],
  base: number,
  entries: Entry[],
  turnOf: Int32Array,
  state: SessionState,
): void {
  const firstEntry = new Map<number, number>();
  turnOf.forEach((t, i) => {
    if (t >= 0 && !firstEntry.has(t)) firstEntry.set(t, i);
  });
  let mark = 0;
  let info = state.infoBase;
  for (let index = base; index < turns.length; index++) {
    const turn = turns[index];
    if (turn === undefined) continue;
    const until = firstEntry.get(index + 1) ?? entries.length + 1;
    while (mark < state.infoMarks.length && (state.infoMarks[mark]?.at ?? Infinity) <= until) {
      info = state.infoMarks[mark]?.info ?? info;
      mark += 1;
    }
    if (Object.keys(info).length > 0) turn.sessionInfo = info;
  }
}

/**
 * What opened a turn. A peer message (another Claude session's request) opens
 * a turn like a human prompt, keeping its sender's name; task notifications and
 * queued commands open none (prompts.ts), and a turn opened by activity with no
 * prompt before it is `system`.
 */
function originOf(
  prompt: UserRecord | null,
): Pick<Turn, 'promptId' | 'origin' | 'peerName' | 'permissionMode'> {
  if (prompt === null)
    return { promptId: null, origin: 'system', peerName: null, permissionMode: null };
  return {
    promptId: prompt.promptId,
    origin: prompt.originKind ?? 'human',
    peerName: prompt.peerName,
    permissionMode: prompt.permissionMode,
  };
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
  /** A turn of this segment; earlier segments' turns were exported and stay as they are. */
  const own = (index: number | null): Turn | undefined =>
    index === null || index < base ? undefined : turns[index];
  const records = collectRecords(entries, turnOf, state.uuidTime, carry);
  const { responses, tools, results, agentLinks, notifications } = records;
  const { agentSpan, firstUserText, firstLine, forkMarkers, taskNotified } = records;
  const { prevTime, lastTimestamp } = records;
  // An agent exported with an earlier segment is not linked again (a resumed
  // agent's later call would claim it); one with records here again is late.
  let lateAgents = 0;
  for (const key of firstLine.keys()) if (carry.doneAgents.has(key)) lateAgents += 1;
  const { agents, warnings: linkWarnings } = linkAgents(
    state,
    tools,
    agentLinks,
    agentSpan,
    firstUserText,
    carry.doneAgents,
  );
  const forksOwing = placeForks(agents, forkMarkers, taskNotified, linkWarnings);
  const placement = assignAgentTurns(agents, tools, responses, turns, base);
  lateAgents += placement.late;
  const placedByTime = placement.byTime;
  closeTools(tools, results, agents, notifications);

  // Claude Code's side calls (compaction, prompt suggestions, warm-up) are no
  // part of the turn's work: they stay out of its tokens, cost and end, and are
  // reported on their own (SubAgent.internal; spans.ts exports them apart).
  const isInternal = (key: AgentKey): boolean => key !== null && agents.get(key)?.internal === true;
  for (const r of responses.values()) {
    if (r.agentKey !== null) {
      const agent = agents.get(r.agentKey);
      if (agent !== undefined) {
        agent.responseKeys.push(r.key);
        addUsage(agent.tokens, r);
      }
    }
    const turn = own(r.turnIndex);
    if (turn === undefined || isInternal(r.agentKey)) continue;
    turn.responseKeys.push(r.key);
    addUsage(turn.tokens, r);
    if (r.endTime > turn.endTime) turn.endTime = r.endTime;
  }
  for (const t of tools.values()) {
    const turn = own(t.turnIndex);
    if (turn === undefined) continue;
    turn.toolIds.push(t.id);
    if (t.endTime !== null && t.endTime > turn.endTime && !isInternal(t.agentKey))
      turn.endTime = t.endTime;
  }
  for (const a of agents.values()) {
    const turn = own(a.turnIndex);
    if (turn === undefined) continue;
    turn.agentKeys.push(a.key);
    if (a.endTime !== null && a.endTime > turn.endTime && !a.internal) turn.endTime = a.endTime;
  }
  assignTurnInfo(turns, base, entries, turnOf, state);
  warnUnlinked(agents, tools, firstLine, linkWarnings);
  markMissingTranscripts(tools, results, agents, linkWarnings);
  const recordsOfTurn: TranscriptRecord[][] = turns.map(() => []);
  entries.forEach((e, i) => {
    if (e.agentKey === null) recordsOfTurn[turnOf[i] ?? -1]?.push(e.rec);
  });
  for (let index = base; index < turns.length; index++) {
    const turn = turns[index];
    if (turn === undefined) continue;
    const openTools = turn.toolIds.filter((id) => {
      const t = tools.get(id);
      return t !== undefined && t.agentKey === null && t.status === 'running';
    }).length;
    const verdict = classifyTurnEnd(
      recordsOfTurn[index] ?? [],
      openTools,
      index === turns.length - 1 && carry.nextTurnStart === null,
    );
    turn.endState = verdict.state;
    turn.errorType = verdict.errorType;
    if (verdict.state === 'interrupted') closeAbandoned(turn, tools);
  }

  const { largeWindow, sessionWindow } = assignContextWindows(
    turns,
    responses.values(),
    base,
    carry.largeWindow,
    carry.windowOf ?? NO_TABLE,
  );
  const sessionId = carry.sessionId ?? sessionIdOf(state);

  const model: SessionModel = {
    sessionId,
    file: state.file,
    turns,
    responses,
    tools,
    agents,
    contextWindow: sessionWindow,
    lastTimestamp,
    moreTurnsFollow: carry.nextTurnStart !== null,
    // Derived here, so a live session finished again and again never repeats them in its state.
    warnings: linkWarnings.length === 0 ? state.warnings : [...state.warnings, ...linkWarnings],
    ignoredLines: state.ignoredLines,
    sessionInfo: state.sessionInfo,
    derivedWarnings: linkWarnings,
    unknownRecordTypes: Object.fromEntries(
      [...state.unknownTypes].map(([type, { count }]) => [type, count]),
    ),
  };
  const next: SegmentCarry = {
    // Only what later turns read of earlier ones: index, prompt uuid, start time.
    priorTurns: carry.priorTurns.concat(turns.slice(base).map(priorTurn)),
    commands,
    nextTurnStart: carry.nextTurnStart,
    largeWindow,
    lastTimestamp,
    prevMainTime: prevTime.get(null) ?? null,
    sessionId,
    doneAgents: carry.doneAgents,
    windowOf: carry.windowOf,
  };
  const closed =
    isClosed(tools, results, notifications) &&
    forksOwing === 0 &&
    placedByTime.every(
      (key) =>
        (agents.get(key)?.startTime ?? 0) < (carry.nextTurnStart ?? Number.POSITIVE_INFINITY),
    );
  // firstLine's keys are the agents with records in this segment.
  next.doneAgents = new Set([...carry.doneAgents, ...firstLine.keys()]);
  return { model, next, closed, lateAgents };
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

function isClosed(
  tools: Map<string, ToolCall>,
  results: Map<string, ResultInfo>,
  notifications: Map<string, number>,
): boolean {
  for (const tool of tools.values()) {
    const result = results.get(tool.id);
    // Even a call an interrupted turn abandoned: its result may still come.
    if (result === undefined) return false;
    if (result.asyncLaunched && !notifications.has(tool.id)) return false;
  }
  return true;
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

function closeTools(
  tools: Map<string, ToolCall>,
  results: Map<string, ResultInfo>,
  agents: Map<string, SubAgent>,
  notifications: Map<string, number>,
): void {
  for (const tool of tools.values()) {
    const result = results.get(tool.id);
    if (result === undefined) continue;
    let end = Math.max(result.time ?? tool.startTime, tool.startTime);
    // An async launch is acknowledged at once; the agent's work ends at its
    // <task-notification> join, or (no join yet) at its last line.
    const agent = tool.spawnedAgentKey === null ? undefined : agents.get(tool.spawnedAgentKey);
    if (result.asyncLaunched)
      end = Math.max(end, notifications.get(tool.id) ?? agent?.endTime ?? end);
    tool.endTime = end;
    tool.output = result.text;
    tool.status = result.isError ? 'error' : 'success';
    tool.errorType = result.isError ? (result.rejected ? 'rejected' : 'tool_error') : null;
  }
}

/**
 * Calls left without a result in an interrupted turn will never get one: they
 * end, as errors of type "interrupted", when the turn ended. Only the last,
 * open turn keeps "running" calls.
 */
function closeAbandoned(turn: Turn, tools: Map<string, ToolCall>): void {
  for (const id of turn.toolIds) {
    const tool = tools.get(id);
    if (tool === undefined || tool.status !== 'running') continue;
    tool.status = 'error';
    tool.errorType = 'interrupted';
    tool.endTime = Math.max(tool.startTime, turn.endTime);
  }
}
