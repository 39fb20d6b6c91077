// Folding records into session state: step() takes each parsed line of any of
// the session's files, in any order the files are read; finish() (assemble.ts)
// derives turns, calls and agents from it. The one-shot converter, the live
// daemon and `status` share this reducer, and with it the session's live
// foreground state (session-status.ts), kept up to date on every record step()
// accepts. step() mutates the state in place: sessions can hold hundreds of
// thousands of records and copying per line would be quadratic.
import type { ParseOutcome } from '../transcript/parse-record.js';
import type {
  TranscriptRecord,
  UserRecord,
  AssistantRecord,
  SessionInfo,
  CostState,
} from '../transcript/records.js';
import type { AgentKey } from '../model/session-model.js';
import type { ReadWarning } from '../view/waterfall-row.js';
import { UuidSet } from './uuid-set.js';
import { initialStatus, stepStatus, type LiveStatus } from './live-status.js';

/** Where a line came from: the session's main file or a sub-agent file. */
export interface LineSource {
  file: string;
  /** agentId from an `agent-<id>.jsonl` file name; null for the main file. */
  agentId: string | null;
}

/** The `agent-<id>.meta.json` sidecar (later 2.1.x). */
export interface AgentMeta {
  agentId: string;
  agentType: string | null;
  description: string | null;
  toolUseId: string | null;
  parentAgentId: string | null;
  /** 2.1.220+ forks (`/subtask`): `"isFork": true` and the fork's `name`. */
  isFork?: boolean;
  name?: string | null;
  /** A workflow agent's `workflowPhase` (2.1.2xx). */
  workflowPhase?: string | null;
  /** An agent-team member's `teamName` and `taskKind` (`in_process_teammate`). */
  teamName?: string | null;
  taskKind?: string | null;
}

/** A Workflow call's run, as its launch result names it. */
export interface WorkflowRun {
  toolUseId: string;
  name: string | null;
}

/**
 * The registered agents (a file or a meta) by what ties each to the call that
 * spawned it, kept as they register: a segment links those its own calls name,
 * or that name none, without a pass over every agent of the session.
 */
export interface AgentIndex {
  /**
   * The order linking takes them in: agent files as registered, then the
   * agents with only a meta as their metas came.
   */
  order: Map<string, number>;
  /** tool_use id → the agents whose meta names it. */
  byMeta: Map<string, Set<string>>;
  /** tool_use id → the agents an agent_progress record ties to it (registered or not). */
  byProgress: Map<string, Set<string>>;
  /** Agents neither a meta nor a progress record ties to a call. */
  unlinked: Set<string>;
}

/** Order numbers of the agents with only a meta: after every file's. */
const META_ONLY = 2 ** 40;

export interface Entry {
  rec: TranscriptRecord;
  agentKey: AgentKey;
  file: string;
  line: number;
}

export interface SessionState {
  sessionId: string;
  file: string;
  entries: Entry[];
  /** Kept for the whole session, also when it is read in segments: compact. */
  seenUuids: UuidSet;
  /** Timestamps of every uuid seen, copied history included: responses answer them. */
  uuidTime: Map<string, number>;
  /** 1.0.x inline sidechains: uuid → chain key, and each chain's root prompt. */
  chainOf: Map<string, string>;
  chainPrompt: Map<string, string>;
  agentFiles: Map<string, string>;
  metas: Map<string, AgentMeta>;
  /** agentId → spawning tool_use id from agent_progress records. */
  progressLinks: Map<string, string>;
  /** The agents with a file or a meta, by the call each names (assemble/agents.ts reads it). */
  agentIndex: AgentIndex;
  /**
   * runId (`wf_<id>`) → the Workflow call that launched it: the session's
   * whole, as a run's agents may be read in a later segment than its call.
   */
  workflowRuns: Map<string, WorkflowRun>;
  /** The last `cost-state` record read, and where. */
  costState: { value: CostState; file: string; line: number } | null;
  warnings: ReadWarning[];
  ignoredLines: number;
  /** Lines of history copied from another session (forkedFrom) or repeated uuids. */
  duplicateLines: number;
  /** Session names and settings (custom-title, ai-title, agent-name, pr-link, permission-mode, mode). */
  sessionInfo: SessionInfo;
  /**
   * The session info as it stood after each name or setting record, with the
   * number of entries before it: a turn carries what was known by its end, the
   * same whether the session is read whole or in segments.
   */
  infoMarks: { at: number; info: SessionInfo }[];
  /** The session info when the current segment began. */
  infoBase: SessionInfo;
  /** Record types ccotel does not know: lines per type, and the one warning each has. */
  unknownTypes: Map<string, { count: number; warning: ReadWarning }>;
  /**
   * Whose move it is, folded from every record accepted so far (copied fork
   * history and repeated uuids excluded, as from the entries). Small, and kept
   * for the whole session, also across segments.
   */
  live: LiveStatus;
}

export function createSessionState(sessionId: string, file: string): SessionState {
  return {
    sessionId,
    file,
    entries: [],
    seenUuids: new UuidSet(),
    uuidTime: new Map(),
    chainOf: new Map(),
    chainPrompt: new Map(),
    agentFiles: new Map(),
    metas: new Map(),
    progressLinks: new Map(),
    agentIndex: { order: new Map(), byMeta: new Map(), byProgress: new Map(), unlinked: new Set() },
    workflowRuns: new Map(),
    costState: null,
    warnings: [],
    ignoredLines: 0,
    duplicateLines: 0,
    sessionInfo: {},
    infoMarks: [],
    infoBase: {},
    unknownTypes: new Map(),
    live: initialStatus(),
  };
}

/**
 * Drops what a finished segment needed (its records, their times, its inline
 * sidechains) and keeps what the whole session needs: the uuids seen (a line
 * repeated later is still a duplicate), agent files, metas, progress links,
 * warnings, counts and the live state.
 */
export function startNextSegment(state: SessionState): void {
  state.entries = [];
  state.uuidTime = new Map();
  state.chainOf = new Map();
  state.chainPrompt = new Map();
  state.infoBase = snapshotInfo(state.sessionInfo);
  state.infoMarks = [];
}

const snapshotInfo = (info: SessionInfo): SessionInfo => ({
  ...info,
  ...(info.prLinks === undefined ? {} : { prLinks: [...info.prLinks] }),
});

export function registerAgentFile(state: SessionState, agentId: string, file: string): void {
  if (state.agentFiles.has(agentId)) return;
  state.agentIndex.order.set(agentId, state.agentFiles.size);
  state.agentFiles.set(agentId, file);
  indexUnlinked(state, agentId);
}

export function addAgentMeta(state: SessionState, meta: AgentMeta): void {
  const { agentId } = meta;
  const index = state.agentIndex;
  const before = state.metas.get(agentId);
  if (before === undefined && !index.order.has(agentId))
    index.order.set(agentId, META_ONLY + state.metas.size);
  if (before?.toolUseId != null) index.byMeta.get(before.toolUseId)?.delete(agentId);
  state.metas.set(agentId, meta);
  if (meta.toolUseId !== null) addTo(index.byMeta, meta.toolUseId, agentId);
  indexUnlinked(state, agentId);
}

function addProgressLink(state: SessionState, agentId: string, toolUseId: string): void {
  state.progressLinks.set(agentId, toolUseId);
  addTo(state.agentIndex.byProgress, toolUseId, agentId);
  indexUnlinked(state, agentId);
}

/** Whether a registered agent names no call: its meta no tool_use id, no progress record it. */
function indexUnlinked(state: SessionState, agentId: string): void {
  const { unlinked, order } = state.agentIndex;
  const link = state.metas.get(agentId)?.toolUseId ?? state.progressLinks.get(agentId) ?? null;
  if (link === null && order.has(agentId)) unlinked.add(agentId);
  else unlinked.delete(agentId);
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set === undefined) map.set(key, new Set([value]));
  else set.add(value);
}

/** Inline (1.0.x) sidechains have no agentId: a chain is a root and its uuid descendants. */
function sidechainKey(state: SessionState, rec: TranscriptRecord): string {
  const parent = rec.parentUuid === null ? undefined : state.chainOf.get(rec.parentUuid);
  const key = parent ?? `sidechain:${rec.uuid ?? `${state.entries.length}`}`;
  if (parent === undefined && rec.type === 'user' && rec.text !== null)
    state.chainPrompt.set(key, rec.text);
  if (rec.uuid !== null) state.chainOf.set(rec.uuid, key);
  return key;
}

function agentKeyOf(state: SessionState, source: LineSource, rec: TranscriptRecord): AgentKey {
  if (source.agentId !== null) return source.agentId;
  if (!rec.isSidechain) return null;
  return rec.agentId ?? sidechainKey(state, rec);
}

function accept(
  state: SessionState,
  source: LineSource,
  line: number,
  rec: TranscriptRecord,
  agentKey?: AgentKey,
): void {
  if (rec.uuid !== null && rec.timestamp !== null && !state.uuidTime.has(rec.uuid))
    state.uuidTime.set(rec.uuid, rec.timestamp);
  // History copied into a fork belongs to the session it came from; a uuid
  // seen before is a line written twice. Both are counted at one place: the
  // first forked line reaching a count of its own threw away accept's
  // optimised code.
  if (rec.forkedFromSessionId !== null || (rec.uuid !== null && state.seenUuids.has(rec.uuid))) {
    state.duplicateLines += 1;
    return;
  }
  if (rec.uuid !== null) state.seenUuids.add(rec.uuid);
  stepStatus(state.live, rec, source.agentId !== null);
  state.entries.push({
    rec,
    agentKey: agentKey === undefined ? agentKeyOf(state, source, rec) : agentKey,
    file: source.file,
    line,
  });
}

function mergeSessionInfo(into: SessionInfo, info: SessionInfo): void {
  const links = info.prLinks;
  Object.assign(into, { ...info, prLinks: into.prLinks });
  if (links === undefined) return;
  into.prLinks ??= [];
  for (const l of links) if (!into.prLinks.some((k) => k.url === l.url)) into.prLinks.push(l);
}

/**
 * One warning per unknown type, at its first line, its count kept up to date:
 * the next format change shows at once without a warning per line.
 */
function countUnknownType(
  state: SessionState,
  source: LineSource,
  line: number,
  type: string,
): void {
  const seen = state.unknownTypes.get(type);
  if (seen === undefined) {
    const warning = { file: source.file, line, reason: unknownTypeReason(type, 1) };
    state.unknownTypes.set(type, { count: 1, warning });
    state.warnings.push(warning);
    return;
  }
  seen.count += 1;
  seen.warning.reason = unknownTypeReason(type, seen.count);
}

const unknownTypeReason = (type: string, count: number): string =>
  `unknown record type "${type}": ${count} line${count === 1 ? '' : 's'} ignored (first here)`;

/** A Workflow call's launch result: its run's agents are linked to the call by it. */
function noteWorkflowRun(state: SessionState, rec: UserRecord): void {
  const launch = rec.workflowLaunch;
  const call = rec.toolResults[0]?.toolUseId;
  if (launch === null || call === undefined || state.workflowRuns.has(launch.runId)) return;
  state.workflowRuns.set(launch.runId, { toolUseId: call, name: launch.name });
}

/** Fold one parsed line into the state. */
export function step(
  state: SessionState,
  source: LineSource,
  line: number,
  outcome: ParseOutcome,
): void {
  if (outcome.kind === 'malformed') {
    state.warnings.push({ file: source.file, line, reason: outcome.reason });
    return;
  }
  if (outcome.kind === 'ignored') {
    state.ignoredLines += 1;
    if (outcome.info !== undefined) {
      mergeSessionInfo(state.sessionInfo, outcome.info);
      state.infoMarks.push({ at: state.entries.length, info: snapshotInfo(state.sessionInfo) });
    }
    if (outcome.unknownType !== undefined)
      countUnknownType(state, source, line, outcome.unknownType);
    if (outcome.costState !== undefined)
      state.costState = { value: outcome.costState, file: source.file, line };
    return;
  }
  const rec = outcome.record;
  if (rec.type === 'user' && rec.workflowLaunch !== null) noteWorkflowRun(state, rec);
  if (rec.type === 'progress') {
    // The line itself is main-thread activity (its embedded copy is accepted below).
    if (rec.forkedFromSessionId === null) stepStatus(state.live, rec, source.agentId !== null);
    if (
      rec.progressAgentId !== null &&
      rec.parentToolUseId !== null &&
      !state.progressLinks.has(rec.progressAgentId)
    ) {
      addProgressLink(state, rec.progressAgentId, rec.parentToolUseId);
    }
    const copy: UserRecord | AssistantRecord | null = rec.embedded;
    if (copy !== null && rec.progressAgentId !== null)
      accept(state, source, line, copy, rec.progressAgentId);
    // The progress line itself only marks time passing in the parent.
    if (rec.timestamp !== null && rec.uuid !== null && !state.uuidTime.has(rec.uuid))
      state.uuidTime.set(rec.uuid, rec.timestamp);
    return;
  }
  accept(state, source, line, rec);
}
