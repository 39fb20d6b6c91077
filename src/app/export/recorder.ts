// What an export run records as delivered, and when it writes that down: a
// turn goes into the state file once all its spans were accepted, a session's
// mark once all its turns were (checked when the run ends), and the file is
// saved at most once a second (and at the end), beside delivery.
import type { Clock } from '../../core/clock.js';
import { UserError } from '../../core/user-error.js';
import {
  saveExportState,
  type ExportState,
  type SessionMark,
} from '../../adapters/state/export-state-file.js';
import { inWindow } from './session-marks.js';

/** Least time between two saves of the state file during a run. */
export const SAVE_EVERY_MS = 1000;

/** Writes a state file; the run's is saveExportState into its state dir (tests pass another). */
export type SaveState = (state: ExportState) => Promise<void>;

export class ExportRecorder {
  private dirty = false;
  private lastSave: number;
  /** The save in progress: one at a time (they share a temp file). */
  private saving: Promise<void> | null = null;
  /** A failed periodic save, thrown by the next delivery or at the end. */
  private saveError: unknown = null;
  /** Marks of the sessions read in this run, kept at the end if every turn of each was delivered. */
  private readonly proposed = new Map<string, SessionMark>();

  constructor(
    private readonly state: ExportState,
    private readonly stateDir: string,
    private readonly clock: Clock,
    private readonly save: SaveState = (s) => saveExportState(stateDir, s),
  ) {
    this.lastSave = clock.monotonic();
  }

  /** Whether this turn, with this digest, was delivered by an earlier run. */
  delivered(traceId: string, digest: string): boolean {
    return this.state.turns[traceId] === digest;
  }

  /** Whether the state file holds any turn (a read-only run then compares digests). */
  get holdsTurns(): boolean {
    return Object.keys(this.state.turns).length > 0;
  }

  /** The digest this turn was delivered with, if any. */
  recorded(traceId: string): string | undefined {
    return this.state.turns[traceId];
  }

  /** The mark of the session whose main file this is, if any. */
  markOf(mainFile: string): SessionMark | undefined {
    return this.state.sessions[mainFile];
  }

  /** Whether any session has a mark (a read-only run then stamps files to compare). */
  get holdsMarks(): boolean {
    return Object.keys(this.state.sessions).length > 0;
  }

  /**
   * A session read whole in this run: its old mark no longer says what was
   * read, and this one is kept at the end only if all its turns were delivered.
   */
  propose(mainFile: string, mark: SessionMark | null): void {
    if (this.state.sessions[mainFile] !== undefined) {
      delete this.state.sessions[mainFile];
      this.dirty = true;
    }
    if (mark !== null) this.proposed.set(mainFile, mark);
  }

  /** A session whose main file is gone: its mark goes (its delivered turns stay recorded). */
  forget(mainFile: string): void {
    if (this.state.sessions[mainFile] === undefined) return;
    delete this.state.sessions[mainFile];
    this.dirty = true;
  }

  /** Main files of the sessions with a mark. */
  markedSessions(): string[] {
    return Object.keys(this.state.sessions);
  }

  record(traceId: string, digest: string): void {
    this.state.turns[traceId] = digest;
    this.dirty = true;
  }

  /**
   * After a delivery: throws a failed save's error, and starts a save when a
   * second has passed. Saved at most once a second: a run that dies resends
   * only the turns of its last second, with the same ids. Saving after every
   * batch rewrote and fsynced the whole file each time, quadratic in the
   * turns (docs/benchmarks.md). The save runs beside delivery: on a busy disk
   * its fsync is time in which neither conversion nor sending would go on.
   */
  paced(): void {
    this.throwSaveError();
    if (!this.dirty || this.saving !== null) return;
    if (this.clock.monotonic() - this.lastSave < SAVE_EVERY_MS) return;
    this.lastSave = this.clock.monotonic();
    this.saving = this.write().then(
      () => {
        this.saving = null;
      },
      (err: unknown) => {
        this.saving = null;
        this.saveError = err;
      },
    );
  }

  /** At the end of a run: waits for a save in progress, then writes what is left. */
  async finish(): Promise<void> {
    await this.saving;
    this.throwSaveError();
    this.keepDeliveredMarks();
    if (this.dirty) await this.write();
  }

  /** The proposed marks whose every turn in the window is recorded with its digest now. */
  private keepDeliveredMarks(): void {
    for (const [mainFile, mark] of this.proposed) {
      const delivered = mark.turns.every(
        ([traceId, start, digest]) =>
          !inWindow(start, mark.since) || this.state.turns[traceId] === digest,
      );
      if (!delivered) continue;
      this.state.sessions[mainFile] = mark;
      this.dirty = true;
    }
    this.proposed.clear();
  }

  /** When the run fails: records what was delivered, swallowing save errors (the run's own goes on). */
  async abandon(): Promise<void> {
    await this.saving;
    this.saveError = null;
    await this.finish().catch(() => undefined);
  }

  /** Marked clean first: turns recorded while it is written are saved next time. */
  private async write(): Promise<void> {
    this.dirty = false;
    try {
      await this.save(this.state);
    } catch (err) {
      this.dirty = true;
      throw new UserError(
        `cannot write the state file in ${this.stateDir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (delivered turns will be resent next time, with the same ids)`,
        'failed',
      );
    }
  }

  private throwSaveError(): void {
    if (this.saveError === null) return;
    const err = this.saveError;
    this.saveError = null;
    throw err;
  }
}
