// finish(): derive the session model from folded state. Pure, and cheap enough
// to re-run as a live session grows (one pass per index it builds). The steps
// live in the assemble-*.ts files beside this one; finishSegment runs them in
// an order that matters: agents are linked before they are placed in turns,
// calls close before turns take their end times, and each turn's end
// state is read last.
import type { TranscriptRecord } from '../../transcript/records.js';
import type { SessionState } from '../../session/state.js';
import type { ReadWarning } from '../../view/waterfall-row.js';
import type { SessionModel, SubAgent, Turn } from '../session-model.js';
import { isRealPrompt } from '../../session/prompts.js';
import {
  createLocalCommandTracker,
  localCommandRole,
  type LocalCommandTracker,
} from '../../session/local-command.js';
import {
  DEFAULT_CONTEXT_WINDOW,
  LARGE_CONTEXT_WINDOW,
  assignContextWindows,
  NO_TABLE,
  type WindowOf,
} from '../context-window.js';
import { emptyTotals, totalInput } from './tokens.js';
import { collectRecords, type SegmentRecords } from './records.js';
import { assignTurnInfo, buildTurns, classifyTurnEnds } from './turns.js';
import { linkAgents } from './agents.js';
import { linkWorkflowAndTeamAgents } from './workflow-links.js';
import { assignAgentTurns, placeForks } from './agent-turns.js';
import { markMissingTranscripts, needsOwnRow, warnUnlinked } from './agent-warnings.js';
import { rollUpWork } from './rollup.js';
import { closeTools, isClosed } from './tools.js';

export { DEFAULT_CONTEXT_WINDOW, LARGE_CONTEXT_WINDOW, emptyTotals, needsOwnRow, totalInput };

/**
 * What the segments of a session already finished leave to the next one. A
 * session too large to hold whole is read as segments of whole turns, cut
 * before a prompt (core/session-reader.ts); each segment is finished on
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
  const agents = linkAgents(state, records, carry.doneAgents);
  linkWorkflowAndTeamAgents(state, agents, tools);
  const warnings: ReadWarning[] = [];
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
    costState: state.costState,
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
