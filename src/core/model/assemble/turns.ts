// The turns of a segment: opened by the main thread's prompts, carrying the
// session info as it stood, and how each one ended.
import type { TranscriptRecord, UserRecord } from '../../transcript/records.js';
import type { Entry, SessionState } from '../../session/state.js';
import type { ToolCall, Turn } from '../session-model.js';
import { classifyTurnEnd } from '../../session/turn-end.js';
import { isTurnWorkSystem } from '../../session/turn-lifecycle.js';
import { isInterruptMarker, isRealPrompt } from '../../session/prompts.js';
import { localCommandRole, type LocalCommandTracker } from '../../session/local-command.js';
import { DEFAULT_CONTEXT_WINDOW } from '../context-window.js';
import { emptyTotals } from './tokens.js';
import { closeAbandoned } from './tools.js';

/** Records that are the turn's own work (or mark its end), as opposed to bookkeeping. */
function isTurnWork(rec: TranscriptRecord): boolean {
  if (rec.type === 'assistant') return true;
  if (rec.type === 'system') return isTurnWorkSystem(rec);
  if (rec.type !== 'user' || rec.isCompactSummary) return false;
  return (
    rec.toolResults.length > 0 ||
    rec.notifiesToolUseId !== null ||
    rec.teammate !== null ||
    isInterruptMarker(rec) ||
    isRealPrompt(rec)
  );
}

/** Assign main-thread entries to turns, in file order. */
export function buildTurns(
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
    const prompt = !local && isRealPrompt(rec) ? rec : null;
    const activity =
      rec.type === 'assistant' || (rec.type === 'user' && rec.toolResults.length > 0);
    if (prompt !== null || (current === null && activity && rec.timestamp !== null)) {
      current = newTurn(turns.length, entry, prompt);
      turns.push(current);
    }
    if (current === null) return;
    turnOf[i] = current.index;
    // A turn ends with its own work: a /exit typed or a compaction run minutes
    // later belongs to no turn and must not stretch this one.
    if (rec.timestamp !== null && rec.timestamp > current.endTime && !local && isTurnWork(rec))
      current.endTime = rec.timestamp;
    if (rec.type === 'user' && rec.teammate !== null)
      (current.teammateMessages ??= []).push(rec.teammate);
    current.cwd ??= rec.cwd;
    current.gitBranch ??= rec.gitBranch;
    current.version ??= rec.version;
  });
  return { turnOf, turns };
}

/** The turn `entry` opens: by its prompt, or (`prompt` null) by activity. */
function newTurn(index: number, entry: Entry, prompt: UserRecord | null): Turn {
  const rec = entry.rec;
  return {
    index,
    ...originOf(prompt),
    promptUuid: rec.uuid ?? `${entry.file}:${entry.line}`,
    promptText: prompt === null ? null : prompt.text,
    promptLength: prompt === null ? null : prompt.textLength,
    entrypoint: prompt === null ? null : prompt.entrypoint,
    sessionKind: prompt === null ? null : prompt.sessionKind,
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

/**
 * Each turn of this segment carries the session info as it stood before the
 * next turn's first record (the last turn: all of it read so far).
 */
export function assignTurnInfo(
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
 * How each turn of this segment ended, read from its main-thread records and
 * its calls still running; an interrupted turn's running calls end with it.
 * `sessionEnds`: no prompt follows these entries, so their last turn may be open.
 */
export function classifyTurnEnds(
  turns: Turn[],
  base: number,
  entries: Entry[],
  turnOf: Int32Array,
  tools: Map<string, ToolCall>,
  sessionEnds: boolean,
): void {
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
      index === turns.length - 1 && sessionEnds,
    );
    turn.endState = verdict.state;
    turn.errorType = verdict.errorType;
    if (verdict.state === 'interrupted') closeAbandoned(turn, tools);
  }
}
