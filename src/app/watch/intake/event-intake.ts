// File events from the watcher, before and after the start-up scan. Events
// arriving during the scan wait for it (it decides what each session starts
// from), then every event is routed and applied as it comes; a failure is
// logged with its file and the daemon goes on.
import type { WatchEvent } from '../../../adapters/fswatch/dir-watcher.js';
import type { Logger } from '../../../adapters/logger.js';
import type { EventRouter } from './event-router.js';
import type { RouteActions } from './route-actions.js';
import type { RunState } from '../lifecycle/run-state.js';

export class EventIntake {
  private readonly run: RunState;
  private readonly log: Logger;
  private readonly router: EventRouter;
  private readonly actions: RouteActions;
  private scanned = false;
  private readonly buffered: WatchEvent[] = [];

  constructor(run: RunState, log: Logger, router: EventRouter, actions: RouteActions) {
    this.run = run;
    this.log = log;
    this.router = router;
    this.actions = actions;
  }

  /** The watcher's callback (bound: it is passed on as a function). */
  readonly onEvent = (ev: WatchEvent): void => {
    if (!this.scanned) {
      this.buffered.push(ev);
      return;
    }
    this.handle(ev).catch((err: unknown) =>
      this.log.error('cannot process file event', { file: ev.path, error: err }),
    );
  };

  /** The scan is done: what arrived meanwhile is handled now, and events from here on at once. */
  open(): void {
    this.scanned = true;
    for (const ev of this.buffered.splice(0)) this.onEvent(ev);
  }

  private async handle(ev: WatchEvent): Promise<void> {
    if (this.run.stopping) return;
    const route = await this.router.route(ev);
    if (route !== null && !this.run.stopping) await this.actions.apply(route);
  }
}
