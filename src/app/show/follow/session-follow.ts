// One running session followed for `show --follow`: its files tailed through
// the daemon's tailer driver (the same reader and cut as every command), the
// turns that are over cut away behind the open one (so a long session holds
// only its open turn, as the daemon does) and kept as one summary line each,
// and what finished since the last look told once: calls and turns.
import type { PriceTable } from '../../../core/cost/pricing.js';
import type { SessionModel } from '../../../core/model/session-model.js';
import { statusOf, type StatusSnapshot } from '../../../core/session/live-status.js';
import { sessionHeaderOf, type SessionHeader } from '../../../core/view/session-header.js';
import type { WaterfallRow } from '../../../core/view/waterfall-row.js';
import type { SessionFiles } from '../../../adapters/files/session-files.js';
import { SessionTail } from '../../watch/sessions/session-tail.js';
import { viewPart } from '../build-view.js';
import { flattenRows, type TurnSummary } from '../render/waterfall-view.js';

/** A turn as the view draws it (show's summary), with its rows and their counts. */
export interface FollowTurn extends TurnSummary {
  rows: WaterfallRow[];
  calls: number;
  errors: number;
  /** The context fill of the turn's last main-thread call. */
  contextFillPercent: number;
}

export interface FollowSnapshot {
  sessionId: string;
  header: SessionHeader | null;
  status: StatusSnapshot;
  /** Turns that are over, oldest first (at most KEEP_FINISHED). */
  finished: FollowTurn[];
  /** The last turn, while it is open (null when the session waits for a prompt). */
  open: FollowTurn | null;
}

/** Something that finished since the last look: a call (depth: its agent nesting) or a turn. */
export type FollowEvent =
  | { kind: 'call'; turn: number; row: WaterfallRow; depth: number }
  | { kind: 'turn'; turn: FollowTurn };

/** Every turn over by the end of the read may be folded away (see SessionTail.load). */
const FOLD_ALL_HISTORY = { skip: Number.MAX_SAFE_INTEGER, baseline: null };

/** Finished turns kept for the view (the oldest are dropped). */
const KEEP_FINISHED = 50;

/** The model's turns as show builds them (viewPart): the same rows, costs and tokens. */
function turnsOf(model: SessionModel, prices: PriceTable, firstTurn: number): FollowTurn[] {
  const part = viewPart(model, prices, firstTurn);
  const byId = new Map(part.rows.map((r) => [r.id, r]));
  return part.turns.map((t) => {
    const rows = t.rowIds
      .map((id) => byId.get(id))
      .filter((r): r is WaterfallRow => r !== undefined);
    const flat = flattenRows(rows);
    const main = rows.filter((r) => r.parentAgentId === null);
    return {
      ...t,
      rows,
      calls: flat.length,
      errors: flat.filter((f) => f.row.status === 'error').length,
      contextFillPercent: main[main.length - 1]?.contextFillPercent ?? 0,
    };
  });
}

const anyRunning = (rows: readonly WaterfallRow[]): boolean =>
  rows.some((r) => r.status === 'running' || anyRunning(r.children));

export class SessionFollow {
  private readonly tail: SessionTail;
  /** Turns cut away, as they were when they ended. */
  private readonly finished: FollowTurn[] = [];
  private readonly toldCalls = new Set<string>();
  private readonly toldTurns = new Set<number>();
  private pending: FollowEvent[] = [];
  /** The turns held (after those cut away). */
  private held: FollowTurn[] = [];
  private header: SessionHeader | null = null;
  private sessionId: string;

  constructor(
    readonly files: SessionFiles,
    private readonly prices: PriceTable,
  ) {
    this.sessionId = files.sessionId;
    this.tail = new SessionTail(files.mainFile, files.sessionId, {
      prices,
      parse: {},
      passFoldedAgents: true,
    });
    for (const agent of files.agentFiles) this.tail.addFile(agent.file);
    for (const meta of files.metaFiles) this.tail.addFile(meta);
  }

  /**
   * Reads the files as they are now. A long session's turns that are over
   * are folded away as they are read (the daemon's start-up): it starts from
   * its recent turns, in bounded memory.
   */
  async load(): Promise<void> {
    await this.tail.load(FOLD_ALL_HISTORY);
    this.update();
  }

  /** Reads what was appended to one of the session's files (a new agent file is taken in). */
  async changed(path: string): Promise<void> {
    const outcome = await this.tail.ingest(path);
    // A file rewritten under us: read the session again (what was told stays told).
    if (typeof outcome === 'object') {
      this.finished.length = 0;
      await this.tail.load(FOLD_ALL_HISTORY);
    }
    if (outcome !== 'none') this.update();
  }

  /** What finished since the last call, in the order it was read. */
  takeEvents(): FollowEvent[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** Whether a call of the open turn is still running (the view's clocks then tick). */
  get running(): boolean {
    const last = this.held[this.held.length - 1];
    return last !== undefined && last.endState === 'open' && anyRunning(last.rows);
  }

  snapshot(now: number): FollowSnapshot {
    const last = this.held[this.held.length - 1];
    const open = last !== undefined && last.endState === 'open' ? last : null;
    const closed = this.held.filter((t) => t !== open);
    return {
      sessionId: this.sessionId,
      header: this.header,
      status: statusOf(this.tail.state.live, now),
      finished: [...this.finished, ...closed].slice(-KEEP_FINISHED),
      open,
    };
  }

  /** Tells what finished, then cuts away the turns that are over (the daemon's cut). */
  private update(): void {
    const model = this.tail.model();
    this.sessionId = model.sessionId;
    this.header = sessionHeaderOf(model) ?? this.header;
    // The turns cut away are carried in the model without their records: not its own.
    const turns = turnsOf(model, this.prices, this.tail.carry.priorTurns.length);
    for (const turn of turns) {
      for (const { row, depth } of flattenRows(turn.rows)) {
        if (row.status === 'running' || this.toldCalls.has(row.id)) continue;
        this.toldCalls.add(row.id);
        this.pending.push({ kind: 'call', turn: turn.index, row, depth });
      }
      if (turn.endState === 'open' || this.toldTurns.has(turn.index)) continue;
      this.toldTurns.add(turn.index);
      this.pending.push({ kind: 'turn', turn });
    }
    this.held = turns;
    const cut = model.turns.length > 1 ? this.tail.cutBeforeLastTurn(model) : null;
    if (cut === null || !cut.segment.closed) return;
    const gone = new Set(cut.segment.model.turns.map((t) => t.index));
    this.finished.push(...turns.filter((t) => gone.has(t.index)));
    this.finished.splice(0, Math.max(0, this.finished.length - KEEP_FINISHED));
    this.tail.commit(cut);
    this.held = turns.filter((t) => !gone.has(t.index));
  }
}
