// Which turn each sub-agent's work belongs to: its spawning call's, a fork's
// `⑂ forked` line's, or (neither) the turn running when it started.
import type { ReadWarning } from '../../view/waterfall-row.js';
import type { ApiResponse, SubAgent, ToolCall, Turn } from '../session-model.js';
import type { ForkMarker } from './records.js';

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
export function placeForks(
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
 * Sub-agent work belongs to the turn of the call that spawned it, at any depth.
 * Returns the agents placed by their start time instead (unlinked, internal),
 * and how many landed in a turn before `base` (an earlier segment's, already
 * exported): those go to the segment's first turn instead.
 */
export function assignAgentTurns(
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
