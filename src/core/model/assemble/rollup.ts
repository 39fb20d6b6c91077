// Each response, call and agent, once placed in its turn, is rolled up into
// it (and a sub-agent's responses into the agent): key lists, tokens, end time.
import type { ApiResponse, SubAgent, ToolCall, Turn } from '../session-model.js';
import { addUsage } from './tokens.js';

/** The turns (this segment's from `base` on) and the work to roll up into them. */
export interface SegmentWork {
  turns: Turn[];
  base: number;
  responses: Map<string, ApiResponse>;
  tools: Map<string, ToolCall>;
  agents: Map<string, SubAgent>;
}

export function rollUpWork(work: SegmentWork): void {
  rollUpResponses(work);
  rollUpTools(work);
  rollUpAgents(work);
}

/** A turn of this segment; earlier segments' turns were exported and stay as they are. */
function ownTurn(work: SegmentWork, index: number | null): Turn | undefined {
  return index === null || index < work.base ? undefined : work.turns[index];
}

// Claude Code's side calls (compaction, prompt suggestions, warm-up) are no
// part of the turn's work: they stay out of its tokens, cost and end, and are
// reported on their own (SubAgent.internal; spans.ts exports them apart).
function isInternal(work: SegmentWork, key: string | null): boolean {
  return key !== null && work.agents.get(key)?.internal === true;
}

function rollUpResponses(work: SegmentWork): void {
  for (const r of work.responses.values()) {
    if (r.agentKey !== null) {
      const agent = work.agents.get(r.agentKey);
      if (agent !== undefined) {
        agent.responseKeys.push(r.key);
        addUsage(agent.tokens, r);
      }
    }
    const turn = ownTurn(work, r.turnIndex);
    if (turn === undefined || isInternal(work, r.agentKey)) continue;
    turn.responseKeys.push(r.key);
    addUsage(turn.tokens, r);
    if (r.endTime > turn.endTime) turn.endTime = r.endTime;
  }
}

function rollUpTools(work: SegmentWork): void {
  for (const t of work.tools.values()) {
    const turn = ownTurn(work, t.turnIndex);
    if (turn === undefined) continue;
    turn.toolIds.push(t.id);
    if (t.endTime !== null && t.endTime > turn.endTime && !isInternal(work, t.agentKey))
      turn.endTime = t.endTime;
  }
}

function rollUpAgents(work: SegmentWork): void {
  for (const a of work.agents.values()) {
    const turn = ownTurn(work, a.turnIndex);
    if (turn === undefined) continue;
    turn.agentKeys.push(a.key);
    if (a.endTime !== null && a.endTime > turn.endTime && !a.internal) turn.endTime = a.endTime;
  }
}
