// When a span built from a session still being written is final: no later
// line can change it, so it may leave for the collector once and stay true.
// The one set of rules for `ccotel watch` (docs/spans.md, "When a span is
// final"); `ccotel export` reads finished files and sends everything.
//   execute_tool   its result has landed AND the response that issued it has
//                  written its last line (its tokens are that response's final
//                  usage); an async Agent launch also waits for the agent to stop
//                  and its <task-notification>, a Workflow launch for the latter
//   chat           its thread has moved past the response (the next response,
//                  a prompt, a turn-end record); a sub-agent's last response
//                  once the agent is done
//   invoke_agent   (sub-agent) its call has returned (async: and the agent
//                  stopped and was notified; a teammate: and it answered); an
//                  internal side call once it ended on an answer
//   sub-agent work only once the agent is linked to its spawning call
//   turn root      the turn is provably over (a later real prompt, or a
//                  `turn_duration` record as the main thread's latest work),
//                  no sub-agent it spawned is at work and every side call in it
//                  has ended; every span of the turn is then final
// Two flush modes widen this: `idle` (the session has been quiet past
// --idle-timeout: everything leaves, unfinished work marked incomplete) and
// `final` (shutdown, --once: a turn the transcript shows as ended counts as
// over). A span that changes after it left (work resumed after an idle flush,
// a late fact) is sent again with the same id.
import type { AgentKey, SessionModel, Turn } from '../model/session-model.js';
import { agentSpanIdFor, chatSpanIdFor, nativeSpanIdFor, toolSpanIdFor } from './ids.js';
import { requestSpanIdFor, toolCallSpanIdFor } from './native/native-ids.js';
import type { SpanSchema } from './data.js';
import { endedOnAnswer, type Threads } from './thread-progress.js';

/** normal: the rules above; idle: all leaves; final: ended turns count as over. */
export type FlushMode = 'normal' | 'idle' | 'final';

export interface TurnFinality {
  /** The turn is over and nothing in it waits: every span of it is final. */
  all: boolean;
  /** Span ids final now (all of the turn's when `all`). */
  ready: Set<string> | null;
}

interface AgentView {
  /** Attributes final: the agent is internal or linked to its call. */
  linked: boolean;
  /** Its work is over (its call returned; an async one also stopped; a side call answered). */
  done: boolean;
}

function agentView(model: SessionModel, threads: Threads, key: AgentKey): AgentView {
  if (key === null) return { linked: true, done: false };
  const agent = model.agents.get(key);
  if (agent === undefined) return { linked: false, done: false };
  if (agent.internal) return { linked: true, done: endedOnAnswer(threads, key) };
  const call = agent.toolUseId === null ? undefined : model.tools.get(agent.toolUseId);
  if (call === undefined) return { linked: false, done: false };
  if (call.endTime === null) return { linked: true, done: false };
  // A teammate's spawn returns at once and no notification follows: it is done once it answered.
  if (agent.team !== undefined) return { linked: true, done: endedOnAnswer(threads, key) };
  if (!threads.asyncCalls.has(call.id)) return { linked: true, done: true };
  // A background agent is over once it answered and the main thread was told:
  // its <task-notification> ends the call's span and continues the turn.
  return { linked: true, done: endedOnAnswer(threads, key) && threads.notified.has(call.id) };
}

/**
 * Whether an async launch still runs: its agent is at work, or (a Workflow
 * call, whose run holds many agents) its <task-notification> has not come.
 */
function asyncCallOpen(
  threads: Threads,
  t: { id: string; spawnedAgentKey: AgentKey },
  view: (key: AgentKey) => AgentView,
): boolean {
  if (!threads.asyncCalls.has(t.id)) return false;
  if (t.spawnedAgentKey !== null) return !view(t.spawnedAgentKey).done;
  return !threads.notified.has(t.id);
}

/**
 * Whether a turn must still wait although over: a sub-agent it spawned is at
 * work (an async launch returns at once; the agent's lines keep coming), or a
 * side call in it has not answered yet.
 */
export function turnHolds(model: SessionModel, threads: Threads, turn: Turn): boolean {
  return turn.agentKeys.some((key) => {
    const agent = model.agents.get(key);
    if (agent === undefined) return false;
    if (agent.internal) return !endedOnAnswer(threads, key);
    if (agent.toolUseId === null) return false;
    const view = agentView(model, threads, key);
    return view.linked && !view.done;
  });
}

/** Whether no later line can add work to the turn (see the rules above). */
export function turnOver(
  model: SessionModel,
  threads: Threads,
  turn: Turn,
  mode: FlushMode,
): boolean {
  const isLast = turn.index === model.turns.length - 1 && model.moreTurnsFollow !== true;
  if (!isLast) return true;
  if (mode === 'final' && turn.endState !== 'open') return true;
  return threads.mainEnded;
}

/** The span ids of a response, a call and an agent in each schema (Claude Code's has no agent span). */
interface WorkIds {
  response(key: string): string[];
  call(id: string): string[];
  agent(key: string): string[];
}

const WORK_IDS: Record<SpanSchema, WorkIds> = {
  genai: {
    response: (key) => [chatSpanIdFor(key)],
    call: (id) => [toolSpanIdFor(id)],
    agent: (key) => [agentSpanIdFor(key)],
  },
  'claude-code': {
    response: (key) => [requestSpanIdFor(key)],
    call: (id) => [
      toolCallSpanIdFor(id),
      nativeSpanIdFor('tool.execution', id),
      nativeSpanIdFor('tool.blocked_on_user', id),
    ],
    agent: () => [],
  },
};

/** Which spans of a turn are final now. */
export function turnFinality(
  model: SessionModel,
  threads: Threads,
  turn: Turn,
  mode: FlushMode,
  schema: SpanSchema = 'genai',
): TurnFinality {
  if (mode === 'idle') return { all: true, ready: null };
  const over = turnOver(model, threads, turn, mode);
  // At shutdown a closed turn leaves whole, side calls and all, as before a restart.
  if (over && (mode === 'final' || !turnHolds(model, threads, turn)))
    return { all: true, ready: null };
  return { all: false, ready: readySpanIds(model, threads, turn, schema) };
}

/** Span ids of a turn that is not over whose content is final. */
export function readySpanIds(
  model: SessionModel,
  threads: Threads,
  turn: Turn,
  schema: SpanSchema = 'genai',
): Set<string> {
  const ids = WORK_IDS[schema];
  const ready = new Set<string>();
  const add = (list: string[]): void => {
    for (const id of list) ready.add(id);
  };
  const views = new Map<AgentKey, AgentView>();
  const view = (key: AgentKey): AgentView => {
    let v = views.get(key);
    if (v === undefined) {
      v = agentView(model, threads, key);
      views.set(key, v);
    }
    return v;
  };
  const responseDone = (key: string | null, agentKey: AgentKey): boolean =>
    key === null || threads.doneResponses.has(key) || (agentKey !== null && view(agentKey).done);
  for (const key of turn.responseKeys) {
    const r = model.responses.get(key);
    if (r === undefined) continue;
    if (view(r.agentKey).linked && responseDone(key, r.agentKey)) add(ids.response(key));
  }
  for (const id of turn.toolIds) {
    const t = model.tools.get(id);
    if (t === undefined || t.endTime === null || !view(t.agentKey).linked) continue;
    if (!responseDone(t.responseKey, t.agentKey)) continue;
    if (asyncCallOpen(threads, t, view)) continue;
    add(ids.call(id));
  }
  for (const key of turn.agentKeys) {
    const v = view(key);
    if (v.linked && v.done) add(ids.agent(key));
  }
  return ready;
}
